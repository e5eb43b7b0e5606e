"""The printed icons on an upright page: the bonsai's leaves (three alike ellipses) and the pond
icons (alike round drawings in a line, each framed by a square; a square seen together with the
label that touches it). printed.py finds the boxes they are looked for among."""

from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

from sheetscan.reading.printed import (MAX_LINE_MM, MIN_OUTLINED, PAGE_PX_PER_MM, SAME_LINE_MM, Box, alike, crosses,
                                      edge_centres, lines_of, outlined, overlaps, shared_lines)

FRAME_GAP_MM = 0.5  # a pond icon's square lies at least this far outside its drawing,
FRAME_MAX = 2.0  # and is at most this many times as wide
MIN_SIDE_POINTS = 3  # a square's side is moved onto its line where the line is measured at this many places
LINE_AGREE_MM = 0.25  # that lie within this much of one another
FILLED_SHARE = 0.85  # of an ellipse's inside inked: a filled shape, not an outline


def ellipses(lines: np.ndarray, cell_mm: float, avoid: list[Box]) -> list[Box]:
    """Three alike ellipse outlines close together, not in a line (the bonsai's leaves), in an
    upright page's ``lines`` outside the boxes ``avoid`` (the garden, where a player draws rocks;
    the pond icons), as squares around them: of several such, the largest (the scoring
    summary's icons are small)."""
    widths = dict(_ellipse_squares(lines, cell_mm, avoid))
    shapes = list(widths)
    leaves, size = [], 0.0
    for first in shapes:
        near = [b for b in alike(shapes, first)
                if np.hypot(b.centre[0] - first.centre[0], b.centre[1] - first.centre[1]) < 3 * first.w]
        if len(near) == 3 and not _in_a_line(near) and sum(b.w for b in near) > size:
            leaves, size = sorted(near, key=lambda b: b.x), sum(b.w for b in near)
    # chosen round their outer edges, placed at their lines' centre as a printed box is (round
    # the outer edge, a leaf's box takes in the whole printed ring, and reads marked)
    return [Box(leaf.x + widths[leaf] / 2, leaf.y + widths[leaf] / 2, leaf.w - widths[leaf], leaf.h - widths[leaf])
            for leaf in leaves]


def framed_drawings(lines: np.ndarray, contrast: np.ndarray, cell_mm: float, count: int,
                    avoid: list[Box]) -> list[Box] | None:
    """``count`` alike round drawings in a row or a column at an even step (the pond icons'),
    outside ``avoid``, each as the square outline around it: a faint grey square breaks into
    dashes that no rectangle is found in, and its drawing may touch it. The drawings are found
    in the page's ``lines``, their squares in those lines or in its line ``contrast`` (_frames)."""
    # a drawing that touches its square is no ellipse: one may be put back by its neighbours'
    # step, judged by its square, not by an outline of its own (hence lines everywhere here)
    everywhere = np.full_like(lines, 255)
    judged = set()  # lines_of meets a line once for each of its drawings' sizes
    squares = [square for square, _ in _ellipse_squares(lines, cell_mm, avoid)]
    for drawings in lines_of(squares, count, everywhere, [], (count - 1) / count):
        key = tuple(np.round([b.centre for b in drawings], 1).ravel())
        frames = None if key in judged else _frames(lines, contrast, drawings, avoid)
        if frames:
            return frames
        judged.add(key)
    return None


def _frames(lines: np.ndarray, contrast: np.ndarray, drawings: list[Box], avoid: list[Box]) -> list[Box] | None:
    """The squares around ``drawings`` (one size for all, crossing none of ``avoid`` but those
    that hold their drawing) that the printed ``lines`` outline best round each drawing, or else
    the lines all of them share (shared_lines of the page's ``contrast``: a faint square broken
    at other places round each), at least MIN_OUTLINED; the middle size of those (a line is met
    within SAME_LINE_MM, so a few sizes meet it). None where none is."""
    def squares(side: float) -> list[Box]:
        return [Box(b.centre[0] - side / 2, b.centre[1] - side / 2, side, side) for b in drawings]

    widest = max(b.w for b in drawings)
    # a box that holds the drawing is its square seen with the label that touches it
    sides = [side for side in np.arange(widest + FRAME_GAP_MM, FRAME_MAX * widest, 1 / PAGE_PX_PER_MM)
             if not any(crosses(frame, other) and not other.holds(drawing)
                        for frame, drawing in zip(squares(side), drawings, strict=True) for other in avoid)]

    def best_squares(support_of: Callable[[float], float]) -> list[Box] | None:
        supports = {side: support_of(side) for side in sides}
        best = max(supports.values(), default=0.0)
        if best < MIN_OUTLINED:
            return None
        return _on_their_lines(contrast, squares(float(np.median([side for side, support in supports.items()
                                                                    if support == best]))))

    own = best_squares(lambda side: min(outlined(lines, frame) for frame in squares(side)))
    if own:
        return own
    reach = FRAME_MAX * widest / 2 + SAME_LINE_MM  # the shared lines' reach round each drawing's centre
    shared = shared_lines(contrast, squares(2 * reach))
    if shared is None:
        return None
    return best_squares(lambda side: outlined(shared, Box(reach - side / 2, reach - side / 2, side, side)))


def _on_their_lines(contrast: np.ndarray, squares: list[Box]) -> list[Box]:
    """Alike ``squares`` with their sides moved onto the centres of the printed lines near them
    in the page's line ``contrast`` (edge_centres), all of one size: the median of the spans
    between opposite sides both seen. A side is seen where most of its line's places agree
    within LINE_AGREE_MM (a label's letters touching it lie all about). A square judged by whether
    its sides meet a line (within SAME_LINE_MM) is one of several sizes that do, and centred on
    its drawing, which need not be its centre: its sides may lie a millimetre off their lines."""
    seen = np.full((len(squares), 4), np.nan)  # left, top, right, bottom
    for square, sides in zip(squares, seen, strict=True):
        for index, (side, axis) in enumerate((("left", 0), ("top", 1), ("right", 0), ("bottom", 1))):
            across = edge_centres(contrast, [square], side)[:, axis]
            agree = np.abs(across[:, None] - across[None, :]) <= LINE_AGREE_MM * PAGE_PX_PER_MM
            on_line = across[agree[np.argmax(agree.sum(axis=1))]] if len(across) else across
            if len(on_line) >= max(MIN_SIDE_POINTS, len(across) / 2):
                sides[index] = (np.median(on_line) + 0.5) / PAGE_PX_PER_MM
    spans = (seen[:, 2:] - seen[:, :2]).ravel()
    if np.isnan(spans).all():
        return squares
    size = float(np.nanmedian(spans))
    placed = []
    for square, (left, top, right, bottom) in zip(squares, seen, strict=True):
        x, y = (np.nanmean([low, high - size]) if not np.isnan([low, high]).all() else middle - size / 2
                for low, high, middle in ((left, right, square.centre[0]), (top, bottom, square.centre[1])))
        placed.append(Box(float(x), float(y), size, size))
    return placed


def _ellipse_squares(lines: np.ndarray, cell_mm: float, avoid: list[Box]) -> list[tuple[Box, float]]:
    """The ellipse outlines in ``lines`` from 0.15 to 1.2 cells of ``cell_mm`` long, as squares
    around them (their outer edges), outside the boxes ``avoid``, each with its line's width in
    millimetres (_line_width)."""
    contours, _ = cv2.findContours(lines, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    s = 1 / PAGE_PX_PER_MM
    shapes = []
    for contour in contours:
        if len(contour) < 8:
            continue
        (cx, cy), axes, _ = cv2.fitEllipse(contour)
        major, minor = max(axes) * s, min(axes) * s
        area = cv2.contourArea(contour) * s * s
        if not 0.15 * cell_mm <= major <= 1.2 * cell_mm or minor < 0.3 * major:
            continue
        if abs(area / (np.pi * major * minor / 4) - 1) > 0.15:
            continue
        shape = Box((cx + 0.5) * s - major / 2, (cy + 0.5) * s - major / 2, major, major)
        if not any(overlaps(shape, box) for box in avoid):
            shapes.append((shape, _line_width(lines, contour) * s))
    return shapes


def _line_width(lines: np.ndarray, contour: np.ndarray) -> float:
    """The width, in pixels, of the outline ``contour`` bounds in ``lines``: its ink over its outer
    edge's length (a little under the width, the edge being longer than the line's centre); 0
    for a shape mostly inked (FILLED_SHARE), which has no line."""
    x, y, w, h = cv2.boundingRect(contour)
    inside = np.zeros((h, w), np.uint8)
    cv2.drawContours(inside, [contour - (x, y)], -1, 255, cv2.FILLED)
    ink = np.count_nonzero(lines[y : y + h, x : x + w] & inside)
    if ink > FILLED_SHARE * np.count_nonzero(inside):
        return 0.0
    return ink / max(cv2.arcLength(contour, True), 1.0)


def _in_a_line(boxes: list[Box]) -> bool:
    """Whether three boxes' centres lie on one line (icons in a row or a column, not leaves,
    which grow round a tree)."""
    (ax, ay), (bx, by), (cx, cy) = (b.centre for b in boxes)
    twice_area = abs((bx - ax) * (cy - ay) - (cx - ax) * (by - ay))
    longest = max(np.hypot(bx - ax, by - ay), np.hypot(cx - ax, cy - ay), np.hypot(cx - bx, cy - by))
    return twice_area / max(longest, 1e-9) < 0.15 * longest


def unextended(boxes: list[Box]) -> list[Box]:
    """``boxes`` less those that are another of them grown on one side only: a square seen
    together with the label that touches it, by its line's outer edge (its other three sides
    within half of MAX_LINE_MM of the square's, and the fourth further out)."""
    def sides(box: Box) -> np.ndarray:
        return np.array([box.x, box.y, box.x + box.w, box.y + box.h])

    def grown(big: Box, small: Box) -> bool:
        apart = np.abs(sides(big) - sides(small))
        larger = big.w * big.h > small.w * small.h
        return larger and (apart <= MAX_LINE_MM / 2).sum() == 3 and apart.max() > MAX_LINE_MM

    return [box for box in boxes if not any(grown(box, other) for other in boxes)]
