"""The lens: a phone's lens bends straight lines (radial distortion) that no homography follows.

One parameter ``k`` of the division model: a photo pixel q shows the point c + (q - c)(1 + k
|q - c|^2 / R^2) of a straight-line view, c the photo's centre and R its half diagonal. The
garden's inner crossings lie on a plane grid, so ``k`` is the one whose undistorted photo puts
them closest to one homography of it; over a whole page, the one under which its long printed
lines lie straightest (the plumb-line method; docs/locating.md).
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
MIN_PLUMB_LINES = 6  # printed lines needed to measure the lens by their straightness
PLUMB_ROUNDS = 3  # the lens measured on the lines, their stray points (writing across them) left out again at it
PLUMB_SPAN = 0.02  # after the first round, k is measured again over this much either side of the last
STRAY = 3.0  # a point further from its line than this many of the line's robust deviations is left out,
STRAY_FLOOR_PX = 0.5  # or than this many pixels, whichever is more
SCATTER_FLOOR_PX = 0.05  # a line's least scatter is taken as at least this (its weight stays finite)


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


def straightened(seen: np.ndarray, k: float, size: tuple[float, float]) -> np.ndarray:
    """(..., 2) the points of the straight view that the photo pixels ``seen`` show under a lens
    of parameter ``k``, in a photo of ``size`` (width, height): the model itself."""
    centre = np.array(size, float) / 2
    offset = seen - centre
    return centre + offset * (1 + k * (offset * offset).sum(axis=-1, keepdims=True) / float(centre @ centre))


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
    k = _vertex(ks, np.square(bends))
    return 0.0 if k is None else k


def _vertex(ks, squared: np.ndarray) -> float | None:
    """The k at the vertex of the parabola fitted to ``squared`` bends measured at ``ks``; None
    where it opens down or lies outside LENS_KS."""
    curvature, slope, _ = np.polyfit(ks, squared, 2)
    k = -slope / (2 * curvature) if curvature > 0 else np.inf
    return float(k) if LENS_KS[0] <= k <= LENS_KS[-1] else None


def _off_line(points: np.ndarray) -> np.ndarray:
    """Each point's signed distance from the straight line fitted to ``points`` (n, 2) (total
    least squares)."""
    centred = points - points.mean(axis=0)
    return centred @ np.linalg.svd(centred, full_matrices=False)[2][1]


def plumb_k(lines: list[np.ndarray], size: tuple[float, float], start: float = 0.0) -> float | None:
    """The lens parameter under which ``lines`` (each (n, 2) photo pixels along one printed
    straight line, in a photo of ``size``) lie straightest: the plumb-line method. A line's
    squared scatter counts by its points over its least scatter, so that one crossed by writing
    counts less; points that stray from their line at the last estimate (from ``start``) are
    left out. None where fewer than MIN_PLUMB_LINES lines are given or no k straightens them
    within LENS_KS."""
    if len(lines) < MIN_PLUMB_LINES:
        return None
    k, ks = start, LENS_KS
    for _ in range(PLUMB_ROUNDS):
        kept = []
        for points in lines:
            off = _off_line(straightened(points, k, size))
            deviation = np.abs(off - np.median(off))
            kept.append(points[deviation <= max(STRAY * 1.4826 * np.median(deviation), STRAY_FLOOR_PX)])
        scatter = np.array([[np.mean(np.square(_off_line(straightened(points, float(each), size)))) for each in ks]
                            for points in kept])
        weights = np.array([len(points) for points in kept]) / np.maximum(scatter.min(axis=1), SCATTER_FLOOR_PX**2)
        k = _vertex(ks, weights @ scatter)
        if k is None:
            return None
        ks = k + np.linspace(-PLUMB_SPAN, PLUMB_SPAN, 9)
    return k
