"""One read sheet counted against its truth, for the benches: its cells, its boxes, its verdict."""

from __future__ import annotations

from typing import Mapping

from sheetscan.game.gardenfile import garden_to_dict, record_to_dict
from sheetscan.game.rules import DECORATION_BY_LETTER
from sheetscan.synthetic.synth import match_truth


def match_sheets(truth_sheets: list[dict], read_sheets: tuple) -> list[tuple[dict, object]]:
    """Pairs of truth and read sheets that lie in the same place (synth.match_truth)."""
    return [(truth, read_sheets[i]) for truth, i in match_truth(truth_sheets, [s.corners for s in read_sheets])]


def cell_tallies(truth: dict, sheet, by_archetype: dict[str, list[int]]) -> dict:
    """One sheet's cells read right against its truth; each decorated cell's reading is also added
    (right, seen) to its drawing's archetype in ``by_archetype``, each tree's mark to the mark's."""
    cells, water, late = truth["garden"]["cells"], truth["garden"]["water"], {tuple(c) for c in truth["garden"]["tree_late"]}
    read = garden_to_dict(sheet.garden)
    read_late = {tuple(c) for c in read["tree_late"]}
    tally = {"cells": 36, "decoration": 0, "water": 0, "trees": 0, "dots": 0}
    for r in range(6):
        for c in range(6):
            right = cells[r][c] == read["cells"][r][c]
            tally["decoration"] += right
            tally["water"] += water[r][c] == read["water"][r][c]
            if cells[r][c] == "T" and read["cells"][r][c] == "T":
                tally["trees"] += 1
                tally["dots"] += ((r, c) in late) == ((r, c) in read_late)
            if cells[r][c] in DECORATION_BY_LETTER:
                archetype = by_archetype.setdefault(truth["drawings"][DECORATION_BY_LETTER[cells[r][c]].category], [0, 0])
                archetype[0] += right
                archetype[1] += 1
            if (r, c) in late:
                mark = by_archetype.setdefault(truth["drawings"]["tree_mark"], [0, 0])
                mark[0] += (r, c) in read_late
                mark[1] += 1
    return tally


def _turn_symbols(turn: dict) -> list[str]:
    """What a turn box holds, symbol by symbol: the dice, the location digits, or X."""
    if turn["kind"] == "skip":
        return ["X"]
    if turn["kind"] == "draw":
        return [*map(str, turn["dice"]), str(turn["location"])]
    return [str(turn["dice"][0]), str(turn["cell"][0] + 1), str(turn["cell"][1] + 1)]


def _symbols_right(truth: dict, read: dict) -> tuple[int, int]:
    """(symbols read right, symbols) of one turn box; a box read as another kind is all wrong."""
    want, got = _turn_symbols(truth), _turn_symbols(read)
    if truth["kind"] != read["kind"]:
        return 0, len(want)
    return sum(a == b for a, b in zip(want, got, strict=True)), len(want)


def mistaken_categories(truth: dict) -> set[str]:
    """The categories a player wrote wrong (not the total that merely adds them up)."""
    wrong = {c for c in truth["written"] if truth["written"][c] != truth["score"][c]}
    return wrong - {"total"} if wrong - {"total"} else wrong


def audit_tallies(truth: dict, sheet) -> dict:
    """One sheet's counts for ``bench audit``: raw (the readers' first choice) and decoded."""
    from sheetscan.reading.descent import best_reading

    decoded = record_to_dict(sheet.decoded.record)
    raw = record_to_dict(best_reading(sheet.reading, sheet.boxes))
    tally = {}
    for name, record in (("raw", raw), ("decoded", decoded)):
        pairs = [_symbols_right(t, r) for t, r in zip(truth["turns"], record["turns"], strict=True)]
        tally[f"{name}_symbols_right"] = sum(right for right, _ in pairs)
        tally[f"{name}_numbers_right"] = sum(record["written"][c] == v for c, v in truth["written"].items())
    tally["symbols"] = sum(n for _, n in pairs)
    tally["numbers"] = len(truth["written"])
    leaves = [c[0].value for c in sheet.boxes.leaves]
    icons = [c[0].value for c in sheet.boxes.pond_icons]
    truth_leaves = [i < truth["bonsai_pruned"] for i in range(len(leaves))]
    tally["marks"] = len(leaves) + len(icons)
    tally["marks_right"] = sum(a == b for a, b in zip(leaves + icons, truth_leaves + truth["ponds_marked"], strict=True))
    flagged = {box.removeprefix("written ") for f in sheet.decoded.findings if f.kind == "written_differs" for box in f.boxes}
    mistaken = mistaken_categories(truth)
    tally["wrong_sheets"] = bool(mistaken)
    tally["wrong_flagged"] = bool(mistaken) and mistaken <= flagged
    tally["right_sheets"] = not mistaken
    tally["false_difference"] = not mistaken and bool(flagged)
    return tally | verdict_tallies(truth, sheet)


def verdict_tallies(truth: dict, sheet) -> dict[str, bool]:
    """One sheet's verdict against its truth: exact, sure, both; and sure where the player wrote a
    mistake (the decoder may have fitted a misread garden to it)."""
    from sheetscan.reading.verdict import WHY_SURE

    exact = sheet.score.breakdown["total"] == truth["score"]["total"]
    sure = sheet.verdict.sure
    tally = {"exact_total": exact, "sure": sure, "sure_exact": sure and exact,
             "wrong_sure": sure and bool(mistaken_categories(truth))}
    for route in WHY_SURE:
        tally[f"sure by {route}"] = sheet.verdict.sure_by == route
        tally[f"sure by {route}, exact"] = sheet.verdict.sure_by == route and exact
    return tally


def sure_by(totals: Mapping[str, int]) -> dict[str, dict[str, int]]:
    """The sure sheets by what bore them out (Verdict.sure_by), each with its exact ones."""
    from sheetscan.reading.verdict import WHY_SURE

    return {route: {"sure": totals.get(f"sure by {route}", 0), "exact": totals.get(f"sure by {route}, exact", 0)}
            for route in WHY_SURE}
