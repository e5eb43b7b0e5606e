"""The auditor: legal games have no findings; each violation injected alone is found."""

from dataclasses import replace
from itertools import product

import pytest
from hypothesis import given, settings, strategies as st

from sheetscan.game.audit import audit, pond_findings
from sheetscan.game.matching import maximum_matching
from sheetscan.game.garden import ALL_CELLS, Garden, SheetRecord, Turn, TurnKind, orthogonal_neighbours, ponds
from sheetscan.game.rules import Decoration
from sheetscan.game.score import score
from sheetscan.game.simulate import play_game

from conftest import make_garden

SKIP = Turn(TurnKind.SKIP)


def kinds(record):
    return {finding.kind for finding in audit(record, score(record.garden))}


def honest_game(seed):
    return play_game(seed, mistake_rate=0.0).record


@pytest.mark.parametrize("first_seed", range(0, 2000, 250))
def test_simulated_games_are_legal_and_their_truth_is_the_scorers(first_seed):
    for seed in range(first_seed, first_seed + 250):
        game = play_game(seed, mistake_rate=0.0)
        assert kinds(game.record) == set(), seed
        assert game.breakdown == score(game.record.garden).breakdown


def test_ponds_touching_diagonally_are_found():
    garden = make_garden(["......"] * 6, ["~.....", ".~....", "......", "......", "......", "......"])
    findings = audit(SheetRecord(garden), score(garden))
    assert [f.kind for f in findings] == ["ponds_touch"]
    assert set(findings[0].cells) == {(0, 0), (1, 1)}


def test_a_pond_enclosing_earth_is_found():
    garden = make_garden(["......"] * 6, [".~~~..", ".~.~..", ".~~~..", "......", "......", "......"])
    findings = audit(SheetRecord(garden), score(garden))
    assert [f.kind for f in findings] == ["pond_encloses_earth"]
    assert findings[0].cells == ((1, 2),)


def test_a_pond_against_the_grid_corner_encloses_nothing():
    garden = make_garden(["......"] * 6, [".~....", "~~....", "......", "......", "......", "......"])
    assert kinds(SheetRecord(garden)) == set()


def _enclosed_cell_by_cell(garden, pond):
    """The rule as written: earth from which no path of cells outside ``pond`` reaches the edge."""
    def reaches_edge(start):
        seen, frontier = {start}, [start]
        while frontier:
            cell = frontier.pop()
            if len(orthogonal_neighbours(cell)) < 4:
                return True
            for neighbour in orthogonal_neighbours(cell):
                if neighbour not in pond and neighbour not in seen:
                    seen.add(neighbour)
                    frontier.append(neighbour)
        return False
    return [cell for cell in ALL_CELLS if not garden.is_water(cell) and not reaches_edge(cell)]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.booleans(), min_size=36, max_size=36))
def test_the_earth_a_pond_encloses_is_the_rules(water_cells):
    """The auditor grows the cells reached from the edge as bits of an int (for speed): it must
    find the earth a cell-by-cell search finds, pond by pond."""
    garden = Garden(Garden.empty().decorations, tuple(tuple(water_cells[r * 6:(r + 1) * 6]) for r in range(6)))
    expected = [cells for pond in ponds(garden) if (cells := _enclosed_cell_by_cell(garden, pond))]
    found = [finding.cells for finding in pond_findings(garden) if finding.kind == "pond_encloses_earth"]
    assert found == [tuple(cells) for cells in expected]


def _largest_matching_size(candidates):
    """By brute force: the most items that can each take a distinct partner of their own."""
    best = 0
    for choice in product(*[[*options, None] for options in candidates]):
        taken = [partner for partner in choice if partner is not None]
        if len(set(taken)) == len(taken):
            best = max(best, len(taken))
    return best


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(0, 4), max_size=4, unique=True), max_size=6))
def test_the_turn_log_matching_is_a_largest_one(candidates):
    """The matching takes an item's first free partner without a search (for speed): it must
    still give each matched item one of its own partners, no partner twice, and as many items
    as any matching can."""
    matching = maximum_matching(candidates)
    assert all(partner in candidates[index] for index, partner in matching.items())
    assert len(set(matching.values())) == len(matching)
    assert len(matching) == _largest_matching_size(candidates)


def test_more_than_four_ponds_are_found():
    garden = make_garden(["......"] * 6, ["~.~.~.", "......", "~.~...", "......", "......", "......"])
    assert kinds(SheetRecord(garden)) == {"too_many_ponds"}


def first_draw(record):
    return next(i for i, t in enumerate(record.turns) if t.kind is TurnKind.DRAW)


def test_a_missing_decoration_breaks_the_count():
    record = honest_game(7)
    cell, _ = next(record.garden.decorated_cells())
    garden = record.garden.with_cell(cell, None, late=False)
    found = kinds(replace(record, garden=garden, written=None))
    assert "decoration_count" in found
    assert found <= {"decoration_count", "turn_unplaced", "tree_dot", "pond_icons"}


def test_a_turn_on_the_wrong_row_cannot_be_placed():
    garden = make_garden(["LB...."] + ["......"] * 5)
    turns = (Turn(TurnKind.DRAW, (1, 2), location=1),) + (SKIP,) * 11
    assert kinds(SheetRecord(garden, turns)) == set()
    moved = (Turn(TurnKind.DRAW, (1, 2), location=4),) + (SKIP,) * 11
    findings = audit(SheetRecord(garden, moved), score(garden))
    assert [f.kind for f in findings] == ["turn_unplaced"]
    assert findings[0].boxes == ("turn 1",)


def test_a_tree_dot_that_disagrees_with_its_season_is_found():
    turns = (Turn(TurnKind.DRAW, (3, 1), location=1),) + (SKIP,) * 11
    autumn = make_garden(["TL...."] + ["......"] * 5)
    assert kinds(SheetRecord(autumn, turns)) == set()
    dotted = make_garden(["TL...."] + ["......"] * 5, tree_late=[(0, 0)])
    assert kinds(SheetRecord(dotted, turns)) == {"tree_dot"}


def test_a_tree_against_its_mark_hides_no_turn_left_unplaced():
    # a tree placed against its mark once matched the log without the marks, and every other turn
    # the garden leaves unplaced then went unsaid
    turns = (Turn(TurnKind.DRAW, (3, 1), location=1), Turn(TurnKind.DRAW, (5, 5), location=2)) + (SKIP,) * 10
    dotted = make_garden(["TL....", "==...."] + ["......"] * 4, tree_late=[(0, 0)])
    findings = audit(SheetRecord(dotted, turns), score(dotted))
    assert [(f.kind, f.boxes) for f in findings] == [("tree_dot", ("turn 1",)), ("turn_unplaced", ("turn 2",))]


def test_more_than_three_prunings_are_found():
    garden = make_garden(["LBTR.."] + ["......"] * 5)
    turns = tuple(Turn(TurnKind.PRUNE, (die,), cell=(0, die - 1)) for die in (1, 2, 3, 4))
    assert kinds(SheetRecord(garden, turns + (SKIP,) * 8)) == {"too_many_prunings"}


def test_bonsai_leaves_that_disagree_with_the_prunings_are_found():
    record = honest_game(11)
    prunings = sum(t.kind is TurnKind.PRUNE for t in record.turns)
    wrong = replace(record, bonsai_pruned=(prunings + 1) % 4)
    assert kinds(wrong) == {"bonsai_mismatch"}


def test_pond_icons_that_disagree_with_the_ponds_are_found():
    record = honest_game(12)
    flipped = (not record.ponds_marked[0],) + record.ponds_marked[1:]
    assert kinds(replace(record, ponds_marked=flipped)) == {"pond_icons"}


@pytest.mark.parametrize("category", ["moss", "penalty"])
def test_a_written_number_that_differs_is_found_with_its_category(category):
    record = honest_game(13)
    written = dict(record.written)
    written[category] += 2
    written["total"] += 2  # the player adds up the wrong number faithfully
    findings = audit(replace(record, written=written), score(record.garden))
    assert [(f.kind, f.boxes) for f in findings] == [("written_differs", (f"written {category}",)),
                                                     ("written_differs", ("written total",))]


def test_a_total_that_is_not_the_sum_of_the_written_categories_is_found():
    record = honest_game(13)
    written = {**record.written, "total": record.written["total"] - 1}
    findings = audit(replace(record, written=written), score(record.garden))
    assert [f.kind for f in findings] == ["written_sum", "written_differs"]
    assert "add up to" in findings[0].sentence


def test_a_pruning_at_a_cell_without_its_decoration_is_unplaced():
    garden = make_garden(["L....."] + ["......"] * 5)
    turns = (Turn(TurnKind.PRUNE, (1,), cell=(0, 3)),) + (SKIP,) * 11
    assert "turn_unplaced" in kinds(SheetRecord(garden, turns))
    assert Decoration.LANTERN is garden.decoration((0, 0))
