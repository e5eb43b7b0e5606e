"""Turn logs read otherwise: what the decoder's labelling (decode.py) tries in place of the log as read.

A turn box misread anchors the drawings' labelling on a wrong log, and a writer the networks
never saw may misread many. Each try is a log with one turn read otherwise (its runner-up
readings), one way the writer writes a digit taken as another in every box (digits.DigitGroup),
two such ways at once, or two turns read otherwise at once; each with what it costs.
"""

from __future__ import annotations

import itertools

import numpy as np

from sheetscan.game.garden import Turn
from sheetscan.reading.boxes import DIGITS, BoxReading, turn_digits, turn_of_digits
from sheetscan.reading.digits import DigitGroup
from sheetscan.reading.moves import DIGIT_GROUP_COST, alternatives, taken_cost, turn_taken_as

# A turn box misread by a writer the readers never saw anchors the labelling (decode.py) on a
# wrong turn log. Where the labelling from the log as read still leaves findings, each turn's
# other readings costing less than this are tried in its place, one turn at a time. Chosen on
# validation photos of held-out hands (seeds 77 and 78, 40 phone sheets each): exact totals 61 of
# 80 without, 63 at 3, 65 at 6, 64 at 6 with the 8 cheapest (one pad sheet took 22 s without that
# bound, 4.5 s with it); own hands 40 of 40 at each. A writer never seen leaves many boxes in
# doubt, a pruning's cell most: the 12 cheapest, not 8, with coarse varied digits (seeds 79, 80
# and 83) exact 31, 30 and 30 of 40 -> 31, 31 and 33 (the true reading was tenth on seed 83, photo
# 20), seed 77 36 -> 37, tables of 3 (82) 52 -> 53 of 60. With them, a cost of 9, not 6: one more
# exact on each of seeds 79 and 80 (true readings at 6.2 and 8.7), every other run the same. Then
# 15 and the 24 cheapest, not 9 and 12 (fifty-fifth round): of the 78 validation sheets still lost
# (1,280 held-out sheets), 18 had a true reading costing 9-14.4; exact 1,202 -> 1,205, sure 739 ->
# 741, none lost; 15 with the 12 cheapest set none right. A turn's other readings come from
# moves.alternatives, under MAX_MOVE_COST (11): a turn alone is tried up to that, a pair up to 15.
OTHER_TURN_COST = 15.0
MAX_OTHER_TURNS = 24  # of those, the cheapest: each labels the sheet again
# Two misread turns may each, read otherwise alone, leave the drawings labelled to fit the other:
# where the log rounds still leave findings, the MAX_TURN_PAIRS cheapest pairs of those readings
# (under OTHER_TURN_COST together) are tried at once (decode.py). On validation photos of held-out
# hands with coarse varied digits (seeds 77-81 and 83, 40 phone sheets each): one sheet more exact
# on each of 77 and 78, the same elsewhere; every other run of seeds 77-82 the same. The 8
# cheapest, not 4 (thirty-fourth round): seeds 78 and 79 one more exact each, 80, 81, 83 and
# tables of 3 (82) the same.
MAX_TURN_PAIRS = 8
# A group of the writer's digits (digits.DigitGroup) is tried as another digit where it is read as
# several digits, or mostly as a digit that another group is mostly read as too (a writer writes
# each digit one way, or two at most): as each digit some of its copies are read as, any digit no
# group is mostly read as, and the GROUP_RUNNER_UPS digits the networks find likeliest for all its
# copies; each group also with its strays (copies grouped alone, most alike to the group:
# digits.stray_groups); the MAX_DIGIT_GROUP_TRIES likeliest by the networks. The runner-ups (each
# costing less than RUNNER_UP_COST a copy: where the networks cannot tell the other digits apart,
# none) take a writer's second way to write 2, read as 3 like their 3s, their 2s read right
# elsewhere: on validation photos of held-out hands with coarse varied digits (40 phone sheets
# each) exact 31 -> 33 on seed 79, 30 -> 29 on seed 80, the same on seeds 77 and 83 and tables of
# 3 (82); every digit tried, not the runner-ups, crowded the true one out of the tries.
GROUP_RUNNER_UPS = 2
RUNNER_UP_COST = 3.0  # a copy, on average
MAX_DIGIT_GROUP_TRIES = 6
# A writer may write a digit two ways, both unlike any the networks saw and read as another digit
# the writer writes too: two groups read mostly as one digit, and no group as the true one. Each
# taken alone leaves half the log misread, and the drawings labelled to fit the other half may
# cost more than the log as read. So two groups read mostly as one digit are also taken together
# as a digit no group is read as (at most DIGIT_GROUP_COST each), the MAX_DIGIT_GROUP_PAIRS
# likeliest by the networks; three, not tuned. Found on the unseen scans' photo 20 (the writer's
# 6s read as 2 in two groups of three), exact with it; on validation photos (1,280 held-out
# sheets) one table sheet more exact, every other record the same but one's cells (docs/benchmarks.md,
# fifty-fourth round).
MAX_DIGIT_GROUP_PAIRS = 3


def digit_group_turns(turns: tuple[Turn, ...], groups: tuple[DigitGroup, ...]) -> list[tuple[float, str, tuple[Turn, ...]]]:
    """Turn logs with one of ``groups`` (the writer's digits written alike), or one with its
    strays, taken as another digit, likeliest first, then with two groups read mostly as one digit
    taken together as a digit no group is read as (MAX_DIGIT_GROUP_PAIRS): (what that costs, what
    the networks say but at most DIGIT_GROUP_COST a group; what was taken; the turns) each."""
    digits_of = [turn_digits(turn) for turn in turns]  # as read: a group's box may belong to another kind now

    def read_in(slots: tuple[tuple[int, str], ...]) -> list[int] | None:
        return [digits_of[turn][head] for turn, head in slots] if all(head in digits_of[turn] for turn, head in slots) else None

    def taken_as(slots: tuple[tuple[int, str], ...], digits: list[int], digit: int, cost: float, ways: int) -> tuple:
        changed = {turn: dict(digits_of[turn]) for turn, _ in slots}
        for turn, head in slots:
            changed[turn][head] = digit
        taken = tuple(turn_of_digits(turn.kind, changed[index]) if index in changed else turn
                      for index, turn in enumerate(turns))
        where = ", ".join(f"{turn + 1}" for turn in sorted(changed))
        what = f"the digits written alike in turns {where} (read as {', '.join(map(str, digits))}) taken as {digit}"
        # a group taken back toward what the networks read costs nothing, never less: the search
        # pays at most DIGIT_GROUP_COST to take it away, and would gain by going round
        return max(cost, 0.0), min(max(cost, 0.0), ways * DIGIT_GROUP_COST), what, taken

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
        costs = {digit: taken_cost(probabilities, [was - 1 for was in digits], digit - 1)
                 for digit in range(1, len(DIGITS) + 1) if set(digits) != {digit}}
        read_or_unread = (set(digits) | unread) & set(costs)
        runner_ups = {digit for digit in sorted(costs, key=costs.get)[:GROUP_RUNNER_UPS]
                      if costs[digit] < RUNNER_UP_COST * len(digits)}
        tries += [taken_as(slots, digits, digit, costs[digit], 1) for digit in sorted(read_or_unread | runner_ups)]
    pairs = []
    for first, second in itertools.combinations(range(len(groups)), 2):
        if mostly[first] == mostly[second]:
            slots = groups[first].slots + groups[second].slots
            probabilities = np.vstack([groups[first].probabilities, groups[second].probabilities])
            digits = read_in(slots)
            read = [was - 1 for was in digits]
            pairs += [taken_as(slots, digits, digit, taken_cost(probabilities, read, digit - 1), 2)
                      for digit in sorted(unread)]
    return [item[1:] for item in (sorted(tries, key=lambda item: item[0])[:MAX_DIGIT_GROUP_TRIES]
                                  + sorted(pairs, key=lambda item: item[0])[:MAX_DIGIT_GROUP_PAIRS])]


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
    or one way the writer writes a digit (or two: digit_group_turns) taken as another digit in
    every box, at most DIGIT_GROUP_COST a way: (cost, what, turns) each."""
    logs = [_turns_taken(turns, boxes, (other,)) for other in _other_turns(turns, read, boxes)]
    return logs + [(cost, what, taken) for cost, what, taken in digit_group_turns(turns, boxes.digit_groups)
                   if taken != turns]


def turn_pairs_read_otherwise(turns: tuple[Turn, ...], boxes: BoxReading) -> list[tuple]:
    """``turns`` (as first read) with two turns read otherwise at once (of _other_turns), for less
    than OTHER_TURN_COST together, the MAX_TURN_PAIRS cheapest: (cost, what, turns) each."""
    pairs = sorted((pair for pair in itertools.combinations(_other_turns(turns, turns, boxes), 2)
                    if pair[0][1] != pair[1][1] and pair[0][0] + pair[1][0] < OTHER_TURN_COST),
                   key=lambda pair: pair[0][0] + pair[1][0])
    return [_turns_taken(turns, boxes, pair) for pair in pairs[:MAX_TURN_PAIRS]]
