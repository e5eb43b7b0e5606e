"""Sheets without markers: found by their garden grid, claimed only with their boxes around it;
the publisher's pad as a second design; photos of no sheet of this game."""

import json

import cv2
import numpy as np
import pytest
from conftest import misread_cells

import cli
from sheetscan.design.layout import LayoutError, expand_layout as layout_from_document, layout_from, load_layout
from sheetscan.game.gardenfile import garden_to_dict
from sheetscan.reading.grid import find_grid_sheets
from sheetscan.reading.locate import locate_sheets
from sheetscan.reading.pipeline import read_photo
from sheetscan.synthetic.negatives import PAGE_KINDS, negative_photo
from sheetscan.synthetic.synth import synth_photo


def decoded(photo):
    return cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)


def worst_corner_mm(located, truth, layout):
    """Largest distance (mm of the page) between a true page corner and the nearest read sheet's."""
    worst = 0.0
    for sheet in truth["sheets"]:
        true = np.array(sheet["corners"])
        worst = max(worst, min(np.abs(s.page_corners(layout) - true).max() / s.px_per_mm for s in located.sheets))
    return worst


# Photo 2's page corners are extrapolated from its grid across a phone's lens: 2.93 mm off with the
# hands of before 2026-12-02, 3.40 mm since they draw its cells otherwise (the camera is the same).
# A known miss of issue 15 (bench locate's p95 is 4 mm), kept failing here until the fit holds it
# (placing each box side at its highest ridge holds it, 2.81 mm, but reads the pad worse).
LENS_BOUND_MISS = pytest.mark.xfail(strict=True, reason="top page corners 3.4 mm off, extrapolated through the lens")


@pytest.mark.parametrize("level, index", [("scan", 0), ("phone", 1), pytest.param("phone", 2, marks=LENS_BOUND_MISS)])
def test_a_sheet_printed_without_markers_is_found_by_its_grid(level, index):
    photo = synth_photo(index, 41, level, megapixels=3, markers="none")
    located = locate_sheets(decoded(photo))
    assert [s.found_by for s in located.sheets] == ["grid"]
    assert worst_corner_mm(located, photo.truth, load_layout()) < 3


def test_the_same_sheet_reads_the_same_with_its_markers_or_without(tmp_path):
    gardens = []
    for markers in ("all", "none", "some"):
        photo = synth_photo(4, 42, "scan", megapixels=3, markers=markers)  # "some" leaves 1 marker
        path = tmp_path / f"{markers}.jpg"
        path.write_bytes(photo.jpeg)
        result = read_photo(path)
        assert len(result.sheets) == 1, markers
        gardens.append(garden_to_dict(result.sheets[0].garden))
    assert not misread_cells(gardens[1], gardens[0]) and not misread_cells(gardens[2], gardens[0])
    assert len(photo.truth["sheets"][0]["hidden_markers"]) == 3


@pytest.mark.parametrize("layout_name, index", [("print-and-play", 1), ("pad", 2)])
def test_the_garden_is_tried_before_the_page_around_it(layout_name, index):
    # the page is the larger outline, and fitting a grid to it fails: a cost on every photo
    from sheetscan.reading.grid import fit_sheet
    from sheetscan.reading.outlines import grid_candidates

    layout = load_layout(layout_name)
    gray = decoded(synth_photo(index, 45, "phone", megapixels=3, markers="none", layout_name=layout_name))
    outlines = grid_candidates(gray)
    area = [cv2.contourArea(outline.astype(np.float32)) for outline in outlines]
    assert max(area) > area[0]  # a larger outline is there, tried later
    assert fit_sheet(gray, outlines[0], layout) is not None


@pytest.mark.parametrize("layout_name", ["print-and-play", "pad"])
def test_the_grid_fit_does_not_depend_on_where_it_starts(layout_name):
    # the outline found on a coarse copy is a pixel or two off; each start once moved the fit up
    # to 8 px (a thick border's flat darkest run, a pond outline beside a line), cells ~60 px
    from sheetscan.reading.grid import fit_garden
    from sheetscan.reading.outlines import grid_candidates

    layout = load_layout(layout_name)
    gray = decoded(synth_photo(2, 32, "phone", megapixels=4, markers="none", layout_name=layout_name))
    outline = grid_candidates(gray)[0]
    rng = np.random.default_rng(0)
    fits = [fit_garden(gray, outline + rng.uniform(-2, 2, outline.shape), layout.region("garden"),
                       layout.garden_border_mm) for _ in range(6)]
    crossings = np.array([crossings for _, crossings, _ in fits])
    assert np.abs(crossings - crossings[0]).max() < 2


def test_a_thick_border_line_is_centred_on_its_ink_not_its_darkest_sample():
    from sheetscan.reading.grid import LINE_STRETCHES, _line_peaks

    profiles = np.full((LINE_STRETCHES, 200), 0.02, np.float32)
    profiles[:, 96:101] = 0.84  # a border 5 px wide, saturated flat
    profiles[:, 103] = 0.9  # a pond outline drawn beside it, darker, apart from it
    middle = np.arange(LINE_STRETCHES, dtype=np.float64)
    peaks = _line_peaks(profiles, middle, np.array([100.0]), cell_px=64)[0]
    border = peaks[np.abs(peaks[:, 2] - 98) < 2]
    assert len(border) == LINE_STRETCHES and np.allclose(border[:, 2], 98)


def test_a_line_seen_twice_side_by_side_is_fitted_between_them():
    # no stretch's peak lies close to the line through both: the fit keeps it, it is not lost
    from sheetscan.reading.grid import LINE_STRETCHES, _fit_line

    stretch = np.arange(LINE_STRETCHES, dtype=np.float64)
    peaks = np.stack([stretch, stretch * 16 + 8, np.where(stretch % 2, 104.0, 100.0)], axis=1)
    intercept, slope = _fit_line(peaks, tolerance=5.0, expected=102.0)
    assert abs(intercept - 102) < 0.5 and abs(slope) < 0.01


@pytest.mark.parametrize("index", [0, 5])
def test_a_box_found_at_another_size_does_not_pull_the_fit(index):
    # the pad's scoring boxes stand 1.3 mm apart: a side found on the neighbour's line once
    # pulled the fit to 0.5-0.6 mm RMS off (0.07 and 0.16 mm with such boxes left out)
    layout = load_layout("pad")
    located = locate_sheets(decoded(synth_photo(index, 7, "phone", markers="none", layout_name="pad")), layout)
    (sheet,) = located.sheets
    assert sheet.alignment_error_px / sheet.px_per_mm < 0.3


def test_a_table_of_sheets_without_markers_is_found_sheet_by_sheet():
    photo = synth_photo(0, 43, "phone", sheets_per_photo=3, megapixels=8, markers="none")
    located = locate_sheets(decoded(photo))
    assert len(located.sheets) == 3 and {s.found_by for s in located.sheets} == {"grid"}
    assert worst_corner_mm(located, photo.truth, load_layout()) < 4


@pytest.mark.parametrize("kind", PAGE_KINDS)
def test_no_sheet_is_claimed_on_a_photo_of_something_else(kind):
    index = PAGE_KINDS.index(kind)
    assert negative_photo(index, 5, "phone")[0] == kind
    gray = cv2.cvtColor(negative_photo(index, 5, "phone")[1], cv2.COLOR_BGR2GRAY)
    assert locate_sheets(gray).sheets == ()


def test_small_sheets_on_a_table_photo_are_claimed_by_their_faint_boxes():
    # 1.1 and 1.3 px/mm: their boxes' thin sides show about half the ink of a finer photo's
    photo = synth_photo(3, 4, "phone", sheets_per_photo=3, markers="none")
    located = locate_sheets(decoded(photo))
    assert len(located.sheets) == 3
    assert min(s.px_per_mm for s in located.sheets) < 1.5


@pytest.mark.parametrize("seed, index", [(4, 16), (5, 26)])
def test_a_sheet_at_under_2_px_per_mm_is_claimed_by_its_boxes_grey_sides(seed, index):
    # 1.77 and 1.39 px/mm: the turn boxes' grey sides stand out of their profile's blur by
    # half the darkest-point measure's threshold, and the sheet showed 12 and 10 boxes of 22
    photo = synth_photo(index, seed, "phone", sheets_per_photo=3, markers="none")
    located = locate_sheets(decoded(photo))
    assert len(located.sheets) == 3
    assert min(s.px_per_mm for s in located.sheets) < 1.8


def _drawn_grid(cell_px: int, erased: dict[int, list[int]]) -> np.ndarray:
    """A 6x6 grid square as the line fit warps it (half a cell of margin), with the lines of
    ``erased`` ({0: vertical, 1: horizontal} indices) left out."""
    from sheetscan.reading.grid import LINE_MARGIN

    side = int(round((6 + 2 * LINE_MARGIN) * cell_px))
    square = np.full((side, side), 255, np.uint8)
    for index in range(7):
        at = int(round((LINE_MARGIN + index) * cell_px))
        if index not in erased.get(0, []):
            cv2.line(square, (at, 0), (at, side - 1), 90, 2)
        if index not in erased.get(1, []):
            cv2.line(square, (0, at), (side - 1, at), 90, 2)
    return square


def test_an_inner_line_hidden_by_drawings_is_put_midway_between_its_neighbours():
    from sheetscan.reading.grid import _grid_lines

    cell_px = 40
    whole = _grid_lines(_drawn_grid(cell_px, {}), cell_px)
    hidden = _grid_lines(_drawn_grid(cell_px, {1: [3]}), cell_px)
    assert whole is not None and hidden is not None
    assert np.allclose(np.array(hidden), np.array(whole), atol=0.5)
    # two inner lines of one direction, or a border line, are too many: no grid is claimed there
    assert _grid_lines(_drawn_grid(cell_px, {0: [2, 4]}), cell_px) is None
    assert _grid_lines(_drawn_grid(cell_px, {0: [0]}), cell_px) is None
    assert _grid_lines(_drawn_grid(cell_px, {1: [6]}), cell_px) is None


def test_a_small_garden_on_a_large_table_photo_is_found_on_the_finer_copy():
    # on the 1200-px copy this sheet's garden border merges with what touches it
    photo = synth_photo(24, 4, "phone", sheets_per_photo=3, markers="none")
    gray = decoded(photo)
    assert max(gray.shape) >= 2400
    assert len(locate_sheets(gray).sheets) == 3


def test_a_bare_grid_is_fitted_but_not_claimed_without_the_sheets_boxes():
    # the grid stage alone would take it: the claim is what turns it down
    gray = cv2.cvtColor(negative_photo(PAGE_KINDS.index("bare_grid"), 6, "scan")[1], cv2.COLOR_BGR2GRAY)
    from sheetscan.reading.grid import fit_garden
    from sheetscan.reading.outlines import grid_candidates

    layout = load_layout()
    fitted = [fit_garden(gray, outline, layout.region("garden"), layout.garden_border_mm) for outline in grid_candidates(gray)]
    assert any(fit is not None for fit in fitted)
    assert find_grid_sheets(gray, layout) == []


def test_the_pad_is_a_design_of_its_own_read_by_its_layout(tmp_path):
    pad = load_layout("pad")
    assert pad.marker_ids == () and pad.page_mm == (148.0, 210.0)
    own = load_layout()
    assert pad.region("garden").w != own.region("garden").w  # not the print-and-play sheet rescaled
    photo = synth_photo(1, 44, "phone", megapixels=4, layout_name="pad")
    gray = decoded(photo)
    assert [s.found_by for s in locate_sheets(gray, pad).sheets] == ["grid"]
    assert locate_sheets(gray, own).sheets == ()  # the other design's boxes are not where it says
    path = tmp_path / "pad.jpg"
    path.write_bytes(photo.jpeg)
    sheet = read_photo(path, layout=pad).sheets[0]
    truth = photo.truth["sheets"][0]
    assert len(misread_cells(garden_to_dict(sheet.garden), truth["garden"])) <= 1


def test_a_design_no_network_trained_on_is_found_without_markers_and_read(tmp_path):
    from sheetscan.lab.train import PLANS
    from sheetscan.names import HELD_OUT_LAYOUT

    # no plan draws it (and each shipped model names the designs its plan drew: test_train)
    assert all(HELD_OUT_LAYOUT not in dict(plan.other_designs) for plan in PLANS.values())
    layout = load_layout(HELD_OUT_LAYOUT)
    assert layout.marker_ids == () and layout.page_mm[0] > layout.page_mm[1]  # landscape, no markers
    photo = synth_photo(0, 61, "phone", megapixels=4, layout_name=HELD_OUT_LAYOUT)
    path = tmp_path / "homemade.jpg"
    path.write_bytes(photo.jpeg)
    sheets = read_photo(path, layout=layout).sheets
    assert [sheet.location.found_by for sheet in sheets] == ["grid"]
    truth = photo.truth["sheets"][0]
    assert not misread_cells(garden_to_dict(sheets[0].garden), truth["garden"])
    assert sheets[0].decoded.score.total == truth["score"]["total"]


def test_a_sheet_is_not_claimed_by_another_designs_layout_whose_boxes_fall_on_its_lines():
    # a pad fitted by the home-made sheet's layout, a quarter turn round, showed 68% of its boxes
    # whole (60% claims): the pad's own layout shows more on the same garden
    from sheetscan.reading.claim import same_design
    from sheetscan.reading.grid import MIN_BOXES_FOUND, SURE_CLAIM, _boxes_shown, fit_garden
    from sheetscan.reading.outlines import grid_candidates

    homemade, pad = load_layout("homemade"), load_layout("pad")
    gray = decoded(synth_photo(1, 90, "phone", markers="none", layout_name="pad"))
    outline = grid_candidates(gray)[0]
    fit = fit_garden(gray, outline, homemade.region("garden"), homemade.garden_border_mm)
    assert MIN_BOXES_FOUND <= _boxes_shown(gray, fit[0], homemade)[0] < SURE_CLAIM
    assert locate_sheets(gray, homemade).sheets == ()
    assert [s.found_by for s in locate_sheets(gray, pad).sheets] == ["grid"]
    # a layout made from a photo of a design is that design: it is not weighed against it
    moved = layout_from_document({**pad.document, "turns": {**pad.document["turns"], "x": pad.document["turns"]["x"] + 2}})
    assert same_design(moved, pad) and not same_design(homemade, pad)
    assert not same_design(layout_from_document({**pad.document, "turns": {**pad.document["turns"], "x": 40}}), pad)


def test_layout_files_are_checked_and_named_in_errors(tmp_path, runner):
    (tmp_path / "broken.json").write_text("{ not json")
    (tmp_path / "partial.json").write_text(json.dumps({"name": "x", "page_mm": [100, 100]}))
    with pytest.raises(LayoutError, match="broken.json: not a layout file"):
        layout_from(str(tmp_path / "broken.json"))
    with pytest.raises(LayoutError, match="partial.json: layout is missing"):
        layout_from(str(tmp_path / "partial.json"))
    result = runner.invoke(cli.app, ["score", "--layout", str(tmp_path / "absent.json"), str(tmp_path / "x.jpg")])
    assert result.exit_code == 2 and "absent.json: cannot read the layout" in result.output
    assert layout_from("pad") is load_layout("pad")


def test_sheet_and_synth_draw_the_pad(tmp_path, runner):
    result = runner.invoke(cli.app, ["sheet", "--layout", "pad", "--out", str(tmp_path / "pad.png"), "--dpi", "100",
                                     "--layout-json", str(tmp_path / "pad-regions.json")])
    assert result.exit_code == 0, result.output
    image = cv2.imread(str(tmp_path / "pad.png"))
    assert image.shape[:2] == load_layout("pad").page_px(100)[::-1]
    assert json.loads((tmp_path / "pad-regions.json").read_text())["marker_ids"] == []
    result = runner.invoke(cli.app, ["synth", "--layout", "pad", "--markers", "none", "--n", "1", "--megapixels", "2",
                                     "--out", str(tmp_path / "bench")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "bench" / "0000.json").read_text())["layout"] == "pad"


def test_debug_shows_the_grid_found(tmp_path, runner):
    photo = synth_photo(0, 41, "scan", megapixels=3, markers="none")
    path = tmp_path / "nomarkers.jpg"
    path.write_bytes(photo.jpeg)
    result = runner.invoke(cli.app, ["score", "--json", "--debug", str(tmp_path / "debug"), str(path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["sheets"][0]["found_by"] == "grid"
    picture = cv2.imread(str(tmp_path / "debug" / "nomarkers-0-located.png"))
    plain = cv2.cvtColor(decoded(photo), cv2.COLOR_GRAY2BGR)
    assert picture.shape == plain.shape and (np.abs(picture.astype(int) - plain).sum(axis=2) > 60).mean() > 0.002
