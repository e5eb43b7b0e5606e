"""The scorer: a garden's points by the rules, per category and per cell.

Knows nothing of images. Every point is credited to a cell (pond points to their pond), so
a person can see which rule gave which point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from sheetscan.game.garden import (
    ALL_CELLS,
    ORTHOGONAL_STEPS,
    Cell,
    Garden,
    orthogonal_neighbours,
    ponds,
    surrounding_cells,
)
from sheetscan.game.rules import (BRIDGE_POINTS, CATEGORIES, GRID_SIZE, MAX_PONDS, POND_POINTS, TURN_COUNT,
                                  Decoration, RuleSet)

LANTERN_POINTS = 3
LANTERN_MIN_DISTANCE = 4  # Manhattan distance: at least 3 cells between two lanterns
BAMBOO_POINTS = 2
TREE_POINTS = {False: 1, True: 2}  # by "drawn in Spring or Summer"
ROCK_POINTS = {False: 1, True: 2}  # by "in water"
OUT_OF_PLACE = -1


@dataclass(frozen=True)
class CellScore:
    """The points one cell gives and the rule behind them."""

    points: int
    category: str  # a breakdown key: a decoration's category, or "penalty"
    reason: str


@dataclass(frozen=True)
class Score:
    """A garden's breakdown, per-cell points and ponds.

    Attributes
    ----------
    breakdown : dict of str to int
        Exactly the keys of ``rules.CATEGORIES`` (the golden cases' ``expected``).
    cells : tuple of 6 tuples of 6 CellScore
    ponds : tuple of frozenset of Cell
        Each pond scores ``POND_POINTS``.
    """

    breakdown: dict[str, int]
    cells: tuple[tuple[CellScore, ...], ...]
    ponds: tuple[frozenset[Cell], ...]

    @property
    def total(self) -> int:
        return self.breakdown["total"]

    def cell_points(self) -> list[list[int]]:
        return [[cell.points for cell in row] for row in self.cells]


# The scores whose reason names no other cell, made once: the decoder scores hundreds of
# gardens a sheet (a frozen CellScore is safe to share)
EMPTY_WATER = CellScore(0, "penalty", "empty water")
EMPTY_EARTH = CellScore(OUT_OF_PLACE, "penalty", "empty earth")
BRIDGE_ON_EARTH = CellScore(OUT_OF_PLACE, "penalty", "bridge on earth")
IN_WATER = {d: CellScore(OUT_OF_PLACE, "penalty", f"{d.category} in water") for d in Decoration}
LANTERN_SPACED = CellScore(LANTERN_POINTS, "lantern", "lanterns well spaced")
LANTERN_ALONE = CellScore(0, "lantern", "no second lantern (lantern_needs_pair)")
BAMBOO_PAIRED = CellScore(BAMBOO_POINTS, "bamboo", "beside another bamboo")
BAMBOO_ALONE = CellScore(0, "bamboo", "no bamboo beside it")
TREE_SCORES = {late: CellScore(TREE_POINTS[late], "tree", "drawn in Spring/Summer" if late else "drawn in Autumn/Winter")
               for late in (False, True)}
LONE_ROCK = {in_water: CellScore(ROCK_POINTS[in_water], "rock", "lone rock in water" if in_water else "lone rock")
             for in_water in (False, True)}
MOSS_SCORES = tuple(CellScore(wet, "moss", f"{wet} water cell(s) beside it") for wet in range(len(ORTHOGONAL_STEPS) + 1))


def _lantern(garden: Garden, cell: Cell, rules: RuleSet, lanterns: list[Cell]) -> CellScore:
    r, c = cell
    others = False
    for other in lanterns:  # the lanterns that count, in reading order: the first too close is said
        if other != cell:
            others = True
            if abs(other[0] - r) + abs(other[1] - c) < LANTERN_MIN_DISTANCE:
                return CellScore(0, "lantern", f"another lantern at ({other[0] + 1},{other[1] + 1}) is too close")
    if rules.lantern_needs_pair and not others:
        return LANTERN_ALONE
    return LANTERN_SPACED


def _bamboo(garden: Garden, cell: Cell, rules: RuleSet, lanterns: list[Cell]) -> CellScore:
    decorations, water = garden.decorations, garden.water
    for r, c in orthogonal_neighbours(cell):
        if decorations[r][c] is Decoration.BAMBOO and not (rules.bamboo_partner_on_earth and water[r][c]):
            return BAMBOO_PAIRED
    return BAMBOO_ALONE


def _tree(garden: Garden, cell: Cell, rules: RuleSet, lanterns: list[Cell]) -> CellScore:
    return TREE_SCORES[cell in garden.tree_late]


def _rock(garden: Garden, cell: Cell, rules: RuleSet, lanterns: list[Cell]) -> CellScore:
    decorations, water = garden.decorations, garden.water
    in_water = water[cell[0]][cell[1]]
    for r, c in surrounding_cells(cell):
        if decorations[r][c] is Decoration.ROCK and not (rules.rock_cancel_same_terrain and water[r][c] != in_water):
            return CellScore(0, "rock", f"another rock at ({r + 1},{c + 1})")
    return LONE_ROCK[in_water]


def _moss(garden: Garden, cell: Cell, rules: RuleSet, lanterns: list[Cell]) -> CellScore:
    water = garden.water
    return MOSS_SCORES[sum(water[r][c] for r, c in orthogonal_neighbours(cell))]


def _bridge_validity(garden: Garden, cell: Cell, rules: RuleSet) -> str | None:
    """Why a bridge in water is not valid, or None when it is."""
    r, c = cell
    decorations, water = garden.decorations, garden.water

    def earth(row: int, col: int) -> bool:  # the grid edge is not earth
        return 0 <= row < GRID_SIZE and 0 <= col < GRID_SIZE and not water[row][col]

    if not (earth(r, c - 1) and earth(r, c + 1)) and not (earth(r - 1, c) and earth(r + 1, c)):
        return "no earth on both sides"
    for nr, nc in orthogonal_neighbours(cell):
        if decorations[nr][nc] is Decoration.BRIDGE and not (rules.bridge_blocked_by_water_only and not water[nr][nc]):
            return f"bridge beside it at ({nr + 1},{nc + 1})"
    return None


_ON_EARTH = {
    Decoration.LANTERN: _lantern,
    Decoration.BAMBOO: _bamboo,
    Decoration.TREE: _tree,
    Decoration.ROCK: _rock,
    Decoration.MOSS: _moss,
}


def _cell_score(garden: Garden, cell: Cell, rules: RuleSet, lanterns: list[Cell]) -> CellScore | None:
    """What ``cell`` scores, or None for a valid bridge (its points depend on how many there are)."""
    decoration = garden.decorations[cell[0]][cell[1]]
    in_water = garden.water[cell[0]][cell[1]]
    if decoration is None:
        return EMPTY_WATER if in_water else EMPTY_EARTH
    if decoration is Decoration.ROCK:
        return _rock(garden, cell, rules, lanterns)
    if decoration is Decoration.BRIDGE:
        if not in_water:
            return BRIDGE_ON_EARTH
        invalid = _bridge_validity(garden, cell, rules)
        return CellScore(0, "bridge", invalid) if invalid else None
    if in_water:
        return IN_WATER[decoration]
    return _ON_EARTH[decoration](garden, cell, rules, lanterns)


def _counted_lanterns(garden: Garden, rules: RuleSet) -> list[Cell]:
    """The lanterns that count for spacing and pairing (lantern_in_water_ignored leaves out those
    in water), in reading order."""
    decorations, water = garden.decorations, garden.water
    return [cell for cell in ALL_CELLS if decorations[cell[0]][cell[1]] is Decoration.LANTERN
            and not (rules.lantern_in_water_ignored and water[cell[0]][cell[1]])]


def score(garden: Garden, rules: RuleSet = RuleSet()) -> Score:
    """Score a garden exactly by ../shared/RULES.md under the rule options ``rules``."""
    lanterns = _counted_lanterns(garden, rules)
    cells = [_cell_score(garden, cell, rules, lanterns) for cell in ALL_CELLS]  # in ALL_CELLS' order
    _credit_bridges(cells)
    return _scored(cells, tuple(ponds(garden)))


def _credit_bridges(cells: list[CellScore | None]) -> None:
    """Give the valid bridges (None in ``cells``, every one of the garden's) their points: n valid
    bridges score BRIDGE_POINTS[n], the k-th (reading order) credited the step."""
    valid_bridges = [index for index, cell_score in enumerate(cells) if cell_score is None]
    for k, index in enumerate(valid_bridges, start=1):
        step = _bridge_total(k) - _bridge_total(k - 1)
        cells[index] = CellScore(step, "bridge", f"valid bridge no. {k} of {len(valid_bridges)}")


def breakdown_after(garden: Garden, before: Garden, before_score: Score, rules: RuleSet = RuleSet()) -> dict[str, int]:
    """``score(garden, rules).breakdown``, from ``before_score`` (``score(before, rules)``): the
    points of the cells whose points may change, the bridges' as a whole and the ponds' where the
    water changed (the decoder bounds hundreds of gardens a sheet, each a cell or two from the one
    it stands on, by their written numbers alone)."""
    decorations = garden.decorations
    changed, kinds = garden.changed_from(before)
    # a bamboo's points look at its orthogonal neighbours, a rock's at its surrounding cells, a
    # lantern's at the lanterns nearer than LANTERN_MIN_DISTANCE (at every lantern where
    # lantern_needs_pair and a second lantern came or went): each scored again where a changed
    # cell was or is its kind. The water of a cell counts for its own points, its neighbours'
    # (a moss's, a bamboo's partner, a rock's terrain, a bridge's banks) and, where a lantern
    # stands in it, which lanterns count (lantern_in_water_ignored). The bridges' points are their
    # number's: counted again whole.
    again = set(changed)
    wet = [] if garden.water is before.water else _water_changed(garden.water, before.water)
    for cell in wet:
        again.add(cell)
        again.update(n for n in surrounding_cells(cell) if decorations[n[0]][n[1]] in _WATER_AROUND_COUNTS)
    for kind, near in ((Decoration.BAMBOO, orthogonal_neighbours), (Decoration.ROCK, surrounding_cells)):
        if kind in kinds:
            again.update(n for cell in changed for n in near(cell) if decorations[n[0]][n[1]] is kind)
    lanterns = []
    lantern_wet = any(decorations[r][c] is Decoration.LANTERN for r, c in wet)
    if Decoration.LANTERN in kinds or lantern_wet:
        lanterns = _counted_lanterns(garden, rules)
        if (lantern_wet and rules.lantern_in_water_ignored) or (
                rules.lantern_needs_pair and (len(lanterns) > 1) != (len(_counted_lanterns(before, rules)) > 1)):
            again.update(lanterns)
        else:
            again.update(lantern for lantern in lanterns if any(
                abs(lantern[0] - r) + abs(lantern[1] - c) < LANTERN_MIN_DISTANCE for r, c in changed))
    breakdown = dict(before_score.breakdown)
    for r, c in again:
        old = before_score.cells[r][c]
        if old.category != "bridge":
            breakdown[old.category] -= old.points
        new = _cell_score(garden, (r, c), rules, lanterns)
        if new is not None and new.category != "bridge":
            breakdown[new.category] += new.points
    if Decoration.BRIDGE in kinds or (wet and any(decorations[r][c] is Decoration.BRIDGE for r, c in again)):
        breakdown["bridge"] = _bridge_total(sum(
            _cell_score(garden, cell, rules, lanterns) is None for cell in ALL_CELLS
            if decorations[cell[0]][cell[1]] is Decoration.BRIDGE and garden.water[cell[0]][cell[1]]))
    if wet:
        breakdown["pond"] = POND_POINTS * len(ponds(garden))
    breakdown["total"] = sum(breakdown[category] for category in CATEGORIES[:-1])
    return breakdown


# the decorations whose points look at their neighbours' water
_WATER_AROUND_COUNTS = frozenset({Decoration.MOSS, Decoration.BAMBOO, Decoration.ROCK, Decoration.BRIDGE})


def _water_changed(water: tuple[tuple[bool, ...], ...], before: tuple[tuple[bool, ...], ...]) -> list[Cell]:
    """The cells whose water differs (the rows a changed garden shares with ``before`` skipped)."""
    return [(r, c) for r, (row, before_row) in enumerate(zip(water, before)) if row is not before_row
            for c in range(GRID_SIZE) if row[c] != before_row[c]]


def _scored(cells: list[CellScore], found_ponds: tuple[frozenset[Cell], ...]) -> Score:
    """The Score of every cell's (in ALL_CELLS' order) and of the ponds."""
    breakdown = {category: 0 for category in CATEGORIES}
    for cell_score in cells:
        breakdown[cell_score.category] += cell_score.points
    breakdown["pond"] = POND_POINTS * len(found_ponds)
    breakdown["total"] = sum(breakdown[category] for category in CATEGORIES[:-1])
    return Score(breakdown, _grid(cells), found_ponds)


def _grid(cells: list[CellScore]) -> tuple[tuple[CellScore, ...], ...]:
    """Cell scores in ALL_CELLS' order as rows."""
    return tuple(tuple(cells[r * GRID_SIZE : (r + 1) * GRID_SIZE]) for r in range(GRID_SIZE))


def _bridge_total(valid_count: int) -> int:
    return BRIDGE_POINTS[min(valid_count, len(BRIDGE_POINTS) - 1)]


@lru_cache(maxsize=None)
def points_bounds(rules: RuleSet = RuleSet()) -> dict[str, tuple[int, int]]:
    """The least and most points each category (and the total) can give on any garden of a game:
    at most two decorations a turn, each scoring its most (a lantern only as many as can stand
    spaced on the grid, a rock only as many as can stand apart, unless only rocks on the same
    terrain cancel), every pond, every bridge; every cell empty earth at worst."""
    decorations = 2 * TURN_COUNT
    apart = decorations if rules.rock_cancel_same_terrain else math.ceil(GRID_SIZE / 2) ** 2  # no two touching
    most = {"lantern": LANTERN_POINTS * _most_spaced_lanterns(), "bamboo": BAMBOO_POINTS * decorations,
            "tree": TREE_POINTS[True] * decorations, "rock": ROCK_POINTS[True] * apart,
            "moss": len(ORTHOGONAL_STEPS) * decorations, "bridge": BRIDGE_POINTS[-1], "pond": POND_POINTS * MAX_PONDS}
    bounds = {category: (0, points) for category, points in most.items()}
    bounds["penalty"] = (OUT_OF_PLACE * GRID_SIZE**2, 0)
    bounds["total"] = (bounds["penalty"][0], sum(most.values()))
    return bounds


def _most_spaced_lanterns(chosen: tuple[Cell, ...] = (), start: int = 0) -> int:
    """How many lanterns can stand on the grid at LANTERN_MIN_DISTANCE from each other: the
    ``chosen`` and the most of the cells from ALL_CELLS[start] on (a search)."""
    spaced = [index for index, cell in enumerate(ALL_CELLS[start:], start)
              if all(abs(cell[0] - r) + abs(cell[1] - c) >= LANTERN_MIN_DISTANCE for r, c in chosen)]
    return max([len(chosen)] + [_most_spaced_lanterns(chosen + (ALL_CELLS[index],), index + 1) for index in spaced])
