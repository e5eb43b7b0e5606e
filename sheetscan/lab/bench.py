"""Benchmarks: figures measured against a reference timed in the same run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Mapping

import cv2
import numpy as np

from sheetscan.game.audit import audit
from sheetscan.game.gardenfile import record_to_dict
from sheetscan.game.score import score
from sheetscan.game.simulate import play_game
from sheetscan.design.layout import Layout, load_layout
from sheetscan.lab.stats import wilson_interval
from sheetscan.lab.tallies import audit_tallies, cell_tallies, match_sheets, sure_by, verdict_tallies
from sheetscan.lab.timing import read_speed
from sheetscan.names import DEFAULT_LAYOUT
from sheetscan.synthetic.synth import synth_photo
from sheetscan.game.table import Player, rank, winners

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


def _writing(coarse_digits: bool, varied_digits: bool, fresh_styles: bool, unseen_styles: bool) -> dict[str, bool]:
    """How a run's sheets are drawn and written beyond held-out styles: synth_photo's arguments,
    and the run's figures' members of the same names."""
    return {"coarse_digits": coarse_digits, "varied_digits": varied_digits, "fresh_styles": fresh_styles,
            "unseen_styles": unseen_styles}


def bench_read(count: int, seed: int, level: str, sheets_per_photo: int = 1, say=None,
               held_out_styles: bool = False, sheet_learning: bool = True, markers: str = "all",
               layout_name: str = DEFAULT_LAYOUT, read_layout: Layout | None = None, coarse_digits: bool = False,
               varied_digits: bool = False, fresh_styles: bool = False, unseen_styles: bool = False,
               timed: bool = True) -> dict:
    """Read ``count`` fresh synthetic photos and compare with their truth; with ``timed``, time a
    12-MP read.
    ``held_out_styles``, ``fresh_styles``, ``unseen_styles``, ``coarse_digits`` and ``varied_digits`` draw and write
    the sheets as synth_photo says; without ``sheet_learning`` the decoder reads no cells drawn alike together; ``markers``
    prints the corner markers as synth_photo says (the same sheets whatever it is);
    ``layout_name`` is the sheet design drawn, and read unless ``read_layout`` is given (a
    layout made from a photo, to compare with the design's own)."""
    read_layout = read_layout or load_layout(layout_name)
    writing = _writing(coarse_digits, varied_digits, fresh_styles, unseen_styles)
    from sheetscan.reading.pipeline import read_photo

    totals = {"sheets": 0, "found": 0, "exact_total": 0, "exact_total_cells_only": 0, "cells": 0, "decoration": 0,
              "water": 0, "trees": 0, "dots": 0, "sure": 0, "sure_exact": 0, "sure_log_right": 0}
    by_pen: dict[str, list[int]] = {}
    by_archetype: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory(prefix="sheetscan-read-") as folder:
        for index in range(count):
            photo = synth_photo(index, seed, level, sheets_per_photo, held_out_styles=held_out_styles, markers=markers,
                                layout_name=layout_name, **writing)
            path = Path(folder) / "photo.jpg"
            path.write_bytes(photo.jpeg)
            result = read_photo(path, sheet_learning=sheet_learning, layout=read_layout)
            totals["sheets"] += len(photo.truth["sheets"])
            for truth, sheet in match_sheets(photo.truth["sheets"], result.sheets):
                totals["found"] += 1
                for key, value in verdict_tallies(truth, sheet).items():
                    totals[key] = totals.get(key, 0) + value
                totals["exact_total_cells_only"] += score(sheet.reading.garden).total == truth["score"]["total"]
                totals["sure_log_right"] += (sheet.verdict.sure
                                             and record_to_dict(sheet.decoded.record)["turns"] == truth["turns"])
                tally = cell_tallies(truth, sheet, by_archetype)
                for key, value in tally.items():
                    totals[key] += value
                pen = by_pen.setdefault(truth["style"]["pen"], [0, 0])
                pen[0] += tally["decoration"]
                pen[1] += tally["cells"]
            if say:
                say(index)
        speed = read_speed(Path(folder), seed, level, markers, layout_name, read_layout, held_out_styles,
                           writing) if timed else {}
    cells = max(totals["cells"], 1)
    return {
        "photos": count, "level": level, "seed": seed, "held_out_styles": held_out_styles,
        **writing, "sheet_learning": sheet_learning, "markers": markers, "layout": layout_name,
        "read_layout": read_layout.name, "sheets": totals["sheets"],
        "sheets_found": totals["found"] / max(totals["sheets"], 1),
        "decoration_accuracy": totals["decoration"] / cells,
        "water_accuracy": totals["water"] / cells,
        "tree_dot_accuracy": totals["dots"] / max(totals["trees"], 1),
        "exact_total": totals["exact_total"] / max(totals["found"], 1),
        "exact_total_cells_only": totals["exact_total_cells_only"] / max(totals["found"], 1),
        # the verdict: sheets marked sure, and the exact totals among them
        "sheets_sure": totals["sure"] / max(totals["found"], 1),
        "exact_total_when_sure": totals["sure_exact"] / max(totals["sure"], 1),
        "wrong_totals_marked_sure": totals["sure"] - totals["sure_exact"],
        "sheets_sure_by": sure_by(totals),
        # the verdict vouches for the score; the turn log (which turn drew what) it does not
        "turn_log_exact_when_sure": totals["sure_log_right"] / max(totals["sure"], 1),
        "decoration_by_pen": {pen: right / total for pen, (right, total) in sorted(by_pen.items())},
        # each drawing archetype's cells read right (a mark's: its trees' Spring/Summer reading), and how many
        "by_archetype": {name: [round(right / seen, 4), seen] for name, (right, seen) in sorted(by_archetype.items())},
        **speed,
    }


def bench_audit(count: int, seed: int, level: str, mistake_rate: float, say=None, held_out_styles: bool = False,
                markers: str = "all", sheet_learning: bool = True, layout_name: str = DEFAULT_LAYOUT,
                coarse_digits: bool = False, varied_digits: bool = False, fresh_styles: bool = False,
                unseen_styles: bool = False) -> dict:
    """Read ``count`` fresh photos whose players err at ``mistake_rate``; compare the boxes
    read and the differences flagged with the truth (``held_out_styles``, ``layout_name``,
    ``coarse_digits``, ``varied_digits``, ``fresh_styles``, ``unseen_styles``: see bench_read)."""
    from sheetscan.reading.pipeline import read_photo

    totals: dict[str, int] = {}
    layout = load_layout(layout_name)
    writing = _writing(coarse_digits, varied_digits, fresh_styles, unseen_styles)
    with tempfile.TemporaryDirectory(prefix="sheetscan-audit-") as folder:
        for index in range(count):
            photo = synth_photo(index, seed, level, mistake_rate=mistake_rate, held_out_styles=held_out_styles,
                                markers=markers, layout_name=layout_name, **writing)
            path = Path(folder) / "photo.jpg"
            path.write_bytes(photo.jpeg)
            result = read_photo(path, sheet_learning=sheet_learning, layout=layout)
            for truth, sheet in match_sheets(photo.truth["sheets"], result.sheets):
                for key, value in audit_tallies(truth, sheet).items():
                    totals[key] = totals.get(key, 0) + int(value)
                totals["sheets"] = totals.get("sheets", 0) + 1
            if say:
                say(index)

    def share(part: str, whole: str) -> float:
        return totals.get(part, 0) / max(totals.get(whole, 0), 1)

    return {
        "photos": count, "level": level, "seed": seed, "mistake_rate": mistake_rate, "held_out_styles": held_out_styles,
        **writing, "markers": markers, "layout": layout_name, "sheet_learning": sheet_learning,
        "sheets": totals.get("sheets", 0),
        "turn_symbols_raw": share("raw_symbols_right", "symbols"),
        "turn_symbols": share("decoded_symbols_right", "symbols"),
        "marks": share("marks_right", "marks"),
        "written_numbers_raw": share("raw_numbers_right", "numbers"),
        "written_numbers": share("decoded_numbers_right", "numbers"),
        "sheets_written_wrong": totals.get("wrong_sheets", 0),
        "wrong_flagged": share("wrong_flagged", "wrong_sheets"),
        "sheets_written_right": totals.get("right_sheets", 0),
        "false_difference": share("false_difference", "right_sheets"),
        # the verdict where players err: sheets marked sure, the exact totals among them, and the
        # sure sheets written wrong (where the decoder may have fitted a misread garden to a mistake)
        "exact_total": share("exact_total", "sheets"),
        "sheets_sure": share("sure", "sheets"),
        "exact_total_when_sure": share("sure_exact", "sure"),
        "wrong_totals_marked_sure": totals.get("sure", 0) - totals.get("sure_exact", 0),
        "sheets_sure_written_wrong": totals.get("wrong_sure", 0),
        "sheets_sure_by": sure_by(totals),
    }


def _winning_sheets(sheets: list[tuple[Mapping[str, int], int]]) -> set[int]:
    """Indices of the winners among (breakdown, bonsai leaves pruned) sheets, by table.rank."""
    players = [Player(str(index), "", index, breakdown, pruned, ()) for index, (breakdown, pruned) in enumerate(sheets)]
    return {player.sheet for player in winners(rank(players))}


def bench_table(count: int, seed: int, level: str, sheets_per_photo: int, jobs: int, say=None,
                repeats: int = 5, held_out_styles: bool = False, markers: str = "all", layout_name: str = DEFAULT_LAYOUT,
                coarse_digits: bool = False, varied_digits: bool = False, fresh_styles: bool = False,
                unseen_styles: bool = False) -> dict:
    """Read ``count`` table photos of ``sheets_per_photo`` sheets: sheets found and invented,
    exact totals, right winners; then sheets per second with 1 job and with ``jobs``, each
    the fastest of ``repeats`` reads, taken in turn (this machine's speed drifts by 30%), with
    each round's own ratio and how busy the cores kept during the all-jobs reads."""
    from sheetscan.reading.batch import read_photos

    totals = {"sheets": 0, "found": 0, "invented": 0, "exact_total": 0, "tables": 0, "right_winner": 0}
    writing = _writing(coarse_digits, varied_digits, fresh_styles, unseen_styles)
    with tempfile.TemporaryDirectory(prefix="sheetscan-table-") as folder:
        paths, truths = [], []
        for index in range(count):
            photo = synth_photo(index, seed, level, sheets_per_photo, held_out_styles=held_out_styles, markers=markers,
                                layout_name=layout_name, **writing)
            path = Path(folder) / f"{index:04d}.jpg"
            path.write_bytes(photo.jpeg)
            paths.append(path)
            truths.append(photo.truth)
        timings = {"one_job": [], "all_jobs": []}
        busy = []  # per all-jobs read: the share of its cores' time spent reading (not waiting)
        for repeat in range(repeats):
            for label, workers in (("one_job", 1), ("all_jobs", jobs)):
                cpu_before, start = _cpu_seconds(), time.perf_counter()
                results = list(read_photos(paths, jobs=workers, keep_images=False, layout=load_layout(layout_name)))
                seconds = time.perf_counter() - start
                timings[label].append(seconds)
                if label == "all_jobs":
                    busy.append((_cpu_seconds() - cpu_before) / (seconds * jobs))
                if say:
                    say(f"{label} ({repeat + 1} of {repeats})")
    for truth, result in zip(truths, results, strict=True):
        pairs = match_sheets(truth["sheets"], result.sheets)
        totals["sheets"] += len(truth["sheets"])
        totals["found"] += len(pairs)
        totals["invented"] += len(result.sheets) - len(pairs)
        totals["exact_total"] += sum(sheet.score.total == t["score"]["total"] for t, sheet in pairs)
        totals["tables"] += 1
        if len(pairs) == len(truth["sheets"]):
            truth_sheets = [(t["score"], t["bonsai_pruned"]) for t, _ in pairs]
            read_sheets = [(s.score.breakdown, s.decoded.record.bonsai_pruned) for _, s in pairs]
            totals["right_winner"] += _winning_sheets(read_sheets) == _winning_sheets(truth_sheets)
    sheets_read = totals["found"] + totals["invented"]
    one, many = sheets_read / min(timings["one_job"]), sheets_read / min(timings["all_jobs"])
    exact_interval = wilson_interval(totals["exact_total"], totals["found"])
    winner_interval = wilson_interval(totals["right_winner"], totals["tables"])
    return {
        "photos": count, "level": level, "seed": seed, "sheets_per_photo": sheets_per_photo, "held_out_styles": held_out_styles,
        **writing,
        "markers": markers, "layout": layout_name,
        "sheets": totals["sheets"], "sheets_found": totals["found"] / max(totals["sheets"], 1),
        "sheets_invented": totals["invented"], "exact_total": totals["exact_total"] / max(totals["found"], 1),
        "right_winner": totals["right_winner"] / max(totals["tables"], 1),
        # 95% intervals: on 40 tables one winner more or less moves the share by 2.5 points
        "exact_total_interval": [round(bound, 3) for bound in exact_interval],
        "right_winner_interval": [round(bound, 3) for bound in winner_interval],
        "jobs": jobs, "repeats": repeats, "sheets_per_second_one_job": round(one, 3), "sheets_per_second_all_jobs": round(many, 3),
        "speedup": round(many / one, 2),
        # each round's own ratio (its 1-job read over its all-jobs read): how much the machine drifted
        "speedup_by_round": [round(a / b, 2) for a, b in zip(timings["one_job"], timings["all_jobs"])],
        "cores_busy": round(float(np.median(busy)), 3),
    }


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (the batch's workers)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system
