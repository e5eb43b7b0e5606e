"""The table page under a table's load (``sheetscan bench serve``): photos sent at once, pages
asked for by several phones while they are read, and corrections; against the command line
reading the same photos with the same cores, in the same run.
"""

from __future__ import annotations

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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_server(folder: Path, jobs: int):
    import uvicorn

    from sheetscan.serve.app import create_app

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(folder, jobs=jobs), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(POLL_SECONDS)
    return server, thread, f"http://127.0.0.1:{port}"


def _command_line_seconds(paths: list[Path], jobs: int) -> float:
    """Wall time of ``sheetscan score PHOTOS --jobs N --json``, the process started and ended."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sheetscan", "score", *map(str, paths), "--jobs", str(jobs), "--json"],
                   capture_output=True, check=False)
    return time.perf_counter() - started


def bench_serve(photos: int, seed: int, level: str, jobs: int, clients: int, corrections: int = 10) -> dict:
    """Send ``photos`` synthetic photos at once to a fresh page (``jobs`` workers) while
    ``clients`` phones keep asking for the game's page and state; then correct cells."""
    import httpx

    with tempfile.TemporaryDirectory(prefix="sheetscan-serve-") as folder:
        paths = []
        for index in range(photos):
            path = Path(folder) / f"photo{index}.jpg"
            path.write_bytes(synth_photo(index, seed, level).jpeg)
            paths.append(path)
        command_line = _command_line_seconds(paths, jobs)
        server, thread, url = _start_server(Path(folder) / "data", jobs)
        try:
            with httpx.Client(base_url=url, timeout=120) as http:
                names = "\n".join(f"player {i + 1}" for i in range(photos))
                made = http.post("/games", data={"date": "2026-11-30", "players": names}, follow_redirects=False)
                game = int(made.headers["location"].rsplit("/", 1)[1])
                players = [p["id"] for p in http.get(f"/api/games/{game}").json()["players"]]
                latencies: list[float] = []
                done = threading.Event()

                def phone() -> None:
                    with httpx.Client(base_url=url, timeout=30) as own:
                        while not done.is_set():
                            for route in (f"/games/{game}", f"/api/games/{game}"):
                                asked = time.perf_counter()
                                own.get(route).raise_for_status()
                                latencies.append(time.perf_counter() - asked)

                watchers = [threading.Thread(target=phone, daemon=True) for _ in range(clients)]
                for watcher in watchers:
                    watcher.start()
                started = time.perf_counter()
                with ThreadPoolExecutor(photos) as senders:
                    list(senders.map(lambda item: http.post(
                        f"/games/{game}/photos", files={"photo": (item[0].name, item[0].read_bytes(), "image/jpeg")},
                        data={"player": str(item[1])}, headers={"Accept": "application/json"}).raise_for_status(),
                        zip(paths, players)))
                while not all(p["status"] in ("read", "failed") for p in http.get(f"/api/games/{game}").json()["photos"]):
                    time.sleep(POLL_SECONDS)
                page_seconds = time.perf_counter() - started
                done.set()
                for watcher in watchers:
                    watcher.join()
                state = http.get(f"/api/games/{game}").json()
                fix_seconds = _corrections(http, state["sheets"][0]["id"], corrections)
        finally:
            server.should_exit = True
            thread.join(timeout=30)
    return {
        "photos": photos, "seed": seed, "level": level, "jobs": jobs, "clients": clients,
        "photos_read": sum(p["status"] == "read" for p in state["photos"]), "sheets": len(state["sheets"]),
        "page_seconds": round(page_seconds, 2), "command_line_seconds": round(command_line, 2),
        "page_minus_command_line_seconds": round(page_seconds - command_line, 2),
        "page_requests_while_reading": len(latencies),
        "page_response_p95_ms": round(1000 * float(np.percentile(latencies, 95)), 1) if latencies else None,
        "page_response_max_ms": round(1000 * max(latencies), 1) if latencies else None,
        "correction_to_standings_ms_median": round(1000 * float(np.median(fix_seconds)), 1),
        "correction_to_standings_ms_max": round(1000 * max(fix_seconds), 1),
    }


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
