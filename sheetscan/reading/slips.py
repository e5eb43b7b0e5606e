"""Changes the decoder made for the written numbers alone that a player's slip explains as well.

A decoder weighing hundreds of changes a sheet finds one to fit a slip of any size: where undoing
a change leaves a garden that fits its turn log and moves one category's points alone, a player
who slipped in that category wrote what the garden kept gives, and the numbers cannot tell the
two apart. The verdict (verdict.py) then leaves the change to check. Two such changes: drawings
trading kinds (DecodedSheet.fitted: a trade keeps each kind's count, so only the numbers chose
it) and a turn log read otherwise (DecodedSheet.logs_fitted).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Mapping

from sheetscan.game.audit import turn_log_findings
from sheetscan.game.garden import ALL_CELLS, Cell, Garden, SheetRecord
from sheetscan.game.rules import CATEGORIES, DEFAULT_DICE_FACES, Decoration, RuleSet
from sheetscan.game.score import score
from sheetscan.reading.descent import LogFitted
from sheetscan.reading.moves import FINDING_COST

# A turn log read otherwise for the written numbers alone (DecodedSheet.logs_fitted) by less than
# this is not borne out by them where the log it left is a player's slip away (log_slip): the
# decoder weighs a slip at FINDING_COST (one written number in 250), but a player who errs on one
# sheet in two (as the audit bench's do) slips in one written number in 18.
LOG_SLIP_MARGIN = FINDING_COST - math.log(18)


def _label(garden: Garden, cell: Cell) -> tuple[Decoration | None, bool]:
    """What the labelling gives a cell: its decoration, and whether it is a tree marked Spring/Summer."""
    return garden.decoration(cell), cell in garden.tree_late


def _cells_changed(garden: Garden, other: Garden) -> list[Cell]:
    """The cells whose decoration, Spring/Summer mark or terrain differ between the two gardens."""
    return [cell for cell in ALL_CELLS
            if (_label(garden, cell), garden.is_water(cell)) != (_label(other, cell), other.is_water(cell))]


def categories_moved(points: Mapping[str, int], rules_give: Mapping[str, int]) -> list[str]:
    """The categories (the total aside) whose ``points`` differ from ``rules_give``: one alone is a
    player's slip away (every other written number would still agree)."""
    return [category for category in CATEGORIES[:-1] if points[category] != rules_give[category]]


def slip_fitted(record: SheetRecord, fitted: tuple[tuple[Garden, Garden], ...], rules_give: Mapping[str, int],
                rules: RuleSet = RuleSet(), dice_faces: Mapping[int, Decoration] = DEFAULT_DICE_FACES
                ) -> tuple[list[Cell], str] | None:
    """The cells of a change the decoder made for the written numbers alone (``fitted``: the
    garden before and after each, DecodedSheet.fitted) in which drawings traded kinds, or trees
    their Spring/Summer marks, where a player's slip explains it as well: undone in ``record``'s
    garden, the turn log still fits and one category's points move (the total aside), so a player
    who slipped there wrote what the garden kept gives. A trade keeps each kind's count (and the
    marked trees'), and drawings and marks no network saw hardly tell their kinds apart, so only
    the numbers chose it (a water cell or a tree's mark taken otherwise alone is read against its
    network's odds). With that category; None where no change is such."""
    for before, after in fitted:
        cells = _cells_changed(before, after)
        labels = [(_label(before, cell), _label(after, cell)) for cell in cells if _label(before, cell) != _label(after, cell)]
        if (not labels or any(None in (old[0], new[0]) for old, new in labels)
                or Counter(old for old, _ in labels) != Counter(new for _, new in labels)):
            continue  # no drawings traded kinds, nor trees their marks
        undone = record.garden
        for cell in cells:
            undone = undone.with_cell(cell, before.decoration(cell), water=before.is_water(cell),
                                      late=cell in before.tree_late)
        moved = categories_moved(score(undone, rules).breakdown, rules_give)
        if len(moved) == 1 and not turn_log_findings(undone, record.turns, dice_faces):
            return cells, moved[0]
    return None


def log_slip(record: SheetRecord, logs_fitted: tuple[LogFitted, ...], rules_give: Mapping[str, int],
             rules: RuleSet = RuleSet()) -> tuple[list[int], list[Cell], str] | None:
    """The turns and cells of a turn log the decoder read otherwise for the written numbers alone
    (``logs_fitted``: the log and garden it left, which fit each other) by less than
    LOG_SLIP_MARGIN, where a player's slip explains the numbers as well: the garden it left moves
    one category's points from ``rules_give`` (the total aside), so a player who slipped there
    wrote what the garden kept gives. With that category; None where no such log is."""
    for fitted in logs_fitted:
        moved = categories_moved(score(fitted.garden, rules).breakdown, rules_give)
        if fitted.margin < LOG_SLIP_MARGIN and len(moved) == 1:
            turns = [index for index, (turn, before) in enumerate(zip(record.turns, fitted.turns, strict=True))
                     if turn != before]
            return turns, _cells_changed(fitted.garden, record.garden), moved[0]
    return None
