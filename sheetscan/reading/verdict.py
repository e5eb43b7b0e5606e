"""The verdict on a read sheet: "sure", or "check" with the readings to check, least sure first.

A reading is doubtful when the networks gave the value the decoder kept less than SURE_ABOVE: a
drawing unlike the ones trained spreads its probability, a decoder's change keeps a value the
networks did not prefer. The readings that can change the result are listed: every cell (the
total is the garden's), a written number in doubt that differs from the rules (it would be
reported as the player's mistake), a turn the decoder moved against the networks
(MOVED_TURN_SURE), and every finding but the player's arithmetic: a sheet that contradicts
itself is never sure, however sure each reading.

A sheet may bear its doubtful readings out by itself (Verdict.sure_by): its written numbers,
read apart from the drawings, agree with the garden read (corroborated: all nine, or eight read
surely that give the ninth; a writer's digit misread everywhere counts as read,
numbers_read_by_groups), or its turn log, read surely, rules out every other reading of the
doubtful cells (log_vouched). A moved turn and a number read otherwise are two signs of a
garden fitted to the numbers: the numbers bear out one, not both, unless the drawings and turn
boxes alone, decoded without the numbers, give the same garden and log. Nor do the numbers or
the log bear out a change the decoder made for the numbers alone where a player's slip explains
it as well (slips.py: drawings traded kinds, or a turn log read otherwise, where the garden
before fits its log and moves one category's points, so a player who slipped there wrote what
the garden kept gives). The verdict vouches for the score, not for which turn drew what. The
rules and their validation: docs/pipeline.md (Verdict) and docs/benchmarks.md.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Callable, Iterator, Mapping

from sheetscan.game.audit import ARITHMETIC_KINDS, Finding, turn_log_findings
from sheetscan.game.garden import ALL_CELLS, Cell, Garden, SheetRecord, Turn, turn_text
from sheetscan.game.rules import CATEGORIES, DEFAULT_DICE_FACES, Decoration, RuleSet
from sheetscan.game.score import score
from sheetscan.reading.boxes import BoxReading, Candidate, number_digits
from sheetscan.reading.descent import LogFitted
from sheetscan.reading.slips import categories_moved, log_slip, slip_fitted
from sheetscan.reading.read import DECORATION_CLASSES, GardenReading, decoration_class, decoration_of_class

# Below this probability of the value kept, a reading is one to check. On the validation photos
# (seeds 77 and 78, phone, 60 sheets of each hand) no threshold from 0.5 to 0.95 called a wrong
# sheet sure: own hands 43% sure at 0.5, 22% at 0.9; held-out hands none sure at any. The lowest
# tested is taken (docs/benchmarks.md).
SURE_ABOVE = 0.5
# A turn box the decoder moved to a reading the networks gave less than this is a sign of a
# misread garden (sheet_verdict). Chosen, when it held on every sheet, on validation photos (one
# writer's digits read together; sure sheets, and those with a misread record among them, at
# 0.5 / 0.2 / 0.1 / none): own hands seed 77 26 / 29 / 33 / 33 of 40, none misread; held out
# seed 78 26 (3) / 26 (3) / 27 (4) / 29 (4) of 40; seed 80 58 (6) / 61 (6) / 62 (6) / 63 (6) of
# 100. No total among them wrong.
MOVED_TURN_SURE = 0.2
# A doubtful cell's other readings the turn log must rule out (log_vouched): each the networks gave
# at least this. On validation photos every reading so offered, alone, changed the kinds the log
# gives or a category whose written number agrees.
OTHER_READING_ABOVE = 0.01
# Turn boxes the decoder may have taken otherwise than first read on a sheet the log vouches for:
# each doubtful cell's other readings are weighed against the log with any of them as first read
# too (2 ** this logs). Validation (seeds 77-83, 655 held-out sheets): with none, 9 sheets more sure
# than without the log's vouching; with up to 2 (a moved one borne out without the numbers), 13,
# all exact.
MAX_TURNS_OTHERWISE = 2


@dataclass(frozen=True)
class Doubt:
    """One reading to check: what (``"cell (3,4)"``, ``"turn 5"``, ``"written moss"``), how likely
    the value kept is, and what it was read as."""

    what: str
    confidence: float
    reading: str

    def to_dict(self) -> dict:
        return {"what": self.what, "confidence": round(self.confidence, 3), "reading": self.reading}


# What bears a sure sheet out (Verdict.sure_by): every reading was sure; the written numbers
# agree with the garden (corroborated); the turn log rules out every other reading (log_vouched)
BY_READINGS, BY_NUMBERS, BY_LOG = "readings", "written numbers", "turn log"
WHY_SURE = {BY_READINGS: "every reading sure", BY_NUMBERS: "the written numbers bear the drawings out",
            BY_LOG: "the turn log bears the drawings out"}


@dataclass(frozen=True)
class Verdict:
    """``sure`` when no reading is in doubt, or when the sheet bears its readings out (``sure_by``
    says what did); else the doubts, least sure first."""

    doubts: tuple[Doubt, ...]
    sure_by: str | None = None

    @property
    def sure(self) -> bool:
        return not self.doubts

    @property
    def label(self) -> str:
        return "sure" if self.sure else "check"

    @property
    def why_sure(self) -> str:
        """What bears a sure sheet out, for people ("" on a sheet to check)."""
        return WHY_SURE.get(self.sure_by, "")


def _kept(candidates: tuple[Candidate, ...], value: object) -> float:
    """The probability of ``value`` among ``candidates`` (0 when the reader did not offer it)."""
    return next((c.probability for c in candidates if c.value == value), 0.0)


def _kept_class(garden: Garden, cell: Cell) -> int:
    return decoration_class(garden.decoration(cell), cell in garden.tree_late)


def _cell_confidence(reading: GardenReading, garden: Garden, cell: Cell) -> float:
    """How likely the networks found ``cell`` as ``garden`` has it: its decoration class and its
    terrain, the less likely of the two."""
    p_water = float(reading.water_probability[cell])
    return min(float(reading.decoration_probabilities[cell][_kept_class(garden, cell)]),
               p_water if garden.is_water(cell) else 1 - p_water)


def doubtful_cells(reading: GardenReading, garden: Garden, sure_above: float) -> list[Cell]:
    """The cells whose decoration (with its Spring/Summer mark) or terrain in ``garden`` the
    networks gave less than ``sure_above``."""
    return [cell for cell in ALL_CELLS if _cell_confidence(reading, garden, cell) < sure_above]


def _cell_doubt(reading: GardenReading, garden: Garden, cell: Cell, why: str = "") -> Doubt:
    """``cell`` as ``garden`` has it, to check (``why``, said after its reading)."""
    name = DECORATION_CLASSES[_kept_class(garden, cell)]
    said = "tree with its Spring/Summer mark" if name == "tree_late" else name
    said += " in water" if garden.is_water(cell) else ""
    return Doubt(f"cell ({cell[0] + 1},{cell[1] + 1})", _cell_confidence(reading, garden, cell), said + why)


def cell_doubts(reading: GardenReading, record: SheetRecord, sure_above: float) -> list[Doubt]:
    """The doubtful cells (doubtful_cells) as doubts."""
    return [_cell_doubt(reading, record.garden, cell) for cell in doubtful_cells(reading, record.garden, sure_above)]


def written_doubts(boxes: BoxReading, record: SheetRecord, rules_give: dict[str, int], sure_above: float) -> list[Doubt]:
    """The written numbers the decoder kept with less than ``sure_above`` that differ from what
    the rules give (``rules_give``): a misreading there would blame the player."""
    doubts = []
    for category, candidates in boxes.written.items():
        value = record.written.get(category)
        confidence = _kept(candidates, value)
        if confidence < sure_above and value != rules_give.get(category):
            doubts.append(Doubt(f"written {category}", confidence, str(value)))
    return doubts


def moved_turn_doubts(boxes: BoxReading, record: SheetRecord) -> list[Doubt]:
    """The turn boxes the decoder moved off their first reading to one the networks gave less
    than MOVED_TURN_SURE: two turns may fit the garden either way round (the same dice, their
    rows swapped), and nothing the player wrote tells them apart."""
    return [_turn_doubt(boxes, record, index)
            for index, (candidates, turn) in enumerate(zip(boxes.turns, record.turns, strict=True))
            if turn != candidates[0].value and _kept(candidates, turn) < MOVED_TURN_SURE]


def _turn_doubt(boxes: BoxReading, record: SheetRecord, index: int, why: str = "") -> Doubt:
    """Turn ``index`` as ``record`` has it, to check (``why``, said after its reading)."""
    turn = record.turns[index]
    return Doubt(f"turn {index + 1}", _kept(boxes.turns[index], turn), turn_text(turn) + why)


def finding_doubts(findings: tuple[Finding, ...]) -> list[Doubt]:
    """The sheet's contradictions, other than the player's arithmetic: each is to check."""
    return [Doubt(", ".join(finding.boxes) or finding.kind, 0.0, finding.sentence)
            for finding in findings if finding.kind not in ARITHMETIC_KINDS]  # a sure sheet may carry those


def numbers_read_by_groups(boxes: BoxReading, record: SheetRecord) -> set[str]:
    """The written numbers that ``record`` takes otherwise than first read only in digits the
    writer wrote alike (boxes.digit_groups), where it takes such a group, in two written digits or
    more, as one digit throughout: a way of writing a digit read as it is everywhere at once."""
    if not record.written:
        return set()
    alike: set[tuple[int, str]] = set()
    for group in boxes.digit_groups:
        taken = {number_digits(record.written[CATEGORIES[number]])[head] for number, head in group.numbers}
        in_numbers = set(group.number_digits_read)
        everywhere = in_numbers | set(group.turn_digits_read)
        if (len(group.numbers) >= 2 and len(taken) == 1 and None not in taken
                and (taken <= in_numbers or len(everywhere) == 1)):
            alike.update(group.numbers)
    read_by_groups = set()
    for category, candidates in boxes.written.items():
        first, kept = candidates[0].value, record.written.get(category)
        if (kept is None or first == kept or (first < 0) != (kept < 0) or (abs(first) < 10) != (abs(kept) < 10)
                or max(abs(first), abs(kept)) >= 100):
            continue  # a sign, a tens or a hundreds written or not is no digit read otherwise
        number = CATEGORIES.index(category)
        if all(was == number_digits(kept)[head] or (number, head) in alike for head, was in number_digits(first).items()):
            read_by_groups.add(category)
    return read_by_groups


def corroborated(boxes: BoxReading, rules_give: dict[str, int], findings: tuple[Finding, ...],
                 record: SheetRecord, sure_above: float = SURE_ABOVE, all_but_one: bool = True) -> bool:
    """Whether the sheet bears its reading out by itself: no finding at all (the turn log, marks
    and garden agree), and every number the player wrote, as first read or as its writer's digits
    read together (numbers_read_by_groups) in ``record``, is what the rules give for the garden
    read; or (with ``all_but_one``) all but one, where the other eight were read surely (above
    ``sure_above``) as first read: the total is the sum of the others, so any eight give the
    ninth. The written numbers are read apart from the drawings, so they confirm drawings no
    network has seen."""
    if findings or not all(boxes.written.values()):
        return False
    grouped = numbers_read_by_groups(boxes, record)
    as_read = [candidates[0].value == rules_give.get(category) for category, candidates in boxes.written.items()]
    agree = [first or (category in grouped and record.written[category] == rules_give.get(category))
             for first, category in zip(as_read, boxes.written, strict=True)]
    if all(agree):
        return True
    if not all_but_one:
        return False
    vouching = [first and candidates[0].probability >= sure_above
                for candidates, first, agrees in zip(boxes.written.values(), as_read, agree, strict=True) if agrees]
    return len(vouching) == len(agree) - 1 and all(vouching)


def _other_readings(reading: GardenReading, garden: Garden, cell: Cell) -> list[Callable[[Garden], Garden]]:
    """Each other way the networks read ``cell`` (above OTHER_READING_ABOVE): another decoration
    class, the other terrain; as a change to make to a garden."""
    kept = _kept_class(garden, cell)
    others = []
    for index, p in enumerate(reading.decoration_probabilities[cell]):
        if index != kept and p >= OTHER_READING_ABOVE:
            decoration, late = decoration_of_class(index)
            others.append(lambda g, decoration=decoration, late=late: g.with_cell(cell, decoration, late=late))
    p_water = float(reading.water_probability[cell])
    if (1 - p_water if garden.is_water(cell) else p_water) >= OTHER_READING_ABOVE:
        others.append(lambda g: g.with_cell(cell, water=not g.is_water(cell)))
    return others


def _gardens_read_otherwise(reading: GardenReading, garden: Garden, cells: list[Cell]) -> Iterator[Garden]:
    """``garden`` with one of ``cells`` read another way, then with two of them."""
    changes = {cell: _other_readings(reading, garden, cell) for cell in cells}
    for cell in cells:
        yield from (change(garden) for change in changes[cell])
    for first, second in itertools.combinations(cells, 2):
        for change in changes[first]:
            changed = change(garden)
            yield from (other(changed) for other in changes[second])


def _kinds(garden: Garden) -> Counter[Decoration]:
    return Counter(decoration for _, decoration in garden.decorated_cells())


def _logs_as_kept_or_read(turns: tuple[Turn, ...], boxes: BoxReading, otherwise: list[int]) -> list[tuple[Turn, ...]]:
    """The turn log as kept (``turns``, first), then with each set of the turns ``otherwise`` as
    first read instead."""
    logs = [turns]
    for count in range(1, len(otherwise) + 1):
        for as_read in itertools.combinations(otherwise, count):
            logs.append(tuple(boxes.turns[index][0].value if index in as_read else turn
                              for index, turn in enumerate(turns)))
    return logs


def log_vouched(reading: GardenReading, boxes: BoxReading, record: SheetRecord, rules_give: dict[str, int],
                findings: tuple[Finding, ...], sure_above: float = SURE_ABOVE, rules: RuleSet = RuleSet(),
                dice_faces: Mapping[int, Decoration] = DEFAULT_DICE_FACES, slips_too: bool = False) -> bool:
    """Whether the turn log vouches for the garden's doubtful cells: no finding at all (the garden
    fits the log, and every number kept is what the rules give); every turn box first read with at
    least ``sure_above`` and kept so, but for at most MAX_TURNS_OTHERWISE the decoder took
    otherwise; and each doubtful cell's other readings, alone or two at once, either fit no log
    the turns give (as kept, or any of those as first read: another count of a kind, a turn it
    cannot place), or change a category (or the total) whose written number was first read,
    surely, as the rules give, or no category's points (the score stands either way). Numbers
    the decoder took otherwise, a writer's digits misread, then need not vouch. With ``slips_too``
    no such reading may change one category's points alone either: a player's slip there would
    leave every other number agreeing, so the numbers cannot tell it from the garden kept."""
    if findings or record.turns is None:
        return False
    otherwise = [index for index, (turn, candidates) in enumerate(zip(record.turns, boxes.turns, strict=True))
                 if turn != candidates[0].value]
    if len(otherwise) > MAX_TURNS_OTHERWISE or any(candidates[0].probability < sure_above for index, candidates
                                                   in enumerate(boxes.turns) if index not in otherwise):
        return False
    logs = _logs_as_kept_or_read(record.turns, boxes, otherwise)
    agreeing = [category for category, candidates in boxes.written.items()
                if candidates[0].value == rules_give.get(category) and candidates[0].probability >= sure_above]
    kinds = _kinds(record.garden)
    for garden in _gardens_read_otherwise(reading, record.garden, doubtful_cells(reading, record.garden, sure_above)):
        # another count of a kind than the kept log's is another log (the dice give each turn's
        # kinds): no need to match it to that one
        if any(not turn_log_findings(garden, log, dice_faces) for log in logs
               if log is not record.turns or _kinds(garden) == kinds):
            points = score(garden, rules).breakdown
            if points != rules_give and all(points[category] == rules_give[category] for category in agreeing):
                return False
            if slips_too and len(categories_moved(points, rules_give)) == 1:
                return False
    return True


def sheet_verdict(reading: GardenReading, boxes: BoxReading, record: SheetRecord, rules_give: dict[str, int],
                  findings: tuple[Finding, ...] = (), *, sure_above: float = SURE_ABOVE,
                  corroboration: bool = True,
                  decoded_without_numbers: Callable[[], SheetRecord] | None = None,
                  fitted: tuple[tuple[Garden, Garden], ...] = (), logs_fitted: tuple[LogFitted, ...] = (),
                  rules: RuleSet = RuleSet(), dice_faces: Mapping[int, Decoration] = DEFAULT_DICE_FACES) -> Verdict:
    """The verdict on a decoded sheet ``record`` read as ``reading`` and ``boxes``, whose garden
    the rules score ``rules_give`` (the breakdown), with its audit ``findings``: sure when no
    reading is in doubt, or (with ``corroboration``) when the sheet bears its reading out: its
    written numbers (corroborated) or its turn log (log_vouched), but not where the decoder
    changed the garden or read the turn log otherwise for the numbers alone in a way a player's
    slip explains as well (``fitted`` and ``logs_fitted``, DecodedSheet's: slips.py).
    ``decoded_without_numbers`` gives the record its drawings and turn boxes alone decode to
    (asked only where it decides: a moved turn and a number read otherwise)."""
    moved = moved_turn_doubts(boxes, record)
    by_readings = _doubts(reading, boxes, record, rules_give, findings, sure_above, moved)
    if by_readings.sure or not corroboration:
        return by_readings
    if (slipped := _slip_doubts(reading, boxes, record, fitted, logs_fitted, rules_give, rules, dice_faces)):
        # the numbers chose the change, and would have as well had the player slipped
        named = {doubt.what for doubt in slipped}
        return _least_sure_first([doubt for doubt in by_readings.doubts if doubt.what not in named] + slipped)
    # a turn moved against the networks is a sign of a misread garden, as a written number read
    # otherwise is: the written numbers bear out one such sign, not both, unless the garden and
    # log stand without them; and the log vouches for the drawings with such a turn only so too, or
    # where no other reading of theirs is a player's slip away (what such a turn may have fitted)
    if corroborated(boxes, rules_give, findings, record, sure_above, all_but_one=not moved):
        return Verdict((), BY_NUMBERS)

    @cache
    def stand_without_numbers() -> bool:
        return decoded_without_numbers is not None and _same_garden_and_log(decoded_without_numbers(), record)

    if moved and corroborated(boxes, rules_give, findings, record, sure_above) and stand_without_numbers():
        return Verdict((), BY_NUMBERS)
    def vouched(slips_too: bool = False) -> bool:
        return log_vouched(reading, boxes, record, rules_give, findings, sure_above, rules, dice_faces, slips_too)

    if (vouched(slips_too=True) or vouched() and stand_without_numbers()) if moved else vouched():
        return Verdict((), BY_LOG)
    return by_readings


def _slip_doubts(reading: GardenReading, boxes: BoxReading, record: SheetRecord,
                 fitted: tuple[tuple[Garden, Garden], ...], logs_fitted: tuple[LogFitted, ...],
                 rules_give: dict[str, int], rules: RuleSet, dice_faces: Mapping[int, Decoration]) -> list[Doubt]:
    """The cells (and turns) of a change made for the written numbers alone that a player's slip
    explains as well (slip_fitted, then log_slip), each to check with the category; none if none."""
    turns: list[int] = []
    if (slip := slip_fitted(record, fitted, rules_give, rules, dice_faces)) is not None:
        cells, category = slip
    elif (log_slipped := log_slip(record, logs_fitted, rules_give, rules)) is not None:
        turns, cells, category = log_slipped
    else:
        return []
    why = f", taken to fit the written numbers (a player's slip in {category} would fit them too)"
    return ([_turn_doubt(boxes, record, index, why) for index in turns]
            + [_cell_doubt(reading, record.garden, cell, why) for cell in cells])


def _doubts(reading: GardenReading, boxes: BoxReading, record: SheetRecord, rules_give: dict[str, int],
            findings: tuple[Finding, ...], sure_above: float, moved: list[Doubt]) -> Verdict:
    """The verdict by the readings alone (``moved``: the turns moved against the networks): sure
    where none is in doubt, else each doubt, least sure first."""
    doubts = (cell_doubts(reading, record, sure_above) + written_doubts(boxes, record, rules_give, sure_above)
              + moved + finding_doubts(findings))
    return _least_sure_first(doubts)


def _least_sure_first(doubts: list[Doubt]) -> Verdict:
    """The verdict listing ``doubts``, least sure first; sure by the readings where there are none."""
    return Verdict(tuple(sorted(doubts, key=lambda doubt: doubt.confidence)), None if doubts else BY_READINGS)


def _same_garden_and_log(record: SheetRecord, other: SheetRecord) -> bool:
    return record.garden == other.garden and record.turns == other.turns
