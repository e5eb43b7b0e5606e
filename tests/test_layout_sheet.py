"""The layout (validated data) and the blank sheet drawn from it."""

import json
from importlib import resources

import cv2
import numpy as np
import pytest

from cli import app
from sheetscan.design.layout import LayoutError, expand_layout, load_layout
from sheetscan.synthetic.sheet import render_sheet

LAYOUT_TEXT = resources.files("sheetscan.design.data").joinpath("print-and-play.json").read_text()


def test_layout_has_every_region_the_readers_need():
    layout = load_layout()
    counts = {kind: len(layout.of_kind(kind)) for kind in
              ("cell", "turn", "turn_part", "leaf", "pond_icon", "score", "marker", "name")}
    assert counts == {"cell": 36, "turn": 12, "turn_part": 36, "leaf": 3, "pond_icon": 4,
                      "score": 9, "marker": 4, "name": 1}
    assert layout.cell(5, 5).x > layout.cell(0, 0).x and layout.cell(5, 5).y > layout.cell(0, 0).y


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda d: d["garden"].update(cell_mm=40), "overlap|outside the page"),
        (lambda d: d["name_box"].update(x=200), "outside the page"),
        (lambda d: d["markers"]["corners"][1].update(id=0), "distinct ids"),
        (lambda d: d.pop("turns"), "missing or has a malformed member"),
        (lambda d: d["scoring"]["categories"].reverse(), "scoring categories"),
        (lambda d: d["turns"]["sub_boxes"]["first"].update(x=d["turns"]["sub_boxes"]["second"]["x"]), "on one another"),
        (lambda d: d["turns"]["sub_boxes"]["location"].update(x=d["turns"]["box_w"] + 1), "outside turn_0"),
    ],
)
def test_a_broken_layout_is_refused(change, problem):
    document = json.loads(LAYOUT_TEXT)
    change(document)
    with pytest.raises(LayoutError, match=problem):
        expand_layout(document)


def detect_markers(image):
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, load_layout().marker_dictionary))
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    return [] if ids is None else [(int(i), c.reshape(4, 2)) for i, c in zip(ids.ravel(), corners, strict=True)]


@pytest.mark.parametrize("dpi", [100, 200])
def test_sheet_markers_are_found_where_the_layout_puts_them(dpi):
    layout = load_layout()
    found = detect_markers(render_sheet(dpi))
    assert sorted(marker_id for marker_id, _ in found) == sorted(layout.marker_ids)
    for marker_id, corners in found:
        x, y, w, h = layout.region(f"marker_{marker_id}").px(dpi)
        assert np.allclose(corners[0], (x, y), atol=2)
        assert np.allclose(corners[2], (x + w, y + h), atol=2)


def test_sheet_command_writes_png_pdf_and_layout(runner, tmp_path):
    png, pdf, layout_json = tmp_path / "sheet.png", tmp_path / "sheet.pdf", tmp_path / "layout.json"
    result = runner.invoke(app, ["sheet", "--out", str(png), "--dpi", "100", "--layout-json", str(layout_json)])
    assert result.exit_code == 0, result.output
    image = cv2.imread(str(png))
    document = json.loads(layout_json.read_text())
    assert list(image.shape[1::-1]) == document["page_px"]
    cell = next(r for r in document["regions"] if r["name"] == "cell_2_3")
    assert cell["mm"] == [108, 157, 20, 20] and cell["px"] == list(load_layout().cell(2, 3).px(100))
    assert runner.invoke(app, ["sheet", "--out", str(pdf), "--dpi", "100"]).exit_code == 0
    assert pdf.read_bytes().startswith(b"%PDF")


def test_sheet_command_refuses_other_formats(runner, tmp_path):
    result = runner.invoke(app, ["sheet", "--out", str(tmp_path / "sheet.gif")])
    assert result.exit_code == 2
    assert "PDF or PNG" in result.stderr
