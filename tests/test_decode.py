"""The decoder: readings judged together with the rules, changes said, player mistakes kept."""

import itertools
import math
import random
from dataclasses import replace

import numpy as np
import pytest
from readings import alike_by_kind, box_reading, garden_reading, swaps_the_log_allows

from sheetscan.game.audit import ARITHMETIC_KINDS, Finding, audit, finding_turns, turn_log_findings, unplaced_slots
from sheetscan.reading.boxes import Candidate, without_written
from sheetscan.reading.decode import RELABEL_GROUP_COST, _log_read_for_numbers, _Together, decode_sheet
from sheetscan.reading.digits import DigitGroup
from sheetscan.reading.labelling import Labelling
import sheetscan.reading.descent as descent_module
from sheetscan.reading.descent import MAX_PAIRS, Descent, LogFitted, best_reading, cheap_pairs
from sheetscan.reading.sheet_audit import SheetAudit, sheet_cost
from sheetscan.reading.moves import FINDING_COST, MAX_MOVE_COST, Move, box_moves, cell_moves, changed_readings, undo
from sheetscan.reading.read import GardenReading
from sheetscan.game.garden import ALL_CELLS, Garden, SheetRecord, Turn, TurnKind
from sheetscan.game.rules import DEFAULT_DICE_FACES, Decoration, RuleSet
from sheetscan.game.score import score
from sheetscan.game.simulate import play_game


def honest_game(seed: int) -> SheetRecord:
    return play_game(seed, mistake_rate=0.0).record


@pytest.mark.parametrize("seed", range(5))
def test_confident_readings_of_a_consistent_sheet_are_kept(seed):
    record = honest_game(seed)
    decoded = decode_sheet(garden_reading(record), box_reading(record))
    assert decoded.record == record
    assert decoded.changes == ()
    assert list(decoded.findings) == audit(record, score(record.garden))


def _swap_target(record: SheetRecord):
    """A decorated cell and another decoration whose points differ there."""
    breakdown = score(record.garden).breakdown
    for cell, decoration in record.garden.decorated_cells():
        if decoration is Decoration.TREE:
            continue
        for other in (Decoration.MOSS, Decoration.ROCK, Decoration.LANTERN):
            if other is not decoration and score(record.garden.with_cell(cell, other)).breakdown != breakdown:
                return cell, decoration, other
    raise AssertionError("no cell to misread")


@pytest.mark.parametrize("seed", range(5))
def test_a_doubtful_cell_is_read_as_the_written_numbers_and_turn_log_say(seed):
    record = honest_game(seed)
    cell, truth, misread = _swap_target(record)
    reading = garden_reading(record, {cell: {misread.category: 0.6, truth.category: 0.4}})
    assert reading.garden.decoration(cell) is misread
    decoded = decode_sheet(reading, box_reading(record))
    assert decoded.record.garden == record.garden
    assert any(f"cell ({cell[0] + 1},{cell[1] + 1}) read as {misread.category}" in c for c in decoded.changes)


@pytest.mark.parametrize("seed", [1, 2])  # traded back in two rounds, in one
def test_a_change_made_for_the_written_numbers_alone_is_kept_as_fitted_to_them(seed):
    # two drawings read as each other's kinds, which the turn log allows either way: only the
    # written numbers tell, and the decoder keeps the garden before and after (a player's slip
    # may have told it so: verdict.py); a cell the turn log sets right too is not fitted to them
    record = honest_game(seed)
    first, second, swapped = next(swaps_the_log_allows(record))
    a, b = record.garden.decoration(first).category, record.garden.decoration(second).category
    reading = garden_reading(record, {first: {b: 0.6, a: 0.4}, second: {a: 0.6, b: 0.4}})
    assert reading.garden == swapped
    decoded = decode_sheet(reading, box_reading(record))
    assert decoded.record.garden == record.garden
    assert (swapped, record.garden) in decoded.fitted
    cell, truth, misread = _swap_target(record)
    decoded = decode_sheet(garden_reading(record, {cell: {misread.category: 0.6, truth.category: 0.4}}),
                           box_reading(record))
    assert decoded.record.garden == record.garden and decoded.fitted == ()


@pytest.mark.parametrize("seed", range(5))
def test_a_player_mistake_read_with_confidence_stays_flagged(seed):
    record = honest_game(seed)
    wrong = dict(record.written)
    wrong["moss"] += 2
    wrong["total"] += 2
    written_wrong = SheetRecord(record.garden, record.turns, record.bonsai_pruned, record.ponds_marked, wrong)
    decoded = decode_sheet(garden_reading(written_wrong), box_reading(written_wrong))
    assert decoded.record.written == wrong
    assert {("written_differs", "written moss"), ("written_differs", "written total")} <= {
        (f.kind, box) for f in decoded.findings for box in f.boxes}


def test_a_doubtful_written_number_takes_the_reading_the_rules_give():
    record = honest_game(3)
    right = record.written["total"]
    misread = right + 5
    decoded = decode_sheet(garden_reading(record), box_reading(record, {"total": [(misread, 0.7), (right, 0.25)]}))
    assert decoded.record.written["total"] == right
    assert decoded.findings == tuple(audit(record, score(record.garden)))
    assert any(c.startswith(f"written total read as {misread}") for c in decoded.changes)


def _confident_misreading(record: SheetRecord, cost: float):
    """A cell misread with its truth as a runner-up exp(-cost) as likely, and the reading."""
    cell, truth, misread = _swap_target(record)
    runner_up = math.exp(-cost) / (1 + math.exp(-cost))
    return cell, misread, garden_reading(record, {cell: {misread.category: 1 - runner_up, truth.category: runner_up}})


def test_an_unlikely_runner_up_never_explains_a_finding_away():
    record = honest_game(4)
    cell, misread, reading = _confident_misreading(record, MAX_MOVE_COST + 1)
    decoded = decode_sheet(reading, box_reading(record))
    assert decoded.record.garden.decoration(cell) is misread
    assert decoded.findings  # the sheet now contradicts itself, and says so


def _mistakes(record: SheetRecord) -> float:
    return sheet_cost(audit(record, score(record.garden))) / FINDING_COST


@pytest.mark.parametrize("seed", range(5))
def test_a_confident_misreading_is_corrected_where_it_needs_two_mistakes_not_one(seed):
    record = honest_game(seed)
    cell, misread, reading = _confident_misreading(record, 1.5 * FINDING_COST)  # dearer than one mistake
    assert _mistakes(replace(record, garden=reading.garden)) >= 2  # the turn log and the written numbers
    assert decode_sheet(reading, box_reading(record)).record.garden == record.garden
    # Written as the misreading scores, only the turn log disagrees: one mistake, kept.
    agreeing = replace(record, written=score(reading.garden).breakdown)
    assert _mistakes(replace(agreeing, garden=reading.garden)) == 1
    assert decode_sheet(reading, box_reading(agreeing)).record.garden.decoration(cell) is misread


def test_the_total_is_never_a_mistake_of_its_own():
    record = honest_game(2)
    wrong = {**record.written, "moss": record.written["moss"] + 1, "total": record.written["total"] + 1}
    findings = audit(SheetRecord(record.garden, record.turns, record.bonsai_pruned, record.ponds_marked, wrong),
                     score(record.garden))
    assert len(findings) == 2 and sheet_cost(findings) == FINDING_COST
    unfaithful = {**record.written, "total": record.written["total"] + 1}
    findings = audit(SheetRecord(record.garden, record.turns, record.bonsai_pruned, record.ponds_marked, unfaithful),
                     score(record.garden))
    assert len(findings) == 2 and sheet_cost(findings) == FINDING_COST  # one wrong sum, found twice
    misread = {**record.written, "moss": record.written["moss"] + 1}  # the sum breaks, the total stands
    findings = audit(SheetRecord(record.garden, record.turns, record.bonsai_pruned, record.ponds_marked, misread),
                     score(record.garden))
    assert len(findings) == 2 and sheet_cost(findings) == 2 * FINDING_COST


def _jointly_misread_cells(record: SheetRecord):
    """Two cells and a misreading of each that a sheet's findings can only explain together:
    correcting either alone leaves the sheet's cost as high, correcting both clears it."""
    def cost(garden):
        return sheet_cost(audit(replace(record, garden=garden), score(garden)))

    cells = [(cell, d) for cell, d in record.garden.decorated_cells() if d is not Decoration.TREE]
    for (a, truth_a), (b, truth_b) in itertools.combinations(cells, 2):
        if truth_a is truth_b:
            continue
        swapped = record.garden.with_cell(a, truth_b).with_cell(b, truth_a)
        only_a, only_b = swapped.with_cell(a, truth_a), swapped.with_cell(b, truth_b)
        if cost(swapped) > 0 and min(cost(only_a), cost(only_b)) >= cost(swapped):
            return (a, truth_a, truth_b), (b, truth_b, truth_a)
    return None


def _two_cells_misread_together() -> tuple[SheetRecord, GardenReading]:
    """A game and a reading of it with two cells misread that only explain its findings together."""
    for seed in range(20):
        record = honest_game(seed)
        found = _jointly_misread_cells(record)
        if found:
            break
    assert found, "no game offers two cells that explain a finding only together"
    doubts = {cell: {misread.category: 0.6, truth.category: 0.4} for cell, truth, misread in found}
    reading = garden_reading(record, doubts)
    assert all(reading.garden.decoration(cell) is misread for cell, _, misread in found)
    return record, reading


@pytest.mark.parametrize("drawings_alike", [False, True])
def test_two_cells_misread_together_are_corrected_together(drawings_alike):
    # with the drawings' likeness, the cell by cell descent weighs its pairs only after the
    # drawings are read together: the same reading comes out
    record, reading = _two_cells_misread_together()
    if drawings_alike:
        reading = replace(reading, similarity=alike_by_kind(record))
    decoded = decode_sheet(reading, box_reading(record))
    assert decoded.record.garden == record.garden
    assert any(" and cell " in change for change in decoded.changes)


def test_a_descent_asked_for_moves_alone_stands_where_only_a_pair_helps_then_takes_the_pair():
    record, reading = _two_cells_misread_together()
    descent = _descent(reading, box_reading(record))
    assert not descent.step(pairs=False)
    assert not descent.done and descent.rounds == 0 and descent.record.garden == reading.garden
    assert descent.step() and descent.rounds == 1
    assert descent.record.garden == record.garden and " and cell " in descent.changes[0]


def _misread_cells(record: SheetRecord, seed: int, count: int = 4):
    """A reading of ``record`` whose ``count`` decorated cells (chosen by ``seed``) are read as
    another kind, their truth the runner-up."""
    rng = random.Random(seed)
    cells = rng.sample([cell for cell, _ in record.garden.decorated_cells()], count)
    others = [kind for kind in Decoration if kind is not Decoration.TREE]
    doubts = {}
    for cell in cells:
        truth = record.garden.decoration(cell)
        misread = rng.choice([kind for kind in others if kind is not truth])
        doubts[cell] = {misread.category: 0.6, truth.category: 0.4}
    return garden_reading(record, doubts)


@pytest.mark.parametrize("seed", range(6))
def test_a_candidate_is_bounded_by_at_most_its_findings_cost(seed):
    # each candidate changed from a misread record: cells put right (which place turns the
    # misreading left unplaced), cells misread otherwise, a turn changed
    sheet_audit = SheetAudit(RuleSet(), DEFAULT_DICE_FACES)
    rng = random.Random(seed)
    kept, kept_written = [], []
    for truth in (honest_game(seed), play_game(seed, mistake_rate=0.5).record):
        misread = replace(truth, garden=_misread_cells(truth, rng.randrange(10**6)).garden)
        cells = [cell for cell in ALL_CELLS if misread.garden.decoration(cell) != truth.garden.decoration(cell)]
        turns = list(truth.turns)
        turns[rng.randrange(len(turns))] = turns[rng.randrange(len(turns))]
        candidates = [replace(misread, garden=truth.garden), replace(misread, turns=tuple(turns)),
                      replace(misread, garden=_misread_cells(truth, rng.randrange(10**6)).garden)]
        candidates += [replace(misread, garden=misread.garden.with_cell(cell, truth.garden.decoration(cell))) for cell in cells]
        candidates += [replace(misread, garden=misread.garden.with_cell(cell, None)) for cell in cells]  # a penalty
        for candidate in candidates:
            findings = sheet_audit.findings(candidate)
            assert findings == audit(candidate, score(candidate.garden))
            kept.append(sheet_audit.kept_cost(candidate, misread))
            kept_written.append(sheet_audit.kept_written_cost(candidate, misread))
            written = sheet_audit.written_cost(candidate, misread.garden)
            assert kept_written[-1] <= written and written + kept[-1] <= sheet_cost(findings)
    # the findings kept bound some candidates, and only some
    assert 0 < max(kept) and 0 in kept and 0 < max(kept_written) and 0 in kept_written


def _other_turn(rng: random.Random, turn: Turn) -> Turn:
    """``turn`` read otherwise: its dice, its row or column, or its kind."""
    dice = tuple(rng.randint(1, 6) for _ in turn.dice)
    return rng.choice([replace(turn, dice=dice) if turn.dice else turn,
                       replace(turn, location=rng.randint(1, 6)) if turn.kind is TurnKind.DRAW else turn,
                       Turn(TurnKind.SKIP), Turn(TurnKind.DRAW, (rng.randint(1, 6), rng.randint(1, 6)), rng.randint(1, 6)),
                       Turn(TurnKind.PRUNE, (rng.randint(1, 6),), cell=rng.choice(ALL_CELLS))])


@pytest.mark.parametrize("seed", range(4))
def test_every_change_a_search_weighs_is_bounded_by_at_most_its_findings_cost(seed):
    # records misread in a few cells, marks, turns and a cell's water; changes as the decoder's
    # moves and pairs make them: one or two of the misreadings set right, or another misreading
    sheet_audit = SheetAudit(RuleSet(), DEFAULT_DICE_FACES)
    rng = random.Random(seed)
    kept_of_turns = []
    for game in range(25):
        truth = play_game(seed * 100 + game, mistake_rate=0.5).record
        garden, turns = truth.garden, list(truth.turns)
        for cell in rng.sample(ALL_CELLS, rng.randint(0, 3)):
            garden = garden.with_cell(cell, rng.choice([None, *Decoration]))
        for cell in rng.sample(ALL_CELLS, rng.randint(0, 2)):
            garden = garden.with_cell(cell, late=cell not in garden.tree_late)
        for cell in rng.sample(ALL_CELLS, rng.randint(0, 1)):
            garden = garden.with_cell(cell, water=not garden.is_water(cell))
        for index in rng.sample(range(len(turns)), rng.randint(0, 2)):
            turns[index] = _other_turn(rng, turns[index])
        misread = replace(truth, garden=garden, turns=tuple(turns))

        def changed(record: SheetRecord) -> tuple[SheetRecord, bool]:
            cell, index, set_right = rng.choice(ALL_CELLS), rng.randrange(len(turns)), rng.random() < 0.5
            what = rng.randrange(4)
            if what == 0:
                kind = truth.garden.decoration(cell) if set_right else rng.choice([None, *Decoration])
                return record.with_garden(record.garden.with_cell(cell, kind)), False
            if what == 1:
                late = cell in truth.garden.tree_late if set_right else cell not in record.garden.tree_late
                return record.with_garden(record.garden.with_cell(cell, late=late)), False
            if what == 2:
                water = truth.garden.is_water(cell) if set_right else not record.garden.is_water(cell)
                return record.with_garden(record.garden.with_cell(cell, water=water)), False
            turns_then = list(record.turns)
            turns_then[index] = truth.turns[index] if set_right else _other_turn(rng, turns_then[index])
            return replace(record, turns=tuple(turns_then)), True

        for _ in range(60):
            candidate, turn_changed = changed(misread)
            if rng.random() < 0.4:
                candidate, also = changed(candidate)
                turn_changed = turn_changed and also
            findings = sheet_audit.findings(candidate)
            kept = sheet_audit.kept_cost(candidate, misread)
            assert sheet_audit.written_cost(candidate, misread.garden) + kept <= sheet_cost(findings)
            assert sheet_audit.kept_written_cost(candidate, misread) + kept <= sheet_cost(findings)
            if turn_changed:
                kept_of_turns.append(kept)
    # a turn read otherwise keeps the findings of the turns it leaves alone: bounded, not audited at once
    assert kept_of_turns and sum(kept > 0 for kept in kept_of_turns) > len(kept_of_turns) / 4


def test_a_turn_of_two_trees_left_unplaced_is_one_turn_to_keep():
    # a turn whose dice show two trees, neither placed, and a tree's mark misread: setting the
    # mark right (a tree changed) leaves that one turn unplaced, not two
    sheet_audit = SheetAudit(RuleSet(), DEFAULT_DICE_FACES)
    tree_die = next(die for die, kind in DEFAULT_DICE_FACES.items() if kind is Decoration.TREE)
    bounded = 0
    for seed in range(6):
        truth = honest_game(seed)
        trees = [cell for cell, kind in truth.garden.decorated_cells() if kind is Decoration.TREE]
        for index, turn in enumerate(truth.turns):
            for location in range(1, 7) if turn.kind is TurnKind.DRAW else ():
                turns = list(truth.turns)
                turns[index] = replace(turn, dice=(tree_die, tree_die), location=location)
                record = replace(truth, turns=tuple(turns))
                for tree in trees:
                    misread = record.with_garden(record.garden.with_cell(tree, late=tree not in record.garden.tree_late))
                    if unplaced_slots(misread.garden, misread.turns) != ((index, Decoration.TREE),) * 2:
                        continue
                    findings = sheet_audit.findings(record)
                    assert [finding.kind for finding in findings].count("turn_unplaced") == 1
                    kept = sheet_audit.kept_cost(record, misread)
                    assert sheet_audit.written_cost(record, misread.garden) + kept <= sheet_cost(findings)
                    bounded += 1
    assert bounded


def test_the_decorations_left_unplaced_are_those_of_the_turns_said_unplaced():
    for seed in range(20):
        record = play_game(seed, mistake_rate=0.5).record
        misread = _misread_cells(record, seed, count=5).garden
        unplaced = unplaced_slots(misread, record.turns, DEFAULT_DICE_FACES)
        said = {turn for finding in turn_log_findings(misread, record.turns) if finding.kind == "turn_unplaced"
                for turn in finding_turns(finding)}
        assert {turn for turn, _ in unplaced} == said
        for turn, kind in unplaced:
            assert kind in [DEFAULT_DICE_FACES[die] for die in record.turns[turn].dice]


def test_a_tree_mark_read_otherwise_is_bounded_with_the_turns_it_leaves_unplaced():
    # two cells misread leave their turns unplaced; a tree's mark read otherwise then places the
    # log's trees only without the marks: the audit says the marks and the turns still unplaced,
    # and the bound counts both
    sheet_audit, truth = SheetAudit(RuleSet(), DEFAULT_DICE_FACES), honest_game(0)
    garden = truth.garden
    others = [cell for cell, kind in garden.decorated_cells() if kind is not Decoration.TREE]
    trees = [cell for cell, kind in garden.decorated_cells() if kind is Decoration.TREE]
    said_both = 0
    for first, second in itertools.combinations(others[:8], 2):
        misread = garden
        for cell in (first, second):
            misread = misread.with_cell(cell, Decoration.ROCK if garden.decoration(cell) is Decoration.MOSS else Decoration.MOSS)
        record = replace(truth, garden=misread)
        for tree in trees:
            marked = replace(record, garden=misread.with_cell(tree, late=tree not in garden.tree_late))
            kinds = [finding.kind for finding in sheet_audit.findings(marked)]
            said_both += "tree_dot" in kinds and "turn_unplaced" in kinds
            # the misread cells set right, one at a time, and the tree's mark set back (a tree
            # changed: the turns it leaves unplaced whose dice show no tree stay so)
            set_right = [marked.garden.with_cell(cell, garden.decoration(cell)) for cell in (first, second)]
            for candidate_garden in [*set_right, misread]:
                candidate = replace(marked, garden=candidate_garden)
                findings = sheet_audit.findings(candidate)
                assert sheet_audit.written_cost(candidate, marked.garden) + sheet_audit.kept_cost(candidate, marked) <= sheet_cost(findings)
    assert said_both


@pytest.mark.parametrize("seed", range(10))
def test_passing_over_candidates_by_their_bounds_changes_no_decode(seed, monkeypatch):
    record = play_game(seed, mistake_rate=0.5).record
    reading, boxes = _misread_cells(record, seed), box_reading(record)
    audited = []
    findings = SheetAudit.findings
    monkeypatch.setattr(SheetAudit, "findings", lambda self, candidate: audited.append(1) or findings(self, candidate))
    passing_over = decode_sheet(reading, boxes)
    audits_passing_over = len(audited)
    monkeypatch.setattr(SheetAudit, "written_cost", lambda self, candidate, near: 0.0)
    monkeypatch.setattr(SheetAudit, "kept_cost", lambda self, candidate, record: 0.0)
    monkeypatch.setattr(SheetAudit, "kept_written_cost", lambda self, candidate, record: 0.0)
    audited.clear()
    assert decode_sheet(reading, boxes) == passing_over
    assert audits_passing_over < len(audited)


def test_the_cheap_pairs_are_those_under_the_cost_on_two_readings_cheapest_first():
    rng = random.Random(4)
    for _ in range(300):
        # costs that tie too, as the networks' rounded probabilities give
        moves = [Move(lambda record: record, rng.choice([rng.uniform(0, MAX_MOVE_COST), float(rng.randint(0, 6))]),
                      f"move {index}", f"reading {rng.randint(0, 12)}") for index in range(rng.randint(0, 60))]
        cost = rng.uniform(0, 25)
        by_cost = sorted(moves, key=lambda move: move.cost)
        every = sorted(((first, second) for first, second in itertools.combinations(by_cost, 2)
                        if first.target != second.target and first.cost + second.cost < cost),
                       key=lambda pair: pair[0].cost + pair[1].cost)
        said = [(first.what, second.what) for first, second in cheap_pairs(moves, cost)]
        assert said == [(first.what, second.what) for first, second in every[:MAX_PAIRS]]


def _descent(reading, boxes) -> Descent:
    sheet_audit = SheetAudit(RuleSet(), DEFAULT_DICE_FACES)
    first = best_reading(reading, boxes)
    return Descent(first, sheet_audit.findings(first), cell_moves(reading) + box_moves(boxes), sheet_audit)


@pytest.mark.parametrize("seed", range(6))
def test_a_descent_tells_whether_it_ends_dearer_than_a_cost_as_its_end_does(seed):
    record = play_game(seed, mistake_rate=0.5).record
    reading, boxes = _misread_cells(record, seed), box_reading(record)
    finished = _descent(reading, boxes)
    costs = [finished.cost]
    while not finished.done:
        finished.step()
        costs += [finished.cost] if finished.rounds == len(costs) else []  # the last step may take none
    assert costs == sorted(costs, reverse=True) and len(set(costs)) == len(costs)  # each round lowers it
    asked = [0.0, *costs, *(cost + 1e-9 for cost in costs), *(cost - 1e-9 for cost in costs), finished.spent]
    rounds = []
    for cost in asked:
        descent = _descent(reading, boxes)
        assert descent.costs_more_than(cost) == (finished.cost > cost), cost
        rounds.append(descent.rounds)
    assert rounds[0] == 0 < finished.rounds  # no round needed to tell it costs more than nothing
    assert max(rounds) == finished.rounds


@pytest.mark.parametrize("seed", range(3))
def test_a_move_undone_gives_back_the_readings_it_changed_and_no_other(seed):
    record = play_game(seed, mistake_rate=0.5).record
    reading = _misread_cells(record, seed)
    moss = record.written["moss"]
    boxes = box_reading(record, {"moss": [(moss, 0.6), (moss + 1, 0.4)]})
    start = best_reading(reading, boxes)
    moves = cell_moves(reading) + box_moves(boxes)
    assert {move.target.split()[0] for move in moves} >= {"decoration", "water", "leaf", "pond", "written"}
    for index, move in enumerate(moves):
        taken, undone = move.apply(start), undo(move, start)
        assert undone.cost == -move.cost and undone.target == move.target
        assert undone.undoes == changed_readings(start, taken) != frozenset()
        assert undone.apply(taken) == start
        # a change elsewhere taken meanwhile stays
        other = next(m for m in moves[index + 1 :] + moves[:index]
                     if not changed_readings(start, m.apply(start)) & undone.undoes)
        assert undone.apply(other.apply(taken)) == other.apply(start)


class _TableAudit:
    """Findings by the record's written "a", "p" and "q" as a table gives them; no bounds."""

    def __init__(self, table: dict):
        self.table = table

    def findings(self, record: SheetRecord) -> list[Finding]:
        written = record.written
        return [Finding("ponds_touch", "a finding")] * self.table[written["a"], written["p"], written["q"]]

    def kept_cost(self, candidate: SheetRecord, record: SheetRecord) -> float:
        return 0.0

    kept_written_cost = kept_cost

    def written_cost(self, candidate: SheetRecord, near: Garden) -> float:
        return 0.0


def _taken_as_one(name: str, cost: float) -> Move:
    return Move(lambda record: replace(record, written={**record.written, name: 1}), cost, f"{name} as 1", name)


def test_a_change_whose_reason_a_later_change_took_is_undone():
    # "a" explains a finding first; "p" and "q" together then explain more, and "a" turns wrong
    table = {(0, 0, 0): 3, (1, 0, 0): 2, (0, 1, 0): 3, (0, 0, 1): 3, (1, 1, 0): 2, (1, 0, 1): 2,
             (1, 1, 1): 1, (0, 1, 1): 0}
    audit_table = _TableAudit(table)
    start = SheetRecord(Garden.empty(), written={"a": 0, "p": 0, "q": 0})
    moves = [_taken_as_one("a", 0.5), _taken_as_one("p", 1.0), _taken_as_one("q", 1.0)]
    descent = Descent(start, audit_table.findings(start), moves, audit_table).finish()
    assert [descent.record.written[name] for name in "apq"] == [0, 1, 1]
    assert not descent.findings and descent.spent == 2.0 and descent.rounds == 3
    assert descent.changes[-1].startswith("a as 1, undone")


def test_an_undo_is_weighed_alone_not_in_pairs(monkeypatch):
    # the undos, as the cheapest moves, would fill the pairs a round weighs (MAX_PAIRS)
    table = {(0, 0, 0): 3, (1, 0, 0): 2, (0, 1, 0): 3, (0, 0, 1): 3, (1, 1, 0): 2, (1, 0, 1): 2,
             (1, 1, 1): 1, (0, 1, 1): 0}
    audit_table = _TableAudit(table)
    start = SheetRecord(Garden.empty(), written={"a": 0, "p": 0, "q": 0})
    weighed = []
    real = descent_module.best_change
    monkeypatch.setattr(descent_module, "best_change",
                        lambda record, cost, changes, audit: weighed.append(changes) or real(record, cost, changes, audit))
    moves = [_taken_as_one("a", 0.5), _taken_as_one("p", 1.0), _taken_as_one("q", 1.0)]
    Descent(start, audit_table.findings(start), moves, audit_table).finish()
    singles = [move for changes in weighed for change in changes if len(change) == 1 for move in change]
    paired = [move for changes in weighed for change in changes if len(change) == 2 for move in change]
    assert any(move.undoes for move in singles) and paired
    assert not any(move.undoes for move in paired)


@pytest.mark.parametrize("seed", [1, 2, 3, 5, 6])  # games whose descent would take more rounds
def test_a_sheet_its_drawings_read_together_explain_takes_only_the_descents_rounds_that_tell(seed, monkeypatch):
    # a hand the networks never saw: its three commonest kinds each read as another, everywhere.
    # Once the descent's changes cost more than the labelling that explains the sheet, no later
    # round of it could make it the cheaper reading.
    record = honest_game(seed)
    drawn = [decoration for _, decoration in record.garden.decorated_cells()]
    kinds = sorted(Decoration, key=lambda kind: -drawn.count(kind))[:3]
    read_as = dict(zip(kinds, kinds[1:] + kinds[:1]))
    doubts = {cell: {read_as[decoration].category: 0.8, decoration.category: 0.2}
              for cell, decoration in record.garden.decorated_cells() if decoration in read_as}
    reading = replace(garden_reading(record, doubts), similarity=alike_by_kind(record))
    boxes = box_reading(record)
    made = []
    init = Descent.__init__
    monkeypatch.setattr(Descent, "__init__", lambda self, *arguments: made.append(self) or init(self, *arguments))
    decoded = decode_sheet(reading, boxes)
    assert decoded.record == record and not decoded.findings and "read together" in decoded.changes[0]
    cell_by_cell = made[0]
    assert not cell_by_cell.done  # its next round was never needed: finished, it costs more than
    assert cell_by_cell.finish().cost > 3 * RELABEL_GROUP_COST  # three kinds read as others, no finding left


def test_a_sheet_decoded_without_its_written_numbers_keeps_its_garden_and_turns():
    record = honest_game(3)
    turns_and_numbers = DigitGroup(((0, "first"), (1, "first")), np.full((2, 6), 1 / 6), ((0, "units"),),
                                   np.full((1, 10), 0.1))
    numbers_alone = DigitGroup((), np.zeros((0, 6)), ((1, "units"), (2, "units")), np.full((2, 10), 0.1))
    boxes = replace(box_reading(record), digit_groups=(turns_and_numbers, numbers_alone))
    alone = without_written(boxes)
    assert alone.written == {} and alone.turns == boxes.turns
    # the way of writing a digit stays for the turn boxes it is in, and only for them
    assert [(group.slots, group.numbers) for group in alone.digit_groups] == [(turns_and_numbers.slots, ())]
    decoded = decode_sheet(garden_reading(record), alone)
    assert decoded.record.garden == record.garden and decoded.record.turns == record.turns
    assert not [finding for finding in decoded.findings if finding.kind.startswith("written")]


def _drawn_as_another_kind(record: SheetRecord):
    """A draw's decoration (no tree) taken as another kind in its cell and in its die, the first
    way whose garden and log still fit each other and whose points differ: (turn index, the log
    and garden so misread, the cell, its kind, the kind read)."""
    die_of = {kind: die for die, kind in DEFAULT_DICE_FACES.items()}
    for index, turn in enumerate(record.turns):
        if turn.kind is not TurnKind.DRAW:
            continue
        for position, die in enumerate(turn.dice):
            kind = DEFAULT_DICE_FACES[die]
            cells = [cell for cell, drawn in record.garden.decorated_cells() if drawn is kind and turn.location - 1 in cell]
            for cell, other in itertools.product(cells, Decoration):
                if Decoration.TREE in (kind, other) or other is kind:
                    continue
                dice = tuple(die_of[other] if at == position else face for at, face in enumerate(turn.dice))
                turns = (*record.turns[:index], replace(turn, dice=dice), *record.turns[index + 1:])
                garden = record.garden.with_cell(cell, other)
                if not turn_log_findings(garden, turns) and score(garden).breakdown != score(record.garden).breakdown:
                    return index, turns, garden, cell, kind, other
    raise AssertionError("no such misreading")


@pytest.mark.parametrize("seed", range(3))
def test_a_turn_box_the_descent_reads_otherwise_for_the_written_numbers_alone_is_noted(seed):
    # a cell and its turn's die misread alike: the garden and log fit each other, only the written
    # numbers stand against them; the descent takes both back at once, and notes the log it left
    record = honest_game(seed)
    index, turns, garden, cell, kind, other = _drawn_as_another_kind(record)
    reading = garden_reading(record, {cell: {other.category: 0.6, kind.category: 0.4}})
    boxes = box_reading(record)
    read_turns = list(boxes.turns)
    read_turns[index] = (Candidate(turns[index], 0.6), Candidate(record.turns[index], 0.4))
    decoded = decode_sheet(reading, replace(boxes, turns=tuple(read_turns)))
    assert decoded.record.garden == record.garden and decoded.record.turns == record.turns
    [noted] = decoded.logs_fitted
    assert (noted.turns, noted.garden) == (turns, garden)
    assert 0 < noted.margin < sheet_cost(audit(replace(record, turns=turns, garden=garden), score(garden)))


def test_a_turn_log_read_otherwise_is_noted_only_where_the_written_numbers_alone_stood_against_the_one_before():
    # the sheet before fitted its log, only the numbers against it (a player's slip may explain
    # them: slips.py): noted with the log, the garden and by how much the new reading is cheaper
    record = honest_game(0)
    log = (record.turns[1], record.turns[0], *record.turns[2:])
    empty = record.with_garden(Garden.empty())
    findings = audit(empty, score(empty.garden))  # the numbers', the placing's and the rest
    numbers = [finding for finding in findings if finding.kind in ARITHMETIC_KINDS]
    placing = [finding for finding in findings if finding.kind not in ARITHMETIC_KINDS]
    assert numbers and placing

    def together(cost, turns, found):
        return _Together(cost, replace(record, turns=turns), found, [], Labelling(np.zeros(0, int), 0.0))

    noted = _log_read_for_numbers(together(9.0, log, numbers), together(4.0, record.turns, []))
    assert noted.logs_fitted == (LogFitted(log, record.garden, 5.0),)
    assert _log_read_for_numbers(together(9.0, log, numbers + placing), together(4.0, record.turns, [])).logs_fitted == ()
    assert _log_read_for_numbers(together(9.0, record.turns, numbers), together(4.0, record.turns, [])).logs_fitted == ()
