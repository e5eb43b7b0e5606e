"""Locate without markers: find each sheet by its garden grid, then check it against the layout.

1. Candidates: the photo's quadrilaterals, the grid-like ones first (``outlines``), on a
   coarse copy, then on a finer one where the photo is large enough.
2. The grid's own lines. A candidate is warped to a square, and each of the 7 lines of each
   direction is looked for near where a 6x6 grid puts it: the middle of each dark run across
   it in short stretches along it, a straight line voted for and fitted through those that
   agree. The 49 intersections give the garden's homography; the fit is done twice, the second
   time on the first's square, so a rough outline still lands every line.
3. The way round, and the claim. The grid is square: the page may lie any of 4 ways round it.
   For each, the layout's outlined boxes (turn boxes, scoring boxes, the name line) are looked
   for where it puts them: ink profiles across each side, sampled in the photo, where a side
   is a ridge of ink over what lies beside it. The way that
   finds most wins, and the sheet is claimed only if it finds most of them; where those found
   at their own size lie refines the page's homography beyond the grid.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from sheetscan.design.layout import Layout, Region, load_layout
from sheetscan.game.rules import GRID_SIZE
from sheetscan.names import LAYOUT_NAMES
from sheetscan.reading.claim import outlined_boxes, same_design
from sheetscan.reading.ink import local_ink_map
from sheetscan.reading.outlines import (CANDIDATE_LONG_SIDES, fit_homography, iter_grid_candidates, pixel_scaling, scale_at,
                                       scaled_points, shrunk)

FIT_CELL_PX = (24, 64)  # the grid is fitted on a square about as fine as the photo, within these pixels a cell
LINE_MARGIN = 0.5  # cells of the square beyond the grid on each side
LINE_SEARCH = 0.3  # of a cell: how far from where it is expected a line is looked for
LINE_HALF_WIDTH = 0.1  # of a cell: half the widest printed line (a thick border) whose centre is measured
LINE_STRETCHES = 24  # stretches along each line where the ink across it is profiled
LINE_AGREEMENT = 0.08  # of a cell: a stretch's peak this close to the fitted line agrees
LINE_CLOSE = 0.25  # of LINE_AGREEMENT: among lines as agreed with, the one most stretches agree with this closely
MIN_LINE_AGREEMENT = 0.6  # share of its stretches that must agree for a line to be found
MAX_HIDDEN_LINES = 1  # inner lines of a direction that may go unfound (drawings over them, faint print):
# each is put where the found lines either side space it evenly (midway, for one)
MIN_LINE_INK = 0.05  # ink above the stretch's median for a peak across a line to count
LINE_SLOPES = np.linspace(-0.06, 0.06, 13)  # slopes tried (pixels across per pixel along) in the square
WORK_PX_PER_MM = 4.0  # lines and boxes are looked for on a copy of the photo about this fine
MIN_BOXES_FOUND = 0.6  # share of the layout's boxes that must be found whole to claim a sheet
# A sheet showing fewer of them is not claimed where another design of the package, fitted to the
# same garden, shows more: a design's boxes fall on another's lines by chance (a pad fitted by the
# home-made sheet's layout showed up to 68% of them; docs/locating.md)
SURE_CLAIM = 0.9
SAME_OUTLINE = 0.005  # of the photo's long side: outlines whose corners all lie this close are one


@dataclass(frozen=True)
class GridSheet:
    """A sheet found by its grid.

    Attributes
    ----------
    homography : (3, 3) array
        Layout millimetres to pixels of the photo the grid was found on.
    boxes_found : float
        Share of the layout's outlined boxes found where the homography puts them.
    fit_error_px : float
        RMS distance between the found grid intersections and box corners and the fitted ones.
    lines : (2, 7, 2, 2) array
        Each direction's grid lines as two end points in photo pixels (for the debug picture).
    """

    homography: np.ndarray
    boxes_found: float
    fit_error_px: float
    lines: np.ndarray


def page_corners(homography: np.ndarray, layout: Layout) -> np.ndarray:
    """The page's 4 corners (clockwise from the top left) where ``homography`` (layout
    millimetres to pixels) puts them."""
    width, height = layout.page_mm
    page = np.array([[[0, 0]], [[width, 0]], [[width, height]], [[0, height]]], np.float64)
    return cv2.perspectiveTransform(page, homography).reshape(4, 2)


def _stretch_profiles(ink: np.ndarray, along: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(LINE_STRETCHES, w) mean ink of ``ink``'s rows in each stretch between ``along``'s ends,
    one profile across every vertical line; and the stretches' middle rows."""
    edges = np.linspace(along[0], along[1], LINE_STRETCHES + 1).round().astype(int)
    profiles = np.add.reduceat(ink[edges[0] : edges[-1]], edges[:-1] - edges[0], axis=0) / np.diff(edges)[:, None]
    return profiles, (edges[:-1] + edges[1:] - 1) / 2


def _line_peaks(profiles: np.ndarray, middle: np.ndarray, expected: np.ndarray, cell_px: float) -> list[np.ndarray]:
    """For each line across the stretch profiles (``_stretch_profiles``) near its ``expected``
    position, (k, 3) peaks (stretch, position along, position across) of the ink across it:
    every local maximum dark enough, for a player's pond outline may run beside the printed
    line, darker than it."""
    reach = int(round(LINE_SEARCH * cell_px))
    # the square's margin is wider than the search, so every band lies inside it
    columns = np.round(expected).astype(int)[:, None] + np.arange(-reach, reach + 1)  # (lines, band)
    bands = profiles[:, columns].transpose(1, 0, 2)  # (lines, stretches, band)
    paper = np.median(bands, axis=2)
    left, mid, right = bands[..., :-2], bands[..., 1:-1], bands[..., 2:]
    line, stretch, peak = np.nonzero((mid >= left) & (mid > right) & (mid >= paper[..., None] + MIN_LINE_INK))
    across = columns[line, 0] + _line_centres(bands[line, stretch], peak + 1, paper[line, stretch], cell_px)
    peaks = np.stack([stretch, middle[stretch], across], axis=1).astype(np.float64)
    return np.split(peaks, np.searchsorted(line, np.arange(1, len(expected))))


def _line_centres(bands: np.ndarray, peak: np.ndarray, paper: np.ndarray, cell_px: float) -> np.ndarray:
    """Where each line whose darkest sample is ``bands[i, peak[i]]`` is centred: the middle of
    the ink above half its height, over the samples around the peak that stay above it. A
    thick border is a flat run of full ink, and its darkest sample falls anywhere along it (so
    where the fit starts would move the line)."""
    half_width = max(1, int(np.ceil(LINE_HALF_WIDTH * cell_px)))
    offsets = np.arange(-half_width, half_width + 1)
    columns = peak[:, None] + offsets
    inside = (columns >= 0) & (columns < bands.shape[1])
    rows = np.arange(len(peak))[:, None]
    values = np.where(inside, bands[rows, np.clip(columns, 0, bands.shape[1] - 1)], 0)
    half = (bands[rows[:, 0], peak] + paper)[:, None] / 2
    above = values >= half
    # the run of samples above half height that holds the peak, and no other line beside it
    run = np.concatenate([np.cumprod(above[:, half_width::-1], axis=1)[:, :0:-1],
                          np.cumprod(above[:, half_width:], axis=1)], axis=1)
    weight = (values - half) * run
    return peak + (weight @ offsets) / np.maximum(weight.sum(axis=1), 1e-9)


def _fit_line(peaks: np.ndarray, tolerance: float, expected: float) -> tuple[float, float] | None:
    """(intercept, slope) of across = intercept + slope * along through the most stretches'
    peaks (a vote over slopes and the peaks' intercepts, ties to the line most stretches agree
    with closely, then to the one nearest ``expected``),
    refined by least squares; None if too few stretches agree."""
    if len(peaks) < 2:
        return None
    stretch, along, across = peaks.T
    in_stretch = np.eye(LINE_STRETCHES, dtype=np.float32)[stretch.astype(int)]  # (peaks, stretches) one-hot
    # (slopes, peaks) in float32: the (slopes, peaks, peaks) temporaries stay quick to allocate
    intercepts = (across[None, :] - LINE_SLOPES[:, None] * along[None, :]).astype(np.float32)
    apart = np.abs(intercepts[:, :, None] - intercepts[:, None, :])
    votes = ((apart <= tolerance).astype(np.float32) @ in_stretch > 0).sum(axis=2)  # stretches, not peaks
    # among the most agreed with, the line that most stretches agree with closely, for lines a
    # little askew agree with a straight one's peaks too (and with those beside it); then the nearest
    most = int(votes.max())
    slope_index, peak = np.nonzero(votes == most)
    close = ((apart[slope_index, peak] <= LINE_CLOSE * tolerance).astype(np.float32) @ in_stretch > 0).sum(axis=1)
    middle = float(along.sum()) / len(along)
    distance = np.abs(intercepts[slope_index, peak] + LINE_SLOPES[slope_index] * middle - expected)
    best = np.lexsort((distance, -close))[0]
    slope, intercept = LINE_SLOPES[slope_index[best]], float(intercepts[slope_index[best], peak[best]])
    if most < MIN_LINE_AGREEMENT * LINE_STRETCHES:
        return None
    for _ in range(2):
        # each stretch's peak nearest the line, if near enough: a pond outline beside it drops out
        residual = np.abs(across - intercept - slope * along)
        order = np.lexsort((residual, stretch))
        nearest = order[np.r_[True, stretch[order][1:] != stretch[order][:-1]]]
        agree = nearest[residual[nearest] <= tolerance]
        # least squares in closed form (np.polyfit's general solver, and even np.mean, cost
        # more than the rest of the fit)
        x, y = along[agree], across[agree]
        x_mean, y_mean = float(x.sum()) / len(x), float(y.sum()) / len(y)
        dx = x - x_mean
        slope = float(dx @ (y - y_mean) / max(float(dx @ dx), 1e-12))
        intercept = y_mean - slope * x_mean
    return intercept, slope


def _grid_lines(square: np.ndarray, cell_px: float) -> list[list[tuple[float, float]]] | None:
    """The 7 vertical and 7 horizontal lines of a grid warped to ``square`` (a cell is ``cell_px``),
    or None if a border line, or more than MAX_HIDDEN_LINES inner lines of a direction, is missing."""
    ink = local_ink_map(square, int(cell_px) | 1)
    start = LINE_MARGIN * cell_px
    along = (start, start + GRID_SIZE * cell_px)
    lines = []
    for oriented in (ink, ink.T):  # vertical lines (x across), then horizontal ones
        profiles, middle = _stretch_profiles(oriented, along)
        expected = start + np.arange(GRID_SIZE + 1) * cell_px
        fitted = []
        for index, (peaks, at) in enumerate(zip(_line_peaks(profiles, middle, expected, cell_px), expected, strict=True)):
            line = _fit_line(peaks, LINE_AGREEMENT * cell_px, at)
            if line is None and (index in (0, GRID_SIZE) or fitted.count(None) == MAX_HIDDEN_LINES):
                return None  # no grid here: the other lines need not be fitted
            fitted.append(line)
        found = [i for i, line in enumerate(fitted) if line is not None]  # the border lines among them
        for index in [i for i, line in enumerate(fitted) if line is None]:
            # the square is nearly the grid's own view, where lines between two are evenly spaced
            before = max(i for i in found if i < index)
            after = min(i for i in found if i > index)
            fitted[index] = tuple((a * (after - index) + b * (index - before)) / (after - before)
                                  for a, b in zip(fitted[before], fitted[after], strict=True))
        lines.append(fitted)
    return lines


def _intersections(lines: list[list[tuple[float, float]]]) -> np.ndarray:
    """(7, 7, 2) points (x, y) where vertical line i meets horizontal line j, at [j, i]."""
    points = np.empty((GRID_SIZE + 1, GRID_SIZE + 1, 2))
    for i, (a, b) in enumerate(lines[0]):  # x = a + b * y
        for j, (c, d) in enumerate(lines[1]):  # y = c + d * x
            y = (c + d * a) / (1 - d * b)
            points[j, i] = (a + b * y, y)
    return points


def grid_corners_mm(garden: Region, border_mm: float) -> np.ndarray:
    """(7, 7, 2) the line crossings of the grid of ``garden`` in millimetres, at [row, col]:
    inner lines on the cells' edges, the outer border (``border_mm`` wide) on its centre, half
    its width outside."""
    cell = garden.w / GRID_SIZE
    positions = np.arange(GRID_SIZE + 1) * cell
    positions[0] -= border_mm / 2
    positions[-1] += border_mm / 2
    xs, ys = np.meshgrid(garden.x + positions, garden.y + positions)
    return np.stack([xs, ys], axis=-1)


def _fit_grid(gray: np.ndarray, garden_to_photo: np.ndarray, garden: Region) -> tuple[np.ndarray, np.ndarray] | None:
    """The grid's 49 crossings in ``gray``'s pixels, (7, 7, 2), and its lines' end points, found
    near where ``garden_to_photo`` (the garden's millimetres to pixels) puts them."""
    cell_mm = garden.w / GRID_SIZE
    # a square coarser than the photo would skip thin lines between its samples
    cell_px = int(np.clip(round(cell_mm * scale_at(garden_to_photo, garden.center)), *FIT_CELL_PX))
    side = int(round((GRID_SIZE + 2 * LINE_MARGIN) * cell_px))
    scale = cell_px / cell_mm
    # square pixel centres -> garden millimetres
    to_mm = np.array([[1 / scale, 0, garden.x - LINE_MARGIN * cell_mm + 0.5 / scale],
                      [0, 1 / scale, garden.y - LINE_MARGIN * cell_mm + 0.5 / scale], [0, 0, 1]])
    square_to_photo = garden_to_photo @ to_mm
    square = cv2.warpPerspective(gray, square_to_photo, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                 borderValue=255)
    lines = _grid_lines(square, cell_px)
    if lines is None:
        return None
    crossings = cv2.perspectiveTransform(_intersections(lines).reshape(-1, 1, 2), square_to_photo).reshape(7, 7, 2)
    ends = np.array([crossings[[0, -1], :].transpose(1, 0, 2), crossings[:, [0, -1]]])
    return crossings, ends


def _rotations(layout: Layout) -> list[np.ndarray]:
    """(3, 3) maps of layout millimetres turning the garden k quarter turns about its centre."""
    cx, cy = layout.region("garden").center
    turns = []
    for k in range(4):
        cos, sin = np.round(np.cos(k * np.pi / 2)), np.round(np.sin(k * np.pi / 2))
        turns.append(np.array([[cos, -sin, cx - cos * cx + sin * cy], [sin, cos, cy - sin * cx - cos * cy], [0, 0, 1]]))
    return turns


def fit_garden(gray: np.ndarray, outline: np.ndarray, garden: Region,
               border_mm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The 6x6 grid that ``outline`` ((4, 2) corners clockwise in ``gray``) roughly traces, as
    ``garden``'s millimetres to ``gray``'s pixels, its 49 crossings (7, 7, 2) and its lines' end
    points (2, 7, 2, 2); None if any of its 14 lines is not found."""
    crossings_mm = grid_corners_mm(garden, border_mm)
    corners_mm = crossings_mm[[0, 0, -1, -1], [0, -1, -1, 0]].astype(np.float32)
    garden_to_photo = cv2.getPerspectiveTransform(corners_mm, outline.astype(np.float32))
    for _ in range(2):  # the first fit starts from the outline, the second from the first
        fit = _fit_grid(gray, garden_to_photo, garden)
        if fit is None:
            return None
        crossings, ends = fit
        garden_to_photo, _ = fit_homography(crossings_mm, crossings)
    return garden_to_photo, crossings, ends


def fit_sheet(gray: np.ndarray, outline: np.ndarray, layout: Layout) -> GridSheet | None:
    """The sheet whose garden ``outline`` ((4, 2) corners clockwise in ``gray``) roughly traces,
    fitted by its grid and claimed by its boxes; None if either is not found."""
    fit = fit_garden(gray, outline, layout.region("garden"), layout.garden_border_mm)
    if fit is None:
        return None
    garden_to_photo, crossings, ends = fit
    crossings_mm = grid_corners_mm(layout.region("garden"), layout.garden_border_mm)
    share, page_to_photo, box_corners, turn = _boxes_shown(gray, garden_to_photo, layout)
    if share < MIN_BOXES_FOUND or share < SURE_CLAIM and _another_design_shows_more(gray, outline, layout, share):
        return None
    # the page's crossings are the turned ones; the boxes add points beyond the grid
    source = [cv2.perspectiveTransform(crossings_mm.reshape(-1, 1, 2), np.linalg.inv(turn)).reshape(-1, 2)]
    target = [crossings.reshape(-1, 2)]
    for layout_corners, seen in box_corners:
        source.append(layout_corners)
        target.append(cv2.perspectiveTransform(seen.reshape(-1, 1, 2), page_to_photo).reshape(-1, 2))
    homography, error = fit_homography(np.concatenate(source), np.concatenate(target))
    return GridSheet(homography, share, error, ends)


def _boxes_shown(gray: np.ndarray, garden_to_photo: np.ndarray,
                 layout: Layout) -> tuple[float, np.ndarray, list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """The way round (of 4 quarter turns of the garden) that shows most of the layout's outlined
    boxes: (share shown, page to photo, the boxes found close, the turn)."""
    best = None
    for turn in _rotations(layout):
        page_to_photo = garden_to_photo @ turn
        share, box_corners = outlined_boxes(gray, page_to_photo, layout)
        if best is None or share > best[0]:
            best = (share, page_to_photo, box_corners, turn)
        if share == 1.0:  # every box found: no other way round finds more
            break
    return best


def _another_design_shows_more(gray: np.ndarray, outline: np.ndarray, layout: Layout, share: float) -> bool:
    """Whether a design of the package other than ``layout``'s, fitted to the garden ``outline``
    traces, shows more than ``share`` of its outlined boxes."""
    for name in LAYOUT_NAMES:
        other = load_layout(name)
        if same_design(layout, other):
            continue
        fit = fit_garden(gray, outline, other.region("garden"), other.garden_border_mm)
        if fit is not None and _boxes_shown(gray, fit[0], other)[0] > share:
            return True
    return False


def find_grid_sheets(gray: np.ndarray, layout: Layout) -> list[GridSheet]:
    """Every sheet in ``gray`` found by its grid and claimed by its boxes, largest first; a
    candidate inside a sheet already found, or tried already on a coarser copy, is not tried."""
    sheets: list[GridSheet] = []
    taken: list[np.ndarray] = []
    tried: list[np.ndarray] = []
    copies: dict[int, np.ndarray] = {0: gray}
    same_outline_px = SAME_OUTLINE * max(gray.shape)
    garden_side_mm = layout.region("garden").w + layout.garden_border_mm
    finer = [side for side in CANDIDATE_LONG_SIDES[1:] if side <= max(gray.shape)]
    def inside_taken(outline: np.ndarray) -> bool:  # the candidates ask it as they go
        centre = tuple(map(float, outline.mean(axis=0)))
        return any(cv2.pointPolygonTest(page.astype(np.float32), centre, False) >= 0 for page in taken)
    for long_side in [CANDIDATE_LONG_SIDES[0], *finer]:
        for outline in iter_grid_candidates(gray, long_side, passed=inside_taken):
            if any(np.abs(outline - other).max() <= same_outline_px for other in tried):
                continue
            tried.append(outline)
            work, factor = work_copy(gray, outline, garden_side_mm, copies)
            sheet = fit_sheet(work, scaled_points(outline, factor), layout)
            if sheet is None:
                continue
            sheet = GridSheet(pixel_scaling(1 / factor) @ sheet.homography, sheet.boxes_found,
                              sheet.fit_error_px / factor, scaled_points(sheet.lines, 1 / factor))
            sheets.append(sheet)
            taken.append(page_corners(sheet.homography, layout))
    return sheets


def work_copy(gray: np.ndarray, outline: np.ndarray, garden_side_mm: float,
              copies: dict[int, np.ndarray]) -> tuple[np.ndarray, float]:
    """The photo halved while a garden of ``garden_side_mm`` that ``outline`` traces keeps at
    least twice WORK_PX_PER_MM (sampled lines alias otherwise), kept in ``copies`` by halvings
    for the next candidate; and its size against ``gray``'s."""
    sides = np.linalg.norm(outline - np.roll(outline, 1, axis=0), axis=1)
    halvings = max(0, int(np.floor(np.log2(sides.mean() / garden_side_mm / WORK_PX_PER_MM))))
    if halvings not in copies:
        copies[halvings] = shrunk(gray, max(gray.shape) / 2**halvings)[0]
    work = copies[halvings]
    return work, work.shape[1] / gray.shape[1]
