"""Register: the layout's boxes placed where their printed outlines lie on the rectified sheet.

A sheet is rectified by one homography: fitted by its corner markers, which bracket every box,
or by its garden grid, which does not. A phone's lens bends the page, which no homography
follows: on a sheet found by its grid (the pad) the boxes at the page's foot, 80 mm beyond the
garden, lie up to 2 mm off where the fit puts them, and a written 0 read through a crop that
takes in its box's line reads as 9. Each outlined box (claim.outlined_regions) is looked for
about where the layout puts it (claim.box_offsets); the offsets found are smoothed into a
field over the page (a quadratic in each direction, the boxes that stray from it left out),
and every box the networks read is moved by it: an outlined box to where it was found when
that agrees with the field, else where the field puts it; its parts with it; a leaf or a pond
icon where the field puts it. The garden is not moved: its cells are read on the grid's own fit.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sheetscan.design.layout import TURN_PARTS, Layout, Region
from sheetscan.reading.claim import BOX_PROFILE_STEP_MM, box_offsets, outlined_regions
from sheetscan.reading.rectify import CANONICAL_PX_PER_MM, canonical_from_mm

FIELD_TOLERANCE_MM = 0.5  # a box found further than this from the field is another line's, left out of it
MIN_FOUND_PER_TERM = 2  # boxes found per term of the field fitted (else fewer terms: the field's first 3, then 1)
# A box's outline is measured to within a pixel of the rectified sheet (a thick one's middle on
# a sheet rendered in place: up to 0.2 mm off), so a box found within a pixel of where the fit
# puts it stays there, and one found further is moved (offsets come in steps of half the
# profile's: the middle of two peaks). The boxes' networks trained on crops the fit placed, and a
# digit they are unsure of may read otherwise a pixel off (a flat scan's turn box measured 0.2 mm
# off, moved, left its sheet unsure)
LEAST_SHIFT_MM = 1 / CANONICAL_PX_PER_MM + BOX_PROFILE_STEP_MM / 4
MARKED_KINDS = ("leaf", "pond_icon")  # read boxes without an outline of their own: moved by the field


def _terms(points: np.ndarray, size: tuple[float, float], count: int) -> np.ndarray:
    """(n, count) the field's terms at ``points`` (mm) on a page of ``size``: 1, x, y, x², xy, y²
    (x and y as shares of the page), the first ``count`` of them."""
    x, y = points[:, 0] / size[0], points[:, 1] / size[1]
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)[:, :count]


def offset_field(centres: np.ndarray, offsets: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    """(n, 2) the smooth field of ``offsets`` ((n, 2) mm, NaN where not found) at ``centres``
    ((n, 2) mm) on a page of ``size``: per direction a least-squares quadratic (fewer terms where
    few boxes were found; none found, no offset), the box that strays most from it left out in
    turn until none strays over FIELD_TOLERANCE_MM; never beyond the offsets it was fitted to."""
    field = np.zeros_like(offsets)
    for axis in range(2):
        kept = np.isfinite(offsets[:, axis])
        while kept.any():
            count = next((c for c in (6, 3, 1) if kept.sum() >= MIN_FOUND_PER_TERM * c), 1)
            coefficients = np.linalg.lstsq(_terms(centres[kept], size, count), offsets[kept, axis], rcond=None)[0]
            # within the offsets it was fitted to: a box far from every box found (the name line
            # above the garden, where only the rows at the foot were found) is not extrapolated to
            found = offsets[kept, axis]
            field[:, axis] = np.clip(_terms(centres, size, count) @ coefficients, found.min(), found.max())
            strays = np.where(kept, np.abs(offsets[:, axis] - field[:, axis]), 0.0)
            if strays.max() <= FIELD_TOLERANCE_MM:
                break
            kept[np.argmax(strays)] = False
    return field


def registered_layout(canonical: np.ndarray, layout: Layout, photo_px_per_mm: float) -> Layout:
    """``layout`` with the boxes the networks read moved to where they lie on ``canonical`` (the
    rectified sheet; rectify.py), seen in a photo of ``photo_px_per_mm``."""
    outlined = outlined_regions(layout)
    marked = [region for region in layout.regions if region.kind in MARKED_KINDS]
    found = box_offsets(canonical, canonical_from_mm(), outlined, min(photo_px_per_mm, CANONICAL_PX_PER_MM))
    centres = np.array([region.center for region in outlined + marked])
    field = offset_field(centres, np.concatenate([found, np.full((len(marked), 2), np.nan)]), layout.page_mm)
    own = np.abs(found - field[: len(outlined)]) <= FIELD_TOLERANCE_MM  # NaN compares False
    placed = np.concatenate([np.where(own, found, field[: len(outlined)]), field[len(outlined):]])
    placed[np.abs(placed) < LEAST_SHIFT_MM] = 0.0
    shifts = {region.name: shift for region, shift in zip(outlined + marked, placed, strict=True)}
    shifts.update((layout.turn_part(index, part).name, shifts[f"turn_{index}"])  # a turn box's parts move with it
                  for index in range(len(layout.of_kind("turn"))) for part in TURN_PARTS)

    def moved(region: Region) -> Region:
        if region.name not in shifts:
            return region
        dx, dy = shifts[region.name]
        return replace(region, x=region.x + float(dx), y=region.y + float(dy))

    return replace(layout, regions=tuple(moved(region) for region in layout.regions))
