"""The table page under a table's load (``sheetscan bench serve``): photos sent at once, pages
asked for by several phones while they are read, and corrections; against the command line
reading the same photos with the same cores, in the same run. The server runs as ``sheetscan
serve`` does, in a process of its own, whose memory (with its workers') is followed.
"""

from __future__ import annotations

import math
import mmap
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from sheetscan.synthetic.synth import synth_photo

POLL_SECONDS = 0.05
STARTUP_SECONDS = 60
MEMORY_SAMPLE_SECONDS = 0.1
PAGE_BYTES = mmap.PAGESIZE


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(folder: Path, jobs: int, port: int | None = None) -> tuple[subprocess.Popen, str]:
    """``sheetscan serve`` on the data folder ``folder`` in a process of its own, as a table
    runs it, once it answers; returns it and its URL."""
    import httpx

    port = port or free_port()
    server = subprocess.Popen([sys.executable, "-m", "sheetscan", "serve", "--port", str(port), "--data", str(folder),
                               "--jobs", str(jobs)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the page's server ended with code {server.returncode} before answering")
        try:
            httpx.get(url + "/", timeout=1)
            return server, url
        except httpx.TransportError:
            time.sleep(POLL_SECONDS)
    server.kill()
    raise RuntimeError(f"the page's server did not answer within {STARTUP_SECONDS} s")


def _resident_bytes(pid: int) -> int:
    """A process's resident memory, from Linux's /proc (0 once it has ended)."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_BYTES
    except (OSError, IndexError, ValueError):
        return 0


def descendants(pid: int) -> list[int]:
    """Every process started by ``pid`` and by those, from Linux's /proc."""
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        for task in Path(f"/proc/{parent}/task").glob("*/children"):
            try:
                children = [int(child) for child in task.read_text().split()]
            except OSError:
                continue
            found += children
            frontier += children
    return found


def _tree_bytes(pid: int) -> tuple[int, int]:
    """The resident memory of process ``pid`` alone, and with every process it started."""
    own = _resident_bytes(pid)
    return own, own + sum(map(_resident_bytes, descendants(pid)))


class _MemoryWatch:
    """Samples the server's resident memory, alone and with its workers, until stopped."""

    def __init__(self, pid: int):
        self.pid = pid
        self.server_peak = self.all_peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            server, everything = _tree_bytes(self.pid)
            self.server_peak, self.all_peak = max(self.server_peak, server), max(self.all_peak, everything)
            self._stop.wait(MEMORY_SAMPLE_SECONDS)

    def __enter__(self) -> "_MemoryWatch":
        self._thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._stop.set()
        self._thread.join()


def _command_line_seconds(paths: list[Path], jobs: int) -> float:
    """Wall time of ``sheetscan score PHOTOS --jobs N --json``, the process started and ended."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sheetscan", "score", *map(str, paths), "--jobs", str(jobs), "--json"],
                   capture_output=True, check=False)
    return time.perf_counter() - started


def _megabytes(count: int) -> float:
    return round(count / 2**20, 1)


def bench_serve(photos: int, seed: int, level: str, jobs: int, clients: int, corrections: int = 10,
                rounds: int = 1) -> dict:
    """Send ``photos`` synthetic photos at once to a fresh page (``jobs`` workers) while
    ``clients`` phones keep asking for a game's page and state; then correct cells. Each of
    ``rounds`` sends them again, to new games, so that memory kept from one round shows in the next."""
    import httpx

    with tempfile.TemporaryDirectory(prefix="sheetscan-serve-") as folder:
        paths = []
        for index in range(photos):
            path = Path(folder) / f"photo{index}.jpg"
            path.write_bytes(synth_photo(index, seed, level).jpeg)
            paths.append(path)
        command_line = _command_line_seconds(paths, jobs)
        server, url = start_server(Path(folder) / "data", jobs)
        try:
            idle = _tree_bytes(server.pid)[1]
            latencies: list[float] = []
            failed: list[float] = []  # seconds until a page request failed
            page_seconds, server_peaks, all_peaks, read, sheets = [], [], [], 0, 0
            with httpx.Client(base_url=url, timeout=120) as http:
                for _round in range(rounds):
                    with _MemoryWatch(server.pid) as memory:
                        games, seconds, states = _one_round(http, url, paths, clients, latencies, failed)
                    page_seconds.append(seconds)
                    server_peaks.append(_megabytes(memory.server_peak))
                    all_peaks.append(_megabytes(memory.all_peak))
                    read += sum(p["status"] == "read" for state in states for p in state["photos"])
                    sheets += sum(len(state["sheets"]) for state in states)
                fix_seconds = _corrections(http, states[0]["sheets"][0]["id"], corrections)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
    return {
        "photos": photos, "seed": seed, "level": level, "jobs": jobs, "clients": clients, "rounds": rounds,
        "photos_sent": photos * rounds, "photos_read": read, "sheets": sheets, "games_per_round": len(games),
        "page_seconds": round(page_seconds[0], 2), "command_line_seconds": round(command_line, 2),
        "page_minus_command_line_seconds": round(page_seconds[0] - command_line, 2),
        "page_seconds_by_round": [round(seconds, 2) for seconds in page_seconds],
        "page_requests_while_reading": len(latencies) + len(failed), "page_requests_failed": len(failed),
        "page_response_p95_ms": round(1000 * float(np.percentile(latencies, 95)), 1) if latencies else None,
        "page_response_max_ms": round(1000 * max(latencies), 1) if latencies else None,
        "correction_to_standings_ms_median": round(1000 * float(np.median(fix_seconds)), 1),
        "correction_to_standings_ms_max": round(1000 * max(fix_seconds), 1),
        "server_and_workers_idle_mb": _megabytes(idle),
        "server_peak_mb_by_round": server_peaks,
        "server_and_workers_peak_mb_by_round": all_peaks,
    }


def new_game(http, names: list[str]) -> int:
    """A new game of the players ``names`` on the page ``http`` (an httpx.Client at its URL)."""
    made = http.post("/games", data={"date": "2026-11-30", "players": "\n".join(names)}, follow_redirects=False)
    if made.status_code != 303:
        raise RuntimeError(f"the page did not make a game: {made.status_code} {made.text[:200]}")
    return int(made.headers["location"].rsplit("/", 1)[1])


def states_once_read(http, games: list[int], seconds: float = math.inf) -> list[dict]:
    """The ``games``' states once every photo sent to them is read or failed (or ``seconds`` on)."""
    deadline = time.monotonic() + seconds
    while True:
        states = [http.get(f"/api/games/{game}").json() for game in games]
        if time.monotonic() > deadline or all(p["status"] in ("read", "failed") for state in states for p in state["photos"]):
            return states
        time.sleep(POLL_SECONDS)


def _one_round(http, url: str, paths: list[Path], clients: int, latencies: list[float],
               failed: list[float]) -> tuple[list[int], float, list[dict]]:
    """New games of at most MAX_PLAYERS (several tables at a club evening), one player per
    photo, every photo sent at once while ``clients`` phones ask for their game's page; returns
    the games, the seconds until every photo was read, and the games' states then."""
    import httpx

    from sheetscan.serve.app import MAX_PLAYERS

    games, players = [], []
    for first in range(0, len(paths), MAX_PLAYERS):
        games.append(new_game(http, [f"player {i + 1}" for i in range(first, min(first + MAX_PLAYERS, len(paths)))]))
        players += [p["id"] for p in http.get(f"/api/games/{games[-1]}").json()["players"]]
    done = threading.Event()

    def phone(game: int) -> None:
        with httpx.Client(base_url=url, timeout=30) as own:
            while not done.is_set():
                for route in (f"/games/{game}", f"/api/games/{game}"):
                    asked = time.perf_counter()
                    try:
                        answered = own.get(route).status_code == 200
                    except httpx.HTTPError:  # no answer in 30 s, or the connection refused
                        answered = False
                    (latencies if answered else failed).append(time.perf_counter() - asked)

    watchers = [threading.Thread(target=phone, args=(games[i % len(games)],), daemon=True) for i in range(clients)]
    for watcher in watchers:
        watcher.start()
    started = time.perf_counter()
    with ThreadPoolExecutor(len(paths)) as senders:
        list(senders.map(lambda item: http.post(
            f"/games/{games[item[0] // MAX_PLAYERS]}/photos",
            files={"photo": (item[1].name, item[1].read_bytes(), "image/jpeg")},
            data={"player": str(players[item[0]])}, headers={"Accept": "application/json"}).raise_for_status(),
            enumerate(paths)))
    states = states_once_read(http, games)
    seconds = time.perf_counter() - started
    done.set()
    for watcher in watchers:
        watcher.join()
    return games, seconds, states


def half_upload(port: int, game: int, photo: bytes) -> socket.socket:
    """A phone's upload of ``photo`` cut off midway: the request's head and half its body sent
    on the connection returned (still open)."""
    boundary = "cut"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"cut.jpg\"\r\n"
            "Content-Type: image/jpeg\r\n\r\n").encode()
    length = len(head) + len(photo) + len(f"\r\n--{boundary}--\r\n")
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall((f"POST /games/{game}/photos HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {length}\r\n"
                        f"Content-Type: multipart/form-data; boundary={boundary}\r\n\r\n").encode()
                       + head + photo[: len(photo) // 2])
    return connection


def _corrections(http, sheet: int, count: int) -> list[float]:
    """Seconds from sending a cell's correction to having the new standings, ``count`` times."""
    seconds = []
    for index in range(count):
        row, col = divmod(index % 36, 6)
        asked = time.perf_counter()
        answer = http.post(f"/api/sheets/{sheet}/cell", json={"row": row, "col": col, "decoration": "R" if index % 2 else ".",
                                                               "water": False})
        answer.raise_for_status()
        assert "standings" in answer.json()["game"]
        seconds.append(time.perf_counter() - asked)
    return seconds
