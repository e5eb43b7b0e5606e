"""The verdict: a sheet read with confidence is sure; any reading in doubt is named, least sure first."""

import itertools
from dataclasses import replace

import numpy as np
from readings import box_reading, garden_reading, swaps_the_log_allows

from sheetscan.game.audit import audit, turn_log_findings
from sheetscan.game.garden import ALL_CELLS, SheetRecord, TurnKind, turn_text
from sheetscan.game.rules import CATEGORIES, DEFAULT_DICE_FACES, Decoration
from sheetscan.game.score import score
from sheetscan.game.simulate import play_game
from sheetscan.reading.boxes import Candidate
from sheetscan.reading.decode import decode_sheet
from sheetscan.reading.descent import LogFitted
from sheetscan.reading.digits import DigitGroup
from sheetscan.reading.slips import LOG_SLIP_MARGIN
from sheetscan.reading.verdict import MAX_TURNS_OTHERWISE, log_vouched, numbers_read_by_groups, sheet_verdict


def honest_game(seed: int) -> SheetRecord:
    return play_game(seed, mistake_rate=0.0).record


def verdict_of(reading, boxes, record, findings=()):
    """The verdict at a threshold of its own: these tests are of the rule, not of the shipped value;
    the sheet's corroboration (tested on its own below) is left out, so that every doubt shows."""
    return sheet_verdict(reading, boxes, record, score(record.garden).breakdown, findings, sure_above=0.9,
                         corroboration=False)


def _unfamiliar(record):
    """``record`` read right, but every drawing at 0.6: a hand the networks never saw."""
    doubts = {cell: {"tree_late" if cell in record.garden.tree_late else decoration.category: 0.6, "moss" if
                     decoration.category != "moss" else "rock": 0.4} for cell, decoration in record.garden.decorated_cells()}
    return garden_reading(record, doubts)


def _first_turn_unsure(boxes):
    """``boxes`` with the first turn box read as it is, at 0.6: a turn log the verdict cannot lean on."""
    return replace(boxes, turns=(tuple(replace(c, probability=0.6) for c in boxes.turns[0]), *boxes.turns[1:]))


def test_a_sheet_whose_turn_log_and_written_numbers_bear_out_unfamiliar_drawings_is_sure():
    record = honest_game(5)
    rules_give = score(record.garden).breakdown
    assert all(record.written[category] == rules_give[category] for category in record.written)
    # the written numbers' part alone: a turn box read unsurely, so the turn log does not vouch
    reading, boxes = _unfamiliar(record), _first_turn_unsure(box_reading(record))
    assert not verdict_of(reading, boxes, record).sure  # every drawing in doubt
    by_numbers = sheet_verdict(reading, boxes, record, rules_give, (), sure_above=0.9)
    assert by_numbers.sure and by_numbers.sure_by == "written numbers"
    # one number first read otherwise (the decoder keeps the right one): the other eight give it by the sum
    def first_read_otherwise(boxes, category):
        return replace(boxes, written={**boxes.written, category: (Candidate(rules_give[category] + 1, 0.6),
                                                                     Candidate(rules_give[category], 0.4))})

    misread = first_read_otherwise(boxes, "moss")
    assert sheet_verdict(reading, misread, record, rules_give, (), sure_above=0.9).sure
    # two: the drawings stand unconfirmed
    two = first_read_otherwise(misread, "total")
    assert not sheet_verdict(reading, two, record, rules_give, (), sure_above=0.9).sure
    # nor do they where one of the eight that vouch for the ninth was read unsurely
    unsure_total = replace(misread, written={**misread.written, "total": (Candidate(rules_give["total"], 0.5),)})
    assert not sheet_verdict(reading, unsure_total, record, rules_give, (), sure_above=0.9).sure
    # any finding: the sheet contradicts itself somewhere
    finding = audit(replace(record, bonsai_pruned=record.bonsai_pruned + 1), score(record.garden))
    assert finding and not sheet_verdict(reading, boxes, record, rules_give, tuple(finding), sure_above=0.9).sure
    # the turn log read surely vouches for the drawings the two numbers leave unconfirmed: each
    # one's other reading would give another count of its kind than the dice gave
    surely_logged = replace(two, turns=box_reading(record).turns)
    by_log = sheet_verdict(reading, surely_logged, record, rules_give, (), sure_above=0.9)
    assert by_log.sure and by_log.sure_by == "turn log" and "turn log" in by_log.why_sure
    assert sheet_verdict(reading, two, record, rules_give, (), sure_above=0.9).why_sure == ""  # to check


def test_a_confidently_read_sheet_is_sure():
    record = honest_game(1)
    verdict = verdict_of(garden_reading(record), box_reading(record), record)
    assert verdict.sure and verdict.label == "sure" and verdict.doubts == ()
    assert verdict.sure_by == "readings"
    corroborating = sheet_verdict(garden_reading(record), box_reading(record), record, score(record.garden).breakdown,
                                  (), sure_above=0.9)
    assert corroborating.sure_by == "readings"  # every reading sure first, though the numbers agree too


def test_doubtful_readings_are_named_least_sure_first():
    record = honest_game(2)
    cell, decoration = next(iter(record.garden.decorated_cells()))
    other = "moss" if decoration.category != "moss" else "rock"
    reading = garden_reading(record, {cell: {decoration.category if cell not in record.garden.tree_late else "tree_late": 0.7,
                                             other: 0.3}})
    wrong = replace(record, written={**record.written, "total": record.written["total"] + 1})  # differs from the rules
    boxes = box_reading(wrong, {"total": [(wrong.written["total"], 0.55), (record.written["total"], 0.45)]})
    verdict = verdict_of(reading, boxes, wrong)
    assert verdict.label == "check"
    assert [d.what for d in verdict.doubts] == ["written total", f"cell ({cell[0] + 1},{cell[1] + 1})"]
    assert [round(d.confidence, 2) for d in verdict.doubts] == [0.55, 0.7]
    assert verdict.doubts[0].reading == str(wrong.written["total"])
    # the same doubt about a number the rules agree with changes nothing: it is not listed
    agreeing = box_reading(record, {"total": [(record.written["total"], 0.55), (record.written["total"] + 1, 0.45)]})
    assert [d.what for d in verdict_of(reading, agreeing, record).doubts] == [f"cell ({cell[0] + 1},{cell[1] + 1})"]


def test_a_written_number_the_decoder_kept_against_the_networks_is_in_doubt():
    record = honest_game(3)
    wrong = replace(record, written={**record.written, "moss": record.written["moss"] + 2})
    boxes = box_reading(wrong)
    boxes = replace(boxes, written={**boxes.written, "moss": (Candidate(99, 0.999),)})
    verdict = verdict_of(garden_reading(wrong), boxes, wrong)
    assert [(d.what, d.confidence) for d in verdict.doubts] == [("written moss", 0.0)]


def test_the_decoders_correction_of_a_misread_cell_is_left_to_check():
    record = honest_game(4)
    cell, decoration = next((c, d) for c, d in record.garden.decorated_cells() if c not in record.garden.tree_late)
    misread = "rock" if decoration.category != "rock" else "moss"
    reading = garden_reading(record, {cell: {misread: 0.6, decoration.category: 0.4}})
    decoded = decode_sheet(reading, box_reading(record))
    verdict = verdict_of(reading, box_reading(record), decoded.record)
    assert not verdict.sure and verdict.doubts[0].what == f"cell ({cell[0] + 1},{cell[1] + 1})"


def test_a_sheet_that_contradicts_itself_is_never_sure_but_a_players_sum_may_be_wrong():
    record = honest_game(5)
    dropped = replace(record, turns=record.turns[:-1] + (record.turns[0],))  # a turn the garden cannot place
    findings = tuple(audit(dropped, score(dropped.garden)))
    assert any(f.kind not in ("written_differs", "written_sum") for f in findings)
    verdict = verdict_of(garden_reading(dropped), box_reading(dropped), dropped, findings)
    assert not verdict.sure and verdict.doubts[0].confidence == 0.0
    wrong_sum = replace(record, written={**record.written, "total": record.written["total"] + 3})
    arithmetic = tuple(audit(wrong_sum, score(wrong_sum.garden)))
    assert arithmetic and verdict_of(garden_reading(wrong_sum), box_reading(wrong_sum), wrong_sum, arithmetic).sure


MOVED_TURN = 4  # the turn _turn_first_read_as reads as the next one


def _turn_first_read_as(boxes, record, p_played):
    """``boxes`` with turn MOVED_TURN first read as the next turn, its own reading at ``p_played``."""
    played, other = record.turns[MOVED_TURN], record.turns[MOVED_TURN + 1]
    assert played != other
    turns = list(boxes.turns)
    turns[MOVED_TURN] = (Candidate(other, 1 - p_played), Candidate(played, p_played))
    return replace(boxes, turns=tuple(turns))


def _first_read_otherwise(boxes, rules_give, category="moss"):
    """``boxes`` with the written ``category`` first read one more than the rules give (60%)."""
    given = rules_give[category]
    return replace(boxes, written={**boxes.written, category: (Candidate(given + 1, 0.6), Candidate(given, 0.4))})


def test_a_turn_the_decoder_moved_against_the_networks_is_to_check_unless_the_sheet_bears_it_out():
    record = honest_game(6)
    rules_give = score(record.garden).breakdown
    reading, boxes = garden_reading(record), box_reading(record)
    index, played = MOVED_TURN, record.turns[MOVED_TURN]

    def first_read_as(p_played):
        return _turn_first_read_as(boxes, record, p_played)

    moved = sheet_verdict(reading, first_read_as(0.1), record, rules_give, (), sure_above=0.9, corroboration=False)
    assert [(d.what, d.reading) for d in moved.doubts] == [(f"turn {index + 1}", turn_text(played))]
    assert round(moved.doubts[0].confidence, 2) == 0.1
    # kept with the networks' fair backing (or read so first), the turn vouches for itself
    assert sheet_verdict(reading, first_read_as(0.3), record, rules_give, (), sure_above=0.9,
                         corroboration=False).sure
    assert sheet_verdict(reading, boxes, record, rules_give, (), sure_above=0.9, corroboration=False).sure
    # the written numbers all agreeing with the garden vouch for the score, whichever turn drew what
    assert sheet_verdict(reading, first_read_as(0.1), record, rules_give, (), sure_above=0.9).sure
    # but a moved turn and a number first read otherwise are two signs of a misread garden: eight
    # numbers give the ninth, not the turn as well
    assert sheet_verdict(reading, _first_read_otherwise(boxes, rules_give), record, rules_give, (),
                         sure_above=0.9).sure
    # where two drawings in doubt may trade kinds a player's slip away, the turn log cannot vouch either
    both = sheet_verdict(_slip_away_in_doubt(record), _first_read_otherwise(first_read_as(0.1), rules_give), record,
                         rules_give, (), sure_above=0.9)
    assert f"turn {index + 1}" in [d.what for d in both.doubts] and not both.sure
    # with every drawing read surely, the log read surely but for the moved turn vouches for the score
    by_log = sheet_verdict(reading, _first_read_otherwise(first_read_as(0.1), rules_give), record, rules_give, (),
                           sure_above=0.9)
    assert by_log.sure_by == "turn log"


def _slip_away_in_doubt(record, agreeing_apart=("moss", "bamboo")):
    """``record`` read with two drawings in doubt whose kinds the log allows traded, the trade
    changing one category's points alone (not one of ``agreeing_apart``): a player's slip away."""
    rules_give = score(record.garden).breakdown
    for first, second, swapped in swaps_the_log_allows(record):
        changed = [c for c in CATEGORIES[:-1] if score(swapped).breakdown[c] != rules_give[c]]
        if len(changed) == 1 and changed[0] not in agreeing_apart:
            a, b = record.garden.decoration(first).category, record.garden.decoration(second).category
            return garden_reading(record, {first: {a: 0.6, b: 0.4}, second: {b: 0.6, a: 0.4}})
    raise AssertionError("no trade a slip away")


def test_two_signs_are_borne_out_where_the_drawings_and_turn_boxes_alone_decode_to_the_same_record():
    record = honest_game(6)
    rules_give = score(record.garden).breakdown
    reading, boxes = _slip_away_in_doubt(record), box_reading(record)
    moved = _turn_first_read_as(boxes, record, 0.1)
    both = _first_read_otherwise(moved, rules_give)
    asked = []

    def verdict(boxes_read, alone):
        def decoded_without_numbers():
            asked.append(alone)
            return alone
        return sheet_verdict(reading, boxes_read, record, rules_give, (), sure_above=0.9,
                             decoded_without_numbers=decoded_without_numbers)

    cell, _ = next(record.garden.decorated_cells())
    another_garden = replace(record, garden=record.garden.with_cell(cell, None))
    log_as_first_read = replace(record, turns=tuple(candidates[0].value for candidates in moved.turns))
    assert verdict(both, record).sure  # the garden and log stand without the numbers, which bear them out
    assert not verdict(both, another_garden).sure  # the garden was fitted to the numbers
    assert not verdict(both, log_as_first_read).sure  # the log was
    # asked only where it decides: not where all nine numbers bear the sheet out
    asked.clear()
    assert verdict(moved, another_garden).sure
    assert asked == []
    # two numbers read otherwise leave eight that cannot give the ninth; the turn log, read surely
    # but for the moved turn, vouches for the drawings where garden and log stand without the numbers
    two_otherwise = _first_read_otherwise(both, rules_give, "bamboo")
    assert verdict(two_otherwise, record).sure
    assert not verdict(two_otherwise, another_garden).sure
    assert not verdict(two_otherwise, log_as_first_read).sure
    assert asked == [record, another_garden, log_as_first_read]  # once a verdict


def _numbers_sharing_a_units_digit():
    """An honest record and two of its written numbers (by category) with one units digit, other than 1."""
    for seed in range(50):
        record = honest_game(seed)
        by_units = {}
        for category, value in record.written.items():
            if category != "total" and value > 0:
                by_units.setdefault(value % 10, []).append(category)
        for digit, categories in sorted(by_units.items()):
            if digit != 1 and len(categories) >= 2:
                return record, categories[:2]
    raise AssertionError("no record writes one units digit twice")


def _read_as(*digits: int) -> np.ndarray:
    """A digit group's number probabilities: each written copy read as ``digits``, surely."""
    return np.eye(10)[list(digits)]


def test_numbers_read_otherwise_only_in_a_digit_written_alike_and_taken_as_one_digit_bear_the_sheet_out():
    record, categories = _numbers_sharing_a_units_digit()
    rules_give = score(record.garden).breakdown
    reading = _unfamiliar(record)
    # the writer's digit first read as a 1 in both numbers: two numbers unlike the rules
    misread = {category: [(record.written[category] - record.written[category] % 10 + 1, 0.7),
                          (record.written[category], 0.3)] for category in categories}
    numbers = tuple((CATEGORIES.index(category), "units") for category in categories)
    group = DigitGroup((), np.zeros((0, 6)), numbers, _read_as(1, 1))
    # a turn box read unsurely: the turn log does not vouch here, the numbers alone are tested
    boxes = replace(_first_turn_unsure(box_reading(record, misread)), digit_groups=(group,))
    assert numbers_read_by_groups(boxes, record) == set(categories)
    # copies read as several digits vouch where one of them is read as the digit taken, not for a third
    units = record.written[categories[0]] % 10
    for read, vouched in (((1, units), set(categories)), ((1, next(d for d in range(10) if d not in (1, units))), set())):
        assert numbers_read_by_groups(replace(boxes, digit_groups=(replace(group, number_probabilities=_read_as(*read)),)),
                                      record) == vouched
    assert sheet_verdict(reading, boxes, record, rules_give, (), sure_above=0.9).sure
    # the same two numbers set right one by one, not as the writer's digit: the drawings stand unconfirmed
    assert not sheet_verdict(reading, replace(boxes, digit_groups=()), record, rules_give, (), sure_above=0.9).sure
    # a group of one written digit is no writer's way of writing it
    alone = replace(group, numbers=numbers[:1], number_probabilities=_read_as(1))
    assert numbers_read_by_groups(replace(boxes, digit_groups=(alone,)), record) == set()
    assert not sheet_verdict(reading, replace(boxes, digit_groups=(alone,)), record, rules_give, (), sure_above=0.9).sure
    # a group taken as two digits is not read as one way of writing
    split = replace(record, written={**record.written, categories[1]: record.written[categories[1]] - 1})
    assert numbers_read_by_groups(boxes, split) == set()
    # nor does a group vouch for another digit of its number
    tens = {category: [(value + 10, p) for value, p in candidates] for category, candidates in misread.items()}
    assert numbers_read_by_groups(replace(box_reading(record, tens), digit_groups=(group,)), record) == set()
    # nor for a hundreds first read where none was written
    hundreds = {categories[0]: [(record.written[categories[0]] + 100, 0.7), (record.written[categories[0]], 0.3)]}
    assert numbers_read_by_groups(replace(box_reading(record, hundreds), digit_groups=(group,)), record) == set()


def _numbers_read_otherwise(record, rules_give, categories):
    """``record``'s boxes read surely, but the numbers of ``categories`` first read one more than
    the rules give (60%)."""
    return box_reading(record, {category: [(rules_give[category] + 1, 0.6), (rules_give[category], 0.4)]
                                for category in categories})


def _swap_the_log_allows(record):
    """The first swap the log allows that changes the total (_swaps_the_log_allows)."""
    swap = next((swap for swap in swaps_the_log_allows(record)
                 if score(swap[2]).total != score(record.garden).total), None)
    assert swap, "no swap the log allows"
    return swap


def test_the_turn_log_vouches_for_doubtful_drawings_unless_two_could_trade_kinds():
    record = honest_game(5)
    rules_give = score(record.garden).breakdown
    first, second, swapped = _swap_the_log_allows(record)
    a, b = record.garden.decoration(first).category, record.garden.decoration(second).category
    # the categories the swap changes, their numbers first read otherwise: nothing written vouches
    changed = [category for category in CATEGORIES if score(swapped).breakdown[category] != rules_give[category]]
    boxes = _numbers_read_otherwise(record, rules_give, changed)
    one_in_doubt = garden_reading(record, {first: {a: 0.6, b: 0.4}})
    both_in_doubt = garden_reading(record, {first: {a: 0.6, b: 0.4}, second: {b: 0.6, a: 0.4}})
    # one cell read otherwise gives another count of a kind than the dice: the log rules it out
    assert log_vouched(one_in_doubt, boxes, record, rules_give, (), sure_above=0.9)
    # two read otherwise trade kinds within the log: nothing rules that out
    assert not log_vouched(both_in_doubt, boxes, record, rules_give, (), sure_above=0.9)
    assert not sheet_verdict(both_in_doubt, boxes, record, rules_give, (), sure_above=0.9).sure
    # unless a number first read as the rules give, surely, would change with it
    assert log_vouched(both_in_doubt, box_reading(record), record, rules_give, (), sure_above=0.9)
    # no finding may stand (a leaf too many), and every turn must be first read surely
    finding = audit(replace(record, bonsai_pruned=record.bonsai_pruned + 1), score(record.garden))
    assert finding and not log_vouched(one_in_doubt, boxes, record, rules_give, tuple(finding), sure_above=0.9)
    assert not log_vouched(one_in_doubt, _first_turn_unsure(boxes), record, rules_give, (), sure_above=0.9)


def test_with_slips_too_the_log_leaves_to_check_a_trade_one_players_slip_away():
    # two drawings in doubt that may trade kinds within the log, a number first read surely as the
    # rules give ruling the trade out; where the trade changes one category only, the player's slip
    # there would leave every other number agreeing: slips_too does not take the number's word
    found = {}
    for record in map(honest_game, range(10)):
        rules_give = score(record.garden).breakdown
        for first, second, swapped in swaps_the_log_allows(record):
            moved = sum(score(swapped).breakdown[category] != rules_give[category] for category in CATEGORIES[:-1])
            found.setdefault(min(moved, 2), (record, first, second))
    for moved, (record, first, second) in sorted(found.items()):
        a, b = record.garden.decoration(first).category, record.garden.decoration(second).category
        both_in_doubt = garden_reading(record, {first: {a: 0.6, b: 0.4}, second: {b: 0.6, a: 0.4}})
        rules_give, boxes = score(record.garden).breakdown, box_reading(record)
        assert log_vouched(both_in_doubt, boxes, record, rules_give, (), sure_above=0.9)
        assert log_vouched(both_in_doubt, boxes, record, rules_give, (), sure_above=0.9, slips_too=True) == (moved > 1)


def test_two_doubtful_drawings_that_could_trade_kinds_without_moving_a_point_leave_the_score_standing():
    record, (first, second, _) = next((record, swap) for record in map(honest_game, range(20))
                                      for swap in swaps_the_log_allows(record, same_points=True))
    a, b = record.garden.decoration(first).category, record.garden.decoration(second).category
    neutral = garden_reading(record, {first: {a: 0.6, b: 0.4}, second: {b: 0.6, a: 0.4}})
    rules_give = score(record.garden).breakdown
    # no number read as the rules give: only the points, unmoved by the trade, vouch
    unconfirmed = _numbers_read_otherwise(record, rules_give, CATEGORIES)
    assert log_vouched(neutral, unconfirmed, record, rules_give, (), sure_above=0.9)


def _draw_first_read_with(record, die, other_die, garden):
    """A draw turn of ``record`` with ``die`` read as ``other_die``, whose log then fits
    ``garden``: (its index, the turn so read)."""
    for index, turn in enumerate(record.turns):
        for position, rolled in enumerate(turn.dice if turn.kind is TurnKind.DRAW else ()):
            if rolled == die:
                misread = replace(turn, dice=tuple(other_die if k == position else d for k, d in enumerate(turn.dice)))
                if not turn_log_findings(garden, record.turns[:index] + (misread,) + record.turns[index + 1:]):
                    return index, misread
    raise AssertionError("no draw whose misread die fits the garden")


def test_a_turn_the_decoder_took_otherwise_vouches_only_where_its_first_reading_rules_the_cells_out_too():
    record = honest_game(5)
    rules_give = score(record.garden).breakdown
    first, second, _ = _swap_the_log_allows(record)
    a, b = record.garden.decoration(first), record.garden.decoration(second)
    # a draw first read with b's die for one of a's: the garden with ``first`` read as b fits that log
    die_of = {decoration: die for die, decoration in DEFAULT_DICE_FACES.items()}
    read_as_b = record.garden.with_cell(first, b)
    index, misread = _draw_first_read_with(record, die_of[a], die_of[b], read_as_b)
    turns = list(box_reading(record).turns)
    turns[index] = (Candidate(misread, 0.6), Candidate(record.turns[index], 0.4))  # kept as played, not as read
    changed = [category for category in CATEGORIES if score(read_as_b).breakdown[category] != rules_give[category]]
    boxes = _numbers_read_otherwise(record, rules_give, changed)
    one_in_doubt = garden_reading(record, {first: {a.category: 0.6, b.category: 0.4}})
    # as kept, the log rules ``first`` read as b out (another count of each kind); as first read it does not
    assert log_vouched(one_in_doubt, boxes, record, rules_give, (), sure_above=0.9)
    turn_otherwise = replace(boxes, turns=tuple(turns))
    assert not log_vouched(one_in_doubt, turn_otherwise, record, rules_give, (), sure_above=0.9)
    # where only other cells are in doubt, a turn taken otherwise leaves the log's word standing
    other_cell = next(cell for cell, decoration in record.garden.decorated_cells() if decoration not in (a, b))
    other_kind = record.garden.decoration(other_cell).category
    elsewhere = garden_reading(record, {other_cell: {other_kind: 0.6, "moss" if other_kind != "moss" else "rock": 0.4}})
    assert log_vouched(elsewhere, turn_otherwise, record, rules_give, (), sure_above=0.9)
    # but not past MAX_TURNS_OTHERWISE such turns
    many = [(Candidate(record.turns[i + 1], 0.6), Candidate(record.turns[i], 0.4)) if i <= MAX_TURNS_OTHERWISE else read
            for i, read in enumerate(turn_otherwise.turns)]
    assert not log_vouched(elsewhere, replace(boxes, turns=tuple(many)), record, rules_give, (), sure_above=0.9)


def test_a_change_made_for_the_written_numbers_that_a_players_slip_explains_leaves_the_sheet_to_check():
    # two drawings in doubt the decoder gave each other's kinds for the written numbers alone
    # (DecodedSheet.fitted): where undoing that moves one category's points, a player who slipped
    # there wrote what the garden kept gives, and neither the numbers nor the log (which allows
    # either) bear the garden out; where it moves two or more, no one slip does
    found = {}
    for record in map(honest_game, range(10)):
        rules_give = score(record.garden).breakdown
        for first, second, swapped in swaps_the_log_allows(record):
            moved = [c for c in CATEGORIES[:-1] if score(swapped).breakdown[c] != rules_give[c]]
            found.setdefault(min(len(moved), 2), (record, (first, second), swapped, moved))
    assert set(found) == {1, 2}
    for count, (record, cells, swapped, moved) in sorted(found.items()):
        rules_give, reading = score(record.garden).breakdown, _unfamiliar(record)
        for boxes in (_first_turn_unsure(box_reading(record)), box_reading(record)):  # the log unsure, sure
            assert sheet_verdict(reading, boxes, record, rules_give, (), sure_above=0.9).sure
            verdict = sheet_verdict(reading, boxes, record, rules_give, (), sure_above=0.9,
                                    fitted=((swapped, record.garden),))
            assert verdict.sure == (count > 1)
            if count == 1:
                fitted = [doubt for doubt in verdict.doubts if "to fit the written numbers" in doubt.reading]
                assert {doubt.what for doubt in fitted} == {f"cell ({r + 1},{c + 1})" for r, c in cells}
                assert all(f"slip in {moved[0]}" in doubt.reading for doubt in fitted)
                assert len({doubt.what for doubt in verdict.doubts}) == len(verdict.doubts)  # each cell once
    # a change undone by a later one (the garden kept as it was before it) moves nothing
    record, _, swapped, _ = found[1]
    rules_give, reading, boxes = score(record.garden).breakdown, _unfamiliar(record), box_reading(record)
    assert sheet_verdict(reading, boxes, record, rules_give, (), sure_above=0.9,
                         fitted=((record.garden, record.garden),)).sure
    # a water cell taken otherwise, one slip away too, was read against its network's odds: no trade
    flips = (record.garden.with_cell(cell, water=not record.garden.is_water(cell)) for cell in ALL_CELLS
             if record.garden.decoration(cell) is None)
    flipped = next(garden for garden in flips
                   if sum(score(garden).breakdown[c] != rules_give[c] for c in CATEGORIES[:-1]) == 1)
    assert sheet_verdict(reading, boxes, record, rules_give, (), sure_above=0.9, fitted=((flipped, record.garden),)).sure


def _mark_trades_the_log_allows(record):
    """Each two trees, one marked Spring/Summer and one not, whose marks traded still fit the turn
    log, with the garden so traded and the categories it moves."""
    garden, rules_give = record.garden, score(record.garden).breakdown
    trees = [cell for cell, decoration in garden.decorated_cells() if decoration is Decoration.TREE]
    for marked, plain in itertools.product([t for t in trees if t in garden.tree_late], [t for t in trees if t not in garden.tree_late]):
        traded = garden.with_cell(marked, late=False).with_cell(plain, late=True)
        if not turn_log_findings(traded, record.turns):
            yield (marked, plain), traded, [c for c in CATEGORIES[:-1] if score(traded).breakdown[c] != rules_give[c]]


def test_two_trees_trading_their_marks_for_the_written_numbers_a_players_slip_away_leave_the_sheet_to_check():
    # the marked trees' count stays, so only the numbers chose the trade, as with drawings trading
    # kinds; a mark taken otherwise alone was read against its network's odds
    record, cells, traded, moved = next((record, *trade) for record in map(honest_game, range(40))
                                        for trade in _mark_trades_the_log_allows(record) if len(trade[2]) == 1)
    rules_give, reading, boxes = score(record.garden).breakdown, _unfamiliar(record), box_reading(record)
    assert sheet_verdict(reading, boxes, record, rules_give, (), sure_above=0.9).sure
    verdict = sheet_verdict(reading, boxes, record, rules_give, (), sure_above=0.9, fitted=((traded, record.garden),))
    assert not verdict.sure and moved == ["tree"]
    fitted = [doubt for doubt in verdict.doubts if "to fit the written numbers" in doubt.reading]
    assert {doubt.what for doubt in fitted} == {f"cell ({r + 1},{c + 1})" for r, c in cells}
    alone = record.garden.with_cell(cells[0], late=False)
    assert sheet_verdict(reading, boxes, record, rules_give, (), sure_above=0.9, fitted=((alone, record.garden),)).sure


def test_a_turn_log_read_otherwise_for_the_written_numbers_by_less_than_a_players_slip_leaves_the_sheet_to_check():
    # the decoder read the log otherwise for the numbers alone (DecodedSheet.logs_fitted): the log
    # as it was fitted a garden one slip away, so a player who slipped there wrote what the
    # garden kept gives; by less than LOG_SLIP_MARGIN the numbers do not bear the log out, and
    # neither a wider margin nor a garden that moves two categories (no one slip) leaves a doubt
    for record in map(honest_game, range(10)):
        by_moved = {}
        for _, _, swapped in swaps_the_log_allows(record):
            moved = [c for c in CATEGORIES[:-1] if score(swapped).breakdown[c] != score(record.garden).breakdown[c]]
            by_moved.setdefault(min(len(moved), 2), (swapped, moved))
        if set(by_moved) == {1, 2}:
            break
    (garden, moved), (two_moved, _) = by_moved[1], by_moved[2]
    rules_give, reading, boxes = score(record.garden).breakdown, _unfamiliar(record), box_reading(record)
    turn = next(index for index, turn in enumerate(record.turns) if turn.kind is TurnKind.DRAW)
    log = (*record.turns[:turn], replace(record.turns[turn], location=record.turns[turn].location % 6 + 1),
           *record.turns[turn + 1:])
    cells = {f"cell ({r + 1},{c + 1})" for r, c in ALL_CELLS if garden.decoration((r, c)) != record.garden.decoration((r, c))}

    def verdict(fitted_garden, margin):
        return sheet_verdict(reading, boxes, record, rules_give, (), sure_above=0.9,
                             logs_fitted=(LogFitted(log, fitted_garden, margin),))

    assert sheet_verdict(reading, boxes, record, rules_give, (), sure_above=0.9).sure
    slipped = verdict(garden, LOG_SLIP_MARGIN - 0.1)
    assert not slipped.sure
    fitted = {doubt.what for doubt in slipped.doubts if f"slip in {moved[0]}" in doubt.reading}
    assert fitted == cells | {f"turn {turn + 1}"}
    assert verdict(garden, LOG_SLIP_MARGIN + 0.1).sure
    assert verdict(two_moved, 0.1).sure
