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
from sheetscan.synthetic.synth import blank_photo, synth_photo

CHECKED_KINDS = ("turn", "turn_part", "score", "pond_icon", "leaf", "name", "cell")


@pytest.mark.parametrize("design, index", [("pad", 0), ("print-and-play", 1)])
def test_a_blank_photo_gives_the_designs_layout(design, index, tmp_path, runner):
    photo = tmp_path / "blank.jpg"
    photo.write_bytes(blank_photo(index, 51, "scan", design).jpeg)
    out = tmp_path / "found.json"
    result = runner.invoke(cli.app, ["layout", "from-photo", str(photo), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "found.png").exists()
    found, true = expand_layout(json.loads(out.read_text())), load_layout(design)
    # the found millimetres are the true ones scaled (20 mm cells) and shifted (the page's edge)
    scale = found.region("garden").w / true.region("garden").w
    shift = np.array([found.region("garden").x, found.region("garden").y]) - scale * np.array(
        [true.region("garden").x, true.region("garden").y])
    errors = []
    for region in true.regions:
        if region.kind in CHECKED_KINDS:
            other = found.region(region.name)
            expected = np.array([region.x, region.y, region.x + region.w, region.y + region.h]) * scale + np.tile(shift, 2)
            errors.append(np.abs(np.array([other.x, other.y, other.x + other.w, other.y + other.h]) - expected).max() / scale)
    assert max(errors) < 1.0  # true millimetres (the print-and-play sheet's sub-boxes are 8 mm wide)


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


def test_a_page_joined_by_a_light_table_gives_no_layout_rather_than_one_that_finds_no_sheet(tmp_path, runner):
    photo = tmp_path / "light-table.jpg"
    photo.write_bytes(blank_photo(5, 1, "phone", "print-and-play").jpeg)  # a bright table beside the page
    out = tmp_path / "found.json"
    result = runner.invoke(cli.app, ["layout", "from-photo", str(photo), "--out", str(out)])
    assert result.exit_code == 4 and "could not find the page's edges" in result.output
    assert "darker surface" in result.output and not out.exists()


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
    from sheetscan.reading.printed import printed_boxes, printed_lines

    bent = printed_boxes(printed_lines(_page_with_box(1.5, 135, 8)))
    assert len(bent) == 1 and abs(bent[0].w - 135) < 1.5
    # the allowance grows with the long side past the short one: a squarish outline bowed by 4 mm
    # (a box merged with its label, say) is no box
    assert printed_boxes(printed_lines(_page_with_box(4, 18, 14))) == []


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
    from sheetscan.reading.printed import Box, ellipses, printed_lines

    # the bonsai's 14-mm leaves, and a scoring summary's 5-mm icons below them
    lines = printed_lines(_page_with_ellipses([(60, 40, 14), (40, 150, 5)]))
    leaves = ellipses(lines, 20, avoid=[])
    assert len(leaves) == 3 and all(abs(leaf.w - 14) < 2 and leaf.y < 60 for leaf in leaves)
    # ellipses inside a box found already (the pond icons) are no leaves
    inside_icons = ellipses(lines, 20, avoid=[Box(30, 20, 60, 40)])
    assert len(inside_icons) == 3 and all(leaf.y > 130 for leaf in inside_icons)


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
    # no outline there, no box put back, and no lattice
    x, y = int(grid[2][0].x * scale), int(grid[2][0].y * scale)
    lines[y - 5 : y + int(12 * scale) + 5, x - 5 : x + int(42 * scale) + 5] = 0
    assert lattice(seen, 4, 3, lines) is None
