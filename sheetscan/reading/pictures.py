"""Pictures of the reading stages for ``--debug``: the sheets found, the water read, each
cell's reading and points.

All functions take a grey image and return a new BGR image; nothing is drawn in place.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from sheetscan.files import write_atomically
from sheetscan.design.layout import Layout, Region
from sheetscan.game.garden import Garden
from sheetscan.game.rules import GRID_SIZE
from sheetscan.game.score import Score
from sheetscan.reading.locate import Located
from sheetscan.reading.read import REVIEW_BELOW, GardenReading
from sheetscan.reading.rectify import CANONICAL_PX_PER_MM

WATER_TINT = (255, 170, 60)  # BGR
GOOD = (40, 150, 40)
DOUBT = (0, 0, 230)
FONT = cv2.FONT_HERSHEY_SIMPLEX


def region_box(region: Region) -> tuple[int, int, int, int]:
    """(x, y, w, h) of a layout region in the canonical image's pixels."""
    s = CANONICAL_PX_PER_MM
    return int(region.x * s), int(region.y * s), int(region.w * s), int(region.h * s)


def save_picture(path: Path, image: np.ndarray) -> None:
    """Write ``image`` (PNG by the suffix) whole or not at all; OSError if it cannot be."""

    def write(temporary: Path) -> None:
        if not cv2.imwrite(str(temporary), image):
            raise OSError(f"cannot write the picture {path}")

    write_atomically(path, write)


def draw_located(gray: np.ndarray, located: Located, layout: Layout) -> np.ndarray:
    """The photo with each fitted sheet's outline, its number, what found it and the fit error;
    a sheet found by its grid shows the grid lines found."""
    image = cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
    thickness = max(2, max(gray.shape) // 400)
    for number, sheet in enumerate(located.sheets, start=1):
        corners = sheet.page_corners(layout)
        cv2.polylines(image, [np.round(corners).astype(np.int32)], True, GOOD, thickness, cv2.LINE_AA)
        if sheet.grid_lines is not None:
            for start, end in sheet.grid_lines.reshape(-1, 2, 2):
                cv2.line(image, tuple(np.round(start).astype(int)), tuple(np.round(end).astype(int)), DOUBT,
                         max(1, thickness // 2), cv2.LINE_AA)
        cue = f"markers {','.join(map(str, sheet.marker_ids))}" if sheet.found_by == "markers" else "grid"
        label = f"sheet {number}: {cue}, fit error {sheet.alignment_error_px:.1f} px"
        origin = tuple(int(v) for v in corners[0])
        cv2.putText(image, label, origin, FONT, thickness / 2, GOOD, thickness, cv2.LINE_AA)
    return image


def draw_water(canonical: np.ndarray, garden: Garden, water_probability: np.ndarray, layout: Layout) -> np.ndarray:
    """The rectified sheet with ``garden``'s water cells tinted and each cell's water probability."""
    image = cv2.cvtColor(canonical, cv2.COLOR_GRAY2BGR)
    tint = image.copy()
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            x, y, w, h = region_box(layout.cell(r, c))
            if garden.is_water((r, c)):
                cv2.rectangle(tint, (x, y), (x + w, y + h), WATER_TINT, -1)
            probability = water_probability[r, c]
            close = min(probability, 1 - probability) > 1 - REVIEW_BELOW
            cv2.putText(image, f"{probability:.2f}", (x + 4, y + h - 6), FONT, 0.45, DOUBT if close else GOOD, 1, cv2.LINE_AA)
    return cv2.addWeighted(tint, 0.35, image, 0.65, 0)


def draw_cells(canonical: np.ndarray, garden: Garden, reading: GardenReading, garden_score: Score,
               layout: Layout) -> np.ndarray:
    """The rectified sheet with each cell's decoded reading, confidence and points; doubts in red."""
    image = draw_water(canonical, garden, reading.water_probability, layout)
    confidence = reading.cell_confidence()
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            x, y, w, h = region_box(layout.cell(r, c))
            decoration = garden.decoration((r, c))
            name = decoration.category if decoration else "empty"
            if (r, c) in garden.tree_late:
                name += "*"
            colour = GOOD if confidence[r, c] >= REVIEW_BELOW else DOUBT
            cv2.putText(image, name, (x + 4, y + 16), FONT, 0.45, colour, 1, cv2.LINE_AA)
            points = garden_score.cells[r][c].points
            cv2.putText(image, f"{points:+d}", (x + w - 30, y + 16), FONT, 0.5, colour, 2, cv2.LINE_AA)
            if confidence[r, c] < REVIEW_BELOW:
                cv2.rectangle(image, (x + 2, y + 2), (x + w - 2, y + h - 2), DOUBT, 2)
    return image
