"""The scorer: a garden's points by the rules, per category and per cell.

Knows nothing of images. Every point is credited to a cell (pond points to their pond), so
a person can see which rule gave which point.
"""

from __future__ import annotations

from dataclasses import dataclass

from sheetscan.game.garden import (
    ALL_CELLS,
    ORTHOGONAL_STEPS,
    Cell,
    Garden,
    orthogonal_neighbours,
    ponds,
    surrounding_cells,
)
from sheetscan.game.rules import BRIDGE_POINTS, CATEGORIES, GRID_SIZE, POND_POINTS, Decoration, RuleSet

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


def _manhattan(a: Cell, b: Cell) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


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
    others = [
        other
        for other in lanterns
        if other != cell and not (rules.lantern_in_water_ignored and garden.water[other[0]][other[1]])
    ]
    too_close = [other for other in others if _manhattan(cell, other) < LANTERN_MIN_DISTANCE]
    if too_close:
        r, c = too_close[0]
        return CellScore(0, "lantern", f"another lantern at ({r + 1},{c + 1}) is too close")
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


def score(garden: Garden, rules: RuleSet = RuleSet()) -> Score:
    """Score a garden exactly by ../shared/RULES.md under the rule options ``rules``."""
    decorations, water = garden.decorations, garden.water  # read directly: see EMPTY_WATER
    cells: list[CellScore | None] = [None] * len(ALL_CELLS)  # in ALL_CELLS' order
    valid_bridges = []
    lanterns = [cell for cell, decoration in garden.decorated_cells() if decoration is Decoration.LANTERN]
    for index, cell in enumerate(ALL_CELLS):
        decoration = decorations[cell[0]][cell[1]]
        in_water = water[cell[0]][cell[1]]
        if decoration is None:
            cells[index] = EMPTY_WATER if in_water else EMPTY_EARTH
        elif decoration is Decoration.ROCK:
            cells[index] = _rock(garden, cell, rules, lanterns)
        elif decoration is Decoration.BRIDGE:
            if not in_water:
                cells[index] = BRIDGE_ON_EARTH
            else:
                invalid = _bridge_validity(garden, cell, rules)
                if invalid:
                    cells[index] = CellScore(0, "bridge", invalid)
                else:
                    valid_bridges.append(index)
        elif in_water:
            cells[index] = IN_WATER[decoration]
        else:
            cells[index] = _ON_EARTH[decoration](garden, cell, rules, lanterns)
    # n valid bridges score BRIDGE_POINTS[n]; the k-th (reading order) is credited the step.
    for k, index in enumerate(valid_bridges, start=1):
        step = _bridge_total(k) - _bridge_total(k - 1)
        cells[index] = CellScore(step, "bridge", f"valid bridge no. {k} of {len(valid_bridges)}")

    found_ponds = tuple(ponds(garden))
    breakdown = {category: 0 for category in CATEGORIES}
    for cell_score in cells:
        breakdown[cell_score.category] += cell_score.points
    breakdown["pond"] = POND_POINTS * len(found_ponds)
    breakdown["total"] = sum(breakdown[category] for category in CATEGORIES[:-1])
    grid = tuple(tuple(cells[r * GRID_SIZE : (r + 1) * GRID_SIZE]) for r in range(GRID_SIZE))
    return Score(breakdown, grid, found_ponds)


def _bridge_total(valid_count: int) -> int:
    return BRIDGE_POINTS[min(valid_count, len(BRIDGE_POINTS) - 1)]
