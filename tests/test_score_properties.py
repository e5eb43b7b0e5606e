"""Invariants over thousands of random gardens that a wrong scorer breaks."""

import itertools
import random

from hypothesis import given, settings, strategies as st

from sheetscan.game.garden import ALL_CELLS, Garden, orthogonal_neighbours, ponds, surrounding_cells
from sheetscan.game.rules import CATEGORIES, GRID_SIZE, MAX_PONDS, TURN_COUNT, Decoration, RuleSet
from sheetscan.game.score import breakdown_after, points_bounds, score

MANY = settings(max_examples=1500, deadline=None)
RULEBOOK_BRIDGE_POINTS = (0, 1, 4, 9, 15)  # for 0, 1, 2, 3 and 4 or more valid bridges (RULES.md)
N = GRID_SIZE - 1

DIHEDRAL_MOVES = {
    "rotate 90": lambda cell: (cell[1], N - cell[0]),
    "rotate 180": lambda cell: (N - cell[0], N - cell[1]),
    "rotate 270": lambda cell: (N - cell[1], cell[0]),
    "mirror rows": lambda cell: (cell[0], N - cell[1]),
    "mirror columns": lambda cell: (N - cell[0], cell[1]),
    "transpose": lambda cell: (cell[1], cell[0]),
    "anti-transpose": lambda cell: (N - cell[1], N - cell[0]),
}

cell_contents = st.sampled_from([None, None, *Decoration])


@st.composite
def gardens(draw):
    """A random garden: any decorations, water of a random density, random tree seasons."""
    decorations = [[draw(cell_contents) for _ in range(GRID_SIZE)] for _ in range(GRID_SIZE)]
    density = draw(st.floats(0, 0.6))
    rng = random.Random(draw(st.integers(0, 2**32)))
    water = [[rng.random() < density for _ in range(GRID_SIZE)] for _ in range(GRID_SIZE)]
    trees = [cell for cell in ALL_CELLS if decorations[cell[0]][cell[1]] is Decoration.TREE]
    late = frozenset(cell for cell in trees if rng.random() < 0.5)
    return Garden(tuple(map(tuple, decorations)), tuple(map(tuple, water)), late)


@MANY
@given(gardens())
def test_total_is_the_sum_of_categories_and_of_cells(garden):
    result = score(garden)
    assert result.total == sum(result.breakdown[c] for c in CATEGORIES[:-1])
    assert result.total == sum(map(sum, result.cell_points())) + result.breakdown["pond"]
    assert all(result.breakdown[c] >= 0 for c in CATEGORIES[:-2])
    assert result.breakdown["penalty"] <= 0


@MANY
@given(gardens(), st.sampled_from(sorted(DIHEDRAL_MOVES)))
def test_rotating_or_mirroring_never_changes_the_score(garden, move_name):
    moved = garden.mapped(DIHEDRAL_MOVES[move_name])
    assert score(moved).breakdown == score(garden).breakdown


@MANY
@given(gardens(), st.data())
def test_a_one_cell_pond_on_lonely_empty_earth_adds_exactly_four(garden, data):
    def lonely(cell):
        return (
            garden.decoration(cell) is None
            and not any(garden.is_water(c) for c in (cell, *surrounding_cells(cell)))
            and not any(
                garden.decoration(n) in (Decoration.MOSS, Decoration.BRIDGE)
                for n in orthogonal_neighbours(cell)
            )
        )

    candidates = [cell for cell in ALL_CELLS if lonely(cell)]
    if not candidates:
        return
    cell = data.draw(st.sampled_from(candidates))
    before, after = score(garden), score(garden.with_cell(cell, water=True))
    assert after.total == before.total + 4
    assert after.breakdown["pond"] == before.breakdown["pond"] + 3


# Cells where a bridge in a one-cell pond has earth on both sides one way; no two touch.
BRIDGE_SITES = [(r, c) for r in (0, 2, 4) for c in (0, 2, 4) if (r, c) != (0, 0)]


@MANY
@given(st.lists(st.sampled_from(BRIDGE_SITES), unique=True), st.data())
def test_bridge_points_follow_0_1_4_9_15(sites, data):
    not_bridges = [None, *(d for d in Decoration if d is not Decoration.BRIDGE)]
    garden = Garden.empty()
    for cell in ALL_CELLS:  # fill the rest with anything but bridges, on earth
        if cell not in sites:
            garden = garden.with_cell(cell, data.draw(st.sampled_from(not_bridges)))
    for cell in sites:
        garden = garden.with_cell(cell, Decoration.BRIDGE, water=True)
    expected = RULEBOOK_BRIDGE_POINTS[min(len(sites), 4)]
    assert score(garden).breakdown["bridge"] == expected


@MANY
@given(gardens())
def test_bridges_score_one_of_the_table_values(garden):
    assert score(garden).breakdown["bridge"] in RULEBOOK_BRIDGE_POINTS


EVERY_RULE_SET = [RuleSet(**dict(zip(RuleSet.option_names(), options)))
                  for options in itertools.product((False, True), repeat=len(RuleSet.option_names()))]
changes = st.tuples(st.sampled_from(["decoration", "mark", "water"]), st.sampled_from(ALL_CELLS), cell_contents, st.booleans())


@MANY
@given(gardens(), st.lists(changes, min_size=1, max_size=3), st.sampled_from(EVERY_RULE_SET))
def test_a_garden_scored_from_the_one_it_was_changed_from_scores_as_scored_afresh(garden, changed, rules):
    after = garden
    for what, cell, decoration, flag in changed:
        if what == "decoration":
            after = after.with_cell(cell, decoration, late=flag and decoration is Decoration.TREE)
        elif what == "mark" and after.decoration(cell) is Decoration.TREE:
            after = after.with_cell(cell, late=flag)
        elif what == "water":
            after = after.with_cell(cell, water=flag)
    afresh = Garden(after.decorations, after.water, after.tree_late)  # nothing carried over
    assert breakdown_after(after, garden, score(garden, rules), rules) == score(afresh, rules).breakdown
    assert ponds(after) == ponds(afresh)


def test_a_lantern_drawn_far_from_the_only_other_pairs_it_where_lanterns_need_a_pair():
    # far apart, the first lantern's points change only through the pairing rule: the random
    # gardens above seldom cross from one lantern to two
    rules = RuleSet(lantern_needs_pair=True)
    alone = Garden.empty().with_cell((0, 0), Decoration.LANTERN)
    paired = alone.with_cell((5, 5), Decoration.LANTERN)
    assert breakdown_after(paired, alone, score(alone, rules), rules)["lantern"] == 6
    assert breakdown_after(alone, paired, score(paired, rules), rules)["lantern"] == 0


def test_a_lantern_flooded_frees_one_two_cells_off_where_lanterns_in_water_are_ignored():
    # its neighbour's points change through which lanterns count: the random gardens above
    # seldom flood a lantern with another two cells off
    rules = RuleSet(lantern_in_water_ignored=True)
    near = Garden.empty().with_cell((0, 0), Decoration.LANTERN).with_cell((0, 2), Decoration.LANTERN)
    flooded = near.with_cell((0, 0), water=True)
    assert breakdown_after(flooded, near, score(near, rules), rules) == score(flooded, rules).breakdown
    assert score(flooded, rules).breakdown["lantern"] == 3 and score(near, rules).breakdown["lantern"] == 0


@MANY
@given(gardens(), st.sampled_from(EVERY_RULE_SET))
def test_no_garden_of_a_game_scores_beyond_the_bounds_the_reader_trusts(garden, rules):
    drawn = [cell for cell in ALL_CELLS if garden.decoration(cell) is not None][2 * TURN_COUNT:]
    for cell in drawn:  # a game draws at most two decorations a turn
        garden = garden.with_cell(cell, None)
    for cell in itertools.chain.from_iterable(ponds(garden)[MAX_PONDS:]):  # and one pond a season
        garden = garden.with_cell(cell, water=False)
    bounds = points_bounds(rules)
    assert all(bounds[c][0] <= points <= bounds[c][1] for c, points in score(garden, rules).breakdown.items())


def test_the_lantern_bound_is_reached_by_lanterns_spaced_over_the_grid():
    spaced = [(0, 0), (0, 4), (2, 2), (3, 5), (4, 0), (5, 3)]
    assert all(abs(a - c) + abs(b - d) >= 4 for (a, b), (c, d) in itertools.combinations(spaced, 2))
    empty = ((None,) * GRID_SIZE,) * GRID_SIZE
    garden = Garden(empty, ((False,) * GRID_SIZE,) * GRID_SIZE, frozenset())
    for cell in spaced:
        garden = garden.with_cell(cell, Decoration.LANTERN)
    assert score(garden).breakdown["lantern"] == points_bounds()["lantern"][1] == 18
