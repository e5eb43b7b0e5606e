"""Benchmarks: figures measured against a reference timed in the same run."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .gardenfile import record_to_dict
from .simulate import play_game

# The floor a rescore run cannot beat: start Python and parse the same JSON files.
REFERENCE_SCRIPT = "import json, sys\nfor p in sys.argv[1:]:\n    json.load(open(p))"


def _best_of(repeats: int, command: list[str]) -> float:
    """The fastest of ``repeats`` runs of ``command``, in seconds (least disturbed by noise)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best


def write_garden_files(folder: Path, count: int, seed: int) -> list[Path]:
    """Write ``count`` simulated games as garden files (turn log and written scores included)."""
    paths = []
    for index in range(count):
        game = play_game(seed + index)
        path = folder / f"{index:04d}.json"
        path.write_text(json.dumps(record_to_dict(game.record)))
        paths.append(path)
    return paths


def bench_rescore(count: int, seed: int, repeats: int = 3) -> dict:
    """Time ``sheetscan rescore --json`` on ``count`` garden files in one call."""
    with tempfile.TemporaryDirectory(prefix="sheetscan-bench-") as folder:
        paths = [str(p) for p in write_garden_files(Path(folder), count, seed)]
        rescore = _best_of(repeats, [sys.executable, "-m", "cli", "rescore", "--json", *paths])
        reference = _best_of(repeats, [sys.executable, "-c", REFERENCE_SCRIPT, *paths])
    return {
        "files": count,
        "rescore_seconds": round(rescore, 3),
        "reference_seconds": round(reference, 3),
        "ratio": round(rescore / reference, 2),
        "files_per_second": round(count / rescore),
    }
