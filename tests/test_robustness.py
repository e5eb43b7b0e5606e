"""Stopping and failing cleanly: Ctrl-C mid-batch, files never half-written."""

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLES

from sheetscan.errors import ExitCode
from sheetscan.files import write_atomically

ROOT = Path(__file__).parents[1]


def test_a_failed_write_leaves_the_old_file_and_no_part(tmp_path):
    target = tmp_path / "table.csv"
    target.write_text("the old table\n")

    def half_then_fail(path: Path) -> None:
        path.write_text("half a ta")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, half_then_fail)
    assert target.read_text() == "the old table\n" and [p.name for p in tmp_path.iterdir()] == ["table.csv"]
    write_atomically(target, lambda path: path.write_text("the new table\n"))
    assert target.read_text() == "the new table\n" and [p.name for p in tmp_path.iterdir()] == ["table.csv"]


def test_ctrl_c_mid_batch_keeps_what_was_read_and_exits_130(tmp_path):
    photos = []
    for index in range(12):
        photos.append(tmp_path / f"{index:02d}.jpg")
        shutil.copy(SAMPLES / "phone" / "0000.jpg", photos[-1])
    process = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "score", "--json", "--jobs", "2",
                                *map(str, photos)], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    first = process.stdout.readline()  # one photo read: now interrupt, as a terminal's Ctrl-C does
    process.send_signal(signal.SIGINT)
    rest, errors = process.communicate(timeout=60)
    assert process.returncode == 130
    assert '"sheets":[{' in first and "Traceback" not in errors
    assert errors.strip().splitlines()[-1] == "sheetscan: interrupted; the photos read so far are printed above"
    assert len((first + rest).splitlines()) < len(photos)


def test_an_unexpected_error_is_one_line_unless_asked_for_the_traceback(monkeypatch, capsys):
    import cli

    def broken(**kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "app", broken)
    monkeypatch.setattr(cli, "SHOW_TRACEBACKS", False)
    with pytest.raises(SystemExit) as stopped:
        cli.main()
    assert stopped.value.code == ExitCode.internal_error
    assert capsys.readouterr().err.strip().splitlines() == [
        "sheetscan: internal error (RuntimeError: a bug); run again with --verbose for the details"]
    monkeypatch.setattr(cli, "SHOW_TRACEBACKS", True)
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main()


@pytest.mark.parametrize("make, code", [
    (lambda folder: folder / "absent.jpg", ExitCode.bad_input),
    (lambda folder: _write(folder / "notes.jpg", b"shopping list"), ExitCode.bad_input),
    (lambda folder: _write(folder / "cut.jpg", (SAMPLES / "phone" / "0000.jpg").read_bytes()[:5000]), ExitCode.bad_input),
    (lambda folder: _write(folder / "plain.png", _png_of_paper()), ExitCode.no_sheet),
])
def test_the_real_command_exits_with_the_documented_code_and_one_line(tmp_path, make, code):
    photo = make(tmp_path)
    result = subprocess.run([sys.executable, str(ROOT / "cli.py"), "score", str(photo)], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == code
    assert len(result.stderr.strip().splitlines()) == 1 and photo.name in result.stderr and "Traceback" not in result.stderr


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _png_of_paper() -> bytes:
    import cv2
    import numpy as np

    paper = np.full((600, 800), 235, np.uint8)
    cv2.putText(paper, "a shopping list", (50, 300), cv2.FONT_HERSHEY_SIMPLEX, 2, 40, 3)
    return cv2.imencode(".png", paper)[1].tobytes()


@pytest.mark.parametrize("name, claimed", [("bomb.heic", (30000, 30000)), ("bomb.tif", (60000, 60000))])
def test_a_bomb_is_refused_by_the_size_it_claims_before_it_is_decoded(tmp_path, name, claimed):
    from sheetscan.errors import InputFileError
    from sheetscan.lab.hostile import _heic_claiming, _tiff_claiming
    from sheetscan.reading.photo import load_photo

    bomb = _write(tmp_path / name, (_heic_claiming if name.endswith(".heic") else _tiff_claiming)(*claimed))
    with pytest.raises(InputFileError, match=f"too large to read \\({claimed[0]} x {claimed[1]} pixels"):
        load_photo(bomb)


def test_a_sample_of_the_hostile_corpus_gives_its_documented_codes(tmp_path):
    from sheetscan.lab.hostile import make_corpus, run_corpus

    cases = make_corpus(tmp_path / "corpus", seed=1, gardens=30, layouts=15)
    assert len(cases) > 150 and {case.command for case in cases} == {"score", "rescore", "layout"}
    figures = run_corpus(cases)
    assert figures["wrong_exit_codes"] == [] and figures["tracebacks"] == []
    assert figures["damaged_read_as_sheet"] == 0 and figures["slowest_seconds"] < 10
    assert figures["batch_lines"] == figures["batch_inputs"] and figures["batch_tracebacks"] == 0


def test_fuzzing_the_parsers_finds_no_crash():
    pytest.importorskip("hypothesis")
    from sheetscan.lab.fuzz import fuzz_parsers

    figures = fuzz_parsers(seconds=2, seed=3)
    for target in ("photo_opener", "garden_parser", "layout_parser"):
        assert figures[target]["inputs_tried"] > 100 and figures[target]["crashes"] == [], target


def test_commands_killed_midway_leave_no_half_written_file_and_the_server_loses_no_upload():
    pytest.importorskip("httpx")
    from sheetscan.lab.kills import kill_server, kill_writers

    writers = kill_writers(kills=1, seed=2)
    assert set(writers) == {"synth", "score --debug", "table --csv --overlay"}
    for figures in writers.values():
        assert figures["whole_run_files"] > 0 and figures["half_written"] == [] and figures["workers_left_running"] == 0
        assert figures["files_found"] <= figures["whole_run_files"]
    server = kill_server(kills=1, seed=2)
    assert server["uploads_accepted"] == 4 and server["uploads_lost"] == 0 and server["accepted_left_unread"] == 0
    assert server["workers_left_running"] == 0  # a worker ends with the process it works for


def test_synthetic_photos_are_written_whole_or_not_at_all(tmp_path, monkeypatch):
    from sheetscan.synthetic import synth

    written = []
    monkeypatch.setattr(synth, "write_atomically", lambda path, write: (written.append(path.name), write(path)))
    synth.write_synth(tmp_path, 0, 1, "scan")
    assert written == ["0000.jpg", "0000.json"] and (tmp_path / "0000.json").exists()


def test_a_worker_that_ended_is_not_counted_running_while_it_waits_to_be_reaped():
    import time

    from sheetscan.lab.kills import _running

    child = subprocess.Popen(["sleep", "30"])
    assert _running(child.pid)
    child.send_signal(signal.SIGKILL)
    deadline = time.monotonic() + 5
    while _running(child.pid) and time.monotonic() < deadline:  # a zombie now: this process has not reaped it
        time.sleep(0.01)
    assert not _running(child.pid) and Path(f"/proc/{child.pid}").exists()
    child.wait()
    assert not _running(child.pid)
