"""The auditor: why a garden is or is not legal, and where a sheet contradicts itself.

Knows nothing of images. Each finding names its kind, the cells or boxes involved and a
sentence a person can read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Hashable, Mapping, Sequence

from sheetscan.game.garden import (
    ALL_CELLS,
    Cell,
    Garden,
    SheetRecord,
    Turn,
    TurnKind,
    cross_cells,
    orthogonal_neighbours,
    ponds,
    surrounding_cells,
)
from sheetscan.game.rules import (
    CATEGORIES,
    DEFAULT_DICE_FACES,
    GRID_SIZE,
    MAX_PONDS,
    MAX_PRUNINGS,
    Decoration,
    Season,
)
from sheetscan.game.score import Score


@dataclass(frozen=True)
class Finding:
    """One audit finding.

    Attributes
    ----------
    kind : str
        e.g. ``ponds_touch``, ``turn_unplaced``, ``written_differs``.
    sentence : str
    cells : tuple of Cell
        0-based cells involved.
    boxes : tuple of str
        Sheet boxes involved: ``turn 4``, ``pond icon 2``, ``bonsai``, ``written moss``.
    """

    kind: str
    sentence: str
    cells: tuple[Cell, ...] = ()
    boxes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "cells": [list(cell) for cell in self.cells],
            "boxes": list(self.boxes),
            "sentence": self.sentence,
        }


def human_cell(cell: Cell) -> str:
    """A 0-based cell as a person reads it: ``(row,col)``, 1-based."""
    return f"({cell[0] + 1},{cell[1] + 1})"


def pond_findings(garden: Garden) -> list[Finding]:
    """Pond placement: ponds touching (even diagonally), earth enclosed, too many ponds."""
    return list(_pond_findings(garden))


@lru_cache(maxsize=1024)  # the decoder audits many records that share a garden
def _pond_findings(garden: Garden) -> tuple[Finding, ...]:
    found = ponds(garden)
    findings = []
    for index, pond in enumerate(found):
        for other in found[index + 1 :]:
            contacts = _touching(pond, other) + _touching(other, pond)
            if contacts:
                findings.append(
                    Finding(
                        "ponds_touch",
                        f"the pond at {human_cell(min(pond))} touches the pond at {human_cell(min(other))}",
                        contacts,
                    )
                )
        enclosed = _enclosed_earth(garden, pond)
        if enclosed:
            findings.append(
                Finding(
                    "pond_encloses_earth",
                    f"the pond at {human_cell(min(pond))} encloses earth at "
                    + ", ".join(human_cell(cell) for cell in enclosed),
                    tuple(enclosed),
                )
            )
    if len(found) > MAX_PONDS:
        findings.append(
            Finding(
                "too_many_ponds",
                f"{len(found)} ponds, but at most {MAX_PONDS} can be traced (one per season)",
                tuple(min(pond) for pond in found),
            )
        )
    return tuple(findings)


def _touching(pond: frozenset[Cell], other: frozenset[Cell]) -> tuple[Cell, ...]:
    """The cells of ``pond`` with a cell of ``other`` among their 8 neighbours."""
    return tuple(sorted(c for c in pond if any(n in other for n in surrounding_cells(c))))


def _enclosed_earth(garden: Garden, pond: frozenset[Cell]) -> list[Cell]:
    """Earth cells that cannot reach the grid's edge without crossing ``pond``."""
    reachable = [
        cell for cell in ALL_CELLS if cell not in pond and (min(cell) == 0 or max(cell) == GRID_SIZE - 1)
    ]
    seen = set(reachable)
    while reachable:
        for neighbour in orthogonal_neighbours(reachable.pop()):
            if neighbour not in pond and neighbour not in seen:
                seen.add(neighbour)
                reachable.append(neighbour)
    return [cell for cell in ALL_CELLS if cell not in pond and cell not in seen and not garden.is_water(cell)]


@dataclass(frozen=True)
class _Slot:
    """One decoration a turn put into the garden."""

    turn_index: int
    decoration: Decoration
    candidates: tuple[Cell, ...]


def _slots(garden: Garden, turns: tuple[Turn, ...], dice_faces: Mapping[int, Decoration], *, use_dots: bool) -> list[_Slot]:
    slots = []
    for index, turn in enumerate(turns):
        if not turn.dice:
            continue  # a skipped turn puts nothing in the garden
        late = Season.of_turn(index).is_late
        cells = cross_cells(turn.location) if turn.kind is TurnKind.DRAW else (turn.cell,)
        drawn = [(cell, garden.decoration(cell)) for cell in cells]
        for die in turn.dice:
            decoration = dice_faces[die]
            check_dot = use_dots and decoration is Decoration.TREE
            candidates = tuple(
                cell
                for cell, there in drawn
                if there is decoration and not (check_dot and (cell in garden.tree_late) != late)
            )
            slots.append(_Slot(index, decoration, candidates))
    return slots


def maximum_matching(candidates: Sequence[Sequence[Hashable]]) -> dict[int, Hashable]:
    """A maximum matching of items to distinct partners (augmenting paths): item index -> its
    partner, each item's possible partners being ``candidates[index]``."""
    owner: dict[Hashable, int] = {}

    def place(index: int, visited: set[Hashable]) -> bool:
        for partner in candidates[index]:
            if partner in visited:
                continue
            visited.add(partner)
            if partner not in owner or place(owner[partner], visited):
                owner[partner] = index
                return True
        return False

    for index in range(len(candidates)):
        place(index, set())
    return {index: partner for partner, index in owner.items()}


def _match(slots: list[_Slot]) -> dict[int, Cell]:
    """A maximum matching of slots to distinct cells, slot index -> cell."""
    return maximum_matching([slot.candidates for slot in slots])


def _describe_turn(index: int, turn: Turn, dice_faces: Mapping[int, Decoration]) -> str:
    names = " and ".join(dice_faces[die].category for die in turn.dice)
    where = f"row/column {turn.location}" if turn.kind is TurnKind.DRAW else f"cell {human_cell(turn.cell)}"
    return f"turn {index + 1} ({Season.of_turn(index).name.title()}: {names} at {where})"


def turn_log_findings(
    garden: Garden,
    turns: tuple[Turn, ...],
    dice_faces: Mapping[int, Decoration] = DEFAULT_DICE_FACES,
) -> list[Finding]:
    """Whether the garden can be explained by its turn log, turn by turn."""
    return list(_turn_log_findings(garden, turns, tuple(sorted(dice_faces.items()))))


@lru_cache(maxsize=4096)  # the decoder audits many records that share a garden and a turn log
def _turn_log_findings(garden: Garden, turns: tuple[Turn, ...], faces: tuple[tuple[int, Decoration], ...]) -> tuple[Finding, ...]:
    dice_faces = dict(faces)
    findings = []
    draws = sum(turn.kind is TurnKind.DRAW for turn in turns)
    prunings = [i for i, turn in enumerate(turns) if turn.kind is TurnKind.PRUNE]
    drawn = [cell for cell, _ in garden.decorated_cells()]
    expected = 2 * draws + len(prunings)
    if len(drawn) != expected:
        findings.append(
            Finding(
                "decoration_count",
                f"{len(drawn)} decorations drawn, but the turn log gives {expected} "
                f"(2 x {draws} draws + {len(prunings)} prunings)",
            )
        )
    if len(prunings) > MAX_PRUNINGS:
        findings.append(
            Finding(
                "too_many_prunings",
                f"{len(prunings)} prunings, but the bonsai allows {MAX_PRUNINGS}",
                boxes=tuple(f"turn {i + 1}" for i in prunings),
            )
        )
    slots = _slots(garden, turns, dice_faces, use_dots=True)
    matching = _match(slots)
    if len(matching) < len(slots):
        relaxed_slots = _slots(garden, turns, dice_faces, use_dots=False)
        relaxed = _match(relaxed_slots)
        if len(relaxed) > len(matching):
            findings.extend(_dot_findings(garden, relaxed_slots, relaxed))
        else:
            unplaced = sorted({slots[i].turn_index for i in range(len(slots)) if i not in matching})
            for index in unplaced:
                findings.append(
                    Finding(
                        "turn_unplaced",
                        f"{_describe_turn(index, turns[index], dice_faces)} cannot be placed: "
                        "no free cell of that kind is left for it",
                        boxes=(f"turn {index + 1}",),
                    )
                )
    placed = set(matching.values())
    unexplained = tuple(cell for cell in drawn if cell not in placed)
    if unexplained and len(matching) == len(slots):
        findings.append(
            Finding(
                "decoration_unexplained",
                "no turn explains the decoration(s) at " + ", ".join(human_cell(c) for c in unexplained),
                unexplained,
            )
        )
    return tuple(findings)


def _dot_findings(garden: Garden, slots: list[_Slot], matching: dict[int, Cell]) -> list[Finding]:
    findings = []
    for slot_index, cell in sorted(matching.items()):
        slot = slots[slot_index]
        if slot.decoration is not Decoration.TREE:
            continue
        season = Season.of_turn(slot.turn_index)
        if (cell in garden.tree_late) != season.is_late:
            has = "has a dot" if cell in garden.tree_late else "has no dot"
            findings.append(
                Finding(
                    "tree_dot",
                    f"the tree at {human_cell(cell)} {has}, but its turn {slot.turn_index + 1} "
                    f"is in {season.name.title()}",
                    (cell,),
                    (f"turn {slot.turn_index + 1}",),
                )
            )
    return findings


def sheet_findings(record: SheetRecord, score: Score) -> list[Finding]:
    """Bonsai and pond icons against the turn log and the garden; written vs computed."""
    findings = []
    if record.turns is not None and record.bonsai_pruned is not None:
        prunings = sum(turn.kind is TurnKind.PRUNE for turn in record.turns)
        if prunings != record.bonsai_pruned:
            findings.append(
                Finding(
                    "bonsai_mismatch",
                    f"{record.bonsai_pruned} bonsai leaves marked, but the turn log has {prunings} prunings",
                    boxes=("bonsai",),
                )
            )
    if record.ponds_marked is not None:
        marked = sum(record.ponds_marked)
        if marked != len(score.ponds):
            findings.append(
                Finding(
                    "pond_icons",
                    f"{marked} pond icons marked, but the garden has {len(score.ponds)} ponds",
                    boxes=tuple(f"pond icon {i + 1}" for i, m in enumerate(record.ponds_marked) if m),
                )
            )
    parts = CATEGORIES[:-1]
    if record.written is not None and all(c in record.written for c in CATEGORIES):
        added = sum(record.written[c] for c in parts)
        if added != record.written["total"]:
            findings.append(
                Finding(
                    "written_sum",
                    f"the written categories add up to {added}, but the written total is {record.written['total']}",
                    boxes=tuple(f"written {c}" for c in CATEGORIES),
                )
            )
    for category in CATEGORIES:
        if record.written is None or category not in record.written:
            continue
        if record.written[category] != score.breakdown[category]:
            findings.append(
                Finding(
                    "written_differs",
                    f"{category}: written {record.written[category]}, "
                    f"the rules give {score.breakdown[category]}",
                    boxes=(f"written {category}",),
                )
            )
    return findings


def audit(
    record: SheetRecord,
    score: Score,
    dice_faces: Mapping[int, Decoration] = DEFAULT_DICE_FACES,
) -> list[Finding]:
    """Every finding on a sheet: pond placement, turn log, bonsai, pond icons, written scores."""
    findings = pond_findings(record.garden)
    if record.turns is not None:
        findings += turn_log_findings(record.garden, record.turns, dice_faces)
    return findings + sheet_findings(record, score)
