"""Single rules and the named rule options, on small gardens."""

import pytest

from sheetscan.errors import RuleOptionError
from sheetscan.game.rules import RuleSet
from sheetscan.game.score import score

from conftest import make_garden

EARTH = ["......"] * 6


def test_lone_lantern_scores_by_default_but_not_with_lantern_needs_pair():
    garden = make_garden(["L....."] + ["......"] * 5)
    assert score(garden).breakdown["lantern"] == 3
    assert score(garden, RuleSet(lantern_needs_pair=True)).breakdown["lantern"] == 0


def test_lanterns_at_distance_three_do_not_score_but_four_do():
    close = make_garden(["L..L.."] + ["......"] * 5)
    spaced = make_garden(["L...L."] + ["......"] * 5)
    assert score(close).breakdown["lantern"] == 0
    assert score(spaced).breakdown["lantern"] == 6


def test_lantern_in_water_blocks_unless_option():
    garden = make_garden(["L.L..."] + ["......"] * 5, ["..~..."] + ["......"] * 5)
    assert score(garden).breakdown["lantern"] == 0
    assert score(garden, RuleSet(lantern_in_water_ignored=True)).breakdown["lantern"] == 3


def test_bamboo_partner_in_water_counts_unless_option():
    garden = make_garden(["BB...."] + ["......"] * 5, [".~...."] + ["......"] * 5)
    assert score(garden).breakdown["bamboo"] == 2
    assert score(garden, RuleSet(bamboo_partner_on_earth=True)).breakdown["bamboo"] == 0


def test_rocks_cancel_across_terrain_unless_option():
    garden = make_garden(["RR...."] + ["......"] * 5, [".~...."] + ["......"] * 5)
    assert score(garden).breakdown["rock"] == 0
    assert score(garden, RuleSet(rock_cancel_same_terrain=True)).breakdown["rock"] == 3


def test_bridge_on_earth_blocks_neighbour_unless_option():
    garden = make_garden(["......", ".==...", "......"] + ["......"] * 3,
                         ["......", ".~....", "......"] + ["......"] * 3)
    assert score(garden).breakdown["bridge"] == 0
    assert score(garden, RuleSet(bridge_blocked_by_water_only=True)).breakdown["bridge"] == 1


def test_bridge_at_grid_edge_needs_earth_across_the_other_way():
    edge_row = make_garden(["=....."] + ["......"] * 5, ["~....."] + ["......"] * 5)
    edge_col = make_garden(["......", "=.....", "......"] + ["......"] * 3,
                           ["......", "~.....", "......"] + ["......"] * 3)
    assert score(edge_row).breakdown["bridge"] == 0
    assert score(edge_col).breakdown["bridge"] == 1


def test_moss_counts_each_orthogonal_water_cell_and_loses_a_point_in_water():
    garden = make_garden(["......", "..M...", "......", "....M."] + ["......"] * 2,
                         ["..~...", ".~.~..", "..~...", "....~."] + ["......"] * 2)
    breakdown = score(garden).breakdown
    assert breakdown["moss"] == 4
    empty_earth = 36 - 5 - 1  # five water cells, one moss on earth
    assert breakdown["penalty"] == -empty_earth - 1  # and the moss in water


def test_unknown_rule_option_is_refused_with_the_known_names():
    with pytest.raises(RuleOptionError, match="lantern_needs_pair"):
        RuleSet.from_names(["no_such_rule"])
