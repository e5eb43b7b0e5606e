"""Garden files: the golden-case JSON form of ../shared/RULES.md, plus optional members.

Members
-------
cells, water, tree_late
    The garden, as in ../shared/golden (required: cells; water defaults to all earth).
turns
    Optional list of 12 turn boxes: ``{"kind": "draw", "dice": [1, 2], "location": 5}``,
    ``{"kind": "prune", "dice": [3], "cell": [row, col]}`` (0-based cell) or ``{"kind": "skip"}``.
bonsai_pruned
    Optional number of bonsai leaves marked off (0-3).
ponds_marked
    Optional list of 4 booleans: the pond icon of each season marked.
written
    Optional object: the numbers the player wrote, with any of the breakdown's keys.
expected
    Optional: the exact breakdown a hand check gave (golden cases).
name, note
    Free text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sheetscan.errors import InputFileError
from sheetscan.game.garden import Cell, Garden, SheetRecord, Turn, TurnKind
from sheetscan.game.rules import (
    CATEGORIES,
    DECORATION_BY_LETTER,
    EMPTY_LETTER,
    EARTH_LETTER,
    GRID_SIZE,
    MAX_PRUNINGS,
    TURN_COUNT,
    WATER_LETTER,
    Decoration,
    Season,
)

DICE_NUMBERS = range(1, 7)


class GardenFormError(ValueError):
    """What is wrong with a garden document (the caller adds the file name)."""


def _grid_rows(document: dict, member: str, allowed: str, default: str | None) -> list[str]:
    rows = document.get(member)
    if rows is None and default is not None:
        return [default * GRID_SIZE] * GRID_SIZE
    if not isinstance(rows, list) or len(rows) != GRID_SIZE:
        raise GardenFormError(f"'{member}' must be a list of {GRID_SIZE} strings")
    for r, row in enumerate(rows):
        if not isinstance(row, str) or len(row) != GRID_SIZE:
            raise GardenFormError(f"'{member}' row {r + 1} must be a string of {GRID_SIZE} letters")
        for c, letter in enumerate(row):
            if letter not in allowed:
                raise GardenFormError(
                    f"'{member}' row {r + 1} column {c + 1}: unknown letter {letter!r} "
                    f"(expected one of {allowed!r})"
                )
    return rows


def _cell(value: Any, what: str) -> Cell:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and 0 <= v < GRID_SIZE for v in value)
    ):
        raise GardenFormError(f"{what} must be a [row, col] pair of 0-based integers below {GRID_SIZE}")
    return (value[0], value[1])


def garden_from_dict(document: dict) -> Garden:
    """Build a Garden from the golden form; raise GardenFormError on a malformed one."""
    letters = "".join(DECORATION_BY_LETTER) + EMPTY_LETTER
    cells = _grid_rows(document, "cells", letters, default=None)
    water = _grid_rows(document, "water", WATER_LETTER + EARTH_LETTER, default=EARTH_LETTER)
    late = document.get("tree_late", [])
    if not isinstance(late, list):
        raise GardenFormError("'tree_late' must be a list of [row, col] pairs")
    tree_late = frozenset(_cell(item, "each 'tree_late' entry") for item in late)
    for r, c in sorted(tree_late):
        if cells[r][c] != Decoration.TREE.value:
            raise GardenFormError(f"'tree_late' names cell [{r}, {c}], which holds no tree")
    return Garden(
        tuple(tuple(DECORATION_BY_LETTER.get(letter) for letter in row) for row in cells),
        tuple(tuple(letter == WATER_LETTER for letter in row) for row in water),
        tree_late,
    )


def garden_to_dict(garden: Garden) -> dict:
    """The golden form of a garden: cells, water, tree_late."""
    return {
        "cells": [
            "".join(d.value if d else EMPTY_LETTER for d in row) for row in garden.decorations
        ],
        "water": ["".join(WATER_LETTER if w else EARTH_LETTER for w in row) for row in garden.water],
        "tree_late": [list(cell) for cell in sorted(garden.tree_late)],
    }


def _dice(value: Any, count: int, what: str) -> tuple[int, ...]:
    if (
        not isinstance(value, list)
        or len(value) != count
        or not all(isinstance(v, int) and v in DICE_NUMBERS for v in value)
    ):
        raise GardenFormError(f"{what} needs 'dice': a list of {count} numbers from 1 to 6")
    return tuple(value)


def turn_from_dict(item: Any, index: int) -> Turn:
    what = f"turn {index + 1}"
    if not isinstance(item, dict) or item.get("kind") not in {k.value for k in TurnKind}:
        raise GardenFormError(f"{what} must be an object with 'kind' draw, prune or skip")
    kind = TurnKind(item["kind"])
    if kind is TurnKind.DRAW:
        location = item.get("location")
        if not isinstance(location, int) or location not in DICE_NUMBERS:
            raise GardenFormError(f"{what} (draw) needs 'location': a number from 1 to 6")
        return Turn(kind, _dice(item.get("dice"), 2, what), location=location)
    if kind is TurnKind.PRUNE:
        return Turn(kind, _dice(item.get("dice"), 1, what), cell=_cell(item.get("cell"), f"{what} 'cell'"))
    return Turn(kind)


def turn_to_dict(turn: Turn) -> dict:
    item: dict[str, Any] = {"kind": turn.kind.value}
    if turn.kind is not TurnKind.SKIP:
        item["dice"] = list(turn.dice)
    if turn.location is not None:
        item["location"] = turn.location
    if turn.cell is not None:
        item["cell"] = list(turn.cell)
    return item


def _breakdown_numbers(value: Any, member: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise GardenFormError(f"'{member}' must be an object with the breakdown's keys")
    unknown = sorted(set(value) - set(CATEGORIES))
    if unknown:
        raise GardenFormError(f"'{member}' has unknown key {unknown[0]!r}")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in value.values()):
        raise GardenFormError(f"'{member}' values must be integers")
    return dict(value)


def record_from_dict(document: Any) -> SheetRecord:
    """Build a SheetRecord from a garden document; raise GardenFormError on a malformed one."""
    if not isinstance(document, dict):
        raise GardenFormError("expected a JSON object with 'cells' and 'water'")
    garden = garden_from_dict(document)
    turns = None
    if document.get("turns") is not None:
        items = document["turns"]
        if not isinstance(items, list) or len(items) != TURN_COUNT:
            raise GardenFormError(f"'turns' must be a list of {TURN_COUNT} turn boxes")
        turns = tuple(turn_from_dict(item, i) for i, item in enumerate(items))
    bonsai = document.get("bonsai_pruned")
    if bonsai is not None and (not isinstance(bonsai, int) or not 0 <= bonsai <= MAX_PRUNINGS):
        raise GardenFormError(f"'bonsai_pruned' must be a number from 0 to {MAX_PRUNINGS}")
    marked = document.get("ponds_marked")
    if marked is not None and (
        not isinstance(marked, list)
        or len(marked) != len(Season)
        or not all(isinstance(m, bool) for m in marked)
    ):
        raise GardenFormError(f"'ponds_marked' must be a list of {len(Season)} booleans")
    written = document.get("written")
    return SheetRecord(
        garden,
        turns=turns,
        bonsai_pruned=bonsai,
        ponds_marked=tuple(marked) if marked is not None else None,
        written=_breakdown_numbers(written, "written") if written is not None else None,
    )


def record_to_dict(record: SheetRecord) -> dict:
    """The garden-file form of a record (members left out where unknown)."""
    document = garden_to_dict(record.garden)
    if record.turns is not None:
        document["turns"] = [turn_to_dict(turn) for turn in record.turns]
    if record.bonsai_pruned is not None:
        document["bonsai_pruned"] = record.bonsai_pruned
    if record.ponds_marked is not None:
        document["ponds_marked"] = list(record.ponds_marked)
    if record.written is not None:
        document["written"] = dict(record.written)
    return document


def load_document(path: str | Path) -> dict:
    """Read a garden file as JSON; raise InputFileError naming the file and the problem."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputFileError(str(path), "no such file") from None
    except IsADirectoryError:
        raise InputFileError(str(path), "is a folder, not a garden file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputFileError(str(path), f"cannot be read ({error.__class__.__name__})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputFileError(str(path), f"not JSON ({error.msg} at line {error.lineno})") from None


def load_record(path: str | Path) -> tuple[SheetRecord, dict]:
    """Read a garden file: the record and the raw document (for its free members)."""
    document = load_document(path)
    try:
        return record_from_dict(document), document
    except GardenFormError as error:
        raise InputFileError(str(path), str(error)) from None
