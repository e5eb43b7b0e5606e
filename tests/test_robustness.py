"""Stopping and failing cleanly: Ctrl-C mid-batch, files never half-written."""

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLES

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
