"""Benchmarks: figures measured against a reference timed in the same run."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from .audit import audit
from .gardenfile import record_to_dict
from .score import score
from .simulate import play_game
from .synth import synth_photo

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


def bench_synth(count: int, seed: int, level: str, megapixels: float) -> dict:
    """Median time to make one synthetic photo on one core, and to decode it (the reference)."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        synth_photo(0, seed, level, megapixels=megapixels)  # draw the blank sheet once, as a batch does
        makes, decodes = [], []
        for index in range(1, count + 1):
            start = time.perf_counter()
            photo = synth_photo(index, seed, level, megapixels=megapixels)
            makes.append(time.perf_counter() - start)
            start = time.perf_counter()
            cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_COLOR)
            decodes.append(time.perf_counter() - start)
    finally:
        cv2.setNumThreads(threads)
    make, decode = float(np.median(makes)), float(np.median(decodes))
    return {"photos": count, "level": level, "megapixels": megapixels,
            "seconds_per_photo": round(make, 3), "decode_seconds": round(decode, 3),
            "ratio": round(make / decode, 2)}


def bench_games(count: int, seed: int) -> dict:
    """Play ``count`` games: the share the auditor finds legal and the spread of their totals."""
    totals, legal = [], 0
    for game_seed in range(seed, seed + count):
        game = play_game(game_seed, mistake_rate=0.0)
        garden_score = score(game.record.garden)
        legal += not audit(game.record, garden_score) and garden_score.breakdown == game.breakdown
        totals.append(game.breakdown["total"])
    return {"games": count, "legal_share": legal / count, "min": int(np.min(totals)),
            "p5": float(np.percentile(totals, 5)), "median": float(np.median(totals)),
            "p95": float(np.percentile(totals, 95)), "max": int(np.max(totals))}
