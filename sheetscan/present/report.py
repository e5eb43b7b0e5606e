"""Reports: text for people and JSON-ready dicts for programs."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from sheetscan.game.audit import Finding
from sheetscan.game.garden import Garden, turn_text
from sheetscan.game.gardenfile import garden_to_dict, record_to_dict
from sheetscan.game.rules import CATEGORIES, EMPTY_LETTER, GRID_SIZE
from sheetscan.game.score import Score

CELL_WIDTH = 5  # characters per cell in the text grid
RECORD_MEMBERS = ("turns", "bonsai_pruned", "ponds_marked", "written")  # a sheet's JSON beside its garden


def breakdown_text(breakdown: Mapping[str, int], written: Mapping[str, int] | None = None) -> str:
    """The breakdown as aligned lines, with the written number beside it where known."""
    lines = []
    for category in CATEGORIES:
        line = f"  {category:<8} {breakdown[category]:>4}"
        if written is not None and category in written:
            mark = "" if written[category] == breakdown[category] else "  <- differs"
            line += f"   written {written[category]:>4}{mark}"
        lines.append(line)
    return "\n".join(lines)


def grid_text(garden: Garden, score: Score) -> str:
    """The 6x6 garden, each cell as its letter, water (~) and points, e.g. ``~=+4``."""
    header = "     " + "".join(f"{c + 1:^{CELL_WIDTH}}" for c in range(GRID_SIZE))
    lines = [header]
    for r in range(GRID_SIZE):
        parts = []
        for c in range(GRID_SIZE):
            decoration = garden.decoration((r, c))
            letter = decoration.value if decoration else EMPTY_LETTER
            if (r, c) in garden.tree_late:
                letter += "*"
            terrain = "~" if garden.is_water((r, c)) else " "
            points = score.cells[r][c].points
            parts.append(f"{terrain}{letter}{points:+d}".rjust(CELL_WIDTH))
        lines.append(f"  {r + 1}  " + "".join(parts))
    lines.append(f"  ~ water, * tree drawn in Spring/Summer; {len(score.ponds)} pond(s) x 3 points")
    return "\n".join(lines)


def findings_text(findings: list[Finding]) -> str:
    if not findings:
        return "  no findings"
    return "\n".join(f"  [{finding.kind}] {finding.sentence}" for finding in findings)


def score_to_dict(score: Score) -> dict:
    """The JSON members ``score`` (exactly the breakdown's keys) and ``cells`` (points)."""
    return {
        "score": {category: score.breakdown[category] for category in CATEGORIES},
        "cells": score.cell_points(),
        "cell_reasons": [[cell.reason for cell in row] for row in score.cells],
    }


def sheet_to_dict(sheet) -> dict:
    """A read sheet's JSON: the garden (golden form), score, confidences and doubts, and the
    rest of the record (turns, bonsai_pruned, ponds_marked, written: the bench truth's form)
    with the audit's findings."""
    reading, record = sheet.reading, sheet.decoded.record
    return {
        "garden": garden_to_dict(record.garden),
        **{member: value for member, value in record_to_dict(record).items() if member in RECORD_MEMBERS},
        **score_to_dict(sheet.score),
        "findings": [finding.to_dict() for finding in sheet.decoded.findings],
        "cell_confidence": np.round(reading.cell_confidence(), 3).tolist(),
        "runner_up": reading.runner_up(),
        "water_probability": np.round(reading.water_probability, 3).tolist(),
        "review": [{"cell": list(cell), "confidence": round(conf, 3), "why": why}
                   for cell, conf, why in reading.review()],
        "decoder_changes": list(sheet.decoded.changes),
        "verdict": sheet.verdict.label,
        "sure_by": sheet.verdict.sure_by,
        "check": [doubt.to_dict() for doubt in sheet.verdict.doubts],
        "corners": np.round(sheet.corners, 1).tolist(),
        "alignment_error_px": round(sheet.location.alignment_error_px, 2),
        "found_by": sheet.location.found_by,
    }


def photo_to_dict(result) -> dict:
    """A photo's JSON line: its sheets in reading order, or its error."""
    return {
        "file": result.path,
        "sheets": [sheet_to_dict(sheet) for sheet in result.sheets],
        "partial_sheets": result.partial_sheets,
        "error": result.error.message if result.error else None,
    }


def _sheet_lines(sheet, audit: bool) -> list[str]:
    record = sheet.decoded.record
    lines = [grid_text(sheet.garden, sheet.score), "",
             breakdown_text(sheet.score.breakdown, record.written if audit else None)]
    if audit:
        seasons = [" | ".join(turn_text(t) for t in record.turns[i : i + 3]) for i in range(0, len(record.turns), 3)]
        lines += ["  turns    " + "  ||  ".join(seasons),
                  f"  bonsai   {record.bonsai_pruned} leaf/leaves marked;  pond icons marked: "
                  + (", ".join(str(i + 1) for i, m in enumerate(record.ponds_marked) if m) or "none"),
                  "  findings:", findings_text(list(sheet.decoded.findings))]
    lines += [f"  decoder: {change}" for change in sheet.decoded.changes]
    if sheet.verdict.sure:
        lines.append(f"  verdict: sure ({sheet.verdict.why_sure})")
    else:
        lines.append("  verdict: check these (least sure first):")
        lines += [f"    {doubt.what} {doubt.confidence:.0%}: read as {doubt.reading}" for doubt in sheet.verdict.doubts]
    return lines


def photo_text(result, audit: bool = False) -> str:
    """A photo's sheets for people: the garden grid, breakdown, total and what to check; with
    ``audit``, also the written numbers, the turn log, the marks and the findings."""
    if result.error:
        return f"== {result.path}\n  error: {result.error.message}\n"
    lines = [f"== {result.path}: {len(result.sheets)} sheet(s)"]
    if result.partial_sheets:
        lines.append(f"  {result.partial_sheets} more sheet(s) seen only in part: not read")
    for number, sheet in enumerate(result.sheets, start=1):
        lines += ["", f"Sheet {number} (aligned to {sheet.location.alignment_error_px:.1f} px)", *_sheet_lines(sheet, audit)]
    return "\n".join(lines) + "\n"
