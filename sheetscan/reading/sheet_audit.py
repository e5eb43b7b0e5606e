"""One sheet's audit for the decoder's search (descent.py, decode.py): what a record's findings
weigh (sheet_cost), each garden audited once, and the bounds that pass most candidates over
before their garden is audited against its turn log (SheetAudit.kept_cost, written_cost).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from functools import lru_cache, partial, reduce
from operator import or_
from typing import Mapping, NamedTuple

from sheetscan.game.audit import (ARITHMETIC_KINDS, Finding, points_findings, pond_findings, turn_log_findings,
                                  unplaced_slots)
from sheetscan.game.garden import Garden, SheetRecord, Turn, ponds
from sheetscan.game.rules import Decoration, RuleSet
from sheetscan.game.score import Score, breakdown_after, score
from sheetscan.reading.moves import FINDING_COST

# the garden's findings that its turn log gives (the others, its ponds', its water's alone)
_TURN_LOG_KINDS = ("decoration_count", "decoration_unexplained", "too_many_prunings", "tree_dot", "turn_unplaced")
# the written numbers any change of decorations may set right or wrong
_CHANGING_BOXES = frozenset({("written total",), ("written penalty",)})


def sheet_cost(findings: list[Finding]) -> float:
    """What a sheet's findings weigh: FINDING_COST for each mistake they need. The written total
    differs whenever anything written does, so it is no mistake of its own: a wrong category
    that the player added up faithfully is one mistake (the category), and so is a wrong sum
    (``written_sum``, the total the only number off)."""
    total_differs = explained = False
    mistakes = 0
    for finding in findings:  # one pass: the decoder weighs thousands of records a sheet
        if finding.kind == "written_differs" and finding.boxes == ("written total",):
            total_differs = True
            continue
        explained = explained or finding.kind in ARITHMETIC_KINDS
        mistakes += 1
    return FINDING_COST * (mistakes + (total_differs and not explained))


def _garden_audit(garden: Garden, turns: tuple[Turn, ...] | None, ponds_by_water: dict,
                  dice_faces: Mapping[int, Decoration]) -> tuple[Finding, ...]:
    """audit.garden_findings, its ponds' part looked up in ``ponds_by_water`` by the water alone:
    most of the gardens a search weighs differ from another in a decoration only."""
    ponds_part = ponds_by_water.get(garden.water)
    if ponds_part is None:
        ponds_part = ponds_by_water[garden.water] = tuple(pond_findings(garden))
    return ponds_part if turns is None else (*ponds_part, *turn_log_findings(garden, turns, dice_faces))


class _Kept(NamedTuple):
    """What SheetAudit's bounds ask of a record's findings."""

    every: int  # the garden's findings
    ponds: int  # of them, the ponds' (the water's alone)
    prunings: int  # too many prunings (the turns' kinds' alone)
    counted: int  # the number of decorations drawn against the turn log's (decoration_count)
    dots: int  # the trees' marks'
    # of each kind: how many of its decorations were left unplaced, and in which turns
    unplaced: Counter
    unplaced_turns: dict[Decoration, set[int]]
    turn_kinds: tuple[Counter, ...]  # each turn's decorations by kind
    per_turn: Counter  # the most decorations of each kind one turn puts into the garden
    # the categories of the written numbers' findings but the total's and the penalties' (the
    # bonsai's, the pond icons' and a wrong sum by their kind: no decoration's category)
    written: list[str]


class SheetAudit:
    """One sheet's audit for the decoder's search, each garden's points and findings worked out
    once (a new photo's gardens are new, so the caches live as long as its decode)."""

    def __init__(self, rules: RuleSet, dice_faces: Mapping[int, Decoration]):
        self.rules = rules
        self._scores: dict[Garden, Score] = {}
        self._points: dict[Garden, dict[str, int]] = {}
        self._audited = lru_cache(maxsize=None)(partial(_garden_audit, ponds_by_water={}, dice_faces=dice_faces))
        self._by_log_object: dict[tuple[Garden, int], tuple] = {}
        self._last_written: tuple[SheetRecord | None, list[Finding]] = (None, [])
        self._dice_faces = dice_faces
        self._last_kept: tuple[SheetRecord | None, _Kept | None] = (None, None)

    def _gardens_findings(self, garden: Garden, turns: tuple[Turn, ...] | None) -> tuple[Finding, ...]:
        # looked up by the turn log object first: hashing its 12 turns (each in Python) cost more
        # than a record's other checks, and most records share the log their moves leave alone.
        # The value keeps the log alive, so no other object takes its id while this decode runs.
        key = (garden, id(turns))
        if key not in self._by_log_object:
            self._by_log_object[key] = (turns, self._audited(garden, turns))
        return self._by_log_object[key][1]

    def score(self, garden: Garden) -> Score:
        """The garden's score, worked out once."""
        found = self._scores.get(garden)
        if found is None:
            found = self._scores[garden] = score(garden, self.rules)
        return found

    def points(self, garden: Garden, near: Garden | None = None) -> dict[str, int]:
        """The garden's points by category (its score's breakdown), worked out once: from the
        score of ``near`` (a garden it differs from in a cell or two) where given."""
        found = self._points.get(garden)
        if found is None:
            scored = self._scores.get(garden)
            if scored is not None:
                found = scored.breakdown
            elif near is not None:
                found = breakdown_after(garden, near, self.score(near), self.rules)
            else:
                found = self.score(garden).breakdown
            self._points[garden] = found
        return found

    def _written_findings(self, record: SheetRecord, near: Garden | None = None) -> list[Finding]:
        # a candidate is bounded by these (written_cost), then audited in full: found once
        if record is not self._last_written[0]:
            garden = record.garden
            self._last_written = (record, points_findings(record, self.points(garden, near), len(ponds(garden))))
        return self._last_written[1]

    def findings(self, record: SheetRecord) -> list[Finding]:
        """audit.audit's findings of ``record``, in its order."""
        return [*self._gardens_findings(record.garden, record.turns), *self._written_findings(record)]

    def written_cost(self, candidate: SheetRecord, near: Garden) -> float:
        """What ``candidate``'s written numbers, bonsai and pond icons cost (sheet_cost of them):
        its garden's findings only add mistakes (``near``: the garden it was changed from)."""
        return sheet_cost(self._written_findings(candidate, near))

    def kept_cost(self, candidate: SheetRecord, record: SheetRecord) -> float:
        """What the garden's findings of ``record`` that ``candidate`` (changed from it) must keep
        cost: with written_cost, at most sheet_cost(self.findings(candidate)). The turn log's
        decorations are placed kind by kind (no cell holds two kinds: audit.turn_log_findings), so
        those of a kind that no cell it changes held or holds, and no turn it reads otherwise
        shows (read either way), stay unplaced in the same turns. A kind given g more cells, or g
        fewer decorations to place (its turns read otherwise), places at most g more of the rest,
        and one losing cells none more: at least as many of its decorations left unplaced, less
        g, stay so in turns read alike; those that the turns staying unplaced cannot hold are in
        other turns, each holding at most the most of the kind one turn of the log held. Where
        it changes no tree and no turn showing one, the trees' marks' findings stay (the trees
        are matched apart from the other kinds); where it empties no cell, fills none and reads
        no turn as another kind (a draw, a pruning, a skip), so do the numbers drawn and pruned;
        and with the water, the ponds'. A sheet in a hand no network saw starts with a dozen
        findings, most of them its turn log's, that its written numbers alone bound little: on
        the held-out speed photo 0, 161 of 229 single moves were audited in full with only the
        turns of kinds unchanged kept, 15 with these bounds."""
        of_record = self._kept_of(record)
        garden, before, turns, turns_before = candidate.garden, record.garden, candidate.turns, record.turns
        if turns is not turns_before and (turns is None or turns_before is None or len(turns) != len(turns_before)):
            return 0.0
        if garden is before and turns is turns_before:
            return FINDING_COST * of_record.every
        kept = of_record.ponds if garden.water is before.water or garden.water == before.water else 0
        cells, kinds = garden.changed_from(before) if garden is not before else ((), frozenset())
        kinds, gained = set(kinds), Counter()
        for cell in cells:
            if (kind := garden.decoration(cell)) is not before.decoration(cell):
                gained[kind] += 1
        reread = [] if turns is turns_before else [index for index, (turn, was) in enumerate(zip(turns, turns_before))
                                                   if turn is not was and turn != was]
        faces = self._dice_faces
        for index in reread:
            kinds.update(faces[die] for die in (*turns[index].dice, *turns_before[index].dice))
            gained.update(faces[die] for die in turns_before[index].dice)  # its decorations no longer to place
        if all(turns[index].kind is turns_before[index].kind for index in reread):
            kept += of_record.prunings + (0 if None in kinds else of_record.counted)
        if Decoration.TREE not in kinds:
            kept += of_record.dots
        staying: set[int] = set()
        for kind, unplaced_turns in of_record.unplaced_turns.items():
            if kind not in kinds:
                staying |= unplaced_turns
        more = 0  # turns beyond those, left unplaced by a kind changed
        for kind in kinds:
            left = of_record.unplaced[kind] - gained[kind]
            if left > 0:
                left -= sum(of_record.turn_kinds[turn][kind] for turn in staying)
                if left > 0:
                    more = max(more, -(-left // of_record.per_turn[kind]))
        return FINDING_COST * (kept + len(staying) + more)

    def kept_written_cost(self, candidate: SheetRecord, record: SheetRecord) -> float:
        """What the findings of ``record``'s written numbers, bonsai and pond icons that
        ``candidate`` (changed from it) must keep cost: with kept_cost, at most
        sheet_cost(self.findings(candidate)), and at most written_cost alone. Where the candidate
        changes decorations alone (the log, the water, the marks and the numbers as they were),
        a category's points change only where a changed cell held or holds its kind (a lantern's
        spacing, a bamboo's or a rock's neighbours, a bridge's count are their kind's), the
        penalties and the total wherever a cell changes: the other categories' differences stay."""
        garden, before = candidate.garden, record.garden
        if (garden is before or candidate.turns is not record.turns or candidate.written is not record.written
                or candidate.ponds_marked is not record.ponds_marked or candidate.bonsai_pruned != record.bonsai_pruned
                or (garden.water is not before.water and garden.water != before.water)):
            return 0.0
        _, kinds = garden.changed_from(before)
        changed = {kind.category for kind in kinds if kind is not None}
        return FINDING_COST * sum(category not in changed for category in self._kept_of(record).written)

    def _kept_of(self, record: SheetRecord) -> _Kept:
        """What the bounds ask of ``record``'s findings, worked out once for the candidates changed from it."""
        if record is not self._last_kept[0]:
            findings = self._gardens_findings(record.garden, record.turns)
            written = self._written_findings(record)
            finding_kinds = Counter(finding.kind for finding in findings)
            turn_kinds = tuple(Counter(self._dice_faces[die] for die in turn.dice) for turn in record.turns or ())
            unplaced, unplaced_turns = Counter(), defaultdict(set)
            for turn, kind in () if record.turns is None else unplaced_slots(record.garden, record.turns,
                                                                            self._dice_faces):
                unplaced[kind] += 1
                unplaced_turns[kind].add(turn)
            self._last_kept = (record, _Kept(
                len(findings),
                len(findings) - sum(finding_kinds[kind] for kind in _TURN_LOG_KINDS),
                finding_kinds["too_many_prunings"],
                finding_kinds["decoration_count"],
                finding_kinds["tree_dot"],
                unplaced,
                unplaced_turns,
                turn_kinds,
                reduce(or_, turn_kinds, Counter()),
                [finding.boxes[0].removeprefix("written ") if finding.kind == "written_differs" else finding.kind
                 for finding in written if finding.boxes not in _CHANGING_BOXES]))
        return self._last_kept[1]
