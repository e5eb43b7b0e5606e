"""`layout from-photo`: a design's layout found in one photo of a blank sheet."""

import json

import cv2
import numpy as np
import pytest
from conftest import misread_cells

import cli
from sheetscan.design.layout import expand_layout, load_layout
from sheetscan.game.gardenfile import garden_to_dict
from sheetscan.reading.pipeline import read_photo
from sheetscan.synthetic.negatives import PAGE_KINDS, negative_photo
from sheetscan.synthetic.synth import blank_photo, match_truth, synth_photo

CHECKED_KINDS = ("turn", "turn_part", "score", "pond_icon", "leaf", "name", "cell")


@pytest.mark.parametrize("design, index", [("pad", 0), ("print-and-play", 1)])
def test_a_blank_photo_gives_the_designs_layout(design, index, tmp_path, runner):
    photo = tmp_path / "blank.jpg"
    photo.write_bytes(blank_photo(index, 51, "scan", design).jpeg)
    out = tmp_path / "found.json"
    result = runner.invoke(cli.app, ["layout", "from-photo", str(photo), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "found.png").exists()
    assert _largest_error_mm(expand_layout(json.loads(out.read_text())), load_layout(design)) < 1.0


def _largest_error_mm(found, true, kinds=CHECKED_KINDS) -> float:
    """The largest distance (true millimetres) of a found box's side from the true layout's, among
    the regions of ``kinds``, the found millimetres being the true ones scaled (20 mm cells) and
    shifted (the page's edge)."""
    scale = found.region("garden").w / true.region("garden").w
    shift = np.array([found.region("garden").x, found.region("garden").y]) - scale * np.array(
        [true.region("garden").x, true.region("garden").y])
    errors = []
    for region in true.regions:
        if region.kind in kinds:
            other = found.region(region.name)
            expected = np.array([region.x, region.y, region.x + region.w, region.y + region.h]) * scale + np.tile(shift, 2)
            errors.append(np.abs(np.array([other.x, other.y, other.x + other.w, other.y + other.h]) - expected).max() / scale)
    return max(errors)  # the print-and-play sheet's sub-boxes are 8 mm wide


@pytest.mark.parametrize("design", ["print-and-play", "pad"])
def test_a_filled_phone_photo_gives_the_designs_layout(design, tmp_path):
    """Photo 11 of seed 1: on the print-and-play sheet the middle die's digit touches its sub-box
    in all turn boxes but one; on the pad a turn row shows one box of 3 (before: turn boxes not
    found on either); on both the scoring row's last boxes are seen only with the writing or the
    label that touches them. (Its millimetres are a phone's: a scoring row 100 mm from the
    garden lies up to 2 mm from where the garden's fit puts the design's.)"""
    from sheetscan.reading.discover import discover_layout
    from sheetscan.reading.photo import load_photo

    photo = tmp_path / "filled.jpg"
    photo.write_bytes(synth_photo(11, 1, "phone", layout_name=design, markers="none").jpeg)
    found = discover_layout(load_photo(photo).gray)
    assert found.missing == ()
    # it reads the photo it was made from as the design's own layout does
    read, own = (read_photo(photo, layout=layout).sheets[0].decoded for layout in (expand_layout(found.document),
                                                                                   load_layout(design)))
    assert read.record == own.record and read.score == own.score


@pytest.mark.parametrize("design, seed, index", [("pad", 1, 7), ("print-and-play", 1, 2), ("pad", 3, 8)])
def test_a_filled_phone_photo_whose_outlines_are_touched_gives_the_designs_layout(design, seed, index, tmp_path):
    """The pad's photo 7 of seed 1: its turn boxes' outlines, blurred into their sub-boxes', are
    touched by the season labels, and speckled: 2 of 12 seen as rectangles; they are found by
    their straight sides (discover.PAGE_STRAIGHT_MM). The print-and-play photo 2: the players'
    digits, kept by the turn boxes' median, touch the sub-boxes' sides (found by the median's
    straight sides). The pad's photo 8 of seed 3, its turn boxes found so, had a row of them
    seen as one long box taken for the name box, 179 mm off, until boxes that overlap a turn
    box were left out of the name box's candidates. Before, none gave a whole layout."""
    from sheetscan.reading.discover import discover_layout
    from sheetscan.reading.photo import load_photo

    photo = tmp_path / "filled.jpg"
    photo.write_bytes(synth_photo(index, seed, "phone", layout_name=design, markers="none").jpeg)
    found = discover_layout(load_photo(photo).gray)
    assert found.missing == ()
    assert _largest_error_mm(expand_layout(found.document), load_layout(design)) < 1.5


def test_a_found_layout_reads_the_design_as_its_own_does(tmp_path, runner):
    blank = tmp_path / "blank.jpg"
    blank.write_bytes(blank_photo(0, 51, "scan", "pad").jpeg)
    assert runner.invoke(cli.app, ["layout", "from-photo", str(blank), "--out", str(tmp_path / "pad.json")]).exit_code == 0
    filled = synth_photo(2, 52, "scan", megapixels=3, layout_name="pad")
    path = tmp_path / "filled.jpg"
    path.write_bytes(filled.jpeg)
    result = runner.invoke(cli.app, ["score", "--json", "--layout", str(tmp_path / "pad.json"), str(path)])
    assert result.exit_code == 0, result.output
    read = json.loads(result.output)["sheets"][0]
    own = read_photo(path, layout=load_layout("pad")).sheets[0]
    assert len(misread_cells(read["garden"], garden_to_dict(own.garden))) <= 1


def test_no_layout_is_made_from_a_photo_without_a_garden(tmp_path, runner):
    photo = tmp_path / "sudoku.png"
    cv2.imwrite(str(photo), negative_photo(PAGE_KINDS.index("sudoku"), 3, "scan")[1])
    out = tmp_path / "none.json"
    result = runner.invoke(cli.app, ["layout", "from-photo", str(photo), "--out", str(out)])
    assert result.exit_code == 3
    assert result.output.strip().count("\n") == 0 and "sudoku.png: no garden grid found" in result.output
    assert not out.exists()


def test_a_page_joined_by_a_light_table_is_bounded_by_its_printed_boxes(tmp_path, runner):
    photo = tmp_path / "light-table.jpg"
    photo.write_bytes(blank_photo(5, 1, "phone", "print-and-play").jpeg)  # a bright table beside the page
    out = tmp_path / "found.json"
    result = runner.invoke(cli.app, ["layout", "from-photo", str(photo), "--out", str(out)])
    assert result.exit_code == 0, result.output
    found, true = expand_layout(json.loads(out.read_text())), load_layout("print-and-play")
    # before: 440 x 400 mm, the table's bright region with the page (210 x 297)
    assert np.abs(np.array(found.page_mm) / np.array(true.page_mm) - 1).max() < 0.1
    # so a sheet read with it has its page's corners where the paper's are (as the bench matches them)
    filled = synth_photo(0, 2, "phone", layout_name="print-and-play", markers="none")
    path = tmp_path / "filled.jpg"
    path.write_bytes(filled.jpeg)
    read = read_photo(path, layout=found)
    assert len(match_truth(filled.truth["sheets"], [sheet.corners for sheet in read.sheets])) == 1


def test_a_layout_missing_parts_is_not_written_and_says_what(tmp_path, runner):
    photo = tmp_path / "bare.png"
    cv2.imwrite(str(photo), negative_photo(PAGE_KINDS.index("bare_grid"), 3, "scan")[1])
    out = tmp_path / "grid.json"
    result = runner.invoke(cli.app, ["layout", "from-photo", str(photo), "--out", str(out)])
    assert result.exit_code == 4 and "could not find the 12 turn boxes" in result.output
    assert not out.exists() and (tmp_path / "grid.png").exists()  # the picture shows what was found
    result = runner.invoke(cli.app, ["layout", "from-photo", str(photo), "--out", str(tmp_path / "bare.json")])
    assert result.exit_code == 2 and "would overwrite the photo" in result.output


def _page_with_box(bend_mm: float, width_mm: float, height_mm: float) -> np.ndarray:
    """An upright page (printed.PAGE_PX_PER_MM) with one outlined box whose top and bottom
    sides bow outwards by ``bend_mm`` at their middle, as a phone's lens bends a long box."""
    from sheetscan.reading.printed import PAGE_PX_PER_MM

    scale = PAGE_PX_PER_MM
    page = np.full((int(2 * height_mm * scale + 100), int(width_mm * scale + 100)), 235, np.uint8)
    x = np.linspace(0, width_mm, 200)
    sag = bend_mm * (1 - (2 * x / width_mm - 1) ** 2)
    top = np.stack([x, height_mm / 2 - sag], axis=1)
    bottom = np.stack([x[::-1], height_mm * 1.5 + sag[::-1]], axis=1)
    outline = ((np.concatenate([top, bottom]) * scale) + 50).round().astype(np.int32)
    cv2.polylines(page, [outline], True, 60, 2, cv2.LINE_AA)
    return page


def test_a_long_box_bent_by_the_lens_is_still_a_box_and_a_square_blob_is_not():
    from sheetscan.reading.printed import line_contrast, printed_boxes, printed_lines

    bent = printed_boxes(printed_lines(line_contrast(_page_with_box(1.5, 135, 8))))
    assert len(bent) == 1 and abs(bent[0].w - 135) < 1.5
    # the allowance grows with the long side past the short one: a squarish outline bowed by 4 mm
    # (a box merged with its label, say) is no box
    assert printed_boxes(printed_lines(line_contrast(_page_with_box(4, 18, 14)))) == []


@pytest.mark.parametrize("design, index, kinds", [("pad", 0, ("turn", "turn_part")), ("pad", 4, ("turn", "turn_part")),
                                                  ("print-and-play", 0, ("pond_icon",)),
                                                  ("print-and-play", 1, ("turn", "turn_part")),
                                                  ("print-and-play", 4, CHECKED_KINDS)])
def test_a_blurred_blank_phone_photo_gives_the_designs_layout(design, index, kinds, tmp_path):
    """Blank phone photos of seed 3: on the pad's photo 0 the sub-boxes' faint grey outlines
    break up in every turn box (found in the median of the boxes' line contrast); on its photo 4
    a turn box's thick line, blurred, has edges 3.2 mm apart in length (one box,
    printed.MAX_LINE_MM); on the print-and-play sheet's photo 0 the pond icons' faint squares
    break up in each icon (found in the median around their drawings) and the first is seen as a
    box with the label that touches it; on its photo 1 the sub-boxes' faint sides break into
    dashes even in the median of the 12 turn boxes (found with its gaps closed over 1 mm,
    printed.SHARED_CLOSE_MM); on its photo 4 no printed word reads any way up, and the garden's
    numbers tell the way up (upright.numbered_sides). Before, none gave a whole layout."""
    from sheetscan.reading.discover import discover_layout
    from sheetscan.reading.photo import load_photo

    photo = tmp_path / "blank.jpg"
    photo.write_bytes(blank_photo(index, 3, "phone", design).jpeg)
    found = discover_layout(load_photo(photo).gray)
    assert found.missing == ()
    assert _largest_error_mm(expand_layout(found.document), load_layout(design), kinds) < 2.0


def test_a_thick_blurred_line_is_one_box():
    from sheetscan.reading.printed import PAGE_PX_PER_MM, line_contrast, printed_boxes, printed_lines

    page = np.full((int(40 * PAGE_PX_PER_MM), int(70 * PAGE_PX_PER_MM)), 235, np.uint8)
    width = int(round(1.4 * PAGE_PX_PER_MM))
    cv2.rectangle(page, (int(10 * PAGE_PX_PER_MM), int(10 * PAGE_PX_PER_MM)),
                  (int(52 * PAGE_PX_PER_MM), int(23 * PAGE_PX_PER_MM)), 70, width)
    page = cv2.GaussianBlur(page, (0, 0), 0.3 * PAGE_PX_PER_MM)
    boxes = printed_boxes(printed_lines(line_contrast(page)))
    assert len(boxes) == 1 and abs(boxes[0].w - 42) < 1.0 and abs(boxes[0].h - 13) < 1.0


def test_a_printed_lines_centre_is_measured_to_a_fraction_of_a_pixel():
    from sheetscan.reading.printed import PAGE_PX_PER_MM, Box, edge_centres, line_contrast

    # a box's top side 0.4 mm wide whose centre lies 30.37 mm down, drawn at 16 times the page's
    # resolution and reduced (a photo's line lands between pixels)
    fine = 16
    page = np.full((int(50 * PAGE_PX_PER_MM) * fine, int(80 * PAGE_PX_PER_MM) * fine), 235, np.uint8)
    top = 30.37 * PAGE_PX_PER_MM * fine  # page pixel i spans millimetres i / 5 to (i + 1) / 5
    half = 0.2 * PAGE_PX_PER_MM * fine
    page[int(round(top - half)) : int(round(top + half)), 10 * fine * 5 : 70 * fine * 5] = 60
    page = cv2.resize(page, None, fx=1 / fine, fy=1 / fine, interpolation=cv2.INTER_AREA)
    points = edge_centres(line_contrast(page), [Box(10, 30.37, 60, 10)], "top")
    assert len(points) > 90 and np.abs(points[:, 1] - (30.37 * PAGE_PX_PER_MM - 0.5)).max() < 0.1
    # nothing is measured on a side with no line, nor on one off the page
    assert len(edge_centres(line_contrast(page), [Box(10, 10, 60, 10)], "top")) == 0
    assert len(edge_centres(line_contrast(page), [Box(10, 45, 60, 10)], "bottom")) == 0


def test_a_square_seen_with_its_label_is_left_for_the_square():
    from sheetscan.reading.icons import unextended
    from sheetscan.reading.printed import Box

    square, with_label = Box(174.3, 148.9, 19.6, 20.0), Box(173.9, 148.5, 20.4, 24.2)
    turn, first_sub_box = Box(28, 148, 34, 10), Box(29.5, 149.2, 7, 7.6)  # no side shared but one
    assert unextended([with_label, square, turn, first_sub_box]) == [square, turn, first_sub_box]


def test_sub_boxes_whose_dashed_sides_touch_their_box_are_found_with_the_gaps_closed():
    from sheetscan.reading.printed import PAGE_PX_PER_MM as scale
    from sheetscan.reading.printed import SHARED_CLOSE_MM, closed_rectangles, printed_boxes

    mask = np.zeros((int(20 * scale), int(40 * scale)), np.uint8)
    cv2.rectangle(mask, (int(2 * scale), int(2 * scale)), (int(37 * scale), int(17 * scale)), 255, 2)  # the turn box
    for left, right in ((2, 11), (12, 21), (24, 37)):  # the sub-boxes, the first's and last's sides on the box's
        cv2.rectangle(mask, (int(left * scale), int(4 * scale)), (int(right * scale), int(15 * scale)), 255, 1)
    mask[:, int(7 * scale) : int(7 * scale) + 3] = 0  # dashes: 3-pixel gaps across every side
    mask[int(9 * scale) : int(9 * scale) + 3, :] = 0
    mask[:, int(30 * scale) : int(30 * scale) + 3] = 0
    assert not [b for b in printed_boxes(mask) if b.h < 14]
    subs = sorted((b for b in closed_rectangles(mask, SHARED_CLOSE_MM) if b.h < 14), key=lambda b: b.x)
    assert [(round(b.x), round(b.w)) for b in subs] == [(2, 9), (12, 9), (24, 13)]


def test_sub_boxes_that_digits_touch_in_the_median_are_found_by_their_straight_sides():
    """A filled sheet's digits are written in the same place in most turn boxes, so the boxes'
    median keeps them: blobs touching the sub-boxes' sides (print-and-play filled seed 1, photo
    2). Less the ink thicker than SOLID_MM every way, the sides alone outline the sub-boxes."""
    from sheetscan.reading.printed import PAGE_PX_PER_MM as scale
    from sheetscan.reading.printed import SOLID_MM, STRAIGHT_MM, closed_rectangles, printed_boxes, straight_lines
    from sheetscan.reading.printed import SHARED_CLOSE_MM

    mask = np.zeros((int(16 * scale), int(36 * scale)), np.uint8)
    cv2.rectangle(mask, (int(1 * scale), int(1 * scale)), (int(34 * scale), int(15 * scale)), 255, 3)  # the turn box
    for left, right in ((3, 12), (12, 21), (21, 32)):  # side by side: no outer edge of their own
        cv2.rectangle(mask, (int(left * scale), int(3 * scale)), (int(right * scale), int(13 * scale)), 255, 2)
        # a digit's blob, touching the sub-box's bottom side
        cv2.ellipse(mask, (int((left + right) / 2 * scale), int(9 * scale)), (int(2.5 * scale), int(3.7 * scale)), 0, 0, 360, 255, -1)

    def subs(boxes):
        return sorted((round(b.x), round(b.w)) for b in boxes if b.h < 12 and b.w < 12)

    assert subs(printed_boxes(mask)) == [] and subs(closed_rectangles(mask, SHARED_CLOSE_MM)) == []
    assert subs(printed_boxes(straight_lines(mask, SOLID_MM, STRAIGHT_MM))) == [(3, 9), (12, 9), (21, 11)]


def _page_with_ellipses(triangles: list[tuple[float, float, float]]) -> np.ndarray:
    """An upright page with, for each (x, y, size) in mm, three alike ellipse outlines of that
    size round a point, as a bonsai's leaves grow (not in a line)."""
    from sheetscan.reading.printed import PAGE_PX_PER_MM

    page = np.full((int(200 * PAGE_PX_PER_MM), int(150 * PAGE_PX_PER_MM)), 235, np.uint8)
    for x, y, size in triangles:
        for dx, dy in ((-1.1, 0.4), (0.0, -0.6), (1.1, 0.4)):
            centre = (int((x + dx * size) * PAGE_PX_PER_MM), int((y + dy * size) * PAGE_PX_PER_MM))
            axes = (int(size / 2 * PAGE_PX_PER_MM), int(size / 3.2 * PAGE_PX_PER_MM))
            cv2.ellipse(page, centre, axes, -30, 0, 360, 60, 2, cv2.LINE_AA)
    return page


def test_the_leaves_are_the_largest_alike_ellipses_outside_the_printed_boxes():
    from sheetscan.reading.icons import ellipses
    from sheetscan.reading.printed import Box, line_contrast, printed_lines

    # the bonsai's 14-mm leaves, and a scoring summary's 5-mm icons below them
    lines = printed_lines(line_contrast(_page_with_ellipses([(60, 40, 14), (40, 150, 5)])))
    leaves = ellipses(lines, 20, avoid=[])
    assert len(leaves) == 3 and all(abs(leaf.w - 14) < 2 and leaf.y < 60 for leaf in leaves)
    # ellipses inside a box found already (the pond icons) are no leaves
    inside_icons = ellipses(lines, 20, avoid=[Box(30, 20, 60, 40)])
    assert len(inside_icons) == 3 and all(leaf.y > 130 for leaf in inside_icons)


def test_a_leaf_is_the_square_of_its_lines_centre_whatever_crosses_its_inside():
    """A leaf's square is its outline's centre line, as the design's leaf box is (the square
    round its outer edge is a line's width larger: on the pad's filled photo 11 of seed 1, 9 mm
    leaves read all three leaves as pruned, 8 mm ones none), also where a vein across it splits
    its inside in two: its ink over its outer edge's length is the line's width."""
    from sheetscan.reading.icons import ellipses
    from sheetscan.reading.printed import PAGE_PX_PER_MM as scale
    from sheetscan.reading.printed import line_contrast, printed_lines

    page = np.full((int(60 * scale), int(80 * scale)), 235, np.uint8)
    size = 8.0
    for x, y in ((28, 32), (40, 25), (52, 32)):
        centre = (int(x * scale), int(y * scale))
        cv2.ellipse(page, centre, (int(size / 2 * scale), int(size / 3 * scale)), -30, 0, 360, 40, int(scale), cv2.LINE_AA)
        cv2.line(page, (int((x - 2) * scale), int((y + 2) * scale)), (int((x + 2) * scale), int((y - 2) * scale)), 120, 1)
    leaves = ellipses(printed_lines(line_contrast(page)), 20, avoid=[])
    assert len(leaves) == 3
    assert all(abs(leaf.w - size) < 0.3 for leaf in leaves), [round(leaf.w, 2) for leaf in leaves]
    # a shape all ink in the line mask has no line to take the centre of: its square is its
    # edge's (icons.FILLED_SHARE)
    mask = np.zeros_like(page)
    for x, y in ((28, 32), (40, 25), (52, 32)):
        cv2.ellipse(mask, (int(x * scale), int(y * scale)), (int(size / 2 * scale), int(size / 3 * scale)), -30, 0, 360,
                    255, -1)
    filled = ellipses(mask, 20, avoid=[])
    assert len(filled) == 3 and all(abs(leaf.w - size) < 0.5 for leaf in filled), [round(leaf.w, 2) for leaf in filled]


def test_pond_icons_whose_dashed_squares_are_no_rectangles_are_found_by_their_drawings():
    from sheetscan.reading.printed import PAGE_PX_PER_MM as scale
    from sheetscan.reading.icons import framed_drawings
    from sheetscan.reading.printed import Box, line_contrast, printed_boxes, printed_lines

    # the bonsai's leaves (3 alike ellipses, nearly in a row, no squares) and 4 pond icons in a
    # column: each a drawing in a faint square broken into dashes, the first drawing touching it
    page = _page_with_ellipses([(100, 40, 12)])
    squares = [Box(10, 60 + 30 * k, 14, 14) for k in range(4)]
    for k, square in enumerate(squares):
        x0, y0, x1, y1 = (int(v * scale) for v in (square.x, square.y, square.x + square.w, square.y + square.h))
        cv2.rectangle(page, (x0, y0), (x1, y1), 150, 1)
        for gap in range(x0 + 4, x1, 7):  # dashes: 3-pixel gaps every 7 pixels on every side
            page[y0 - 1 : y0 + 2, gap : gap + 3] = page[y1 - 1 : y1 + 2, gap : gap + 3] = 235
            page[gap : gap + 3, x0 - 1 : x0 + 2] = page[gap : gap + 3, x1 - 1 : x1 + 2] = 235
        axes = (int((7 if k == 0 else 5) * scale), int(3.5 * scale))
        cv2.ellipse(page, (int((square.x + 7) * scale), int((square.y + 7) * scale)), axes, 0, 0, 360, 60, 2, cv2.LINE_AA)
    contrast = line_contrast(page)
    lines = printed_lines(contrast)
    assert not [box for box in printed_boxes(lines) if box.x < 30]  # no rectangle is seen
    found = framed_drawings(lines, contrast, 20, 4, avoid=[])
    assert found is not None and all(abs(a.x - b.x) < 0.6 and abs(a.y - b.y) < 0.6 and abs(a.w - b.w) < 1.0
                                     for a, b in zip(found, squares, strict=True))
    # drawings with no square round them are no pond icons
    bare = page.copy()
    bare[:, : int(30 * scale)] = 235
    for square in squares:
        cv2.ellipse(bare, (int((square.x + 7) * scale), int((square.y + 7) * scale)), (int(5 * scale), int(3.5 * scale)),
                    0, 0, 360, 60, 2, cv2.LINE_AA)
    assert framed_drawings(printed_lines(line_contrast(bare)), line_contrast(bare), 20, 4, avoid=[]) is None


def test_a_line_of_boxes_is_found_with_alike_boxes_further_along_at_another_step():
    from sheetscan.reading.printed import Box, line_of

    # the pad's pond icons' drawings in a row, and the bonsai's leaves further along it (before:
    # the leaves' step, shorter than a drawing, was taken for the row's, and no row was found)
    icons = [Box(7 + 21 * k, 158, 13, 13) for k in range(4)]
    leaves = [Box(144 + 11 * k, 158, 11, 11) for k in range(3)]
    found = line_of(icons + leaves, 4, np.zeros((1200, 1200), np.uint8), avoid=[])
    assert found is not None and [round(box.x) for box in found] == [7, 28, 49, 70]


def test_a_blank_phone_photo_of_a_design_held_out_of_development_gives_its_layout(tmp_path):
    """The home-made landscape sheet, photo 3 of seed 1: its pond icons' grey squares break into
    dashes (before: no pond icons found)."""
    from sheetscan.reading.discover import discover_layout
    from sheetscan.reading.photo import load_photo

    photo = tmp_path / "blank.jpg"
    photo.write_bytes(blank_photo(3, 1, "phone", "homemade").jpeg)
    found = discover_layout(load_photo(photo).gray)
    assert found.missing == ()
    assert _largest_error_mm(expand_layout(found.document), load_layout("homemade"), kinds=("pond_icon",)) < 1.2


def test_a_faint_square_with_gaps_in_its_outline_is_a_box_and_its_label_is_not_part_of_it():
    from sheetscan.reading.printed import PAGE_PX_PER_MM as scale
    from sheetscan.reading.printed import printed_boxes

    lines = np.zeros((int(60 * scale), int(60 * scale)), np.uint8)
    x, y, side = 20, 15, 20
    cv2.rectangle(lines, (int(x * scale), int(y * scale)), (int((x + side) * scale), int((y + side) * scale)), 255, 1)
    for gap in (10, 16, 22):  # one-pixel gaps in the top and right sides, as a grey line in shadow shows
        lines[int(y * scale), int((x + gap - 5) * scale)] = 0
        lines[int((y + gap - 5) * scale), int((x + side) * scale)] = 0
    # a label whose letters touch the bottom side: closed, the square and the label make a rectangle too
    cv2.rectangle(lines, (int(23 * scale), int((y + side) * scale)), (int(37 * scale), int((y + side + 3) * scale)), 255, -1)
    boxes = printed_boxes(lines)
    assert len(boxes) == 1
    assert abs(boxes[0].x - x) < 0.5 and abs(boxes[0].y - y) < 0.5
    assert abs(boxes[0].w - side) < 0.5 and abs(boxes[0].h - side) < 0.5


def test_a_row_missing_one_box_has_it_put_back_where_the_lines_outline_it():
    from sheetscan.reading.printed import PAGE_PX_PER_MM as scale
    from sheetscan.reading.printed import Box, lattice

    grid = [[Box(10 + 45 * column, 20 + 15 * row, 42, 12) for column in range(3)] for row in range(4)]
    lines = np.zeros((int(100 * scale), int(160 * scale)), np.uint8)
    for box in (box for row in grid for box in row):
        cv2.rectangle(lines, (int(box.x * scale), int(box.y * scale)),
                      (int((box.x + box.w) * scale), int((box.y + box.h) * scale)), 255, 2)
    seen = [box for row in grid for box in row if box != grid[2][0]]  # its outline joins the row above's
    found = lattice(seen, 4, 3, lines)
    assert found is not None and len(found[2]) == 3
    put_back = found[2][0]
    assert abs(put_back.x - grid[2][0].x) < 0.5 and abs(put_back.y - grid[2][0].y) < 0.5
    # a row that shows one box of 3 (a player's digits touch the others) has both put back
    found = lattice([box for box in seen if box not in grid[1][1:]], 4, 3, lines)
    assert found is not None and [abs(a.x - b.x) < 0.5 and abs(a.y - b.y) < 0.5 for a, b in zip(found[1], grid[1])] == [True] * 3
    # no outline there, no box put back, and no lattice
    x, y = int(grid[2][0].x * scale), int(grid[2][0].y * scale)
    lines[y - 5 : y + int(12 * scale) + 5, x - 5 : x + int(42 * scale) + 5] = 0
    assert lattice(seen, 4, 3, lines) is None


def test_a_lattice_with_one_whole_row_is_completed_where_each_column_is_seen_twice():
    """A filled sheet's digits touch most turn boxes' outlines: rows of 3, 2, 2 and 2 boxes seen
    (print-and-play filled seed 3, photo 6). Every column is seen in two rows or more, so each
    missing box has a place; a column seen in one row only gives none."""
    from sheetscan.reading.printed import PAGE_PX_PER_MM as scale
    from sheetscan.reading.printed import Box, lattice

    grid = [[Box(10 + 35 * column, 20 + 16 * row, 33, 14) for column in range(3)] for row in range(4)]
    lines = np.zeros((int(100 * scale), int(130 * scale)), np.uint8)
    for box in (box for row in grid for box in row):
        cv2.rectangle(lines, (int(box.x * scale), int(box.y * scale)),
                      (int((box.x + box.w) * scale), int((box.y + box.h) * scale)), 255, 2)
    seen = [*grid[0], grid[1][0], grid[1][2], grid[2][0], grid[2][2], grid[3][0], grid[3][1]]
    found = lattice(seen, 4, 3, lines)
    assert found is not None
    assert all(abs(a.x - b.x) < 0.5 and abs(a.y - b.y) < 0.5 for row, truth in zip(found, grid) for a, b in zip(row, truth))
    # the middle column seen in the first row alone
    assert lattice([box for box in seen if box is not grid[3][1]], 4, 3, lines) is None


def test_sub_boxes_are_not_placed_on_one_another_where_one_is_seen_nowhere():
    """Where no turn box shows its first sub-box, the widest gaps between the others' boxes split
    one sub-box's boxes in two: two sub-boxes placed on one another, a layout 9 mm off (the
    held-out design's filled phone photo 6, seeds 1 and 3). None are placed instead."""
    from sheetscan.reading.discover import _placed
    from sheetscan.reading.printed import PAGE_PX_PER_MM as scale
    from sheetscan.reading.printed import Box

    turns = [Box(10 + 35 * column, 20, 30, 13) for column in range(3)]
    lines = np.zeros((int(50 * scale), int(120 * scale)), np.uint8)
    subs = [Box(1.5, 1.5, 7.5, 10), Box(10, 1.5, 7.5, 10), Box(20, 1.5, 8.5, 10)]
    for turn in turns:
        for sub in subs:
            cv2.rectangle(lines, (int((turn.x + sub.x) * scale), int((turn.y + sub.y) * scale)),
                          (int((turn.x + sub.x + sub.w) * scale), int((turn.y + sub.y + sub.h) * scale)), 255, 2)
    everywhere = [Box(sub.x + 0.1 * k, sub.y, sub.w, sub.h) for k in range(3) for sub in subs]
    assert [round(b.x) for b in _placed(everywhere, turns, lines)] == [2, 10, 20]
    seen = [Box(sub.x + 0.2 * k, sub.y, sub.w, sub.h) for k in range(3) for sub in subs[1:]]
    assert _placed(seen, turns, lines) is None


def test_the_gardens_numbers_tell_which_sides_of_it_they_stand_on():
    """The way up of a page whose words no reader reads (print-and-play blank seed 3, photo 4):
    the row numbers stand left of the garden and the column numbers above it. A line of text
    beside a side (the pad's legend) is no row of numbers."""
    from sheetscan.reading.printed import PAGE_PX_PER_MM as scale
    from sheetscan.reading.printed import Box
    from sheetscan.reading.upright import numbered_sides

    page = np.full((int(200 * scale), int(200 * scale)), 230, np.uint8)
    garden = Box(50, 50, 120, 120)
    cv2.rectangle(page, (int(50 * scale), int(50 * scale)), (int(170 * scale), int(170 * scale)), 40, 5)
    for k in range(6):
        middle = 50 + 20 * k + 10
        cv2.putText(page, str(k + 1), (int((middle - 1.5) * scale), int(45 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 40, 2)
        cv2.putText(page, str(k + 1), (int(42 * scale), int((middle + 1.5) * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 40, 2)
    assert numbered_sides(page, garden) == {"top", "left"}
    assert numbered_sides(np.ascontiguousarray(page[::-1, ::-1]), Box(30, 30, 120, 120)) == {"bottom", "right"}
    cv2.putText(page, "a legend beside the garden's foot", (int(50 * scale), int(176 * scale)),
                cv2.FONT_HERSHEY_SIMPLEX, 0.8, 40, 2)
    assert numbered_sides(page, garden) == {"top", "left"}


def test_a_row_of_boxes_seen_with_what_touches_them_is_put_back_and_no_side_off_the_page_is_outlined():
    from sheetscan.reading.printed import PAGE_PX_PER_MM as scale
    from sheetscan.reading.printed import Box, line_of, outlined

    row = [Box(10 + 20 * k, 30, 16, 14) for k in range(9)]
    with_labels = [Box(box.x - 1, box.y - 5, box.w + 2, box.h + 6) for box in row]  # a label touching each box
    lines = np.zeros((int(60 * scale), int(200 * scale)), np.uint8)
    for box in row + with_labels:
        cv2.rectangle(lines, (int(box.x * scale), int(box.y * scale)),
                      (int((box.x + box.w) * scale), int((box.y + box.h) * scale)), 255, 2)
    # the last two boxes were seen only with what touches them: put back inside those
    found = line_of(row[:7], 9, lines, avoid=row[:7] + with_labels[7:])
    assert found is not None and abs(found[8].x - row[8].x) < 0.5 and abs(found[8].y - row[8].y) < 0.5
    # but a row of boxes seen with their labels is no row: its last two would take in boxes seen
    assert line_of(with_labels[:7], 9, lines, avoid=with_labels[:7] + row) is None
    # nor is a box put back that crosses one seen
    assert line_of(row[:7], 9, lines, avoid=row[:7] + [Box(row[8].x + 8, 25, 16, 14)]) is None
    # a box off the page's left edge: the far end of the mask is not read as its side
    assert outlined(np.full_like(lines, 255), Box(-100, 30, 16, 14)) == 0


def test_the_layout_bench_names_the_photo_each_layout_it_read_with_came_from(runner, monkeypatch):
    """Both blank pad scans of seed 1 give whole layouts; the bench reads with the first and names
    its photo. It reports no speed, so it times no read."""
    import sheetscan.lab.bench as bench

    def untimed(*args, **kwargs):
        raise AssertionError("the layout bench timed a read")

    monkeypatch.setattr(bench, "read_speed", untimed)
    result = runner.invoke(cli.app, ["bench", "layout", "--n", "2", "--seed", "1", "--level", "scan", "--layout", "pad",
                                     "--reads", "1", "--layouts-read", "1", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["layouts_complete"] == 1.0 and [r["photo"] for r in figures["with_found_layouts"]] == [0]
    assert figures["with_found_layouts"][0]["sheets_found"] == figures["with_own_layout"]["sheets_found"] == 1.0
