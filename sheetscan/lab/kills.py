"""Work killed midway (``sheetscan bench robustness --kills N``): the commands that write
files, killed with SIGKILL at seeded moments of their run, and the table page's server killed
while photos are uploaded and read. A file at its final name must be whole (the bytes an
uninterrupted run writes); a photo the server accepted must be there, and read, when it
starts again."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sheetscan.synthetic.synth import synth_photo

PHOTOS = 4  # photos the killed commands read
PARTIAL = ".partial"  # in the name of files.write_atomically's temporary files
READ_WAIT_SECONDS = 120
WORKER_EXIT_SECONDS = 3.0  # a worker checks every lifeline.PARENT_POLL_SECONDS that its parent lives


def _writers(photos: list[str]) -> dict[str, list[str]]:
    """Each command that writes files, with ``{out}`` for its output folder."""
    return {
        "synth": ["synth", "--n", "12", "--seed", "5", "--level", "scan", "--out", "{out}"],
        "score --debug": ["score", "--debug", "{out}", *photos],
        "table --csv --overlay": ["table", "--csv", "{out}/table.csv", "--overlay", "{out}", *photos],
    }


def _run(arguments: list[str], out: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "sheetscan", *(a.replace("{out}", str(out)) for a in arguments)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _running(pid: int) -> bool:
    """Whether process ``pid`` still runs: there, and not a zombie. A worker that ended stays in
    /proc until the process it was handed to (the machine's init) reaps it, seconds later on a
    busy machine, and counted so, it made a worker that had ended look left running."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:  # gone
        return False


def _kill_with_workers(process: subprocess.Popen) -> int:
    """SIGKILL ``process``; its workers left running WORKER_EXIT_SECONDS later (then killed too)."""
    from sheetscan.lab.serving import descendants

    workers = descendants(process.pid)
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + WORKER_EXIT_SECONDS
    while (left := [pid for pid in workers if _running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return len(left)


def _digests(folder: Path) -> dict[str, str]:
    """Every file's digest under ``folder`` by its relative path, write_atomically's temporaries aside."""
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in folder.rglob("*") if path.is_file() and PARTIAL not in path.name}


def kill_writers(kills: int, seed: int, say=None) -> dict:
    """Each writing command run once whole, then ``kills`` times killed at a moment drawn
    uniformly over its whole run's time: its files found, those half-written (present with
    other bytes than the whole run's), and temporaries left behind."""
    rng = np.random.default_rng([seed, 97])
    figures = {}
    with tempfile.TemporaryDirectory(prefix="sheetscan-kills-") as folder:
        photos = []
        for index in range(PHOTOS):
            path = Path(folder) / f"photo{index}.jpg"
            path.write_bytes(synth_photo(index, seed, "phone", sheets_per_photo=1 + index % 2).jpeg)
            photos.append(str(path))
        for name, arguments in _writers(photos).items():
            whole = Path(folder) / f"{len(figures)}-whole"
            whole.mkdir()
            started = time.perf_counter()
            _run(arguments, whole).wait()
            seconds = time.perf_counter() - started
            expected = _digests(whole)
            found, half_written, temporaries, orphans = 0, [], 0, 0
            for kill in range(kills):
                out = Path(folder) / f"{len(figures)}-killed-{kill}"
                out.mkdir()
                process = _run(arguments, out)
                time.sleep(float(rng.uniform(0, seconds)))
                orphans += _kill_with_workers(process)
                written = _digests(out)
                found += len(written)
                half_written += [f"{out.name}/{file}" for file, digest in written.items() if expected.get(file) != digest]
                temporaries += sum(PARTIAL in path.name for path in out.rglob("*"))
                if say:
                    say(name)
            figures[name] = {"whole_run_seconds": round(seconds, 2), "whole_run_files": len(expected), "kills": kills,
                             "files_found": found, "half_written": half_written, "temporaries_left": temporaries,
                             "workers_left_running": orphans}
    return figures


def kill_server(kills: int, seed: int, say=None) -> dict:
    """``kills`` times: a game's photos sent to the page, one more upload cut off midway, and
    the server killed at a moment drawn from the time its workers take to read them; started
    again on the same folder, every photo it had accepted must be there and be read."""
    import httpx

    from sheetscan.lab.serving import free_port, half_upload, new_game, start_server, states_once_read

    rng = np.random.default_rng([seed, 96])
    photos = [synth_photo(index, seed, "phone").jpeg for index in range(PHOTOS)]
    accepted, lost, unread, orphans = 0, 0, 0, 0
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="sheetscan-kills-") as folder, \
            httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
        for _kill in range(kills):
            server, _ = start_server(Path(folder), jobs=1, port=port)
            game = new_game(http, [str(player) for player in range(PHOTOS)])
            sent = [http.post(f"/games/{game}/photos", files={"photo": (f"{i}.jpg", photo, "image/jpeg")},
                              headers={"Accept": "application/json"}) for i, photo in enumerate(photos)]
            taken = {answer.json()["photo"] for answer in sent if answer.status_code == 202}
            with half_upload(port, game, photos[0]):
                time.sleep(float(rng.uniform(0, 0.5 * PHOTOS)))  # a photo takes about half a second to read
                orphans += _kill_with_workers(server)
            server, _ = start_server(Path(folder), jobs=1, port=port)
            try:
                (state,) = states_once_read(http, [game], READ_WAIT_SECONDS)
            finally:
                orphans += _kill_with_workers(server)
            there = {p["id"]: p["status"] for p in state["photos"]}
            accepted += len(taken)
            lost += len(taken - set(there))
            unread += sum(there.get(photo) != "read" for photo in taken & set(there))
            if say:
                say("serve")
    return {"kills": kills, "uploads_accepted": accepted, "uploads_lost": lost, "accepted_left_unread": unread,
            "workers_left_running": orphans}
