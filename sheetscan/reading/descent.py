"""The cell by cell descent: from the readers' first choices, the change that most lowers the
sheet's cost, round after round (decode.py's search, before its drawings are read together).

A sheet's cost is what its changes cost (moves.py) plus FINDING_COST for each mistake its
findings need (sheet_cost). Each round takes one move or, when no single one helps, two together
(two misread cells that only explain a written number jointly); a move taken may be undone in a
later round, its cost given back (moves.undo), where a later change took its reason away. A
Descent takes its rounds on asking: the decoder needs only as many as tell whether it could end
cheaper than the sheet's drawings read together.

A search weighs thousands of records a sheet. SheetAudit (sheet_audit.py) audits each garden
once (a candidate's points worked out from the record it was changed from:
score.breakdown_after), and a candidate is bounded before its garden is audited against its turn
log: by the garden's findings it must keep and its written numbers (best_change), most passed
over on the bound alone.
"""

from __future__ import annotations

import heapq
import math
from operator import itemgetter
from typing import NamedTuple

from sheetscan.game.audit import ARITHMETIC_KINDS, Finding
from sheetscan.game.garden import Garden, SheetRecord, Turn
from sheetscan.reading.boxes import BoxReading
from sheetscan.reading.moves import Move, changed_readings, undo
from sheetscan.reading.read import GardenReading
from sheetscan.reading.sheet_audit import SheetAudit, sheet_cost

MAX_ROUNDS = 12  # each round takes the best change: one move, or a pair
MAX_PAIRS = 300  # pairs of moves tried when no single move helps, cheapest first


def best_reading(reading: GardenReading, boxes: BoxReading) -> SheetRecord:
    """The record of every reader's first choice."""
    return SheetRecord(
        reading.garden,
        tuple(candidates[0].value for candidates in boxes.turns),
        sum(candidates[0].value for candidates in boxes.leaves),
        tuple(candidates[0].value for candidates in boxes.pond_icons),
        {category: candidates[0].value for category, candidates in boxes.written.items()},
    )


def numbers_alone(findings: list[Finding]) -> bool:
    """Whether only the written numbers' findings (a number the rules do not give, a wrong sum)
    stand against a record: a player's slip may explain them (slips.py)."""
    return bool(findings) and ARITHMETIC_KINDS.issuperset(finding.kind for finding in findings)


class LogFitted(NamedTuple):
    """A turn log read otherwise for the written numbers alone: the log and garden it left (their
    findings the numbers' alone) and how much less the reading otherwise cost."""

    turns: tuple[Turn, ...]
    garden: Garden
    margin: float


def cheap_pairs(moves: list[Move], cost: float) -> list[tuple[Move, Move]]:
    """Pairs of moves on different readings that together cost less than ``cost``, cheapest
    first, at most MAX_PAIRS: two misreadings that only explain a finding together."""
    cheap = sorted((m for m in moves if m.cost < cost), key=lambda m: m.cost)
    # merged cheapest first, each first move's partners in order (cheap is sorted): a few
    # hundred of the tens of thousands of pairs a sheet read in an unseen hand can form
    heap = [(first.cost + cheap[index + 1].cost, index, index + 1) for index, first in enumerate(cheap[:-1])]
    heap = [entry for entry in heap if entry[0] < cost]
    heapq.heapify(heap)
    pairs = []
    while heap and len(pairs) < MAX_PAIRS:
        _, index, other = heapq.heappop(heap)
        first, second = cheap[index], cheap[other]
        if first.target != second.target:
            pairs.append((first, second))
        if other + 1 < len(cheap) and first.cost + cheap[other + 1].cost < cost:
            heapq.heappush(heap, (first.cost + cheap[other + 1].cost, index, other + 1))
    return pairs


def best_change(record: SheetRecord, cost: float, changes: list[tuple[Move, ...]], audit: SheetAudit):
    """(gain, change, record, findings) of the change (one or more moves) that most lowers
    the sheet's ``cost`` (of those that lower it most, the first in order of cost), or None
    when none does.

    Each change is bounded by the garden's findings it must keep (SheetAudit.kept_cost) and its
    written numbers (SheetAudit.written_cost), and audited in full only while its bound may beat
    the best so far: at once where its bound is the highest yet, else after the others, highest
    bound first. A sheet read in a hand the networks never saw starts with a dozen findings, most
    of them its turn log's: audited in the order they cost, nearly all its changes were audited
    in full (on four held-out speed photos, 27 of 237 moves to 89 of 120, and 278 of 300 pairs)."""
    best: tuple | None = None
    best_rank = (0.0, 0)  # (gain, -index) to beat: the first of equal gains in order of cost stays

    def audited(index: int, change: tuple[Move, ...], candidate: SheetRecord, change_cost: float) -> None:
        nonlocal best, best_rank
        candidate_findings = audit.findings(candidate)
        gain = cost - sheet_cost(candidate_findings) - change_cost
        if gain > 0 and (gain, -index) > best_rank:
            best, best_rank = (gain, change, candidate, candidate_findings), (gain, -index)

    deferred, highest = [], 0.0
    costed = sorted(((sum(move.cost for move in change), change) for change in changes), key=itemgetter(0))
    for index, (change_cost, change) in enumerate(costed):
        if change_cost >= cost - best_rank[0]:
            break  # even clearing every finding would not pay for it, or beat the best
        candidate = record
        for move in change:
            candidate = move.apply(candidate)
        kept = audit.kept_cost(candidate, record)
        if cost - kept - change_cost <= best_rank[0] or (
                cost - kept - audit.kept_written_cost(candidate, record) - change_cost <= best_rank[0]):
            continue  # the findings it keeps leave it no better
        bound = cost - (audit.written_cost(candidate, record.garden) + kept) - change_cost
        if bound <= best_rank[0]:
            continue  # nor do its written numbers with them
        if bound > highest:
            highest = bound
            audited(index, change, candidate, change_cost)
        else:
            deferred.append((bound, index, change, candidate, change_cost))
    for bound, index, change, candidate, change_cost in sorted(deferred, key=lambda item: (-item[0], item[1])):
        if (bound, -index) <= best_rank:
            break  # neither it nor any after it can beat the best
        audited(index, change, candidate, change_cost)
    return best


class Descent:
    """The descent, a round at a time on asking (``step``): the record, its findings, the changes
    said and what they cost so far, and the changes taken for the written numbers alone
    (``fitted``, ``logs_fitted``: a player's slip may explain such a change). A sheet the
    drawings read together explain (decode.py) need not wait for the descent to end where it
    cannot end cheaper (``costs_more_than``)."""

    def __init__(self, record: SheetRecord, findings: list[Finding], moves: list[Move], audit: SheetAudit):
        self.record, self.findings, self.moves, self.audit = record, findings, moves, audit
        self.changes: list[str] = []
        self._fitted: list[tuple[Garden, Garden]] = []  # each change for the numbers alone: before, after
        # each record it left whose findings were the written numbers' alone, with its cost then
        self._numbers_alone: list[tuple[SheetRecord, float]] = []
        self.spent = 0.0
        self.rounds = 0
        self.done = not sheet_cost(findings)
        self._no_single_helps = False  # its moves were weighed one at a time where it stands, none helping

    @property
    def cost(self) -> float:
        """What its changes and its findings cost now: each round lowers it."""
        return self.spent + sheet_cost(self.findings)

    def step(self, pairs: bool = True, ceiling: float = math.inf) -> bool:
        """Take the change that most lowers the sheet's cost, or end where none does; whether
        one was taken. Without ``pairs``, a single move alone, and under a ``ceiling``, a change
        that leaves the changes' cost at most that: where none of those helps, the descent
        stands, not done (its pairs, its dearer changes, weighed at the next step asked with them)."""
        cost = sheet_cost(self.findings)
        best = None
        if not self._no_single_helps:
            best = best_change(self.record, cost, [(move,) for move in self.moves if self.spent + move.cost <= ceiling],
                               self.audit)
            self._no_single_helps = best is None and ceiling == math.inf
        if best is None and pairs:
            # an undo is weighed alone: as the cheapest moves, undos would fill the pairs weighed
            pairs_of = [move for move in self.moves if not move.undoes]
            best = best_change(self.record, cost, [pair for pair in cheap_pairs(pairs_of, cost)
                                                   if self.spent + sum(move.cost for move in pair) <= ceiling], self.audit)
            if best is None and ceiling == math.inf:
                self.done = True
        if best is None:
            return False
        self._no_single_helps = False
        _, change, record, after = best
        if numbers_alone(self.findings):
            self._numbers_alone.append((self.record, self.cost))
        resolved = sorted({f.kind for f in self.findings if f not in after})
        if resolved and ARITHMETIC_KINDS.issuperset(resolved) and record.garden != self.record.garden:
            self._fitted.append((self.record.garden, record.garden))
        before, self.record = self.record, record
        what = " and ".join(move.what for move in change)
        self.changes.append(f"{what}: {len(self.findings) - len(after)} finding(s) fewer ({', '.join(resolved)})")
        self.findings = after
        targets, changed = {move.target for move in change}, changed_readings(before, record)
        undos = [undone for undone in (undo(move, before) for move in change if not move.undoes) if undone is not None]
        self.moves = [m for m in self.moves if m.target not in targets and not m.undoes & changed] + undos
        self.spent += sum(move.cost for move in change)
        self.rounds += 1
        self.done = self.rounds == MAX_ROUNDS or not sheet_cost(after)
        return True

    @property
    def fitted(self) -> tuple[tuple[Garden, Garden], ...]:
        """(garden before, garden after) of each change taken for the written numbers alone,
        and of it with the changes after it (a cell taken for the numbers, its like then for the
        turn log: two drawings traded in two rounds)."""
        return tuple(dict.fromkeys(pair for before, after in self._fitted
                                   for pair in ((before, after), (before, self.record.garden))))

    @property
    def logs_fitted(self) -> tuple[LogFitted, ...]:
        """Each turn log it read otherwise, from a record only the written numbers stood against:
        that record's log and garden, and how much less it costs now."""
        return tuple(LogFitted(record.turns, record.garden, cost - self.cost)
                     for record, cost in self._numbers_alone if record.turns != self.record.turns)

    def finish(self) -> "Descent":
        while not self.done:
            self.step()
        return self

    def costs_more_than(self, cost: float) -> bool:
        """Whether the finished descent costs more than ``cost``, taking only the rounds that
        tell: it ends where it stands or after one more change at least as dear as its cheapest
        move, and its changes' cost only grows but by an undo. So each round weighs only the
        changes it can still afford: where none of those lowers it, the descent ends dearer,
        whether it would take a dearer change or none. (Where one does, a dearer change might
        have lowered it more: the descent then goes on by the cheaper, as a sheet it may read
        for less; a dearer change that an undo would follow is not foreseen either.)"""
        while not self.done and self.cost > cost:
            if self.spent + min((move.cost for move in self.moves), default=math.inf) > cost:
                return True
            if not self.step(ceiling=cost):
                return True
        return self.cost > cost

