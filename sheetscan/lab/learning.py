"""A player's second sheet read with what a person's review of their first gave (``sheetscan
bench learn``): the exact totals with and without it, on the same photos."""

from __future__ import annotations

import tempfile
from pathlib import Path

from sheetscan.game.gardenfile import garden_to_dict
from sheetscan.reading.read import KnownDrawings, known_drawings
from sheetscan.synthetic.synth import match_truth, synth_photo


def _cells_right(truth: dict, sheet) -> int:
    """How many of a read sheet's 36 cells hold the decoration its truth does."""
    read = garden_to_dict(sheet.garden)["cells"]
    return sum(a == b for truth_row, read_row in zip(truth["garden"]["cells"], read) for a, b in zip(truth_row, read_row))


def _read(path: Path, photo, known: KnownDrawings | None = None):
    """(truth, read sheet) of a one-sheet photo, or None when its sheet is not found."""
    from sheetscan.reading.pipeline import read_photo

    path.write_bytes(photo.jpeg)
    result = read_photo(path, known=known)
    pairs = match_truth(photo.truth["sheets"], [sheet.corners for sheet in result.sheets])
    return (pairs[0][0], result.sheets[pairs[0][1]]) if pairs else None


def reviewed_drawings(truth: dict, sheet) -> KnownDrawings:
    """What a person's review of a read sheet gives the player's next sheet: every decorated
    cell, misread ones corrected, with its kind (its ink patch as the reader sees it)."""
    return known_drawings(sheet.canonical, sheet.layout, truth["garden"]["cells"])


def bench_learn(count: int, seed: int, level: str, held_out_styles: bool = True) -> dict:
    """For ``count`` players: read their first sheet, have it reviewed (every misread cell
    corrected), then read their second sheet (another game, the same hand) without and with the
    reviewed sheet's drawings as known."""
    tally = {"first_exact": 0, "second_exact_without": 0, "second_exact_with": 0, "players": 0, "corrected_cells": 0,
             "second_cells_without": 0, "second_cells_with": 0}
    with tempfile.TemporaryDirectory(prefix="sheetscan-learn-") as folder:
        path = Path(folder) / "photo.jpg"
        for index in range(count):
            first = _read(path, synth_photo(index, seed, level, held_out_styles=held_out_styles))
            second_photo = synth_photo(count + index, seed, level, held_out_styles=held_out_styles, player=index)
            without = _read(path, second_photo)
            if first is None or without is None:
                continue
            known = reviewed_drawings(*first)
            with_known = _read(path, second_photo, known)
            tally["players"] += 1
            tally["corrected_cells"] += 36 - _cells_right(*first)
            tally["first_exact"] += first[1].score.breakdown["total"] == first[0]["score"]["total"]
            for name, (truth, sheet) in (("without", without), ("with", with_known)):
                tally[f"second_exact_{name}"] += sheet.score.breakdown["total"] == truth["score"]["total"]
                tally[f"second_cells_{name}"] += _cells_right(truth, sheet)
    players = max(tally["players"], 1)
    return {"players": tally["players"], "seed": seed, "level": level, "held_out_styles": held_out_styles,
            "first_sheet_exact": tally["first_exact"] / players,
            "cells_corrected_per_first_sheet": tally["corrected_cells"] / players,
            "second_sheet_exact_without_corrections": tally["second_exact_without"] / players,
            "second_sheet_exact_with_corrections": tally["second_exact_with"] / players,
            "second_sheet_cells_without": tally["second_cells_without"] / (36 * players),
            "second_sheet_cells_with": tally["second_cells_with"] / (36 * players)}
