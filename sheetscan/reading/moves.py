"""What each reading could otherwise be: the decoder's moves (decode.py).

A move changes one reading of a sheet (a cell's decoration or terrain, a turn box, a mark, a
written number) or a group of cells drawn alike, to another plausible reading, at the cost of
how much less likely the readers found it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from functools import partial
from typing import Callable, Mapping

import numpy as np

from sheetscan.game.audit import human_cell
from sheetscan.game.garden import ALL_CELLS, Cell, SheetRecord, turn_text
from sheetscan.game.rules import CATEGORIES, Decoration
from sheetscan.reading.boxes import BoxReading, Candidate
from sheetscan.reading.digits import DigitGroup
from sheetscan.reading.labelling import logged_drawings
from sheetscan.reading.read import DECORATION_CLASSES, GardenReading, decoration_class, decoration_of_class

# A mistake weighs as a reading error with probability ratio e^-5.5: a player miswrites a given
# number about once in 250. Chosen on validation photos (bench seeds 77 and 78, 400 sheets, none
# a bench figure's): against 4.5, false differences fell from 9 to 6 with flags unchanged
# (196 of 201); the readers' tails are still overconfident after calibration.
FINDING_COST = 5.5
# A reading costlier than two mistakes is never changed: it would take three findings to pay
# for it. Up to there, a confident misreading (an erased drawing read with 99.99%, a felt pen's
# thick tree dot) is corrected when the turn log and the written numbers both disagree with
# it. On the validation seeds, against e^-6: false differences 6 -> 3 of 199, exact totals 387
# -> 391 of 400, flags unchanged (196 of 201).
MAX_MOVE_COST = 2 * FINDING_COST
# A group of cells drawn alike (groups.py) may take another kind together: each cell then costs
# at most this much, since the networks' view of a drawing unlike any they trained on is no
# evidence against the turn log and the written numbers. Chosen on validation seeds 77 and 78 (own hands,
# 60 phone sheets): the smallest cap that loses no sheet there (2, 3 and 4 each lost one).
GROUP_CELL_COST = 6.0
# A way the writer writes one digit (digits.DigitGroup), read as another in some boxes or in all,
# may be taken as another digit in all of them at once (the turn boxes': logs.py): at most
# DIGIT_GROUP_COST, since the networks' view of a digit written unlike any they trained on is
# weak evidence, as a drawing's. On validation photos (held-out writers, seeds 78 and 80, read and
# audited; own hands' audit, seed 77) a cap of 1.5, 3 or 6 gave the same figures: where a group
# taken otherwise fits, the findings it removes outweigh any of them (docs/hands.md). A group's
# digits in the written numbers may be taken as one digit in all of them at once too, at the
# same cost.
DIGIT_GROUP_COST = 3.0
# Ink where the player drew nothing (a smudge, a stroke crossed out, a neighbour's drawing over
# the line) is read as a drawing, which the labelling must give a kind: the true turn log then
# fits worse than a misread one. Where the labelling from the log as read leaves findings, each
# decorated cell its networks find empty for less than this is tried empty, as a turn read
# otherwise is, the MAX_EMPTY_CELLS cheapest. On validation photos of held-out hands (seeds
# 77-83): one scan sheet more exact (seed 82), none lost, own hands the same; at 6 (the 4
# cheapest) the same figures, so the cheaper search is kept. The other way round, a drawing no
# network saw may be read as empty: where the turn log gives more drawings than the garden holds,
# the cells read as empty that their networks find drawn for least (each under MAX_MOVE_COST, as
# many as are missing, at most MAX_EMPTY_CELLS) are taken as drawings and labelled with the rest
# (decode._with_drawings). On validation photos of held-out hands (seeds 77-79 and 82): tables of 3,
# seed 78, one sheet more exact (53 of 60), every other run the same, own hands too.
EMPTY_CELL_COST = 3.0
MAX_EMPTY_CELLS = 2


@dataclass(frozen=True)
class Move:
    """One change of reading: what it applies to the record, its cost and how to say it."""

    apply: Callable[[SheetRecord], SheetRecord]
    cost: float
    what: str  # e.g. "cell (3,4) read as moss (62%), taken as rock (35%)"
    target: str  # what it changes: once changed, its other moves are dropped
    # an undo's readings (changed_readings): it is dropped once another change takes one of them
    undoes: frozenset = frozenset()


def changed_readings(before: SheetRecord, after: SheetRecord) -> frozenset[tuple]:
    """The readings ``after`` takes otherwise than ``before``: ("cell", cell) for a decoration or
    a tree's mark, ("water", cell), ("turn", index), ("pond icon", index), ("written",
    category), ("leaves",)."""
    garden, was = after.garden, before.garden
    changed = {("cell", cell) for cell in ALL_CELLS if garden.decoration(cell) is not was.decoration(cell)}
    changed.update(("cell", cell) for cell in garden.tree_late ^ was.tree_late)
    changed.update(("water", cell) for cell in ALL_CELLS if garden.is_water(cell) != was.is_water(cell))
    for name, values, old in (("turn", after.turns, before.turns),
                              ("pond icon", after.ponds_marked, before.ponds_marked)):
        changed.update((name, index) for index, (value, old_value) in enumerate(zip(values or (), old or ()))
                       if value != old_value)
    if after.written is not None and before.written is not None:
        changed.update(("written", category) for category, value in after.written.items()
                       if value != before.written.get(category))
    if after.bonsai_pruned != before.bonsai_pruned:
        changed.add(("leaves",))
    return frozenset(changed)


def undo(move: Move, before: SheetRecord) -> Move | None:
    """``move``, taken at ``before``, undone: the readings it changed read as ``before`` reads
    them, at its cost given back (a later change may take away its reason: a cell taken as water
    for a written number another change then explains). None where it changed nothing."""
    after = move.apply(before)
    changed = changed_readings(before, after)
    if not changed:
        return None
    pruned = (after.bonsai_pruned or 0) - (before.bonsai_pruned or 0)
    return Move(partial(_restored, before=before, changed=changed, pruned=pruned),
                -move.cost, f"{move.what}, undone", move.target, changed)


def _restored(record: SheetRecord, before: SheetRecord, changed: frozenset[tuple], pruned: int) -> SheetRecord:
    """``record`` with the readings ``changed`` as ``before`` reads them (its leaves ``pruned`` fewer)."""
    garden, turns, icons, written = record.garden, record.turns, record.ponds_marked, dict(record.written or {})
    for name, *where in changed:
        if name == "cell":
            cell = where[0]
            garden = garden.with_cell(cell, before.garden.decoration(cell), late=cell in before.garden.tree_late)
        elif name == "water":
            garden = garden.with_cell(where[0], water=before.garden.is_water(where[0]))
        elif name == "turn":
            turns = turns[: where[0]] + (before.turns[where[0]],) + turns[where[0] + 1 :]
        elif name == "pond icon":
            icons = icons[: where[0]] + (before.ponds_marked[where[0]],) + icons[where[0] + 1 :]
        elif name == "written":
            written[where[0]] = before.written[where[0]]
    return SheetRecord(garden, turns, record.bonsai_pruned - pruned if pruned else record.bonsai_pruned, icons,
                       written if record.written is not None else None)


def ratio_cost(best: float, chosen: float) -> float:
    return math.log(max(best, 1e-12) / max(chosen, 1e-12))


def cell_moves(reading: GardenReading, keep: frozenset[Cell] = frozenset()) -> list[Move]:
    """Every other plausible decoration of each cell but those to ``keep`` (an erased drawing may
    be read as anything, so not only the runner-up), and every cell's other terrain."""
    moves = []
    probabilities, water = reading.decoration_probabilities, reading.water_probability
    for cell in ALL_CELLS:
        p = probabilities[cell]
        best = int(np.argmax(p))
        for other in np.argsort(p)[::-1][1:] if cell not in keep else ():
            cost = ratio_cost(p[best], p[other])
            if cost < MAX_MOVE_COST:
                decoration, late = decoration_of_class(int(other))
                moves.append(Move(
                    lambda record, cell=cell, decoration=decoration, late=late: record.with_garden(
                        record.garden.with_cell(cell, decoration, late=late)),
                    cost, _cell_taken_as(cell, p, int(other)), f"decoration {cell}"))
        is_water = reading.garden.is_water(cell)
        p_read = water[cell] if is_water else 1 - water[cell]
        cost = ratio_cost(p_read, 1 - p_read)
        if cost < MAX_MOVE_COST:
            read, taken = ("water", "earth") if is_water else ("earth", "water")
            moves.append(Move(
                lambda record, cell=cell, is_water=is_water: record.with_garden(
                    record.garden.with_cell(cell, water=not is_water)),
                cost, f"cell {human_cell(cell)} read as {read} ({p_read:.0%}), taken as {taken} ({1 - p_read:.0%})",
                f"water {cell}"))
    return moves


def _cell_taken_as(cell: Cell, probabilities: np.ndarray, taken: int) -> str:
    """How a cell read as its likeliest class and taken as class ``taken`` is said."""
    best = int(np.argmax(probabilities))
    return (f"cell {human_cell(cell)} read as {DECORATION_CLASSES[best].replace('_', ' ')} ({probabilities[best]:.0%}), "
            f"taken as {DECORATION_CLASSES[taken].replace('_', ' ')} ({probabilities[taken]:.0%})")


def readings_with_drawings(reading: GardenReading, drawings: int) -> list[tuple[float, str, GardenReading]]:
    """``reading`` with the ``drawings`` cells read as empty that its networks find drawn for
    least (each under MAX_MOVE_COST, at most MAX_EMPTY_CELLS of them) taken as their likeliest
    kind, all at once: [(cost, what, reading)], or [] where there are none such or none asked."""
    empty = DECORATION_CLASSES.index("empty")
    candidates = []
    for cell in (cell for cell in ALL_CELLS if reading.garden.decoration(cell) is None):
        p = reading.decoration_probabilities[cell]
        drawn = int(np.argmax(np.where(np.arange(len(p)) == empty, -1.0, p)))
        cost = ratio_cost(p.max(), p[drawn])
        if cost < MAX_MOVE_COST:
            candidates.append((cost, cell, drawn))
    taken = sorted(candidates)[:min(drawings, MAX_EMPTY_CELLS)]
    if not taken:
        return []
    garden = reading.garden
    for _, cell, drawn in taken:
        decoration, late = decoration_of_class(drawn)
        garden = garden.with_cell(cell, decoration, late=late)
    what = " and ".join(_cell_taken_as(cell, reading.decoration_probabilities[cell], drawn) for _, cell, drawn in taken)
    return [(sum(cost for cost, _, _ in taken), what, replace(reading, garden=garden))]


def records_with_drawings(reading: GardenReading, record: SheetRecord,
                          dice_faces: Mapping[int, Decoration]) -> list[tuple[float, str, GardenReading, SheetRecord]]:
    """Where ``record``'s turn log gives more drawings than ``reading``'s garden holds, the reading
    with the cells read as empty likeliest drawn taken as drawings (readings_with_drawings): a
    drawing no network saw may be read as empty, and labelled without it the sheet fits worse.
    (cost, what, reading, record with its garden) each."""
    missing = len(logged_drawings(record.turns, dice_faces)) - sum(1 for _ in reading.garden.decorated_cells())
    return [(cost, what, drawn, record.with_garden(drawn.garden))
            for cost, what, drawn in readings_with_drawings(reading, missing)]


def readings_without_drawing(reading: GardenReading) -> list[tuple[float, str, GardenReading]]:
    """``reading`` with one of its decorated cells read as empty, where its networks find that
    costs less than EMPTY_CELL_COST (the MAX_EMPTY_CELLS cheapest): (cost, what, reading) each."""
    empty = DECORATION_CLASSES.index("empty")
    without = []
    for cell, _ in reading.garden.decorated_cells():
        p = reading.decoration_probabilities[cell]
        cost = ratio_cost(p.max(), p[empty])
        if cost < EMPTY_CELL_COST:
            without.append((cost, _cell_taken_as(cell, p, empty), replace(reading, garden=reading.garden.with_cell(cell, None))))
    return sorted(without, key=lambda item: item[0])[:MAX_EMPTY_CELLS]


def group_moves(reading: GardenReading) -> list[Move]:
    """Each group of cells drawn alike taken as another kind, all together (a tree keeps or
    loses its Spring/Summer mark as its cell's own reading says)."""
    probabilities = reading.decoration_probabilities
    tree, late = decoration_class(Decoration.TREE), decoration_class(Decoration.TREE, late=True)
    moves = []
    for index, group in enumerate(reading.groups):
        for kind in Decoration:
            if all(reading.garden.decoration(cell) is kind for cell in group):
                continue
            classes = {cell: decoration_class(kind, late=probabilities[cell][late] > probabilities[cell][tree])
                       for cell in group}
            cost = sum(min(ratio_cost(probabilities[cell].max(), probabilities[cell][classes[cell]]), GROUP_CELL_COST)
                       for cell in group)

            def apply(record, classes=classes):
                garden = record.garden
                for cell, class_index in classes.items():
                    decoration, is_late = decoration_of_class(class_index)
                    garden = garden.with_cell(cell, decoration, late=is_late)
                return record.with_garden(garden)

            cells = ", ".join(human_cell(cell) for cell in group)
            moves.append(Move(apply, cost, f"cells {cells}, drawn alike, taken as {kind.category}", f"group {index}"))
    return moves


def alternatives(candidates: tuple[Candidate, ...]) -> list[tuple[Candidate, float]]:
    costs = [(c, ratio_cost(candidates[0].probability, c.probability)) for c in candidates[1:]]
    return [(c, cost) for c, cost in costs if cost < MAX_MOVE_COST]


def box_moves(boxes: BoxReading) -> list[Move]:
    """Runner-up readings of the turn boxes, the marks and the written numbers."""
    moves = []
    for index, candidates in enumerate(boxes.turns):
        for candidate, cost in alternatives(candidates):
            moves.append(Move(
                lambda record, index=index, turn=candidate.value: replace(
                    record, turns=record.turns[:index] + (turn,) + record.turns[index + 1 :]),
                cost, turn_taken_as(index, candidates[0], candidate), f"turn {index}"))
    for index, candidates in enumerate(boxes.leaves):
        for candidate, cost in alternatives(candidates):
            step = 1 if candidate.value else -1
            moves.append(Move(
                lambda record, step=step: replace(record, bonsai_pruned=record.bonsai_pruned + step),
                cost, f"bonsai leaf {index + 1} read as {_marked(candidates[0])}, taken as {_marked(candidate)}",
                f"leaf {index}"))
    for index, candidates in enumerate(boxes.pond_icons):
        for candidate, cost in alternatives(candidates):
            moves.append(Move(
                lambda record, index=index, marked=candidate.value: replace(
                    record, ponds_marked=record.ponds_marked[:index] + (marked,) + record.ponds_marked[index + 1 :]),
                cost, f"pond icon {index + 1} read as {_marked(candidates[0])}, taken as {_marked(candidate)}",
                f"pond icon {index}"))
    for category, candidates in boxes.written.items():
        for candidate, cost in alternatives(candidates):
            moves.append(Move(
                lambda record, category=category, value=candidate.value: replace(
                    record, written={**record.written, category: value}),
                cost, f"written {category} read as {candidates[0].value} ({candidates[0].probability:.0%}), "
                      f"taken as {candidate.value} ({candidate.probability:.0%})", f"written {category}"))
    return moves + digit_group_numbers(boxes.digit_groups)


def taken_cost(probabilities: np.ndarray, read: list[int], taken: int) -> float:
    """What the networks say it costs to take every copy of a group of digits, read as the
    columns ``read`` of their ``probabilities``, as column ``taken``: the sum of the log ratios
    of the copies read otherwise (probabilities floored at 1e-4)."""
    p = np.clip(probabilities, 1e-4, 1)
    return sum(math.log(p[i, was] / p[i, taken]) for i, was in enumerate(read) if was != taken)


def _with_digit(value: int, head: str, digit: int) -> int | None:
    """The number ``value`` with its "tens" or "units" digit made ``digit``; None where it has no
    tens to make, or would write a tens of 0."""
    tens, units = divmod(abs(value), 10)
    if head == "tens" and not (tens and digit):
        return None
    tens, units = (digit, units) if head == "tens" else (tens, digit)
    return (-1 if value < 0 else 1) * (10 * tens + units)


def _numbers_taken_as(record: SheetRecord, numbers: tuple[tuple[int, str], ...], digit: int) -> SheetRecord:
    written = dict(record.written)
    for index, head in numbers:
        taken = _with_digit(written[CATEGORIES[index]], head, digit)
        if taken is not None:
            written[CATEGORIES[index]] = taken
    return replace(record, written=written)


def digit_group_numbers(groups: tuple[DigitGroup, ...]) -> list[Move]:
    """Moves that take a way the writer writes one digit (digits.DigitGroup), read as several
    digits in its boxes, as one digit some of its copies are read as in every written number it
    is in at once: what the networks say, at most DIGIT_GROUP_COST, as a group of turn digits.
    Two such moves of groups that share a written number are also one move: a writer's 12 read
    as 75 needs its 1s and its 2s set right together before the number fits, and the descent's
    pairs of moves, cheapest first, rarely reach two moves this dear."""
    moves = []  # (the written numbers the group is in, its move)
    for index, group in enumerate(groups):
        numbers_read = group.number_digits_read
        read = group.turn_digits_read + numbers_read
        if not numbers_read or len(set(read)) < 2:
            continue
        numbers = set(number for number, _ in group.numbers)
        where = ", ".join(CATEGORIES[number] for number in dict.fromkeys(number for number, _ in group.numbers))
        for digit in sorted(set(read) - ({0} if any(head == "tens" for _, head in group.numbers) else set())):
            if set(numbers_read) == {digit}:
                continue
            cost = taken_cost(group.number_probabilities, numbers_read, digit)
            what = f"the digits written alike in {where} (read as {', '.join(map(str, read))}) taken as {digit}"
            moves.append((numbers, Move(partial(_numbers_taken_as, numbers=group.numbers, digit=digit),
                                        min(cost, DIGIT_GROUP_COST), what, f"digit group {index}")))
    pairs = [Move(lambda record, first=first, second=second: second.apply(first.apply(record)),
                  first.cost + second.cost, f"{first.what} and {second.what}", f"{first.target} and {second.target}")
             for (numbers, first), (other_numbers, second) in itertools.combinations(moves, 2)
             if first.target != second.target and numbers & other_numbers]
    return [move for _, move in moves] + pairs


def turn_taken_as(index: int, read: Candidate, taken: Candidate) -> str:
    return (f"turn {index + 1} read as {turn_text(read.value)} ({read.probability:.0%}), "
            f"taken as {turn_text(taken.value)} ({taken.probability:.0%})")


def _marked(candidate: Candidate) -> str:
    return f"{'marked' if candidate.value else 'blank'} ({candidate.probability:.0%})"
