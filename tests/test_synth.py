"""The synthetic bench: deterministic photos whose truth agrees with the rules and the image."""

import json

import cv2
import numpy as np
import pytest

from cli import app
from sheetscan.game.audit import audit
from sheetscan.synthetic.camera import page_corners
from sheetscan.game.gardenfile import record_from_dict
from sheetscan.design.layout import load_layout
from sheetscan.game.score import score
from sheetscan.synthetic.synth import synth_photo

from test_layout_sheet import detect_markers

SMALL = 2.0  # megapixels: enough to find the markers, quick to make


def test_same_seed_same_bytes_and_truth():
    first, second = synth_photo(3, 11, "phone", megapixels=SMALL), synth_photo(3, 11, "phone", megapixels=SMALL)
    assert first.jpeg == second.jpeg and first.truth == second.truth
    assert synth_photo(4, 11, "phone", megapixels=SMALL).jpeg != first.jpeg


@pytest.mark.parametrize("level", ["scan", "phone", "hard"])
def test_truth_is_legal_scores_by_the_rules_and_has_the_contract_members(level):
    truth = synth_photo(1, 5, level, megapixels=SMALL).truth
    assert truth["image"] == "0001.jpg"
    for sheet in truth["sheets"]:
        assert {"garden", "score", "turns", "bonsai_pruned", "ponds_marked", "written", "corners", "style"} <= set(sheet)
        record = record_from_dict({**sheet["garden"], "turns": sheet["turns"], "bonsai_pruned": sheet["bonsai_pruned"],
                                   "ponds_marked": sheet["ponds_marked"]})
        result = score(record.garden)
        assert result.breakdown == sheet["score"]
        assert audit(record, result) == []


def marker_truth(sheet, dpi):
    """Where the layout's marker corners land in the photo, through the truth's corners."""
    layout = load_layout()
    page = page_corners(layout.page_px(dpi)).astype(np.float32)
    homography = cv2.getPerspectiveTransform(page, np.array(sheet["corners"], np.float32))
    expected = {}
    for marker_id in layout.marker_ids:
        x, y, w, h = layout.region(f"marker_{marker_id}").px(dpi)
        # ArUco reports the centres of the marker's outermost pixels
        square = np.array([[[x, y]], [[x + w - 1, y]], [[x + w - 1, y + h - 1]], [[x, y + h - 1]]], np.float32)
        expected[marker_id] = cv2.perspectiveTransform(square, homography).reshape(4, 2)
    return expected


@pytest.mark.parametrize("level, sheets, tolerance_px", [("scan", 1, 2), ("phone", 1, 3), ("phone", 3, 3)])
def test_markers_in_the_photo_lie_where_the_truth_corners_say(level, sheets, tolerance_px):
    photo = synth_photo(2, 9, level, sheets_per_photo=sheets, megapixels=SMALL * sheets)
    image = cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_COLOR)
    found = detect_markers(image)
    assert len(photo.truth["sheets"]) == sheets
    matched = 0
    for sheet in photo.truth["sheets"]:
        corners = np.array(sheet["corners"])
        assert ((corners >= 0) & (corners <= image.shape[1::-1])).all()
        for marker_id, expected in marker_truth(sheet, sheet["dpi"]).items():
            if any(i == marker_id and np.abs(c - expected).max() < tolerance_px for i, c in found):
                matched += 1
    assert matched == 4 * sheets


def test_synth_command_writes_images_and_truth(runner, tmp_path):
    out = tmp_path / "bench"
    result = runner.invoke(app, ["synth", "--n", "2", "--seed", "4", "--level", "scan", "--out", str(out),
                                 "--megapixels", "2"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["0000.jpg", "0000.json", "0001.jpg", "0001.json"]
    truth = json.loads((out / "0001.json").read_text())
    assert truth["image"] == "0001.jpg" and len(truth["sheets"]) == 1
    assert cv2.imread(str(out / "0001.jpg")).shape[0] > 1000
    bad = runner.invoke(app, ["synth", "--n", "1", "--level", "blurry", "--out", str(out)])
    assert bad.exit_code == 2 and "'blurry' is not one of" in bad.stderr


@pytest.mark.parametrize("option, names", [("--held-out-styles", "HELD_OUT"), ("--fresh-styles", "FRESH"),
                                           ("--unseen-styles", "UNSEEN")])
def test_synth_command_draws_with_the_hands_asked(runner, tmp_path, option, names):
    from sheetscan.synthetic import archetypes

    result = runner.invoke(app, ["synth", "--n", "1", "--seed", "4", "--level", "scan", "--out", str(tmp_path),
                                 "--megapixels", "1", option])
    assert result.exit_code == 0, result.output
    drawings = json.loads((tmp_path / "0000.json").read_text())["sheets"][0]["drawings"]
    assert set(drawings.values()) <= getattr(archetypes, names)
