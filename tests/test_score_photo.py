"""`sheetscan score`: photos in, gardens and exact scores out; bad photos fail alone."""

import gc
import json

import cv2
import numpy as np
import pytest
from conftest import SAMPLES, assert_read_or_flagged, truth

from cli import app
from sheetscan.design.layout import load_layout
from sheetscan.game.rules import CATEGORIES
from sheetscan.lab.timing import TIMED_PHOTOS
from sheetscan.reading.pipeline import collector_paused, read_photo


@pytest.mark.parametrize("level", ["scan", "phone"])
def test_bundled_samples_read_to_their_true_garden_and_score(runner, level):
    photo = SAMPLES / level / "0000.jpg"
    result = runner.invoke(app, ["score", "--json", str(photo)])
    assert result.exit_code == 0, result.output
    line = json.loads(result.stdout)
    assert line["file"] == str(photo) and line["error"] is None
    [sheet] = line["sheets"]
    expected = truth(photo)["sheets"][0]
    assert_read_or_flagged(sheet, expected)
    assert list(sheet["score"]) == list(CATEGORIES)
    assert np.array(sheet["cell_confidence"]).shape == (6, 6)
    assert sheet["verdict"] in ("sure", "check") and (sheet["verdict"] == "sure") == (sheet["check"] == [])
    assert (sheet["sure_by"] in ("readings", "written numbers", "turn log")) == (sheet["verdict"] == "sure")


def test_a_read_leaves_no_reference_cycles():
    # the decoder makes hundreds of thousands of small objects a hard sheet, with the collector
    # paused (pipeline.collector_paused): each must go by its reference count, or the collector's
    # pass after the sheet traverses them all (a recursive closure is such a cycle)
    photo, layout = SAMPLES / "hard" / "0000.jpg", load_layout("print-and-play")
    read_photo(photo, layout=layout)  # the networks and caches loaded
    gc.collect()
    with collector_paused():
        read_photo(photo, layout=layout)
        assert gc.collect() == 0


def test_table_sample_gives_every_sheet_in_reading_order(runner):
    photo = SAMPLES / "table" / "0000.jpg"
    line = json.loads(runner.invoke(app, ["score", "--json", str(photo)]).stdout)
    assert len(line["sheets"]) == len(truth(photo)["sheets"])
    tops = [min(corner[1] for corner in sheet["corners"]) for sheet in line["sheets"]]
    lefts = [min(corner[0] for corner in sheet["corners"]) for sheet in line["sheets"]]
    assert lefts[0] < lefts[1] and tops[2] > tops[0]


def test_text_output_shows_grid_breakdown_and_total(runner):
    result = runner.invoke(app, ["score", str(SAMPLES / "scan" / "0000.jpg")])
    assert result.exit_code == 0
    total = truth(SAMPLES / "scan" / "0000.jpg")["sheets"][0]["score"]["total"]
    assert f"  total    {total:>4}" in result.output
    assert "Sheet 1 (aligned to" in result.output


def test_bad_photos_fail_alone_with_their_own_exit_codes(runner, tmp_path):
    text = tmp_path / "notes.jpg"
    text.write_text("not a photo")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((900, 1200), 235, np.uint8) + np.random.default_rng(0).integers(0, 20, (900, 1200)).astype(np.uint8))
    dark = tmp_path / "dark.png"
    cv2.imwrite(str(dark), np.full((900, 1200), 12, np.uint8))
    good = SAMPLES / "scan" / "0000.jpg"
    paths = [str(text), str(blank), str(good), str(dark)]
    result = runner.invoke(app, ["score", "--json", *paths])
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == paths
    assert "not an image" in lines[0]["error"]
    assert "no sheet found" in lines[1]["error"]
    assert lines[2]["error"] is None and len(lines[2]["sheets"]) == 1
    assert "too dark" in lines[3]["error"]
    assert result.exit_code == 4  # the worst: a photo too dark to read
    assert "Traceback" not in result.output
    only_blank = runner.invoke(app, ["score", str(blank)])
    assert only_blank.exit_code == 3 and f"sheetscan: {blank}: no sheet found" in only_blank.stderr


def test_debug_writes_a_picture_per_stage(runner, tmp_path):
    result = runner.invoke(app, ["score", "--debug", str(tmp_path), str(SAMPLES / "phone" / "0000.jpg")])
    assert result.exit_code == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["0000-0-located.png", "0000-sheet1-1-rectified.png", "0000-sheet1-2-water.png",
                     "0000-sheet1-3-cells.png"]
    assert cv2.imread(str(tmp_path / "0000-sheet1-3-cells.png")).shape[2] == 3


def test_bench_read_reports_every_figure(runner):
    result = runner.invoke(app, ["bench", "read", "--n", "2", "--seed", "5", "--level", "scan", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    for key in ("sheets_found", "decoration_accuracy", "water_accuracy", "tree_dot_accuracy", "exact_total",
                "sheets_sure", "exact_total_when_sure", "turn_log_exact_when_sure"):
        assert 0 <= figures[key] <= 1
    assert figures["sheets"] == 2
    by = figures["sheets_sure_by"]  # every sure sheet once, by what bore it out
    assert list(by) == ["readings", "written numbers", "turn log"] and all(n["exact"] <= n["sure"] for n in by.values())
    assert sum(n["sure"] for n in by.values()) == figures["sheets_sure"] * 2
    # the timed members are there, the ratio made of the two times it reports
    assert isinstance(figures["peak_memory_mb"], int) and figures["peak_memory_mb"] >= 50  # a Python with numpy, at least
    # the times are rounded to the millisecond; the ratio is of the times before rounding
    assert figures["read_to_decode_ratio"] == pytest.approx(figures["read_seconds_12mp"] / figures["decode_seconds_12mp"], rel=0.02)
    # several photos timed: the first is the figure, the median and the slowest say how typical it is
    ratios = figures["read_to_decode_ratio_by_photo"]
    assert len(ratios) == TIMED_PHOTOS and ratios[0] == pytest.approx(figures["read_to_decode_ratio"], abs=0.011)
    assert figures["read_to_decode_ratio_slowest"] == max(ratios) >= figures["read_to_decode_ratio_median"] >= min(ratios)


@pytest.mark.parametrize("held_out", [False, True])
def test_the_timed_photo_is_drawn_in_the_runs_hands(monkeypatch, tmp_path, held_out):
    import sheetscan.lab.timing as timing
    import sheetscan.reading.pipeline as pipeline
    from sheetscan.design.layout import load_layout

    drawn, original = [], timing.synth_photo

    def synth(*args, **kwargs):
        drawn.append(kwargs.get("held_out_styles", False))
        return original(*args, **kwargs)

    monkeypatch.setattr(timing, "synth_photo", synth)
    monkeypatch.setattr(pipeline, "read_photo", lambda *args, **kwargs: None)  # the timing is not under test
    monkeypatch.setattr(timing, "peak_memory_kib", lambda command: 1024)
    timing.read_speed(tmp_path, 5, "scan", "all", "print-and-play", load_layout(), held_out, repeats=1)
    assert drawn == [held_out] * timing.TIMED_PHOTOS
