"""Claim a grid as a sheet: the layout's outlined boxes, looked for where a fit puts them.

A 6x6 grid alone is no sheet of this game (a bare grid, a calendar, another design's garden).
The boxes every sheet prints with a dark outline (turn boxes, scoring boxes, the name line)
are looked for where the layout puts them: an ink profile across each side, sampled in the
photo and averaged along the side's middle. A side is a ridge of ink over what lies beside it,
so a thin grey side blurred over a coarse pixel still counts; a box is found when all 4 of its
sides are.
"""

from __future__ import annotations

import cv2
import numpy as np

from sheetscan.design.layout import Layout, Region
from sheetscan.reading.outlines import scale_at

BOX_SEARCH_MM = 2.5  # how far from where the layout puts it a box's side is looked for (a layout made
# from a photo is off by this much far from the garden)
BOX_REFINE_MM = 1.5  # only boxes whose sides all lie this close refine the fit (further, a side may be a sub-box's)
BOX_SIZE_TOLERANCE_MM = 0.5  # and that are found this close to their size: a box found wider or narrower
# has a side on another line (a neighbour's 1.3 mm away on the pad, a sub-box's)
BOX_PROFILE_MM = 4.0  # the profile across a side reaches this far each way
BOX_PROFILE_STEP_MM = 0.1  # finer than any printed line
BOX_ALONG_SAMPLES = 10  # profiles averaged along a side's middle (digits inside a box cross few)
MIN_BOX_INK = 0.05  # ink of a side's ridge (below) for it to count, on a photo this fine or finer;
BOX_INK_FULL_PX_PER_MM = 3.0  # coarser, in proportion (see docs/locating.md)
BOX_RIDGE_PX = 2.5  # a side's ridge: its ink above the mean of the ink this many photo pixels each way,
BOX_RIDGE_MIN_MM = 0.9  # and at least this far (past the widest printed outline, 0.8 mm)
OUTLINED_KINDS = ("turn", "score", "name")  # boxes every sheet prints with a dark outline


def _side_profiles(gray: np.ndarray, page_to_photo: np.ndarray, boxes: list[Region]) -> tuple[np.ndarray, np.ndarray]:
    """Ink profiles across each side (left, top, right, bottom) of each box, sampled in the
    photo where ``page_to_photo`` puts them and averaged along the side's middle:
    (boxes, 4, samples) ink (0 paper, 1 ink) against the profile's brightest, and (boxes, 4)
    whether the part of the profile where the side is looked for lies inside the photo (a side
    near the page's edge, on a photo cropped to the page, is still seen)."""
    across = np.arange(-BOX_PROFILE_MM, BOX_PROFILE_MM + 1e-9, BOX_PROFILE_STEP_MM)
    along = np.linspace(0.15, 0.85, BOX_ALONG_SAMPLES)
    x0, y0, x1, y1 = (np.array([[b.x, b.y, b.x + b.w, b.y + b.h] for b in boxes]).T[..., None, None])
    a, c = along[:, None], across[None, :]
    points = np.empty((len(boxes), 4, len(along), len(across), 2), np.float32)  # filled in place: no stacked copies
    points[:, 0, ..., 0], points[:, 2, ..., 0] = x0 + c, x1 + c
    points[:, 1, ..., 0] = points[:, 3, ..., 0] = x0 + a * (x1 - x0)
    points[:, 0, ..., 1] = points[:, 2, ..., 1] = y0 + a * (y1 - y0)
    points[:, 1, ..., 1], points[:, 3, ..., 1] = y0 + c, y1 + c
    points = cv2.perspectiveTransform(points.reshape(-1, 1, 2), page_to_photo).reshape(points.shape)
    height, width = gray.shape
    searched = points[:, :, :, np.abs(across) <= BOX_SEARCH_MM]
    inside = ((searched[..., 0] >= 0) & (searched[..., 0] <= width - 1) & (searched[..., 1] >= 0)
              & (searched[..., 1] <= height - 1)).all(axis=(2, 3))
    values = cv2.remap(gray, points[..., 0].reshape(-1, len(across)), points[..., 1].reshape(-1, len(across)),
                       cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    profiles = values.reshape(points.shape[:-1]).astype(np.float32).mean(axis=2)
    paper = np.maximum(profiles.max(axis=2, keepdims=True), 1.0)
    return (paper - profiles) / paper, inside


def _ridges(ink: np.ndarray, reach_mm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The offsets (mm) within BOX_SEARCH_MM of where the layout puts a side, each side's ink
    there and its ridge: its ink above the mean of the ink ``reach_mm`` each way. A thin line,
    blurred, still stands out of what lies beside it, where the page's shading, the digits in
    the box and a neighbour's blur raise the whole profile and its median with it."""
    across = np.arange(ink.shape[-1]) * BOX_PROFILE_STEP_MM - BOX_PROFILE_MM
    near = np.flatnonzero(np.abs(across) <= BOX_SEARCH_MM)
    step = int(round(reach_mm / BOX_PROFILE_STEP_MM))
    return across[near], ink[..., near], ink[..., near] - (ink[..., near - step] + ink[..., near + step]) / 2


def _side_offsets(ink: np.ndarray, inside: np.ndarray, min_ink: float, reach_mm: float) -> np.ndarray:
    """(boxes, 4) how far (mm) each side's darkest point near where the layout puts it lies
    from there; NaN where no ridge (_ridges) near there reaches ``min_ink`` (or the side lies
    outside the photo)."""
    offsets, ink_near, ridge = _ridges(ink, reach_mm)
    return np.where((ridge.max(axis=-1) >= min_ink) & inside, offsets[np.argmax(ink_near, axis=-1)], np.nan)


def _ridge_settings(px_per_mm: float) -> tuple[float, float]:
    """The least ridge of a side and the ridge's reach (mm) on a photo of ``px_per_mm``: a thin
    side blurred over a coarse pixel shows less ink, in proportion; the reach stays inside the
    profile."""
    min_ink = MIN_BOX_INK * min(1.0, px_per_mm / BOX_INK_FULL_PX_PER_MM)
    return min_ink, float(np.clip(BOX_RIDGE_PX / px_per_mm, BOX_RIDGE_MIN_MM, BOX_PROFILE_MM - BOX_SEARCH_MM))


def box_offsets(gray: np.ndarray, page_to_photo: np.ndarray, boxes: list[Region], px_per_mm: float) -> np.ndarray:
    """(boxes, 2) how far (mm, across and down) each of ``boxes`` lies from where
    ``page_to_photo`` puts it: where its left and right sides (its top and bottom) are found
    together, the shift within BOX_SEARCH_MM where the two are strongest, each taken within half
    BOX_SIZE_TOLERANCE_MM of it (a box may show a little wider or narrower than drawn), and the
    middle of their peaks there; NaN where no shift shows both. Together: a side alone may take
    another line 2 mm away (a turn box's neighbour on the pad, the next row's box on the
    print-and-play sheet, a sub-box inside), which the other side does not follow.
    ``px_per_mm``: how fine the photo shows the page (_ridge_settings)."""
    min_ink, reach_mm = _ridge_settings(px_per_mm)
    ink, inside = _side_profiles(gray, page_to_photo, boxes)
    offsets, _, ridge = _ridges(ink, reach_mm)
    half = int(round(BOX_SIZE_TOLERANCE_MM / 2 / BOX_PROFILE_STEP_MM))
    padded = np.pad(ridge, [(0, 0), (0, 0), (half, half)], constant_values=-np.inf)
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1, axis=-1)  # (boxes, 4, shifts, window)
    nearby = windows.max(axis=-1)
    peaks = offsets[np.clip(np.arange(len(offsets)) - half + windows.argmax(axis=-1), 0, len(offsets) - 1)]
    shifts = np.full((len(boxes), 2), np.nan)
    for axis, (first, second) in enumerate(((0, 2), (1, 3))):
        both = np.minimum(nearby[:, first], nearby[:, second]) >= min_ink
        best = np.argmax(np.where(both, nearby[:, first] + nearby[:, second], -np.inf), axis=-1)
        seen = both.any(axis=-1) & inside[:, first] & inside[:, second]
        rows = np.flatnonzero(seen)
        shifts[seen, axis] = (peaks[rows, first, best[seen]] + peaks[rows, second, best[seen]]) / 2
    return shifts


def outlined_regions(layout: Layout) -> list[Region]:
    """The boxes ``layout`` prints with a dark outline (OUTLINED_KINDS), in its order."""
    return [region for region in layout.regions if region.kind in OUTLINED_KINDS]


def outlined_boxes(gray: np.ndarray, page_to_photo: np.ndarray, layout: Layout) -> tuple[float, list[tuple[np.ndarray, np.ndarray]]]:
    """Share of the layout's outlined boxes found whole (all 4 sides) where ``page_to_photo``
    puts them, and those found close as (corners in layout millimetres, where found). Another
    design of this game shows 3 sides of many of them by chance (on 16 photos, 55% to 77%
    of its boxes), all 4 of fewer (on 1,000 sheets of either design fitted by the other's
    layout at their true place, at most 59%; see docs/locating.md)."""
    boxes = outlined_regions(layout)
    min_ink, reach_mm = _ridge_settings(scale_at(page_to_photo, layout.region("garden").center))
    offsets = _side_offsets(*_side_profiles(gray, page_to_photo, boxes), min_ink, reach_mm)
    found_sides = np.isfinite(offsets).sum(axis=1)
    corners = []
    for region, (left, top, right, bottom) in zip(boxes, offsets, strict=True):
        sides = np.array([left, top, right, bottom])
        if (np.isfinite(sides).all() and np.abs(sides).max() <= BOX_REFINE_MM
                and abs(right - left) <= BOX_SIZE_TOLERANCE_MM and abs(bottom - top) <= BOX_SIZE_TOLERANCE_MM):
            layout_corners = np.array([[region.x, region.y], [region.x + region.w, region.y],
                                       [region.x + region.w, region.y + region.h], [region.x, region.y + region.h]])
            seen = layout_corners + np.array([[left, top], [right, top], [right, bottom], [left, bottom]])
            corners.append((layout_corners, seen))
    return float(np.mean(found_sides == 4)), corners


def same_design(layout: Layout, other: Layout) -> bool:
    """Whether ``other`` puts every outlined box of ``layout`` where ``layout`` does, in the
    garden's frame (scaled to its cells), within BOX_SEARCH_MM: a layout made from a photo of a
    design is that design."""
    def in_garden(region: Region, of: Layout) -> np.ndarray:
        garden = of.region("garden")
        return np.array([region.x - garden.x, region.y - garden.y, region.x + region.w - garden.x,
                         region.y + region.h - garden.y])

    scale = layout.region("garden").w / other.region("garden").w
    names = {region.name for region in other.regions}
    for region in outlined_regions(layout):
        if region.name not in names:
            return False
        theirs = in_garden(other.region(region.name), other) * scale
        if np.abs(theirs - in_garden(region, layout)).max() > BOX_SEARCH_MM:
            return False
    return True
