"""Reports: text for people and JSON-ready dicts for programs."""

from __future__ import annotations

from typing import Mapping

from .audit import Finding
from .garden import Garden
from .rules import CATEGORIES, EMPTY_LETTER, GRID_SIZE
from .score import Score

CELL_WIDTH = 5  # characters per cell in the text grid


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
