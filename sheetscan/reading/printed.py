"""Printed boxes on an upright page: the rectangles and regular arrangements of them that a
sheet's layout is made of, and the centres of their lines (discover.py sorts them into a
layout; icons.py finds the leaves and pond icons)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import cv2
import numpy as np

PAGE_PX_PER_MM = 5.0  # the upright page is drawn at this scale
LINE_KERNEL_MM = 2.2  # printed lines are found as what is darker than the page closed over this (a black-hat)
LINE_CONTRAST = 8  # grey levels darker than that closing for a pixel to be a line's (a light outline in shadow has 10)
MIN_BOX_MM = 2.5  # a smaller rectangle is text or a drawing, not a box
RECT_FILL = 0.85  # share of its bounding box that a rectangle's outline encloses
SIDE_STRAIGHTNESS = 0.15  # of a rectangle's short side: how far its outline may stray from 4 straight sides,
SIDE_BEND = 0.015  # and of its long side past the short one, which a phone's lens bends (the name box: 2 mm in 135)
SAME_LINE_MM = 1.5  # the two edges of one printed line lie this close on every side
# a box's line, blurred, is at most this wide: its outline's outer edge is longer than its inner
# one by twice that at most (a thick turn box's outline on a blurred phone photo: 3.2 mm)
MAX_LINE_MM = 2.0
# alike printed boxes (the turn boxes, the pond icons) are also looked at in the median of their
# line contrast, over this share of LINE_CONTRAST: a faint grey outline on a blurred photo breaks
# up in each box (the turn boxes' sub-boxes on 3 blank pad phone photos of 12, seed 3), and the
# median of several is far steadier than one
SHARED_CONTRAST = 0.5
CLOSE_MM = 0.6  # a faint outline's gaps are closed over this (3 pixels: its one-pixel gaps)
# where that leaves no sub-boxes, the median of the turn boxes is closed over this (its faint
# sides still break into dashes on blurred photos; a sub-box's side joins its neighbour's, which
# costs nothing: the holes are the sub-boxes)
SHARED_CLOSE_MM = 1.0
# where neither places them, the median's ink thicker than this every way is left out (the players'
# digits, written in the same place in most turn boxes, stay in the median as blobs that touch the
# sub-boxes' sides), and what is left kept where it runs straight across or down this far
SOLID_MM = 2.0
STRAIGHT_MM = 2.0
ALIKE = 0.08  # boxes of one kind differ in width and height by at most this share
MIN_OUTLINED = 0.8  # share of its outline a box put back by its neighbours' step must show
MIN_SEEN = 0.5  # share of a row of boxes that must be seen as rectangles for the rest to be put back
EDGE_STEP_MM = 0.6  # a printed line's centre is measured this often along it,
EDGE_END_MM = 1.5  # this far at least from a box's corners (the crossing line would pull it),
EDGE_REACH_MM = 0.8  # within this much either side of where its box puts it (a sub-box's line lies 1.2 mm inside)


@dataclass(frozen=True)
class Box:
    """A printed rectangle on the upright page, in millimetres."""

    x: float
    y: float
    w: float
    h: float

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2

    def holds(self, other: "Box") -> bool:
        return self.x < other.x and self.y < other.y and other.x + other.w < self.x + self.w and \
            other.y + other.h < self.y + self.h

    def compact(self) -> dict:
        return {"x": round(self.x, 1), "y": round(self.y, 1), "w": round(self.w, 1), "h": round(self.h, 1)}


def line_contrast(page: np.ndarray) -> np.ndarray:
    """(h, w) uint8: how much darker each pixel of the upright ``page`` is than the page closed
    over LINE_KERNEL_MM around it (a black-hat): high on thin dark lines and text. The black-hat
    keeps the light grey outlines of a sub-box that a threshold against the local mean breaks
    up (on a blank pad photo: 144 rectangle outlines found, against 72 by Sauvola's threshold
    and 59 by a local mean's)."""
    side = int(LINE_KERNEL_MM * PAGE_PX_PER_MM) | 1
    return cv2.morphologyEx(page, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)))


def printed_lines(contrast: np.ndarray, least: float = LINE_CONTRAST) -> np.ndarray:
    """(h, w) uint8 mask, 255 where a page's line ``contrast`` (line_contrast) is over ``least``:
    its thin dark lines and text."""
    return ((contrast > least) * 255).astype(np.uint8)


def shared_lines(contrast: np.ndarray, boxes: list[Box]) -> np.ndarray | None:
    """The line mask (printed_lines, over SHARED_CONTRAST of LINE_CONTRAST) of the median of a
    page's line ``contrast`` over ``boxes`` (all of one size; those off the page left out), in
    the boxes' frame; None where none lies on the page."""
    width, height = (int(round(side * PAGE_PX_PER_MM)) for side in (boxes[0].w, boxes[0].h))
    tops_lefts = [(int(round(box.x * PAGE_PX_PER_MM)), int(round(box.y * PAGE_PX_PER_MM))) for box in boxes]
    crops = [contrast[y : y + height, x : x + width] for x, y in tops_lefts if x >= 0 and y >= 0]
    crops = [crop for crop in crops if crop.shape == (height, width)]
    if not crops:
        return None
    return printed_lines(np.median(crops, axis=0), SHARED_CONTRAST * LINE_CONTRAST)


def straight_lines(lines: np.ndarray, solid_mm: float, straight_mm: float) -> np.ndarray:
    """The thin straight lines of a line mask ``lines``: less its ink thicker than ``solid_mm``
    every way (blobs), kept where it runs straight across or down over ``straight_mm``."""
    solid_side = int(round(solid_mm * PAGE_PX_PER_MM)) | 1
    solid = cv2.morphologyEx(lines, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (solid_side, solid_side)))
    thin = cv2.bitwise_and(lines, cv2.bitwise_not(cv2.dilate(solid, np.ones((3, 3), np.uint8))))  # and their rims
    length = int(round(straight_mm * PAGE_PX_PER_MM))
    across = cv2.morphologyEx(thin, cv2.MORPH_OPEN, np.ones((1, length), np.uint8))
    return cv2.bitwise_or(across, cv2.morphologyEx(thin, cv2.MORPH_OPEN, np.ones((length, 1), np.uint8)))


def printed_boxes(lines: np.ndarray) -> list[Box]:
    """Every printed rectangle in an upright page's ``lines`` (printed_lines), each printed
    line's two edges merged. A faint outline's one-pixel gaps are then closed and the inner
    edges of the closed outlines that cross no box seen already are added (a pond icon's or a
    sub-box's grey outline in shadow: 2 blank print-and-play phone photos of 12)."""
    found = _rectangles(lines)
    found += [box for box in closed_rectangles(lines, CLOSE_MM) if not any(crosses(box, seen) for seen in found)]
    merged: list[list[Box]] = []
    for box in sorted(found, key=lambda b: (b.x, b.y)):
        for group in merged:
            first = group[0]
            # a line's outer edge is its inner one grown by its width on every side: the same
            # centre, sides longer by twice the width
            same_centre = max(abs(box.centre[0] - first.centre[0]), abs(box.centre[1] - first.centre[1]))
            if same_centre <= SAME_LINE_MM / 2 and max(abs(box.w - first.w), abs(box.h - first.h)) <= 2 * MAX_LINE_MM:
                group.append(box)
                break
        else:
            merged.append([box])
    return [Box(*np.mean([[b.x, b.y, b.w, b.h] for b in group], axis=0)) for group in merged]


def closed_rectangles(lines: np.ndarray, close_mm: float) -> list[Box]:
    """The rectangles inside the outlines of ``lines`` closed over ``close_mm`` (their gaps
    filled). Only inner edges: a closed outer edge takes in a label that touches its box, and
    makes a box of both."""
    side = int(round(close_mm * PAGE_PX_PER_MM))
    return _rectangles(cv2.morphologyEx(lines, cv2.MORPH_CLOSE, np.ones((side, side), np.uint8)), inner_only=True)


def _rectangles(lines: np.ndarray, inner_only: bool = False) -> list[Box]:
    """The outlines in ``lines`` that are rectangles, one for each edge of a printed line (the
    inner edges alone if ``inner_only``: a box's outer edge may take in a label that touches it)."""
    contours, hierarchy = cv2.findContours(lines, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if inner_only:
        contours = [c for c, (*_, parent) in zip(contours, hierarchy[0], strict=True) if parent >= 0]
    s = 1 / PAGE_PX_PER_MM
    found: list[Box] = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if min(w, h) * s < MIN_BOX_MM or cv2.contourArea(contour) < RECT_FILL * w * h:
            continue
        # straight sides within a share of the short side (of the perimeter, a long box's would be
        # lost), and of the long side as a lens bends it
        if len(cv2.approxPolyDP(contour, SIDE_STRAIGHTNESS * min(w, h) + SIDE_BEND * (max(w, h) - min(w, h)), True)) != 4:
            continue
        found.append(Box((x + 0.5) * s, (y + 0.5) * s, (w - 1) * s, (h - 1) * s))
    return found


def edge_centres(contrast: np.ndarray, boxes: list[Box], side: str) -> np.ndarray:
    """(n, 2) page pixels along the centre of the printed line on ``side`` ("top", "bottom",
    "left" or "right") of each of ``boxes``, measured to a fraction of a pixel in the page's line
    ``contrast`` (line_contrast): where the line is darker than half its darkest, its weighted
    middle. Places where nothing darker than LINE_CONTRAST lies near the side are left out."""
    reach = int(round(EDGE_REACH_MM * PAGE_PX_PER_MM))
    offsets = np.arange(-reach, reach + 1)
    along_rows = side in ("top", "bottom")
    image = contrast if along_rows else contrast.T
    points = []
    for box in boxes:
        start, length, across = (box.x, box.w, box.y) if along_rows else (box.y, box.h, box.x)
        across += (box.h if side == "bottom" else box.w if side == "right" else 0.0)
        middle = int(round(across * PAGE_PX_PER_MM - 0.5))
        if middle - reach < 0 or middle + reach >= image.shape[0]:
            continue
        for at in np.arange(start + EDGE_END_MM, start + length - EDGE_END_MM, EDGE_STEP_MM):
            column = int(round(at * PAGE_PX_PER_MM - 0.5))
            if not 0 <= column < image.shape[1]:
                continue
            profile = image[middle - reach : middle + reach + 1, column].astype(np.float64)
            if profile.max() <= LINE_CONTRAST:
                continue
            weight = np.clip(profile - profile.max() / 2, 0, None)
            centre = middle + float(weight @ offsets / weight.sum())
            points.append((column, centre) if along_rows else (centre, column))
    return np.array(points, np.float64).reshape(-1, 2)


def alike(boxes: list[Box], like: Box) -> list[Box]:
    """The boxes of ``like``'s size (one edge of a thick line may be all that was seen of some)."""
    return [b for b in boxes if abs(b.w - like.w) <= max(ALIKE * like.w, 2 * SAME_LINE_MM)
            and abs(b.h - like.h) <= max(ALIKE * like.h, 2 * SAME_LINE_MM)]


def rows(boxes: list[Box]) -> list[list[Box]]:
    """Boxes in rows (centres within half a box's height), top to bottom, each left to right."""
    rows: list[list[Box]] = []
    for box in sorted(boxes, key=lambda b: b.centre[1]):
        if rows and abs(box.centre[1] - rows[-1][0].centre[1]) < box.h / 2:
            rows[-1].append(box)
        else:
            rows.append([box])
    return [sorted(row, key=lambda b: b.x) for row in rows]


def lattice(boxes: list[Box], row_count: int, column_count: int, lines: np.ndarray) -> list[list[Box]] | None:
    """``row_count`` rows of ``column_count`` alike boxes among ``boxes``, if some size of them
    makes one. Half the boxes seen at least, and each column in two rows at least (_column_lefts);
    the missing boxes are put back in their columns where the printed ``lines`` (printed_lines)
    outline them and they cross no box: a turn box's outline that joins its neighbour's below,
    or that its sub-boxes or a player's digits touch, is no rectangle."""
    for like in sorted(boxes, key=lambda b: -b.w * b.h):
        grouped = [row for row in rows(alike(boxes, like)) if len(row) <= column_count]
        for start in range(len(grouped) - row_count + 1):
            chosen = grouped[start : start + row_count]
            lefts = _column_lefts(chosen, column_count)
            if lefts is None:
                continue
            completed = [row if len(row) == column_count else _put_back(row, lefts, boxes, lines) for row in chosen]
            if all(completed):
                return completed
    return None


def _column_lefts(chosen: list[list[Box]], column_count: int) -> np.ndarray | None:
    """The lefts of ``column_count`` columns that the rows ``chosen`` make: their boxes' lefts,
    split where they lie over a line's width apart. None unless there are as many columns, each
    seen in two rows at least, and half the boxes (MIN_SEEN) are seen."""
    lefts = np.sort([box.x for row in chosen for box in row])
    if len(lefts) < MIN_SEEN * len(chosen) * column_count:
        return None
    columns = np.split(lefts, np.nonzero(np.diff(lefts) > 2 * SAME_LINE_MM)[0] + 1)
    if len(columns) != column_count or any(len(column) < 2 or np.ptp(column) > 2 * SAME_LINE_MM for column in columns):
        return None
    return np.array([column.mean() for column in columns])


def _put_back(row: list[Box], lefts: np.ndarray, boxes: list[Box], lines: np.ndarray) -> list[Box] | None:
    """``row`` with its missing boxes put back at the column lefts of ``lefts`` that none of its
    boxes stands at, where the printed ``lines`` outline each and it crosses none of ``boxes``."""
    seen = [int(np.argmin(np.abs(lefts - b.x))) for b in row]
    if len(set(seen)) < len(row) or any(abs(lefts[k] - b.x) > 2 * SAME_LINE_MM for k, b in zip(seen, row, strict=True)):
        return None
    y, w, h = np.mean([[b.y, b.w, b.h] for b in row], axis=0)
    missing = [Box(float(lefts[k]), float(y), float(w), float(h)) for k in range(len(lefts)) if k not in seen]
    if any(outlined(lines, box) < MIN_OUTLINED or any(crosses(box, other) for other in boxes) for box in missing):
        return None
    return sorted([*row, *missing], key=lambda b: b.x)


def line_of(boxes: list[Box], count: int, lines: np.ndarray, avoid: list[Box]) -> list[Box] | None:
    """``count`` alike boxes in a row or a column at an even step, largest such first. Boxes not
    seen as rectangles (a player's writing touches their outline, a label touches an icon's)
    are put back where the step puts them, if most are seen and the printed ``lines`` (the
    page's mask, printed_lines) outline each one put back, and it overlaps none of ``avoid``
    but those that hold it (the box seen with its label or a written number)."""
    return next(lines_of(boxes, count, lines, avoid), None)


def lines_of(boxes: list[Box], count: int, lines: np.ndarray, avoid: list[Box],
             min_seen: float = MIN_SEEN) -> Iterator[list[Box]]:
    """Every line of boxes that line_of may find, largest first, with ``min_seen`` of each seen."""
    for like in sorted(boxes, key=lambda b: -b.w * b.h):
        same = alike(boxes, like)
        for group, along in [(row, 0) for row in rows(same)] + [(col, 1) for col in columns(same)]:
            found = _even(sorted(group, key=lambda b: (b.x, b.y)[along]), count, along, lines, avoid, min_seen)
            if found:
                yield found


def _even(group: list[Box], count: int, along: int, lines: np.ndarray, avoid: list[Box],
          min_seen: float) -> list[Box] | None:
    """The ``count`` boxes at an even step along axis ``along`` that a run of ``group`` (sorted)
    shows most of, or None. Runs to the group's end are tried first, then shorter ones: alike
    boxes further along the line (a bonsai's leaves beside the pond icons' drawings) would set
    the step."""
    runs = [group[first:] for first in range(len(group))]
    runs += [group[first:last] for first in range(len(group)) for last in range(len(group) - 1, first + 1, -1)]
    for run in runs:
        found = _even_from(run, count, along, lines, avoid, min_seen)
        if found:
            return found
    return None


def _even_from(group: list[Box], count: int, along: int, lines: np.ndarray, avoid: list[Box],
               min_seen: float) -> list[Box] | None:
    """The ``count`` boxes at an even step from ``group[0]``'s slot, put back where unseen."""
    if len(group) < max(2, round(min_seen * count)):
        return None
    positions = np.array([(b.x, b.y)[along] for b in group])
    gaps = np.diff(positions)
    step = float(np.median(gaps[gaps < 1.5 * gaps.min()]))  # neighbours' gaps (a missing box doubles one)
    if step < max((b.w, b.h)[along] for b in group):  # boxes in a line do not overlap
        return None
    slots = np.round((positions - positions[0]) / step)
    keep = slots < count
    if keep.sum() < max(2, round(min_seen * count)) or len(set(slots[keep])) < keep.sum():
        return None
    group, positions, slots = [b for b, k in zip(group, keep, strict=True) if k], positions[keep], slots[keep]
    step, offset = np.polyfit(slots, positions, 1)  # every box's say in the step
    if np.abs(positions - offset - slots * step).max() > SAME_LINE_MM:
        return None
    first = group[0]
    size = np.mean([[b.w, b.h] for b in group], axis=0)
    best = None
    for start in range(int(slots[-1]) + 1 - count, 1):  # where the first box may lie, before the first seen
        boxes = [Box(offset + (start + k) * step if along == 0 else first.x,
                     offset + (start + k) * step if along == 1 else first.y, *size) for k in range(count)]
        unseen = [box for k, box in enumerate(boxes) if start + k not in slots]
        # a box put back may lie in one seen with what touches it (a label, a written number),
        # but not take one in: a row of boxes seen with their labels is no row of boxes
        if any(overlaps(box, other) and not other.holds(box) for box in unseen for other in avoid):
            continue
        support = min((outlined(lines, box) for box in unseen), default=1.0)
        if support >= MIN_OUTLINED and (best is None or support > best[0]):
            best = (support, boxes)
    return best[1] if best else None


def outlined(lines: np.ndarray, box: Box) -> float:
    """Share of ``box``'s perimeter (sampled every millimetre) with a printed line on it."""
    near = int(round(SAME_LINE_MM / 2 * PAGE_PX_PER_MM))
    samples = []
    for t in np.arange(0.0, 1.0, 1 / max(box.w, box.h, 1.0)):
        samples += [(box.x + t * box.w, box.y), (box.x + t * box.w, box.y + box.h),
                    (box.x, box.y + t * box.h), (box.x + box.w, box.y + t * box.h)]
    height, width = lines.shape
    hits = 0
    for x, y in samples:
        col, row = int(round(x * PAGE_PX_PER_MM)), int(round(y * PAGE_PX_PER_MM))
        if 0 <= col < width and 0 <= row < height:  # a side off the page is not outlined (nor sliced from the far end)
            hits += bool(lines[max(row - near, 0) : row + near + 1, max(col - near, 0) : col + near + 1].max())
    return hits / max(len(samples), 1)


def columns(boxes: list[Box]) -> list[list[Box]]:
    transposed = [Box(b.y, b.x, b.h, b.w) for b in boxes]
    return [[Box(b.y, b.x, b.h, b.w) for b in row] for row in rows(transposed)]


def crosses(a: Box, b: Box) -> bool:
    """Whether two boxes overlap with neither holding the other."""
    return overlaps(a, b) and not a.holds(b) and not b.holds(a)


def overlaps(a: Box, b: Box) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


def union(boxes: list[Box]) -> Box | None:
    if not boxes:
        return None
    x0, y0 = min(b.x for b in boxes), min(b.y for b in boxes)
    x1, y1 = max(b.x + b.w for b in boxes), max(b.y + b.h for b in boxes)
    return Box(x0, y0, x1 - x0, y1 - y0)
