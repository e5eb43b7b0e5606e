"""Rectify: a located sheet warped to the canonical image, in layout coordinates.

The canonical image has ``CANONICAL_PX_PER_MM`` pixels per millimetre; its pixel (col, row)
centre lies at layout millimetres ((col + 0.5) / s, (row + 0.5) / s).
"""

from __future__ import annotations

import cv2
import numpy as np

from sheetscan.design.layout import Layout, Region, load_layout
from sheetscan.reading.locate import SheetLocation

CANONICAL_PX_PER_MM = 5.0


def canonical_from_mm(px_per_mm: float = CANONICAL_PX_PER_MM) -> np.ndarray:
    """(3, 3) map from layout millimetres to canonical pixel-centre coordinates."""
    return np.array([[px_per_mm, 0, -0.5], [0, px_per_mm, -0.5], [0, 0, 1]])


def rectify(gray: np.ndarray, location: SheetLocation, layout: Layout | None = None,
            px_per_mm: float = CANONICAL_PX_PER_MM) -> np.ndarray:
    """The sheet warped from the photo ``gray`` ((h, w) uint8) to the canonical image."""
    layout = layout or load_layout()
    width, height = (round(side * px_per_mm) for side in layout.page_mm)
    photo_from_canonical = location.homography @ np.linalg.inv(canonical_from_mm(px_per_mm))
    if location.px_per_mm > 1.5 * px_per_mm:  # shrink first, so the warp does not alias
        factor = 1.2 * px_per_mm / location.px_per_mm
        gray = cv2.resize(gray, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
        photo_from_canonical = np.diag([factor, factor, 1.0]) @ photo_from_canonical
    return cv2.warpPerspective(gray, photo_from_canonical, (width, height),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=255)


def crop(canonical: np.ndarray, region: Region, *, margin: float = 0.0,
         px_per_mm: float = CANONICAL_PX_PER_MM) -> np.ndarray:
    """The pixels of ``region`` grown by ``margin`` (a share of its size) on every side."""
    x0 = int(round((region.x - margin * region.w) * px_per_mm))
    y0 = int(round((region.y - margin * region.h) * px_per_mm))
    x1 = int(round((region.x + region.w * (1 + margin)) * px_per_mm))
    y1 = int(round((region.y + region.h * (1 + margin)) * px_per_mm))
    return canonical[max(y0, 0) : y1, max(x0, 0) : x1]
