"""Readings as the readers would give them for a known record: the decoder's test inputs."""

import itertools

import numpy as np

from sheetscan.reading.boxes import BoxReading, Candidate
from sheetscan.game.garden import ALL_CELLS, SheetRecord
from sheetscan.reading.read import DECORATION_CLASSES, GardenReading, decoration_class, garden_from_classes
from sheetscan.game.audit import turn_log_findings
from sheetscan.game.rules import GRID_SIZE, Decoration
from sheetscan.game.score import score

SURE = 0.999


def garden_reading(record: SheetRecord, doubts: dict | None = None) -> GardenReading:
    """Confident readings of ``record``'s garden; ``doubts`` maps a cell to {class name: p}."""
    probabilities = np.full((GRID_SIZE, GRID_SIZE, len(DECORATION_CLASSES)), (1 - SURE) / 7)
    for cell in ALL_CELLS:
        probabilities[cell][decoration_class(record.garden.decoration(cell), cell in record.garden.tree_late)] = SURE
    for cell, shares in (doubts or {}).items():
        probabilities[cell] = 0.0
        for name, p in shares.items():
            probabilities[cell][DECORATION_CLASSES.index(name)] = p
    water = np.array(record.garden.water, float)
    garden = garden_from_classes(probabilities.argmax(axis=2), water > 0.5)
    return GardenReading(garden, probabilities, np.clip(water, 1 - SURE, SURE), ())


def _sure(value) -> tuple[Candidate, ...]:
    if isinstance(value, bool):
        return Candidate(value, SURE), Candidate(not value, 1 - SURE)
    return (Candidate(value, SURE),)


def box_reading(record: SheetRecord, written_doubts: dict | None = None) -> BoxReading:
    """Confident readings of ``record``'s boxes; ``written_doubts`` maps a category to
    [(value, p), ...] candidates, most likely first."""
    written = {category: _sure(value) for category, value in record.written.items()}
    for category, candidates in (written_doubts or {}).items():
        written[category] = tuple(Candidate(value, p) for value, p in candidates)
    return BoxReading(tuple(_sure(turn) for turn in record.turns),
                      tuple(_sure(leaf < record.bonsai_pruned) for leaf in range(3)),
                      tuple(_sure(marked) for marked in record.ponds_marked), written)


def alike_by_kind(record: SheetRecord, same: float = 1.6, other: float = 0.3) -> np.ndarray:
    """(36, 36) drawing similarity as one hand's drawings give it: ``same`` between the cells of
    a kind, ``other`` between kinds, 0 where a cell is empty."""
    kinds = [record.garden.decoration(cell) for cell in ALL_CELLS]
    similarity = np.array([[0.0 if a is None or b is None else same if a is b else other for b in kinds] for a in kinds])
    return similarity


def swaps_the_log_allows(record: SheetRecord, same_points: bool = False):
    """Each two drawn cells of different kinds whose kinds swapped still fit the turn log (a draw's
    two decorations in its row or column), with the swapped garden: those whose total differs, or
    (with ``same_points``) those that give every category the same points."""
    cells = [cell for cell, _ in record.garden.decorated_cells()]
    for first, second in itertools.combinations(cells, 2):
        a, b = record.garden.decoration(first), record.garden.decoration(second)
        if a is not b and Decoration.TREE not in (a, b):
            swapped = record.garden.with_cell(first, b).with_cell(second, a)
            same = score(swapped).breakdown == score(record.garden).breakdown
            if not turn_log_findings(swapped, record.turns) and same == same_points:
                yield first, second, swapped
