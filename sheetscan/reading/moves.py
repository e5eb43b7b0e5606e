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
from sheetscan.game.garden import ALL_CELLS, Cell, SheetRecord, Turn, turn_text
from sheetscan.game.rules import CATEGORIES, Decoration
from sheetscan.reading.boxes import DIGITS, BoxReading, Candidate, turn_digits, turn_of_digits
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
# may be taken as another digit in all of them at once: at most DIGIT_GROUP_COST, since the
# networks' view of a digit written unlike any they trained on is weak evidence, as a drawing's.
# Tried for a group read as several digits, or mostly as a digit that another group is mostly
# read as too (a writer writes each digit one way, or two at most): as each digit some of its
# copies are read as, any digit no group is mostly read as, and the GROUP_RUNNER_UPS digits the
# networks find likeliest for all its copies; each group also with its strays (copies grouped
# alone, most alike to the group: digits.stray_groups); the MAX_DIGIT_GROUP_TRIES likeliest by the
# networks. The runner-ups (each costing less than RUNNER_UP_COST a copy: where the networks
# cannot tell the other digits apart, none) take a writer's second way to write 2, read as 3 like
# their 3s, their 2s read right elsewhere: on validation photos of held-out hands with coarse
# varied digits (40 phone sheets each) exact 31 -> 33 on seed 79, 30 -> 29 on seed 80, the same
# on seeds 77 and 83 and tables of 3 (82); every digit tried, not the runner-ups, crowded the
# true one out of the tries. On validation photos (held-out writers, seeds 78 and 80, read and
# audited; own hands' audit, seed 77) a cap of 1.5, 3 or 6 gave the same figures: where a group
# taken otherwise fits, the findings it removes outweigh any of them (docs/hands.md). A group's
# digits in the written numbers may be taken as one digit in all of them at once too, at the
# same cost.
DIGIT_GROUP_COST = 3.0
GROUP_RUNNER_UPS = 2
RUNNER_UP_COST = 3.0  # a copy, on average
MAX_DIGIT_GROUP_TRIES = 6
# A turn box misread by a writer the readers never saw anchors the labelling (decode.py) on a
# wrong turn log. Where the labelling from the log as read still leaves findings, each turn's
# other readings costing less than this are tried in its place, one turn at a time. Chosen on
# validation photos of held-out hands (seeds 77 and 78, 40 phone sheets each): exact totals 61 of
# 80 without, 63 at 3, 65 at 6, 64 at 6 with the 8 cheapest (one pad sheet took 22 s without that
# bound, 4.5 s with it); own hands 40 of 40 at each. A writer never seen leaves many boxes in
# doubt, a pruning's cell most: the 12 cheapest, not 8, with coarse varied digits (seeds 79, 80
# and 83) exact 31, 30 and 30 of 40 -> 31, 31 and 33 (the true reading was tenth on seed 83, photo
# 20), seed 77 36 -> 37, tables of 3 (82) 52 -> 53 of 60. With them, a cost of 9, not 6: one more
# exact on each of seeds 79 and 80 (true readings at 6.2 and 8.7), every other run the same.
OTHER_TURN_COST = 9.0
MAX_OTHER_TURNS = 12  # of those, the cheapest: each labels the sheet again
# Two misread turns may each, read otherwise alone, leave the drawings labelled to fit the other:
# where the log rounds still leave findings, the MAX_TURN_PAIRS cheapest pairs of those readings
# (under OTHER_TURN_COST together) are tried at once (decode.py). On validation photos of held-out
# hands with coarse varied digits (seeds 77-81 and 83, 40 phone sheets each): one sheet more exact
# on each of 77 and 78, the same elsewhere; every other run of seeds 77-82 the same. The 8
# cheapest, not 4 (thirty-fourth round): seeds 78 and 79 one more exact each, 80, 81, 83 and
# tables of 3 (82) the same.
MAX_TURN_PAIRS = 8
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


def _taken_cost(probabilities: np.ndarray, read: list[int], taken: int) -> float:
    """What the networks say it costs to take every copy of a group of digits, read as the
    columns ``read`` of their ``probabilities``, as column ``taken``: the sum of the log ratios
    of the copies read otherwise (probabilities floored at 1e-4)."""
    p = np.clip(probabilities, 1e-4, 1)
    return sum(math.log(p[i, was] / p[i, taken]) for i, was in enumerate(read) if was != taken)


def digit_group_turns(turns: tuple[Turn, ...], groups: tuple[DigitGroup, ...]) -> list[tuple[float, str, tuple[Turn, ...]]]:
    """Turn logs with one of ``groups`` (the writer's digits written alike), or one with its
    strays, taken as another digit, as DIGIT_GROUP_COST says: (what the networks say that costs,
    what was taken, the turns), likeliest first."""
    digits_of = [turn_digits(turn) for turn in turns]  # as read: a group's box may belong to another kind now

    def read_in(slots: tuple[tuple[int, str], ...]) -> list[int] | None:
        return [digits_of[turn][head] for turn, head in slots] if all(head in digits_of[turn] for turn, head in slots) else None

    groups = [group for group in groups if group.slots and read_in(group.slots) is not None]
    mostly = [max(sorted(set(digits)), key=digits.count) for digits in (read_in(group.slots) for group in groups)]
    unread = set(range(1, len(DIGITS) + 1)) - set(mostly)  # a digit no group is read as: one may be it
    ways = [(group.slots, group.probabilities, most) for group, most in zip(groups, mostly, strict=True)]
    ways += [(group.slots + group.strays, np.vstack([group.probabilities, group.stray_probabilities]), most)
             for group, most in zip(groups, mostly, strict=True) if group.strays and read_in(group.strays) is not None]
    tries = []
    for slots, probabilities, most in ways:
        digits = read_in(slots)
        if len(digits) < 2 or len(set(digits)) == 1 and mostly.count(most) == 1:
            continue
        costs = {digit: _taken_cost(probabilities, [was - 1 for was in digits], digit - 1)
                 for digit in range(1, len(DIGITS) + 1) if set(digits) != {digit}}
        read_or_unread = (set(digits) | unread) & set(costs)
        runner_ups = {digit for digit in sorted(costs, key=costs.get)[:GROUP_RUNNER_UPS]
                      if costs[digit] < RUNNER_UP_COST * len(digits)}
        for digit in sorted(read_or_unread | runner_ups):
            changed = {turn: dict(digits_of[turn]) for turn, _ in slots}
            for turn, head in slots:
                changed[turn][head] = digit
            taken = tuple(turn_of_digits(turn.kind, changed[index]) if index in changed else turn
                          for index, turn in enumerate(turns))
            where = ", ".join(f"{turn + 1}" for turn in sorted(changed))
            what = f"the digits written alike in turns {where} (read as {', '.join(map(str, digits))}) taken as {digit}"
            # a group taken back toward what the networks read costs nothing, never less: the
            # search pays at most DIGIT_GROUP_COST to take it away, and would gain by going round
            tries.append((max(costs[digit], 0.0), what, taken))
    return sorted(tries, key=lambda item: item[0])[:MAX_DIGIT_GROUP_TRIES]


def _other_turns(turns: tuple[Turn, ...], read: tuple[Turn, ...], boxes: BoxReading) -> list[tuple]:
    """The other readings of the turns of ``turns`` still as ``read``, for less than
    OTHER_TURN_COST, the MAX_OTHER_TURNS cheapest: (cost, turn index, candidate) each."""
    others = sorted(((cost, index, candidate) for index, candidates in enumerate(boxes.turns) if turns[index] == read[index]
                     for candidate, cost in alternatives(candidates) if cost < OTHER_TURN_COST), key=lambda other: other[:2])
    return others[:MAX_OTHER_TURNS]


def _turns_taken(turns: tuple[Turn, ...], boxes: BoxReading, others: tuple[tuple, ...]) -> tuple:
    """``turns`` with each of ``others`` (_other_turns' items) taken: (cost, what, turns)."""
    taken = list(turns)
    for _, index, candidate in others:
        taken[index] = candidate.value
    return (sum(cost for cost, _, _ in others),
            " and ".join(turn_taken_as(index, boxes.turns[index][0], candidate) for _, index, candidate in others),
            tuple(taken))


def logs_read_otherwise(turns: tuple[Turn, ...], read: tuple[Turn, ...], boxes: BoxReading) -> list[tuple]:
    """``turns`` with one turn still as ``read`` (the log as first read) read otherwise (_other_turns),
    or one group of the writer's alike digits taken as another digit (at most DIGIT_GROUP_COST):
    (cost, what, turns) each."""
    logs = [_turns_taken(turns, boxes, (other,)) for other in _other_turns(turns, read, boxes)]
    groups = digit_group_turns(turns, boxes.digit_groups)
    return logs + [(min(cost, DIGIT_GROUP_COST), what, taken) for cost, what, taken in groups if taken != turns]


def turn_pairs_read_otherwise(turns: tuple[Turn, ...], boxes: BoxReading) -> list[tuple]:
    """``turns`` (as first read) with two turns read otherwise at once (of _other_turns), for less
    than OTHER_TURN_COST together, the MAX_TURN_PAIRS cheapest: (cost, what, turns) each."""
    pairs = sorted((pair for pair in itertools.combinations(_other_turns(turns, turns, boxes), 2)
                    if pair[0][1] != pair[1][1] and pair[0][0] + pair[1][0] < OTHER_TURN_COST),
                   key=lambda pair: pair[0][0] + pair[1][0])
    return [_turns_taken(turns, boxes, pair) for pair in pairs[:MAX_TURN_PAIRS]]


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
            cost = _taken_cost(group.number_probabilities, numbers_read, digit)
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
