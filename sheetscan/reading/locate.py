"""Locate: find every sheet in a photo and fit its homography, by its markers or by its grid.

Markers are detected on a small copy of the photo (fast), their corners refined (again on the
photo itself where the copy's leave a sheet incomplete), and grouped into sheets: each marker
predicts where its sheet's page lies, and markers whose predictions agree (and whose ids
differ) belong to one sheet. A sheet with all its markers is fitted by them alone. Every other
sheet (no markers printed, as on the publisher's pad; some covered; a corner cropped) is found
by its garden grid (``grid.py``) and claimed only where the layout's boxes are found around it;
a group of markers that neither fits nor lies on such a sheet is reported as a sheet seen in
part, not guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from sheetscan.design.layout import Layout, load_layout
from sheetscan.reading.grid import find_grid_sheets, page_corners
from sheetscan.reading.outlines import fit_homography, pixel_scaling, scale_at, scaled_points, shrunk

DETECT_LONG_SIDE = (1000, 2000)  # detect markers at these sizes, trying the next if a sheet is incomplete
MIN_MARKERS = 2  # markers a sheet needs to be fitted (4 points each)
GROUP_TOLERANCE = 0.3  # a marker predicted this close to another (share of their distance) agrees
RANSAC_THRESHOLD_PX = 3.0  # at the photo's scale
# A corner found on a shrunk copy may be this many of the copy's pixels off (validation photos:
# up to 1.6), so its refinement on the photo looks that far around it
COARSE_CORNER_ERROR = 2.0
MERGE_ERROR = 0.08  # groups merge when one homography fits them within this share of a marker's side


@dataclass(frozen=True)
class SheetLocation:
    """One sheet in a photo.

    Attributes
    ----------
    homography : (3, 3) array
        Layout millimetres to photo pixels.
    marker_ids : tuple of int
        The markers that fitted it.
    alignment_error_px : float
        RMS distance between the detected marker corners and the fitted ones, in photo pixels.
    px_per_mm : float
        The sheet's scale in the photo, about its centre.
    found_by : str
        ``"markers"`` or ``"grid"``.
    grid_lines : (2, 7, 2, 2) array or None
        For a sheet found by its grid: each direction's lines as two end points in photo pixels.
    """

    homography: np.ndarray
    marker_ids: tuple[int, ...]
    alignment_error_px: float
    px_per_mm: float
    found_by: str = "markers"
    grid_lines: np.ndarray | None = None

    def scaled(self, factor: float) -> "SheetLocation":
        """The same sheet in a copy of the photo ``factor`` times as large (pixel centres kept)."""
        lines = None if self.grid_lines is None else scaled_points(self.grid_lines, factor)
        return SheetLocation(pixel_scaling(factor) @ self.homography, self.marker_ids, self.alignment_error_px * factor,
                             self.px_per_mm * factor, self.found_by, lines)

    def page_corners(self, layout: Layout) -> np.ndarray:
        """The page's 4 corners (clockwise from the top left) in photo pixels."""
        return page_corners(self.homography, layout)

    def page_centre(self, layout: Layout) -> np.ndarray:
        """The page's centre in photo pixels."""
        width, height = layout.page_mm
        return cv2.perspectiveTransform(np.array([[[width / 2, height / 2]]]), self.homography).reshape(2)


@dataclass(frozen=True)
class Located:
    """What the locator found: fitted sheets in reading order, and sheets seen only in part."""

    sheets: tuple[SheetLocation, ...]
    partial: int  # groups of markers that fit no sheet (too few: covered, or past the photo's edge)


def _marker_squares_mm(layout: Layout) -> dict[int, np.ndarray]:
    squares = {}
    for marker_id in layout.marker_ids:
        r = layout.region(f"marker_{marker_id}")
        squares[marker_id] = np.array([[r.x, r.y], [r.x + r.w, r.y], [r.x + r.w, r.y + r.h], [r.x, r.y + r.h]])
    return squares


def _detector(layout: Layout) -> cv2.aruco.ArucoDetector:
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.marker_dictionary))
    return cv2.aruco.ArucoDetector(dictionary, parameters)


def detect_markers(gray: np.ndarray, long_side: int, layout: Layout) -> list[tuple[int, np.ndarray]]:
    """(id, 4 corners in ``gray``'s pixels) of the layout's markers, found on a copy of
    ``gray`` shrunk to ``long_side``."""
    small, factor = shrunk(gray, long_side)
    corners, ids, _ = _detector(layout).detectMarkers(small)
    if ids is None:
        return []
    wanted = set(layout.marker_ids)
    # corners are pixel centres: map the small copy's centres back to the photo's
    return [(int(i), scaled_points(c.reshape(4, 2), 1 / factor))
            for i, c in zip(ids.ravel(), corners, strict=True) if int(i) in wanted]


def refined_markers(gray: np.ndarray, markers: list[tuple[int, np.ndarray]], long_side: int,
                    layout: Layout) -> list[tuple[int, np.ndarray]]:
    """``markers`` found on a copy of ``gray`` shrunk to ``long_side`` (detect_markers), their
    corners refined on ``gray`` itself: a coarse copy's corners are a pixel or two of the photo's
    off, enough for the fit's RANSAC to drop a marker (RANSAC_THRESHOLD_PX)."""
    factor = min(1.0, long_side / max(gray.shape))
    detector = _detector(layout)
    return [(i, _refined_corners(gray, c, detector, math.ceil(COARSE_CORNER_ERROR / factor))) for i, c in markers]


def _refined_corners(gray: np.ndarray, corners: np.ndarray, detector: cv2.aruco.ArucoDetector,
                     least_window: int) -> np.ndarray:
    """A marker's (4, 2) ``corners`` refined to sub-pixel on ``gray`` as the detector refines
    them on the image it searched (OpenCV's CORNER_REFINE_SUBPIX: a window of
    relativeCornerRefinmentWinSize modules, at most cornerRefinementWinSize pixels), in a window
    at least ``least_window`` pixels to each side (as far as the corners may be off)."""
    parameters, dictionary = detector.getDetectorParameters(), detector.getDictionary()
    perimeter = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1).sum()
    module = perimeter / (4 * (dictionary.markerSize + 2 * parameters.markerBorderBits))
    window = max(least_window, min(parameters.cornerRefinementWinSize,
                                   max(1, round(parameters.relativeCornerRefinmentWinSize * module))))
    points = np.ascontiguousarray(corners, np.float32).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, parameters.cornerRefinementMaxIterations,
                parameters.cornerRefinementMinAccuracy)
    cv2.cornerSubPix(gray, points, (window, window), (-1, -1), criteria)
    return points.reshape(4, 2).astype(corners.dtype)


def _affine_frame(corners: np.ndarray, size_mm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A marker's centre and its page x and y axes in photo pixels per millimetre."""
    top_left, top_right, bottom_right, bottom_left = corners
    x_axis = (top_right - top_left + bottom_right - bottom_left) / (2 * size_mm)
    y_axis = (bottom_left - top_left + bottom_right - top_right) / (2 * size_mm)
    return corners.mean(axis=0), x_axis, y_axis


def _agree(a: tuple[int, np.ndarray], b: tuple[int, np.ndarray], layout: Layout) -> bool:
    """Whether markers ``a`` and ``b`` lie where one sheet would put them, seen from either."""
    if a[0] == b[0]:
        return False
    centres_mm = {i: np.array(layout.region(f"marker_{i}").center) for i in (a[0], b[0])}
    size = layout.region(f"marker_{a[0]}").w
    for (own_id, own), (other_id, other) in ((a, b), (b, a)):
        centre, x_axis, y_axis = _affine_frame(own, size)
        step = centres_mm[other_id] - centres_mm[own_id]
        predicted = centre + x_axis * step[0] + y_axis * step[1]
        observed = other.mean(axis=0)
        if np.linalg.norm(predicted - observed) > GROUP_TOLERANCE * np.linalg.norm(observed - centre):
            return False
    return True


def _group(markers: list[tuple[int, np.ndarray]], layout: Layout) -> list[list[tuple[int, np.ndarray]]]:
    """Markers grouped by sheet: each group's markers agree pairwise and have distinct ids."""
    count = len(markers)
    agree = [[_agree(markers[i], markers[j], layout) for j in range(count)] for i in range(count)]
    unassigned = set(range(count))
    groups = []
    while unassigned:
        # grow from the marker with the most partners, adding markers that agree with all members
        seed = max(sorted(unassigned), key=lambda i: sum(agree[i][j] for j in unassigned))
        group = [seed]
        for j in sorted(unassigned, key=lambda j: -sum(agree[j][k] for k in unassigned)):
            if j != seed and all(agree[j][k] for k in group):
                group.append(j)
        unassigned -= set(group)
        groups.append([markers[i] for i in group])
    return _merge_coplanar(groups, layout)


def _merge_coplanar(groups: list[list], layout: Layout) -> list[list]:
    """Merge groups with distinct ids that one homography fits: the same sheet, split by
    perspective that a single marker's frame could not foresee."""
    merged = True
    while merged:
        merged = False
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                ids = [m[0] for m in groups[i] + groups[j]]
                if len(set(ids)) == len(ids) and _fit_error(groups[i] + groups[j], layout) < MERGE_ERROR * _side(groups[i]):
                    groups[i] = groups[i] + groups.pop(j)
                    merged = True
                    break
            if merged:
                break
    return groups


def _side(group: list) -> float:
    return float(np.mean([np.linalg.norm(c[1] - c[0]) for _, c in group]))


def _correspondences(group: list, layout: Layout) -> tuple[np.ndarray, np.ndarray]:
    """(4k, 2) marker corners in layout millimetres and the same corners in the photo."""
    squares = _marker_squares_mm(layout)
    source = np.concatenate([squares[i] for i, _ in group]).astype(np.float32)
    return source, np.concatenate([c for _, c in group]).astype(np.float32)


def _fit_error(group: list, layout: Layout) -> float:
    """The largest corner error of one homography fitted to all of ``group``'s corners."""
    source, target = _correspondences(group, layout)
    homography, _ = cv2.findHomography(source, target, 0)
    if homography is None:
        return float("inf")
    fitted = cv2.perspectiveTransform(source.reshape(-1, 1, 2), homography).reshape(-1, 2)
    return float(np.abs(fitted - target).max())


def _fit(group: list[tuple[int, np.ndarray]], layout: Layout) -> SheetLocation | None:
    """A sheet fitted by RANSAC to its markers' corners; markers that do not fit are dropped."""
    source, target = _correspondences(group, layout)
    homography, inliers = cv2.findHomography(source, target, cv2.RANSAC, RANSAC_THRESHOLD_PX)
    if homography is None:
        return None
    kept = [k for k in range(len(group)) if inliers[4 * k : 4 * k + 4].all()]
    if len(kept) < MIN_MARKERS:
        return None
    points = np.concatenate([np.arange(4 * k, 4 * k + 4) for k in kept])
    homography, error = fit_homography(source[points], target[points])
    return SheetLocation(homography, tuple(sorted(group[k][0] for k in kept)), error, _scale(homography, layout))


def _scale(homography: np.ndarray, layout: Layout) -> float:
    """Photo pixels per layout millimetre about the page's centre."""
    width, height = layout.page_mm
    return scale_at(homography, (width / 2, height / 2))


def _reading_order(sheets: list[SheetLocation], layout: Layout) -> list[SheetLocation]:
    """Left to right, top to bottom: by rows of sheets whose centres lie within a sheet's height."""
    width, height = layout.page_mm
    centres = [cv2.perspectiveTransform(np.array([[[width / 2, height / 2]]]), s.homography).reshape(2) for s in sheets]
    order = sorted(range(len(sheets)), key=lambda i: centres[i][1])
    rows: list[list[int]] = []
    for i in order:
        if rows and centres[i][1] - centres[rows[-1][0]][1] < 0.5 * height * sheets[i].px_per_mm:
            rows[-1].append(i)
        else:
            rows.append([i])
    return [sheets[i] for row in rows for i in sorted(row, key=lambda i: centres[i][0])]


def _quality(sheets: list[SheetLocation]) -> tuple:
    """How good a detection pass's sheets are: how many, then markers used, then alignment."""
    return (len(sheets), sum(len(s.marker_ids) for s in sheets),
            -sum(s.alignment_error_px / s.px_per_mm for s in sheets))


def _by_markers(gray: np.ndarray, layout: Layout, long_sides: tuple[int, ...]) -> tuple[list[SheetLocation], list[list]]:
    """Sheets fitted by their markers, and the groups of markers that fit none, from the best
    of detection passes at ``long_sides`` (the next tried only while a sheet is incomplete). A
    pass on a shrunk copy that leaves a sheet incomplete is fitted again with its corners refined
    on the photo (refined_markers): a millisecond against the next pass's 15-25, its corners
    within a quarter of a pixel of that pass's (validation photos)."""
    best = None
    for long_side in long_sides:
        markers = detect_markers(gray, long_side, layout)
        best = _better(_fitted(markers, layout), best)
        if not _complete(*best, layout) and long_side < max(gray.shape):
            best = _better(_fitted(refined_markers(gray, markers, long_side, layout), layout), best)
        if _complete(*best, layout) or long_side >= max(gray.shape):
            break
    return best


def _fitted(markers: list[tuple[int, np.ndarray]], layout: Layout) -> tuple[list[SheetLocation], list[list]]:
    """The sheets ``markers`` fit, and their groups that fit none (seen in part: a finer pass may fit them)."""
    groups = _group(markers, layout)
    fitted = [_fit(group, layout) if len(group) >= MIN_MARKERS else None for group in groups]
    return ([sheet for sheet in fitted if sheet is not None],
            [group for group, sheet in zip(groups, fitted, strict=True) if sheet is None])


def _better(found: tuple[list[SheetLocation], list[list]],
            best: tuple[list[SheetLocation], list[list]] | None) -> tuple[list[SheetLocation], list[list]]:
    """``found`` (sheets, and groups that fit none) where its sheets are better than ``best``'s
    (_quality), else ``best``."""
    return found if best is None or _quality(found[0]) > _quality(best[0]) else best


def _complete(marked: list[SheetLocation], unfitted: list, layout: Layout) -> bool:
    """Whether markers found sheets, each with all its markers, and no group fits none."""
    return bool(marked) and not unfitted and all(len(s.marker_ids) == len(layout.marker_ids) for s in marked)


def _by_grid(gray: np.ndarray, layout: Layout) -> list[SheetLocation]:
    return [SheetLocation(g.homography, (), g.fit_error_px, _scale(g.homography, layout), "grid", g.lines)
            for g in find_grid_sheets(gray, layout)]


def _inside(point: np.ndarray, sheet: SheetLocation, layout: Layout) -> bool:
    page = sheet.page_corners(layout).astype(np.float32)
    return cv2.pointPolygonTest(page, (float(point[0]), float(point[1])), False) >= 0


def locate_sheets(gray: np.ndarray, layout: Layout | None = None) -> Located:
    """Every sheet in the photo ``gray`` ((h, w) uint8), in reading order.

    Markers are looked for on a coarse copy first: sheets with all of theirs are done. Where the
    coarse pass found markers but not all of a sheet's, a finer pass (markers too small for the
    coarse one) runs next, and sheets it finds with all of theirs are done too. Grids are looked
    for after, and the finer pass runs then where nothing at all was found.
    """
    layout = layout or load_layout()
    marked, unfitted = _by_markers(gray, layout, DETECT_LONG_SIDE[:1]) if layout.marker_ids else ([], [])
    finer_pass = bool(layout.marker_ids) and DETECT_LONG_SIDE[0] < max(gray.shape)
    if finer_pass and (marked or unfitted) and not _complete(marked, unfitted, layout):
        finer_pass = False
        marked, unfitted = _finer(gray, layout, marked, unfitted) or (marked, unfitted)
    if _complete(marked, unfitted, layout):
        return Located(tuple(_reading_order(marked, layout)), 0)
    gridded = _by_grid(gray, layout)
    sheets, partial = _combine(marked, unfitted, gridded, layout)
    finer = _finer(gray, layout, marked, unfitted) if finer_pass and not sheets else None
    if finer:
        sheets, partial = _combine(*finer, gridded, layout)
    return Located(tuple(_reading_order(sheets, layout)), partial)


def _finer(gray: np.ndarray, layout: Layout, marked: list[SheetLocation], unfitted: list) -> tuple[list, list] | None:
    """The finer marker pass's sheets and unfitted groups, where they are better than ``marked``
    and ``unfitted``; else None."""
    finer = _by_markers(gray, layout, DETECT_LONG_SIDE[1:])
    return finer if _better(finer, (marked, unfitted)) is finer else None


def _combine(marked: list[SheetLocation], unfitted: list, gridded: list[SheetLocation],
             layout: Layout) -> tuple[list[SheetLocation], int]:
    """One location per sheet: by all its markers where it has them, else by its grid, else by
    the markers it has; and the groups of markers that lie on none of them."""
    complete = [s for s in marked if len(s.marker_ids) == len(layout.marker_ids)]
    sheets = complete + [g for g in gridded if not any(_inside(g.page_centre(layout), s, layout) for s in complete)]
    sheets += [s for s in marked if len(s.marker_ids) < len(layout.marker_ids)
               and not any(_inside(s.page_centre(layout), g, layout) for g in sheets)]
    partial = [group for group in unfitted
               if not any(_inside(np.mean([c.mean(axis=0) for _, c in group], axis=0), s, layout) for s in sheets)]
    return sheets, len(partial)
