"""Candidate garden outlines: the quadrilaterals in a photo that may trace a sheet's 6x6 grid.

On a small copy of the photo, binarised against the local paper, every contour whose convex
hull is a quadrilateral it fills is a possible outline of a garden. The page itself, a card or a
drawn pond is one too, and fitting a grid to each costs time; so the grid-like ones are tried
first: a quick look, on the binary copy, for ink where a 6x6 grid puts its inner lines.
"""

from __future__ import annotations

from typing import Callable, Iterator

import cv2
import numpy as np

from sheetscan.game.rules import GRID_SIZE

# Candidates are found on a copy of the photo 1200 px long; then, where the photo is as large, on
# one 2400 px long: on the coarse copy a small garden's border merges with the drawings and boxes
# that touch it, and its outline is not a quadrilateral.
CANDIDATE_LONG_SIDES = (1200, 2400)
BINARY_WINDOW = 1 / 40  # of the copy's long side: the local paper for binarising (wider than a line)
BINARY_OFFSET = 10  # grey levels below the local mean that count as ink
MIN_GRID_SIDE = 0.05  # of the copy's long side: a smaller quadrilateral is not a readable garden
QUAD_TOLERANCE = 0.03  # of a hull's perimeter: how far its outline may stray from 4 straight sides
MIN_FILL = 0.85  # share of its quadrilateral that a garden's outline fills
GLANCE_CELL_PX = 48  # a candidate is glanced at warped to a square this many pixels a cell (coarser
# samples skip the thin lines of the copy)
GLANCE_REACH = 0.3  # of a cell: how far from where a grid puts it an inner line is looked for
# Outlines this grid-like are tried first, the largest first (a border's outer edge before its
# inner one). On 48 photos (seed 79: phone, scan, pad, tables of 3), the 79 outlines that a sheet
# was fitted to were 0.43 to 0.89 grid-like (5% under 0.51), the 576 others at most 0.36.
GRID_LIKE = 0.4


def shrunk(gray: np.ndarray, long_side: float, interpolation: int = cv2.INTER_AREA) -> tuple[np.ndarray, float]:
    """``gray`` shrunk (never enlarged) to ``long_side``, and the factor it was shrunk by."""
    factor = min(1.0, long_side / max(gray.shape))
    if factor == 1.0:
        return gray, 1.0
    return cv2.resize(gray, None, fx=factor, fy=factor, interpolation=interpolation), factor


def pixel_scaling(factor: float) -> np.ndarray:
    """(3, 3) map from a photo's pixel centres to those of a copy ``factor`` times its size."""
    shift = (factor - 1) / 2
    return np.array([[factor, 0, shift], [0, factor, shift], [0, 0, 1]])


def scaled_points(points: np.ndarray, factor: float) -> np.ndarray:
    """Pixel coordinates ``points`` in a copy of their photo ``factor`` times its size."""
    return (points + 0.5) * factor - 0.5


def scale_at(homography: np.ndarray, point_mm: tuple[float, float]) -> float:
    """Pixels per millimetre of ``homography`` at ``point_mm``."""
    x, y = point_mm
    a, b = cv2.perspectiveTransform(np.array([[[x, y]], [[x + 1, y]]], np.float64), homography).reshape(2, 2)
    return float(np.linalg.norm(b - a))


def fit_homography(source: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, float]:
    """The homography (least squares, every point) taking ``source`` points (..., 2) to
    ``target``'s, and the RMS distance of the fitted points from the targets."""
    homography, _ = cv2.findHomography(source.reshape(-1, 2), target.reshape(-1, 2), 0)
    fitted = cv2.perspectiveTransform(source.reshape(-1, 1, 2).astype(np.float64), homography).reshape(-1, 2)
    return homography, float(np.sqrt(np.mean(np.sum((fitted - target.reshape(-1, 2)) ** 2, axis=1))))


def _clockwise(quad: np.ndarray) -> np.ndarray:
    """The 4 corners in clockwise order (in image coordinates), from the one nearest the top left."""
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    ordered = quad[np.argsort(angles)]
    start = int(np.argmin(ordered.sum(axis=1)))
    return np.roll(ordered, -start, axis=0)


def grid_candidates(gray: np.ndarray, long_side: int = CANDIDATE_LONG_SIDES[0]) -> list[np.ndarray]:
    """Possible garden outlines, (4, 2) corners clockwise in ``gray``'s pixels, found on a copy
    ``long_side`` long: the grid-like ones first, each part the largest first."""
    return list(iter_grid_candidates(gray, long_side))


def iter_grid_candidates(gray: np.ndarray, long_side: int = CANDIDATE_LONG_SIDES[0],
                         passed: Callable[[np.ndarray], bool] | None = None) -> Iterator[np.ndarray]:
    """``grid_candidates`` one at a time, each glanced at only when it is next, and not yielded
    where ``passed`` (asked just then) says the caller would pass it over: a sheet found on the
    first outline takes the rest inside it without a glance. (What the caller passes over
    depends on what it found before, which only grows: an outline passed over here would be
    passed over where the full order puts it, so the caller tries the same outlines in turn.)"""
    # bilinear: at 12 MP five times quicker than an area average, and the sharper copy keeps a
    # small garden's border apart from what touches it (the grid's fit does not hang on the outline)
    small, factor = shrunk(gray, long_side, cv2.INTER_LINEAR)
    window = int(BINARY_WINDOW * max(small.shape)) | 1
    if window < 3 or min(small.shape) < window:  # a thumbnail: no garden to find
        return
    ink = cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, window, BINARY_OFFSET)
    contours, _ = cv2.findContours(ink, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    min_side = MIN_GRID_SIDE * max(small.shape)
    quads = []
    for contour in contours:
        if cv2.contourArea(contour) < min_side**2 * MIN_FILL:
            continue
        hull = cv2.convexHull(contour)
        quad = cv2.approxPolyDP(hull, QUAD_TOLERANCE * cv2.arcLength(hull, True), True).reshape(-1, 2)
        if len(quad) != 4:
            continue
        area = cv2.contourArea(quad.astype(np.float32))
        sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
        if sides.min() < min_side or cv2.contourArea(contour) < MIN_FILL * area or sides.max() > 3 * sides.min():
            continue
        quads.append((area, _clockwise(quad.astype(np.float64))))
    not_grid_like = []
    for _, quad in sorted(quads, key=lambda item: -item[0]):
        outline = scaled_points(quad, 1 / factor)
        if passed is not None and passed(outline):
            continue
        if grid_likeness(ink, quad) >= GRID_LIKE:
            yield outline
        else:
            not_grid_like.append(outline)
    yield from (outline for outline in not_grid_like if passed is None or not passed(outline))


def grid_likeness(ink: np.ndarray, outline: np.ndarray) -> float:
    """How much ``outline`` ((4, 2) corners clockwise in ``ink``, a binary image) looks like a 6x6
    grid: whether ink runs all along each of the 10 inner lines where a grid puts them. A line's
    height is its ink above the paper in the cell rows it crosses, the second-lowest of the 6
    (a page's boxes line up by chance in some rows only); the likeness is the lines' median."""
    cell = GLANCE_CELL_PX
    side = GRID_SIZE * cell
    square = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    to_square = cv2.getPerspectiveTransform(outline.astype(np.float32), square)
    glance = cv2.warpPerspective(ink, to_square, (side, side), flags=cv2.INTER_LINEAR).astype(np.float32) / 255
    reach = int(round(GLANCE_REACH * cell))
    near = np.arange(1, GRID_SIZE)[:, None] * cell + np.arange(-reach, reach + 1)  # (5, window) columns
    heights = []
    for across_x in (glance, glance.T):
        profiles = across_x.reshape(GRID_SIZE, cell, side).mean(axis=1)  # ink across x, one per cell row
        lines = profiles[:, near].max(axis=2) - np.median(profiles, axis=1)[:, None]  # (cell rows, lines)
        heights.append(np.sort(lines, axis=0)[1])
    return float(np.median(heights))
