"""`sheetscan audit` and `sheetscan table`: the record read from the photo, findings, the ranking."""

import csv
import itertools
import json
from dataclasses import replace
import multiprocessing
import os
import queue
import shutil
import threading
import time
from functools import partial

import cv2
import pytest
from conftest import SAMPLES, assert_read_or_flagged, truth

from cli import app
from sheetscan.game.audit import Finding
from sheetscan.game.rules import CATEGORIES
from sheetscan.game.table import Player, rank, table_text, table_to_dict

RECORD_MEMBERS = ("turns", "bonsai_pruned", "ponds_marked", "written")


@pytest.mark.parametrize("level", ["scan", "phone"])
def test_audit_reads_the_whole_record_of_the_bundled_samples(runner, level):
    photo = SAMPLES / level / "0000.jpg"
    result = runner.invoke(app, ["audit", "--json", str(photo)])
    assert result.exit_code == 0, result.output
    [sheet] = json.loads(result.stdout)["sheets"]
    expected = truth(photo)["sheets"][0]
    assert_read_or_flagged(sheet, expected)
    if any(sheet[member] != expected[member] for member in RECORD_MEMBERS):  # a record misread is never sure
        assert sheet["verdict"] == "check"
    for finding in sheet["findings"]:
        assert set(finding) == {"kind", "cells", "boxes", "sentence"}


def test_audit_text_sets_written_beside_computed_and_overlay_is_written(runner, tmp_path):
    photo = SAMPLES / "phone" / "0000.jpg"
    result = runner.invoke(app, ["audit", "--overlay", str(tmp_path), str(photo)])
    assert result.exit_code == 0, result.output
    written = truth(photo)["sheets"][0]["written"]
    assert f"written {written['total']:>4}" in result.output
    assert "turns" in result.output and "findings:" in result.output
    picture = cv2.imread(str(tmp_path / "0000-sheet1-audit.png"))
    assert picture is not None and picture.shape[0] > picture.shape[1]


def test_audit_flags_exactly_the_written_numbers_that_differ_from_the_rules(runner):
    photo = SAMPLES / "scan" / "0000.jpg"
    line = json.loads(runner.invoke(app, ["audit", "--json", str(photo)]).stdout)
    [sheet] = line["sheets"]
    differs = {box for f in sheet["findings"] if f["kind"] == "written_differs" for box in f["boxes"]}
    assert differs == {f"written {c}" for c in sheet["written"] if sheet["written"][c] != sheet["score"][c]}


def test_score_and_audit_give_every_sheet_of_a_table_photo(runner):
    photo = SAMPLES / "table" / "0000.jpg"
    for command in ("score", "audit"):
        sheets = json.loads(runner.invoke(app, [command, "--json", str(photo)]).stdout)["sheets"]
        assert [s["score"]["total"] for s in sheets] == [t["score"]["total"] for t in truth(photo)["sheets"]]


def test_table_ranks_named_players_and_writes_csv(runner, tmp_path):
    photo = SAMPLES / "table" / "0000.jpg"
    out = tmp_path / "table.csv"
    result = runner.invoke(app, ["table", "--json", "--names", "Aiko,Ben,Chiara", "--csv", str(out), str(photo)])
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)
    sheets = truth(photo)["sheets"]
    by_name = {s["player"]: s for s in table["standings"]}
    for name, expected in zip(["Aiko", "Ben", "Chiara"], sheets, strict=True):
        assert by_name[name]["total"] == expected["score"]["total"]
    totals = [s["total"] for s in table["standings"]]
    assert totals == sorted(totals, reverse=True)
    assert table["winners"] == [table["standings"][0]["player"]]
    rows = list(csv.DictReader(out.open()))
    assert [row["player"] for row in rows] == [s["player"] for s in table["standings"]]
    assert [row["verdict"] for row in rows] == [s["verdict"] for s in table["standings"]]
    assert all(s["verdict"] in ("sure", "check") for s in table["standings"])


def test_table_of_a_folder_with_jobs_keeps_going_past_a_bad_photo(runner, tmp_path):
    shutil.copy(SAMPLES / "scan" / "0000.jpg", tmp_path / "a.jpg")
    shutil.copy(SAMPLES / "phone" / "0000.jpg", tmp_path / "b.jpg")
    (tmp_path / "c.jpg").write_text("not a photo")
    result = runner.invoke(app, ["table", "--jobs", "2", "--overlay", str(tmp_path / "out"), str(tmp_path)])
    assert result.exit_code == 2
    assert "c.jpg: not an image" in result.stderr and "Traceback" not in result.output
    assert "a.jpg #1" in result.stdout and "b.jpg #1" in result.stdout
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "a-sheet1-audit.png", "a-sheet1-name.png", "b-sheet1-audit.png", "b-sheet1-name.png"]


def test_output_places_that_cannot_be_written_are_refused_in_one_line(runner, tmp_path):
    photo = str(SAMPLES / "scan" / "0000.jpg")
    a_file = tmp_path / "taken.png"
    a_file.write_bytes(b"x")
    for args in (["table", "--csv", str(tmp_path), photo], ["table", "--csv", photo, photo],
                 ["audit", "--overlay", str(a_file), photo], ["score", "--debug", str(a_file), photo]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, args
        assert "Traceback" not in result.output and result.stderr.count("\n") == 1
    assert a_file.read_bytes() == b"x" and (SAMPLES / "scan" / "0000.jpg").stat().st_size > 1000


def _player(name: str, total: int, pruned: int) -> Player:
    return Player(name, "p.jpg", 1, {**dict.fromkeys(CATEGORIES, 0), "total": total}, pruned,
                  (Finding("written_differs", "x"),))


def test_each_players_reading_verdict_is_shown():
    standings = rank([_player("a", 30, 2), replace(_player("b", 20, 0), verdict="check")])
    assert [s["verdict"] for s in table_to_dict(standings)["standings"]] == ["sure", "check"]
    assert [line.split()[12] for line in table_text(standings).splitlines()[1:3]] == ["sure", "check"]


def test_ranking_breaks_ties_by_unpruned_leaves_then_shares():
    standings = rank([_player("a", 30, 2), _player("b", 30, 0), _player("c", 41, 3), _player("d", 30, 2)])
    assert [(s.player.name, s.place, s.shared) for s in standings] == [
        ("c", 1, False), ("b", 2, False), ("a", 3, True), ("d", 3, True)]
    assert rank([_player("x", 30, 1), _player("y", 30, 1)])[1].place == 1


@pytest.mark.parametrize("total, name", [(12, "Mushin (up to 19)"), (19, "Mushin (up to 19)"), (20, "20-30"),
                                         (60, "51-60"), (61, "Yugen (61 and more)")])
def test_a_lone_sheet_gets_its_solo_rank(total, name):
    assert table_to_dict(rank([_player("solo", total, 0)]))["solo_rank"] == name


def test_bench_audit_and_bench_table_report_their_figures(runner):
    result = runner.invoke(app, ["bench", "audit", "--n", "4", "--seed", "5", "--level", "scan", "--json"])
    assert result.exit_code == 0, result.output
    audit = json.loads(result.stdout.strip().splitlines()[-1])
    assert audit["sheets"] == 4
    assert audit["sheets_written_wrong"] + audit["sheets_written_right"] == 4
    for key in ("turn_symbols", "turn_symbols_raw", "marks", "written_numbers", "written_numbers_raw"):
        assert 0.9 <= audit[key] <= 1, key  # four clean scans: nearly every box reads right
    sure = audit["sheets_sure"] * 4
    assert sure == round(sure) and audit["wrong_totals_marked_sure"] == round(sure * (1 - audit["exact_total_when_sure"]))
    result = runner.invoke(app, ["bench", "audit", "--n", "2", "--seed", "5", "--level", "scan", "--layout", "pad", "--json"])
    pad = json.loads(result.stdout.strip().splitlines()[-1])
    assert pad["layout"] == "pad" and pad["sheets"] == 2 and pad["turn_symbols"] >= 0.9  # the pad's boxes, read as its own
    result = runner.invoke(app, ["bench", "table", "--n", "1", "--sheets-per-photo", "2", "--jobs", "2", "--repeat", "1",
                                 "--seed", "5", "--json"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout.strip().splitlines()[-1])
    assert table["sheets"] == 2 and table["sheets_found"] == 1.0 and table["sheets_invented"] == 0
    assert table["jobs"] == 2 and table["repeats"] == 1
    # the timed members are there; what they measure is the bench's to report, not a test's to judge
    assert all(isinstance(table[key], float) for key in ("sheets_per_second_one_job", "sheets_per_second_all_jobs",
                                                            "speedup", "cores_busy"))
    assert table["speedup_by_round"] == [table["speedup"]]  # one round: its ratio is the figure
    for share in ("exact_total", "right_winner"):
        low, high = table[f"{share}_interval"]
        assert 0 <= low <= table[share] <= high <= 1 and high - low > 0.3  # one table: a wide interval


def test_bench_audit_tells_the_sure_sheets_exact_and_wrong_apart():
    from types import SimpleNamespace

    from sheetscan.lab.tallies import verdict_tallies

    def sheet(total, sure_by):
        return SimpleNamespace(score=SimpleNamespace(breakdown={"total": total}),
                               verdict=SimpleNamespace(sure=sure_by is not None, sure_by=sure_by))

    def counted(tally):
        return {key for key, value in tally.items() if value}

    right = {"score": {"moss": 3, "total": 3}, "written": {"moss": 3, "total": 3}}
    slipped = {"score": {"moss": 3, "total": 3}, "written": {"moss": 4, "total": 4}}
    assert counted(verdict_tallies(right, sheet(3, "readings"))) == {
        "exact_total", "sure", "sure_exact", "sure by readings", "sure by readings, exact"}
    # the garden fitted to the player's 4: sure by the numbers, and wrong
    assert counted(verdict_tallies(slipped, sheet(4, "written numbers"))) == {"sure", "wrong_sure",
                                                                                "sure by written numbers"}
    assert counted(verdict_tallies(slipped, sheet(3, None))) == {"exact_total"}


@pytest.mark.parametrize("option", ["--coarse-digits", "--varied-digits", "--fresh-styles", "--unseen-styles"])
@pytest.mark.parametrize("command", [["read"], ["audit"], ["table", "--sheets-per-photo", "2", "--jobs", "1", "--repeat", "1"]])
def test_the_benches_draw_and_write_as_asked(runner, monkeypatch, command, option):
    from sheetscan.lab import bench, timing

    member = option.removeprefix("--").replace("-", "_")
    asked = []

    def recorded(*args, **kwargs):
        asked.append(kwargs.get(member, False))
        return synth_photo(*args, **kwargs)

    def recorded_small(*args, **kwargs):  # a read's timed photos: drawn as asked, quick to draw
        return recorded(*args, **{**kwargs, "megapixels": 1})

    synth_photo = bench.synth_photo
    monkeypatch.setattr(bench, "synth_photo", recorded)
    monkeypatch.setattr(timing, "synth_photo", recorded_small)
    # how long they take to read is not under test
    monkeypatch.setattr(timing, "_timed", lambda path, layout, repeats: (1.0, 1.0))
    monkeypatch.setattr(timing, "peak_memory_kib", lambda command: 1024)
    result = runner.invoke(app, ["bench", *command, "--n", "1", "--seed", "5", "--level", "scan", option, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.strip().splitlines()[-1])[member] is True
    # a read's timed photos too: they are drawn in the run's hands
    assert asked == [True] * (1 + timing.TIMED_PHOTOS if command == ["read"] else 1)


@pytest.mark.parametrize("successes, trials, low, high", [(8, 10, 0.490, 0.943), (0, 10, 0.0, 0.278),
                                                          (10, 10, 0.722, 1.0), (96, 100, 0.901, 0.984)])
def test_wilson_interval_matches_published_values(successes, trials, low, high):
    from sheetscan.lab.stats import wilson_interval

    assert wilson_interval(successes, trials) == pytest.approx((low, high), abs=0.0015)


def test_a_single_job_reads_on_one_thread_and_gives_the_threads_back(tmp_path):
    from sheetscan.reading.batch import read_photos

    (tmp_path / "a.jpg").write_text("not a photo")
    (tmp_path / "b.jpg").write_text("nor this")
    threads = cv2.getNumThreads()
    cv2.setNumThreads(2)
    try:
        results = read_photos([tmp_path / "a.jpg", tmp_path / "b.jpg"], jobs=1)
        first = next(results)
        assert cv2.getNumThreads() == 1 and first.error is not None
        assert next(results).path.endswith("b.jpg") and next(results, None) is None
        assert cv2.getNumThreads() == 2
    finally:
        cv2.setNumThreads(threads)


def test_results_carry_the_rectified_sheets_only_when_pictures_are_wanted():
    from sheetscan.reading.batch import read_photos

    photo = SAMPLES / "phone" / "0000.jpg"  # the table sample takes 12 s a read, for one slow sheet
    with_images, without = (next(read_photos([photo], jobs=1, keep_images=keep)) for keep in (True, False))
    assert with_images.sheets
    assert all(sheet.canonical is not None for sheet in with_images.sheets)
    assert all(sheet.canonical is None for sheet in without.sheets)
    assert [s.score for s in with_images.sheets] == [s.score for s in without.sheets]


def test_this_thread_shares_the_work_and_results_keep_their_order():
    from sheetscan.reading.batch import in_order_sharing_work

    done_by, handed, lock, counter = {}, queue.Queue(), threading.Lock(), itertools.count()
    worker_worked = threading.Event()  # this thread waits for it once, so both surely work

    def claim():
        with lock:
            index = next(counter)
        return index if index < 12 else None

    def work(index, where):
        time.sleep(0.02)
        done_by.setdefault(index, []).append(where)
        return index * index

    def work_here(index):
        worker_worked.wait(timeout=60)
        return work(index, "here")

    def worker():
        while (index := claim()) is not None:
            handed.put((index, work(index, "worker")))
            worker_worked.set()

    def next_result(wait):
        try:
            return handed.get() if wait else handed.get_nowait()
        except queue.Empty:
            return None

    thread = threading.Thread(target=worker)
    thread.start()
    results = list(in_order_sharing_work(12, claim, work_here, next_result))
    thread.join()
    assert results == [index * index for index in range(12)]
    assert all(len(where) == 1 for where in done_by.values()) and len(done_by) == 12  # each item done once
    assert {"here", "worker"} == {where[0] for where in done_by.values()}  # by both


def _read_here_or_die_in_a_worker(path, worker_died):
    """In a worker: mark ``worker_died`` and exit, as a worker killed for its memory would.
    Here: wait for that mark first, so the worker surely claims a photo however late it starts."""
    if multiprocessing.parent_process() is not None:
        worker_died.touch()
        os._exit(3)
    deadline = time.monotonic() + 60
    while not worker_died.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return f"read {path}"


def test_a_worker_that_dies_loses_only_its_own_photo(tmp_path):
    from sheetscan.reading.batch import read_with_workers

    paths = [str(index) for index in range(10)]
    read = partial(_read_here_or_die_in_a_worker, worker_died=tmp_path / "worker died")
    results = list(read_with_workers(paths, read, workers=1))
    lost = [index for index, result in enumerate(results) if not isinstance(result, str)]
    assert len(lost) == 1  # the photo the worker held when it died; this process read the rest
    assert "stopped" in results[lost[0]].error.message and results[lost[0]].path == paths[lost[0]]
    assert all(results[index] == f"read {index}" for index in range(10) if index not in lost)
    assert not multiprocessing.active_children()


def _read_failing_on_five(path):
    time.sleep(0.02)
    if path == "5":
        raise ValueError("no model for photo 5")
    return path


def test_an_error_that_is_not_a_photos_stops_the_batch_and_its_workers():
    from sheetscan.reading.batch import read_with_workers

    with pytest.raises(ValueError, match="photo 5"):
        list(read_with_workers([str(index) for index in range(10)], _read_failing_on_five, workers=1))
    assert not multiprocessing.active_children()
