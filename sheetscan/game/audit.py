"""The auditor: why a garden is or is not legal, and where a sheet contradicts itself.

Knows nothing of images. Each finding names its kind, the cells or boxes involved and a
sentence a person can read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping, NamedTuple

from sheetscan.game.garden import (ALL_CELLS, Cell, Garden, SheetRecord, Turn, TurnKind, cross_cells, ponds,
                                   surrounding_cells)
from sheetscan.game.rules import (
    CATEGORIES,
    DEFAULT_DICE_FACES,
    GRID_SIZE,
    MAX_PONDS,
    MAX_PRUNINGS,
    Decoration,
    TURN_COUNT,
    Season,
)
from sheetscan.game.matching import maximum_matching
from sheetscan.game.score import Score

ALL_CATEGORIES = frozenset(CATEGORIES)
WRITTEN_BOXES = tuple(f"written {category}" for category in CATEGORIES)
ARITHMETIC_KINDS = frozenset({"written_differs", "written_sum"})  # the written numbers' findings alone
LATE_TURNS = tuple(Season.of_turn(index).is_late for index in range(TURN_COUNT))  # per 0-based turn


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


def finding_turns(finding: Finding) -> tuple[int, ...]:
    """The turns (0-based) that ``finding`` names among its boxes ("turn 4")."""
    return tuple(int(box.split()[1]) - 1 for box in finding.boxes if box.startswith("turn "))


def human_cell(cell: Cell) -> str:
    """A 0-based cell as a person reads it: ``(row,col)``, 1-based."""
    return f"({cell[0] + 1},{cell[1] + 1})"


def pond_findings(garden: Garden) -> list[Finding]:
    """Pond placement: ponds touching (even diagonally), earth enclosed, too many ponds."""
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
    return findings


def _touching(pond: frozenset[Cell], other: frozenset[Cell]) -> tuple[Cell, ...]:
    """The cells of ``pond`` with a cell of ``other`` among their 8 neighbours."""
    return tuple(sorted(c for c in pond if any(n in other for n in surrounding_cells(c))))


def _cell_bits(cells: Iterable[Cell]) -> int:
    """``cells`` as bits of an int, bit ``GRID_SIZE * row + col`` per cell."""
    return sum(1 << (GRID_SIZE * r + c) for r, c in cells)


ALL_BITS = _cell_bits(ALL_CELLS)
EDGE_BITS = _cell_bits(cell for cell in ALL_CELLS if min(cell) == 0 or max(cell) == GRID_SIZE - 1)


def _enclosed_earth(garden: Garden, pond: frozenset[Cell]) -> list[Cell]:
    """Earth cells that cannot reach the grid's edge without crossing ``pond``. The cells reached
    from the edge grow a step at a time, all at once as the bits of an int: the decoder audits
    hundreds of gardens a sheet, and a cell-by-cell search was most of their time. (A shift by
    one bit carries a row's last cell to the next row's first: both on the edge, reached already.)"""
    open_cells = ALL_BITS & ~_cell_bits(pond)
    reached, grown = 0, EDGE_BITS & open_cells
    while grown != reached:
        reached = grown
        grown = open_cells & (reached | reached << 1 | reached >> 1 | reached << GRID_SIZE | reached >> GRID_SIZE)
    enclosed = open_cells & ~reached
    return [cell for index, cell in enumerate(ALL_CELLS) if enclosed >> index & 1 and not garden.is_water(cell)]


class _Slot(NamedTuple):
    """One decoration a turn put into the garden (a named tuple: the decoder makes thousands a sheet)."""

    turn_index: int
    decoration: Decoration
    candidates: tuple[Cell, ...]


CROSS_BITS = {location: _cell_bits(cross_cells(location)) for location in range(1, GRID_SIZE + 1)}


@lru_cache(maxsize=None)  # asked of a kind's cells in one row and column: a few thousand at most
def _cells_of_bits(bits: int) -> tuple[Cell, ...]:
    """The cells of ``bits`` (_cell_bits), in reading order."""
    return tuple(cell for index, cell in enumerate(ALL_CELLS) if bits >> index & 1)


def _kind_bits(garden: Garden) -> dict[Decoration, int]:
    """Each decoration's cells as the bits of an int (_cell_bits)."""
    kind_bits: dict[Decoration, int] = {}
    for index, decoration in enumerate(decoration for row in garden.decorations for decoration in row):
        if decoration is not None:
            kind_bits[decoration] = kind_bits.get(decoration, 0) | 1 << index
    return kind_bits


class _TurnLog(NamedTuple):
    """What a turn log says of any garden: its draws, its prunings' turn indices, each
    decoration it puts into the garden (its turn's index, its kind, the cells it may lie in as
    bits: _cell_bits), and which of those are trees."""

    draws: int
    prunings: tuple[int, ...]
    logged: tuple[tuple[int, Decoration, int], ...]
    trees: tuple[int, ...]  # positions in ``logged``


@lru_cache(maxsize=1024)  # a sheet's decoder audits thousands of gardens against a few logs
def _turn_log(turns: tuple[Turn, ...], faces: tuple[tuple[int, Decoration], ...]) -> _TurnLog:
    """``turns`` read once (``faces``: the dice faces' items)."""
    dice_faces = dict(faces)
    logged = tuple((index, dice_faces[die], CROSS_BITS[turn.location] if turn.kind is TurnKind.DRAW
                    else _cell_bits((turn.cell,)))
                   for index, turn in enumerate(turns) for die in turn.dice)  # a skipped turn puts nothing
    return _TurnLog(sum(turn.kind is TurnKind.DRAW for turn in turns),
                    tuple(index for index, turn in enumerate(turns) if turn.kind is TurnKind.PRUNE), logged,
                    tuple(position for position, (_, kind, _) in enumerate(logged) if kind is Decoration.TREE))


def _slots(kind_bits: dict[Decoration, int], log: _TurnLog) -> list[_Slot]:
    """Each decoration the turn ``log`` puts into a garden whose kinds lie in ``kind_bits``
    (_kind_bits), with the cells of its kind it may be."""
    # a kind's cells and a turn's row and column as bits: the decoder audits hundreds of
    # gardens a sheet, and this was a third of each audit cell by cell
    return [_Slot(index, decoration, _cells_of_bits(kind_bits.get(decoration, 0) & where))
            for index, decoration, where in log.logged]


def _with_dots(slots: list[_Slot], kind_bits: dict[Decoration, int], log: _TurnLog, late_bits: int) -> list[_Slot]:
    """``slots`` (_slots) with each tree's cells narrowed to those whose Spring/Summer mark
    (``late_bits``: the cells marked) fits its turn's season."""
    if not log.trees:
        return slots
    dotted, trees = list(slots), kind_bits.get(Decoration.TREE, 0)
    for position in log.trees:
        index, _, where = log.logged[position]
        fitting = trees & where & (late_bits if LATE_TURNS[index] else ~late_bits)
        dotted[position] = _Slot(index, Decoration.TREE, _cells_of_bits(fitting))
    return dotted


def _match(slots: list[_Slot]) -> dict[int, Cell]:
    """A maximum matching of slots to distinct cells, slot index -> cell."""
    return maximum_matching([slot.candidates for slot in slots])


# The findings the decoder meets again and again, made once each: it audits thousands of
# records a sheet, most with the same turns unplaced and the same written numbers off
@lru_cache(maxsize=4096)
def _unplaced_turn(index: int, turn: Turn, decorations: tuple[Decoration, ...]) -> Finding:
    """The finding that turn ``index`` (its dice showing ``decorations``) cannot be placed."""
    names = " and ".join(decoration.category for decoration in decorations)
    where = f"row/column {turn.location}" if turn.kind is TurnKind.DRAW else f"cell {human_cell(turn.cell)}"
    return Finding("turn_unplaced", f"turn {index + 1} ({Season.of_turn(index).name.title()}: {names} at {where}) "
                                    "cannot be placed: no free cell of that kind is left for it",
                   boxes=(f"turn {index + 1}",))


@lru_cache(maxsize=4096)
def _written_differs(category: str, written: int, given: int) -> Finding:
    return Finding("written_differs", f"{category}: written {written}, the rules give {given}",
                   boxes=(f"written {category}",))


@lru_cache(maxsize=4096)
def _written_sum(added: int, total: int) -> Finding:
    return Finding("written_sum", f"the written categories add up to {added}, but the written total is {total}",
                   boxes=WRITTEN_BOXES)


def _placing(kind_bits: dict[Decoration, int], log: _TurnLog,
             late_bits: int) -> tuple[list[_Slot], dict[int, Cell], bool]:
    """The ``log``'s slots in a garden (its kinds' cells ``kind_bits``, its trees marked
    ``late_bits``), a maximum matching of them to cells, and whether it places trees against
    their marks: it does only where that places more. Its size is that of the slots matched
    without the marks, kind by kind (no cell holds two kinds)."""
    relaxed_slots = _slots(kind_bits, log)
    slots = _with_dots(relaxed_slots, kind_bits, log, late_bits)
    matching = _match(slots)
    if len(matching) < len(slots):
        # where the marks rule no tree's cell out, the slots without them match no further
        relaxed = _match(relaxed_slots) if slots != relaxed_slots else matching
        if len(relaxed) > len(matching):
            return relaxed_slots, relaxed, True
    return slots, matching, False


def unplaced_slots(garden: Garden, turns: tuple[Turn, ...],
                   dice_faces: Mapping[int, Decoration] = DEFAULT_DICE_FACES) -> tuple[tuple[int, Decoration], ...]:
    """(turn index, decoration) of each decoration the turn log puts into the garden that
    turn_log_findings leaves unplaced."""
    kind_bits = _kind_bits(garden)
    slots, matching, _ = _placing(kind_bits, _turn_log(turns, tuple(dice_faces.items())), _cell_bits(garden.tree_late))
    return tuple((slot.turn_index, slot.decoration) for index, slot in enumerate(slots) if index not in matching)


def turn_log_findings(
    garden: Garden,
    turns: tuple[Turn, ...],
    dice_faces: Mapping[int, Decoration] = DEFAULT_DICE_FACES,
) -> list[Finding]:
    """Whether the garden can be explained by its turn log, turn by turn."""
    findings = []
    log = _turn_log(turns, tuple(dice_faces.items()))
    draws, prunings = log.draws, log.prunings
    kind_bits = _kind_bits(garden)
    drawn = sum(bits.bit_count() for bits in kind_bits.values())
    expected = 2 * draws + len(prunings)
    if drawn != expected:
        findings.append(
            Finding(
                "decoration_count",
                f"{drawn} decorations drawn, but the turn log gives {expected} "
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
    slots, matching, against_marks = _placing(kind_bits, log, _cell_bits(garden.tree_late))
    if against_marks:  # trees placed against their marks: said as such
        findings.extend(_dot_findings(garden, slots, matching))
    if len(matching) < len(slots):
        # what even the trees placed against their marks leave unplaced
        unplaced = sorted({slots[i].turn_index for i in range(len(slots)) if i not in matching})
        findings += [_unplaced_turn(index, turns[index], tuple(dice_faces[die] for die in turns[index].dice))
                     for index in unplaced]
    if len(matching) == len(slots) and drawn > len(matching):  # every turn placed, decorations left over
        placed = set(matching.values())
        unexplained = tuple(cell for cell, _ in garden.decorated_cells() if cell not in placed)
        findings.append(
            Finding(
                "decoration_unexplained",
                "no turn explains the decoration(s) at " + ", ".join(human_cell(c) for c in unexplained),
                unexplained,
            )
        )
    return findings


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
    return points_findings(record, score.breakdown, len(score.ponds))


def points_findings(record: SheetRecord, breakdown: Mapping[str, int], pond_count: int) -> list[Finding]:
    """sheet_findings from the garden's points (``breakdown``) and its number of ponds alone."""
    findings = []
    if record.turns is not None and record.bonsai_pruned is not None:
        prunings = [turn.kind for turn in record.turns].count(TurnKind.PRUNE)
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
        if marked != pond_count:
            findings.append(
                Finding(
                    "pond_icons",
                    f"{marked} pond icons marked, but the garden has {pond_count} ponds",
                    boxes=tuple(f"pond icon {i + 1}" for i, m in enumerate(record.ponds_marked) if m),
                )
            )
    written = record.written
    if written is not None and written.keys() >= ALL_CATEGORIES:
        added = sum([written[c] for c in CATEGORIES[:-1]])
        if added != written["total"]:
            findings.append(_written_sum(added, written["total"]))
    for category in CATEGORIES if written is not None else ():
        if category in written and written[category] != breakdown[category]:
            findings.append(_written_differs(category, written[category], breakdown[category]))
    return findings


def garden_findings(
    garden: Garden,
    turns: tuple[Turn, ...] | None,
    dice_faces: Mapping[int, Decoration] = DEFAULT_DICE_FACES,
) -> list[Finding]:
    """Pond placement and, where the turn log is known (``turns``), the turn log against the garden."""
    findings = pond_findings(garden)
    if turns is not None:
        findings += turn_log_findings(garden, turns, dice_faces)
    return findings


def audit(
    record: SheetRecord,
    score: Score,
    dice_faces: Mapping[int, Decoration] = DEFAULT_DICE_FACES,
) -> list[Finding]:
    """Every finding on a sheet: pond placement, turn log, bonsai, pond icons, written scores."""
    return garden_findings(record.garden, record.turns, dice_faces) + sheet_findings(record, score)
