"""Discover a sheet's layout from one photo of it: a printed design never seen before.

1. The garden: the largest candidate outline (grid.py) whose 14 lines are all found.
2. The page: the paper around the garden, in the garden's frame.
3. The way up: the page's printed words (Tesseract), read with the page turned each of 4 ways;
   the way that reads most of the game's words wins. Where none reads (a blurred photo), the
   way that puts the garden's numbers left of it and above it (upright.py).
4. The boxes, on the upright page: every printed rectangle (the two edges of a printed line
   merged into its centre), sorted by size and arrangement into the 12 turn boxes (4 rows of 3,
   a row per season, in the order their labels read) with their 3 sub-boxes, the 9 scoring
   boxes in a row, the 4 pond icons in a row or a column (or, where their faint squares break
   into dashes, their 4 alike drawings in a line, each in the square its dashes outline), the
   name line (the longest box);
   the bonsai's leaves are its 3 alike ellipses.

Millimetres come from the garden's cells at ``cell_mm``: the physical size does not matter to
reading (every reader scales to its box), only the proportions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from sheetscan.design.layout import TURN_PARTS, Region, expand_layout
from sheetscan.errors import NoSheetError
from sheetscan.game.rules import CATEGORIES, GRID_SIZE, TURNS_PER_SEASON, Season
from sheetscan.reading.grid import fit_garden, grid_corners_mm, work_copy
from sheetscan.reading.lens import lens_k, plumb_k, shown_at, undistorted
from sheetscan.reading.outlines import fit_homography, grid_candidates, pixel_scaling, scale_at, scaled_points, shrunk
from sheetscan.reading.icons import ellipses, framed_drawings, unextended
from sheetscan.reading.printed import (MIN_OUTLINED, PAGE_PX_PER_MM, SAME_LINE_MM, SHARED_CLOSE_MM, SOLID_MM,
                                      STRAIGHT_MM, Box, closed_rectangles, edge_centres, lattice, line_contrast,
                                      line_of, outlined, overlaps, printed_boxes, printed_lines, shared_lines,
                                      straight_lines, union)
from sheetscan.reading.upright import (PAGE_PIXELS_TO_MM, SEASON_WORDS, garden_on_page, read_words, upright,
                                       upright_page)

CANDIDATES_TRIED = 12  # garden outlines tried, the grid-like first
PAGE_SEARCH_LONG_SIDE = 1000  # the paper around the garden is looked for on a copy this size
MIN_SUB_BOX_OUTLINED = 3  # turn boxes in which the printed lines must outline a sub-box for it to be placed
PAGE_REACH = 3.0  # gardens: how far the page may reach from the garden on any side
# gardens: the most blank paper between the page's edge and its printed boxes (0.28 at most on
# the two designs here); a page found wider joined a table as light as the paper. A page bounded
# too small costs little (its corners lie on the paper), one too large a table's other sheets
PAGE_MARGIN = 0.35
LIGHT_TABLE_MARGIN = 0.05  # gardens of paper taken to lie past the printed boxes where no side's edge was seen
MIN_EDGE_POINTS = 10  # a printed line's side measured at fewer points does not measure the lens
WAY_UP = "which way up the page is (no printed word of the game read, nor the garden's numbers seen)"
# where no turn boxes are found, they are looked for in the page's lines kept where they run
# straight across or down this far (printed.straight_lines): a box's sides do; the letters of a
# label touching it, a player's digits and the noise along a blurred line do not
PAGE_STRAIGHT_MM = 5.0
LENS_REFIT = 0.004  # the page is looked at again where its printed lines measure a lens this much off the garden's
TITLE_WORDS = {"JARDIN", "JAPONES", "JAPANESE", "GARDEN"}
SUMMARY_WORDS = {"LANTERN", "BAMBOO", "TREE", "ROCK", "MOSS", "BRIDGE", "LINTERNA", "BAMBU", "ARBOL", "ROCA", "MUSGO",
                 "PUENTE"}


@dataclass(frozen=True)
class Discovered:
    """What was found: the layout document (the compact form of design/data/*.json), what was
    not found (the document is then incomplete), the upright page and the regions to draw."""

    document: dict
    missing: tuple[str, ...]
    page: np.ndarray
    drawn: dict[str, list[Box]]
    lens_k: float = 0.0  # the lens's bend straightened first (lens.py), 0 where none was
    turn: int = 0  # quarter turns from the photo to the upright page
    page_to_photo: np.ndarray | None = None  # (3, 3) the page's pixels to those of the photo straightened


def _garden_crossings(gray: np.ndarray, garden: Region) -> np.ndarray | None:
    """The (7, 7, 2) line crossings, in ``gray``'s pixels, of the first garden candidate whose
    14 lines are all found (at a nominal ``garden``); None if none is."""
    copies: dict[int, np.ndarray] = {0: gray}
    for outline in grid_candidates(gray)[:CANDIDATES_TRIED]:
        work, factor = work_copy(gray, outline, garden.w, copies)
        fit = fit_garden(work, scaled_points(outline, factor), garden, 0.0)
        if fit is not None:
            return scaled_points(fit[1], 1 / factor)
    return None


def _find_garden(gray: np.ndarray, cell_mm: float) -> tuple[np.ndarray, Region, float]:
    """The garden's millimetres (a nominal garden at the origin, cells ``cell_mm``) to
    ``gray``'s pixels, the garden, and the width of its outer line in those millimetres."""
    garden = Region("garden", "garden", 0.0, 0.0, GRID_SIZE * cell_mm, GRID_SIZE * cell_mm)
    crossings = _garden_crossings(gray, garden)
    if crossings is None:
        raise NoSheetError("no garden grid found (a 6x6 grid with all its lines)")
    # the inner lines lie on the cells' edges; the outer line's centre lies half its width
    # outside them: fit the cells by the inner crossings, and measure the outer line
    inner = np.s_[1:GRID_SIZE, 1:GRID_SIZE]
    nominal = grid_corners_mm(garden, 0.0)
    to_photo, _ = fit_homography(nominal[inner], crossings[inner])
    outer = cv2.perspectiveTransform(crossings.reshape(-1, 1, 2), np.linalg.inv(to_photo)).reshape(crossings.shape)
    beyond = np.concatenate([-outer[:, 0, 0], outer[:, -1, 0] - garden.w, -outer[0, :, 1], outer[-1, :, 1] - garden.h])
    border_mm = float(np.clip(2 * np.median(beyond), 0.0, 0.2 * cell_mm))
    return to_photo, garden, border_mm


def _page_bounds(gray: np.ndarray, garden_to_photo: np.ndarray, garden: Region) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) in the garden's millimetres of the paper around the garden: the bright
    region holding it (Otsu), within PAGE_REACH gardens of it."""
    small, small_factor = shrunk(gray, PAGE_SEARCH_LONG_SIDE)
    _, bright = cv2.threshold(cv2.GaussianBlur(small, (5, 5), 0), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    count, labels = cv2.connectedComponents(bright)
    centre = cv2.perspectiveTransform(np.array([[garden.center]], np.float64), garden_to_photo).reshape(2) * small_factor
    label = labels[int(np.clip(centre[1], 0, small.shape[0] - 1)), int(np.clip(centre[0], 0, small.shape[1] - 1))]
    ys, xs = np.nonzero(labels == label) if label else np.nonzero(np.ones_like(labels))
    points = np.stack([xs, ys], axis=1)[:: max(1, len(xs) // 20000)].astype(np.float64) / small_factor
    in_mm = cv2.perspectiveTransform(points.reshape(-1, 1, 2), np.linalg.inv(garden_to_photo)).reshape(-1, 2)
    reach = PAGE_REACH * garden.w
    low = np.maximum(np.percentile(in_mm, 0.5, axis=0), -reach)
    high = np.minimum(np.percentile(in_mm, 99.5, axis=0), garden.w + reach)
    return float(low[0]), float(low[1]), float(high[0]), float(high[1])


def _printed_bounds(found: Discovered, to_garden: np.ndarray, cell_mm: float) -> tuple[float, float, float, float] | None:
    """Bounds (x0, y0, x1, y1 in the garden's millimetres) for a page whose edge was found too far
    from its printed boxes on some side (a table as light as the paper joined it): those sides
    are moved to the margin that the other sides show (their median; LIGHT_TABLE_MARGIN gardens
    where none does). None where every side lies close."""
    height, width = (side / PAGE_PX_PER_MM for side in found.page.shape)
    printed = union([box for boxes in found.drawn.values() for box in boxes])
    margins = np.array([printed.x, printed.y, width - printed.x - printed.w, height - printed.y - printed.h])
    limit = PAGE_MARGIN * GRID_SIZE * cell_mm
    if margins.max() <= limit:
        return None
    close = margins[margins <= limit]
    margins[margins > limit] = np.median(close) if len(close) else LIGHT_TABLE_MARGIN * GRID_SIZE * cell_mm
    left, top, right, bottom = margins
    corners = np.array([[[printed.x - left, printed.y - top]], [[printed.x + printed.w + right, printed.y + printed.h + bottom]]])
    in_garden = cv2.perspectiveTransform(corners, to_garden).reshape(-1, 2)
    return (*in_garden.min(axis=0), *in_garden.max(axis=0))


def _turns(boxes: list[Box], words: list[tuple[str, Box]], lines: np.ndarray,
           contrast: np.ndarray) -> tuple[dict | None, list[Box]]:
    """The compact ``turns`` member from 4 rows of 3 alike boxes with 3 boxes inside each (the
    page's printed ``lines`` outline a box a row misses, and the sub-boxes; ``contrast`` is the
    page's line_contrast). A turn box may be seen by its line's outer or inner edge: each is
    placed by its centre, at their mean size."""
    rows = lattice(boxes, len(Season), TURNS_PER_SEASON, lines)
    if rows is None:
        return None, []
    turns = [b for row in rows for b in row]
    size = np.mean([[b.w, b.h] for b in turns], axis=0)
    parts = _sub_boxes([Box(*np.subtract(b.centre, size / 2), *size) for b in turns], boxes, lines, contrast)
    if parts is None:
        return None, turns
    centres = np.array([[b.centre for b in row] for row in rows])  # season, turn, (x, y)
    labels = _season_labels(rows, words)
    first = centres[0, 0] - size / 2
    return {
        "x": round(first[0], 1), "y": round(first[1], 1), "box_w": round(size[0], 1), "box_h": round(size[1], 1),
        "step_x": round(float(np.diff(centres[:, :, 0], axis=1).mean()), 2),
        "step_y": round(float(np.diff(centres[:, :, 1], axis=0).mean()), 2),
        "label_x": round(labels[0], 1), "seasons": labels[1],
        "sub_boxes": {part: box.compact() for part, box in zip(TURN_PARTS, parts, strict=True)},
    }, turns


def _sub_boxes(turns: list[Box], boxes: list[Box], lines: np.ndarray, contrast: np.ndarray) -> list[Box] | None:
    """The sub-boxes' places in the turn boxes ``turns`` (all of one size), relative to them, left
    to right. Where the printed ``lines`` show a sub-box: the ``boxes`` seen inside the turn
    boxes, and the rectangles drawn by the median of the boxes' line ``contrast`` (what the
    boxes share is printed; a filled sheet's digits, which touch the sub-boxes' outlines in
    nearly every box, differ from box to box), its gaps closed over SHARED_CLOSE_MM where
    nothing else places them, and its straight lines alone where that does not either (digits
    written in the same place in most boxes stay in the median). None if nothing does (_placed)."""
    seen = [Box(b.x - turn.x, b.y - turn.y, b.w, b.h) for turn in turns for b in boxes if turn.holds(b)]
    shared = shared_lines(contrast, turns)
    if shared is None:
        return _placed(seen, turns, lines)
    ways = (lambda: printed_boxes(shared), lambda: closed_rectangles(shared, SHARED_CLOSE_MM),
            lambda: printed_boxes(straight_lines(shared, SOLID_MM, STRAIGHT_MM)))
    return next((parts for way in ways if (parts := _placed(seen + way(), turns, lines))), None)


def _placed(seen: list[Box], turns: list[Box], lines: np.ndarray) -> list[Box] | None:
    """The sub-boxes among the boxes ``seen`` in the turn boxes ``turns`` (relative to them):
    their centres fall into as many clusters across as there are sub-boxes (split at the
    widest gaps), each outlined by the printed ``lines`` in a few turn boxes at least. None if
    they do not."""
    turn_w, turn_h = turns[0].w, turns[0].h
    found = sorted((b for b in seen if b.h >= 0.5 * turn_h and b.w < 0.9 * turn_w), key=lambda b: b.centre[0])
    if len(found) < len(TURN_PARTS):
        return None
    centres = np.array([b.centre[0] for b in found])
    cuts = np.sort(np.argsort(np.diff(centres))[-(len(TURN_PARTS) - 1):]) + 1
    clusters = np.split(np.arange(len(found)), cuts)
    if any(np.ptp(centres[c]) > 2 * SAME_LINE_MM for c in clusters):
        return None
    parts = [Box(*np.mean([[found[i].x, found[i].y, found[i].w, found[i].h] for i in c], axis=0)) for c in clusters]
    # where one sub-box is seen nowhere, the widest gaps split another's boxes in two
    if any(left.x + left.w - right.x > SAME_LINE_MM for left, right in zip(parts, parts[1:])):
        return None
    if any(sum(outlined(lines, Box(turn.x + part.x, turn.y + part.y, part.w, part.h)) >= MIN_OUTLINED for turn in turns)
           < MIN_SUB_BOX_OUTLINED for part in parts):
        return None
    return parts


def _season_labels(rows: list[list[Box]], words: list[tuple[str, Box]]) -> tuple[float, list[str]]:
    """Where the season labels start (left of the rows), and the season names in row order as
    printed (the rulebook's order where a row's label is not read)."""
    names, lefts = [], []
    for season, row in zip(Season, rows, strict=True):
        label = [(word, box) for word, box in words
                 if box.x + box.w <= row[0].x + 1 and abs(box.centre[1] - row[0].centre[1]) < row[0].h / 2]
        known = [(word, box) for word, box in label if any(word in names for names in SEASON_WORDS.values())]
        names.append(known[0][0] if known else season.name)
        lefts += [box.x for _, box in known]
    return (min(lefts) if lefts else max(rows[0][0].x - 22, 0.0)), names


def discover_layout(gray: np.ndarray, cell_mm: float = 20.0, name: str = "a layout found in a photo") -> Discovered:
    """The layout of the sheet in the photo ``gray``; NoSheetError if it holds no garden grid.
    The photo is first straightened of its lens's bend as the garden's grid measures it, then
    as the page's long printed lines found measure it, and looked at again where that differs
    by over LENS_REFIT: the garden alone may not show a lens that puts the boxes far from it
    millimetres from where they are (a pad's scoring row 3.2 mm)."""
    as_it_is = _find_garden(gray, cell_mm)
    k = lens_k(gray, lambda image: _garden_crossings(image, as_it_is[1]))
    found = _discovered(gray, k, cell_mm, name, garden_fit=None if k else as_it_is)
    size = (gray.shape[1], gray.shape[0])
    edges = [shown_at(points, found.lens_k, size) for points in _printed_edges(found)]
    k = plumb_k(edges, size, found.lens_k)
    if k is None or abs(k - found.lens_k) <= LENS_REFIT:
        return found
    again = _discovered(gray, k, cell_mm, name, found.turn)
    if WAY_UP in found.missing:
        again = replace(again, missing=(*again.missing, WAY_UP))
    return again if len(again.missing) <= len(found.missing) else found


def _discovered(gray: np.ndarray, k: float, cell_mm: float, name: str, turn: int | None = None,
                garden_fit: tuple[np.ndarray, Region, float] | None = None) -> Discovered:
    """The layout found in the photo ``gray`` straightened of a lens of parameter ``k``, its page
    turned ``turn`` quarter turns (as upright() finds it where None: WAY_UP is missing where it
    finds nothing, and the page is taken as the photo shows it); ``garden_fit`` is
    _find_garden's on the photo so straightened, where known already."""
    if k:
        gray = undistorted(gray, k)
    garden_to_photo, garden, border_mm = garden_fit or _find_garden(gray, cell_mm)
    # a page drawn much coarser than the photo would alias its thin lines
    gray, shrink = shrunk(gray, max(gray.shape) * 2 * PAGE_PX_PER_MM / scale_at(garden_to_photo, garden.center))
    full_to_shrunk = pixel_scaling(shrink)
    garden_to_photo = full_to_shrunk @ garden_to_photo
    bounds = _page_bounds(gray, garden_to_photo, garden)
    way_up = ()
    if turn is None:
        turn, to_garden, page, words = upright(gray, garden_to_photo, bounds, (garden.w, garden.h))
        if turn is None:
            turn, way_up = 0, (WAY_UP,)
    else:
        to_garden, page = upright_page(gray, garden_to_photo, bounds, turn)
        words = read_words(page)
    found = _found_on_page(page, words, to_garden, garden, border_mm, cell_mm, name, k)
    bounds = _printed_bounds(found, to_garden, cell_mm)
    if bounds is not None:
        to_garden, page = upright_page(gray, garden_to_photo, bounds, turn)
        found = _found_on_page(page, read_words(page), to_garden, garden, border_mm, cell_mm, name, k)
    page_to_photo = np.linalg.inv(full_to_shrunk) @ garden_to_photo @ to_garden @ PAGE_PIXELS_TO_MM
    return replace(found, missing=found.missing + way_up, turn=turn, page_to_photo=page_to_photo)


def _printed_edges(found: Discovered) -> list[np.ndarray]:
    """Points along the long printed straight lines of the page found, in the pixels of its photo
    as straightened (``found.page_to_photo``): the garden's inner lines, and the sides along
    each row (or column) of boxes: the turn boxes' rows and columns, the scoring boxes, the
    pond icons, the name box."""
    contrast = line_contrast(found.page)
    grid = found.drawn["garden"][0]
    side = grid.w / GRID_SIZE
    cells = [[Box(grid.x + column * side, grid.y + row * side, side, side) for column in range(GRID_SIZE)]
             for row in range(GRID_SIZE)]
    lines = [edge_centres(contrast, cells[row], "top") for row in range(1, GRID_SIZE)]
    lines += [edge_centres(contrast, [cells[row][column] for row in range(GRID_SIZE)], "left")
              for column in range(1, GRID_SIZE)]
    turns = found.drawn["turn"]
    groups = [turns[i : i + TURNS_PER_SEASON] for i in range(0, len(turns), TURNS_PER_SEASON)]
    groups += [turns[i :: TURNS_PER_SEASON] for i in range(TURNS_PER_SEASON)] if turns else []
    groups += [found.drawn[kind] for kind in ("score", "pond_icon", "name") if found.drawn[kind]]
    for group in groups:
        centres = np.array([box.centre for box in group])
        across = np.ptp(centres[:, 0]) >= np.ptp(centres[:, 1]) if len(group) > 1 else group[0].w >= group[0].h
        lines += [edge_centres(contrast, group, edge) for edge in (("top", "bottom") if across else ("left", "right"))]
    return [cv2.perspectiveTransform(points.reshape(-1, 1, 2), found.page_to_photo).reshape(-1, 2)
            for points in lines if len(points) >= MIN_EDGE_POINTS]


def _found_on_page(page: np.ndarray, words: list[tuple[str, Box]], to_garden: np.ndarray, garden: Region,
                   border_mm: float, cell_mm: float, name: str, k: float) -> Discovered:
    """The layout found on the upright ``page`` (its printed ``words``; ``to_garden`` maps its
    millimetres to the garden's, ``k`` is the lens's bend straightened first)."""
    height, width = (side / PAGE_PX_PER_MM for side in page.shape)
    grid = garden_on_page(to_garden, garden.w, garden.h)
    contrast = line_contrast(page)
    lines = printed_lines(contrast)
    boxes = [b for b in printed_boxes(lines) if not overlaps(b, grid)]
    missing, drawn = [], {"garden": [grid]}
    turns, turn_boxes = _turns(boxes, words, lines, contrast)
    if turns is None:  # outlines that a label, a player's digits or noise touch: their straight sides
        straight = [b for b in printed_boxes(straight_lines(lines, SOLID_MM, PAGE_STRAIGHT_MM)) if not overlaps(b, grid)]
        again = _turns(straight, words, lines, contrast)
        if again[0]:
            turns, turn_boxes = again
    drawn["turn"] = turn_boxes
    # a row of turn boxes seen as one long box is no name box
    rest = [b for b in boxes if not any(overlaps(t, b) for t in turn_boxes)]
    scoring = line_of(rest, len(CATEGORIES), lines, avoid=boxes)
    drawn["score"] = scoring or []
    rest = [b for b in rest if not any(overlaps(b, score) for score in drawn["score"])]
    icons = (line_of([b for b in unextended(rest) if 0.8 < b.w / b.h < 1.25], len(Season), lines,
                     avoid=boxes + (scoring or []))
             or framed_drawings(lines, contrast, cell_mm, len(Season), avoid=[grid, *boxes]))
    drawn["pond_icon"] = icons or []
    rest = [b for b in rest if b not in drawn["pond_icon"]]
    name_box = max((b for b in rest if b.w > 3 * b.h), key=lambda b: b.w, default=None)
    drawn["name"] = [name_box] if name_box else []
    leaves = ellipses(lines, cell_mm, avoid=[b for kind in drawn.values() for b in kind])
    drawn["leaf"] = leaves
    title = union([box for word, box in words if word in TITLE_WORDS]) or Box(width * 0.1, 1, width * 0.5, 6)
    summary = union([box for word, box in words if word in SUMMARY_WORDS
                      and not any(overlaps(box, s) or abs(box.y + box.h - s.y) < s.h for s in drawn["score"])])
    document = {
        "name": name, "page_mm": [round(width, 1), round(height, 1)],
        "title": {**title.compact(), "text": "JARDIN JAPONES"},
        "garden": {"x": round(grid.x, 1), "y": round(grid.y, 1), "cell_mm": round(grid.w / GRID_SIZE, 2),
                   "border_mm": round(border_mm, 2)},
        "summary": (summary or Box(1, height - 3, 2, 2)).compact(),
    }
    for member, part, what in (("turns", turns, "the 12 turn boxes (4 rows of 3, each with its 3 sub-boxes)"),
                                ("scoring", scoring, "the 9 scoring boxes in a row"),
                                ("pond_icons", icons, "the 4 pond icons in a row or a column"),
                                ("name_box", name_box, "the name box"), ("bonsai", leaves, "the bonsai's 3 leaves")):
        if not part:
            missing.append(what)
    if scoring:
        document["scoring"] = {**scoring[0].compact(), "step_x": round((scoring[-1].x - scoring[0].x) / 8, 2),
                               "label_h": round(0.35 * scoring[0].h, 1), "categories": list(CATEGORIES)}
    if icons:
        step = ((icons[-1].x - icons[0].x) / 3, (icons[-1].y - icons[0].y) / 3)
        document["pond_icons"] = {**icons[0].compact(), "step_x": round(step[0], 2), "step_y": round(step[1], 2)}
    if turns:
        document["turns"] = turns
    if name_box:
        document["name_box"] = name_box.compact()
    if leaves:
        bonsai = union(leaves)
        document["bonsai"] = {**bonsai.compact(), "leaves": [leaf.compact() for leaf in leaves]}
    if not missing:
        expand_layout(document)  # raises LayoutError naming what does not fit
    return Discovered(document, tuple(missing), page, drawn, k)
