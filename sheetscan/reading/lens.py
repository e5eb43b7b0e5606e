"""The lens: a phone's lens bends straight lines (radial distortion) that no homography follows.

One parameter ``k`` of the division model: a photo pixel q shows the point c + (q - c)(1 + k
|q - c|^2 / R^2) of a straight-line view, c the photo's centre and R its half diagonal. The
garden's inner crossings lie on a plane grid, so ``k`` is the one whose undistorted photo puts
them closest to one homography of it (docs/locating.md).
"""

from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

from sheetscan.game.rules import GRID_SIZE
from sheetscan.reading.outlines import fit_homography

LENS_KS = np.linspace(-0.08, 0.08, 17)  # lens parameters tried (phones bend up to about 0.04), then refined
MAP_STEP_PX = 8  # the undistortion map is computed on a grid this coarse and interpolated
MAX_BEND_LEFT = 0.5  # a lens is straightened only where some k leaves at most this share of the grid's bend


def shown_at(straight: np.ndarray, k: float, size: tuple[float, float], iterations: int = 8) -> np.ndarray:
    """(..., 2) the photo pixels where a lens of parameter ``k`` shows the points ``straight``
    of the straight view, in a photo of ``size`` (width, height): the model's inverse, found as
    a fixed point (quick for small k)."""
    centre = np.array(size, float) / 2
    radius2 = float(centre @ centre)
    seen = np.array(straight, copy=True)
    for _ in range(iterations):
        offset = seen - centre
        seen = centre + (straight - centre) / (1 + k * (offset * offset).sum(axis=-1, keepdims=True) / radius2)
    return seen


def field_points(origin: tuple[int, int], size: tuple[int, int], step: int) -> np.ndarray:
    """(rows, columns, 2) the pixels (x, y) of a coarse field over ``size`` (width, height) from
    ``origin``: where cv2.resize, scaling it up by ``step`` (it aligns pixel centres), puts
    its samples, so that the field upsampled (``upsampled``) is exact at every pixel centre."""
    half = (step - 1) / 2
    columns, rows = -(-size[0] // step), -(-size[1] // step)
    xs = origin[0] + half + step * np.arange(columns, dtype=float)
    ys = origin[1] + half + step * np.arange(rows, dtype=float)
    return np.stack(np.meshgrid(xs, ys), axis=-1)


def upsampled(field: np.ndarray, size: tuple[int, int], step: int) -> np.ndarray:
    """A coarse (rows, columns, ...) float32 field of ``field_points`` at every pixel of ``size``."""
    rows, columns = field.shape[:2]
    return cv2.resize(field, (columns * step, rows * step), interpolation=cv2.INTER_LINEAR)[: size[1], : size[0]]


def undistorted(gray: np.ndarray, k: float) -> np.ndarray:
    """``gray`` as a lens of parameter ``k`` would have shown it straight (the same size)."""
    height, width = gray.shape
    seen = shown_at(field_points((0, 0), (width, height), MAP_STEP_PX), k, (width, height)).astype(np.float32)
    full = upsampled(seen, (width, height), MAP_STEP_PX)
    return cv2.remap(gray, full[..., 0], full[..., 1], cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)


def grid_bend(crossings: np.ndarray) -> float:
    """How far the inner crossings of a garden's grid ((7, 7, 2) pixels) lie from a plane grid:
    the RMS distance from the homography fitted to them, in cells."""
    steps = np.arange(1, GRID_SIZE, dtype=np.float64)
    _, error = fit_homography(np.stack(np.meshgrid(steps, steps), axis=-1), crossings[1:GRID_SIZE, 1:GRID_SIZE])
    cell = float(np.linalg.norm(np.diff(crossings[1:GRID_SIZE], axis=1), axis=-1).mean())
    return error / cell


def lens_k(gray: np.ndarray, crossings_of: Callable[[np.ndarray], np.ndarray | None]) -> float:
    """The lens parameter under which ``crossings_of`` (a photo -> its garden's (7, 7, 2)
    crossings, or None) finds the straightest grid: the squared bend is the lens's share,
    growing as (k - k0)^2, plus the crossings' own scatter, and a parabola fitted to it over
    LENS_KS has its vertex at k0. 0 where the grid is found at fewer than 3 of them, where the
    vertex lies outside them, or where no k straightens the grid to MAX_BEND_LEFT of its bend at
    0 (the scatter of a dashed or faint grid's crossings then hides the lens)."""
    ks, bends = [], []
    for k in LENS_KS:
        # every k is remapped, 0 too: the interpolation's blur is then the same for all
        crossings = crossings_of(undistorted(gray, float(k)))
        if crossings is not None:
            ks.append(float(k))
            bends.append(grid_bend(crossings))
    if len(ks) < 3 or 0.0 not in ks or min(bends) > MAX_BEND_LEFT * bends[ks.index(0.0)]:
        return 0.0
    curvature, slope, _ = np.polyfit(ks, np.square(bends), 2)
    k = -slope / (2 * curvature) if curvature > 0 else np.inf
    return float(k) if LENS_KS[0] <= k <= LENS_KS[-1] else 0.0
