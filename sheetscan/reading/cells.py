"""Cell features: what the classifiers see of each garden cell in the canonical image.

Patches are ink maps (ink.py) normalised to the local paper, so uneven light and shadow do
not matter.
"""

from __future__ import annotations

import cv2
import numpy as np

from sheetscan.design.layout import Layout, load_layout
from sheetscan.reading.ink import local_ink_map
from sheetscan.reading.rectify import CANONICAL_PX_PER_MM
from sheetscan.game.rules import GRID_SIZE

DECORATION_MARGIN = 0.08  # share of a cell added on each side: sloppy glyphs spill over
WATER_MARGIN = 0.25  # water needs context: the neighbours' outlines along the shared side
PATCH_PX = 48  # decoration patches are PATCH_PX x PATCH_PX
WATER_PATCH_PX = 64  # water patches are larger: outlines run close to the grid lines
PAPER_WINDOW_CELLS = 0.5  # a garden pixel's paper: the brightest within half a cell


def garden_patches(canonical: np.ndarray, margin: float, size: int = PATCH_PX, layout: Layout | None = None,
                   px_per_mm: float = CANONICAL_PX_PER_MM) -> np.ndarray:
    """(36, size, size) float32 ink patches of the garden's cells in reading order, each grown
    by ``margin`` of a cell on every side."""
    layout = layout or load_layout()
    garden = layout.region("garden")
    cell_px = garden.w / GRID_SIZE * px_per_mm
    # Scale the garden and its surround once so that a patch is exactly ``size`` pixels.
    factor = size / ((1 + 2 * margin) * cell_px)
    reach = margin * cell_px + 2
    x0, y0 = garden.x * px_per_mm - reach, garden.y * px_per_mm - reach
    side = garden.w * px_per_mm + 2 * reach
    affine = np.array([[factor, 0, -x0 * factor], [0, factor, -y0 * factor]], np.float32)
    out = int(np.ceil(side * factor))
    scaled = cv2.warpAffine(canonical, affine, (out, out), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    step = cell_px * factor
    ink = local_ink_map(scaled, int(round(PAPER_WINDOW_CELLS * step)))
    start = 2 * factor  # the patch of cell (r, c) starts at the cell's corner less the margin
    patches = np.empty((GRID_SIZE * GRID_SIZE, size, size), np.float32)
    for index in range(GRID_SIZE * GRID_SIZE):
        r, c = divmod(index, GRID_SIZE)
        top, left = int(round(start + r * step)), int(round(start + c * step))
        patches[index] = ink[top : top + size, left : left + size]
    return patches
