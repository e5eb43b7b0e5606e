"""The game simulator: plays a whole legal game from a seed, turn by turn.

A player's skill is the chance, each decision, of playing greedily for points rather than at
random, so scores span the realistic range. The sheet's written numbers are usually right;
with probability ``mistake_rate`` one category or the total is wrong.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import permutations
from typing import Mapping

from sheetscan.game.audit import pond_findings
from sheetscan.game.garden import ALL_CELLS, Cell, Garden, SheetRecord, Turn, TurnKind, cross_cells, surrounding_cells, orthogonal_neighbours
from sheetscan.game.rules import (
    CATEGORIES,
    DEFAULT_DICE_FACES,
    MAX_PONDS,
    MAX_PRUNINGS,
    TURN_COUNT,
    TURNS_PER_SEASON,
    Decoration,
    RuleSet,
    Season,
)
from sheetscan.game.score import score

DIE_FACES = (1, 2, 3, 4, 5, 6)
GREEDY_CANDIDATES = 10  # placements a player weighs per location choice (sampled)
PRUNE_CANDIDATES = 4  # cells a player weighs per die for a pruning (sampled)
POND_CANDIDATES = 12  # pond shapes a player weighs at a season's end
MAX_POND_CELLS = 5
PRUNE_WHIM = 0.08  # chance a random player prunes though a draw was possible
MISTAKE_SIZES = (-3, -2, -1, 1, 2, 3)


@dataclass(frozen=True)
class SimulatedGame:
    """A played game: the sheet's record (written numbers included) and the true score."""

    record: SheetRecord
    breakdown: dict[str, int]
    skill: float
    pond_seasons: tuple[int, ...]  # the seasons (0-3) at whose end a pond was traced


def _empty_cells(garden: Garden, cells) -> list[Cell]:
    return [cell for cell in cells if garden.decoration(cell) is None]


def _draw_options(garden: Garden, dice: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    """(decoration die, decoration die, location die) orders with two free cells on the cross."""
    options = []
    for location_index in range(3):
        location = dice[location_index]
        decoration_dice = tuple(d for i, d in enumerate(dice) if i != location_index)
        free = _empty_cells(garden, cross_cells(location))
        if len(free) >= 2:
            options.append((*decoration_dice, location))
    return options


def _pond_shape(rng: random.Random, garden: Garden) -> frozenset[Cell] | None:
    """A random connected group of earth cells that is a legal new pond, or None."""
    start = rng.choice(ALL_CELLS)
    if any(garden.is_water(c) for c in (start, *surrounding_cells(start))):
        return None
    shape = {start}
    for _ in range(rng.randrange(MAX_POND_CELLS)):
        border = sorted(
            {n for cell in shape for n in orthogonal_neighbours(cell)} - shape
        )
        border = [n for n in border if not any(garden.is_water(c) for c in (n, *surrounding_cells(n)))]
        if not border:
            break
        shape.add(rng.choice(border))
    traced = garden
    for cell in shape:
        traced = traced.with_cell(cell, water=True)
    if pond_findings(traced):
        return None
    return frozenset(shape)


def _with_pond(garden: Garden, shape: frozenset[Cell]) -> Garden:
    for cell in shape:
        garden = garden.with_cell(cell, water=True)
    return garden


def _best(rng: random.Random, gardens: list, rules: RuleSet):
    """The candidate (garden, ...) tuple whose garden scores highest; ties broken at random."""
    rng.shuffle(gardens)
    return max(gardens, key=lambda item: score(item[0], rules).total)


def play_game(
    seed: int,
    *,
    skill: float | None = None,
    mistake_rate: float = 0.1,
    rules: RuleSet = RuleSet(),
    dice_faces: Mapping[int, Decoration] = DEFAULT_DICE_FACES,
) -> SimulatedGame:
    """Play one legal game from ``seed``.

    Parameters
    ----------
    seed : int
    skill : float in [0, 1], optional
        Chance of a greedy decision; drawn from the seed when left out.
    mistake_rate : float in [0, 1]
        Chance that the written scores carry one mistake.
    """
    rng = random.Random(seed)
    if skill is None:
        skill = rng.random()
    pond_whim = rng.random()  # chance this player, playing at random, traces a pond
    garden = Garden.empty()
    turns: list[Turn] = []
    pond_seasons: list[int] = []
    for turn_index in range(TURN_COUNT):
        season = Season.of_turn(turn_index)
        dice = tuple(rng.choice(DIE_FACES) for _ in range(3))
        greedy = rng.random() < skill
        prunings_left = MAX_PRUNINGS - sum(t.kind is TurnKind.PRUNE for t in turns)
        candidates = []  # (garden after, turn)
        for first, second, location in _draw_options(garden, dice):
            free = _empty_cells(garden, cross_cells(location))
            pairs = list(permutations(free, 2))
            for cell_a, cell_b in rng.sample(pairs, min(len(pairs), GREEDY_CANDIDATES)):
                after = _place(garden, cell_a, dice_faces[first], season)
                after = _place(after, cell_b, dice_faces[second], season)
                candidates.append((after, Turn(TurnKind.DRAW, (first, second), location=location)))
        wants_prune = not candidates or (not greedy and rng.random() < PRUNE_WHIM)
        if prunings_left and (wants_prune or greedy):
            free = _empty_cells(garden, ALL_CELLS)
            for die in sorted(set(dice)):
                for cell in rng.sample(free, min(len(free), PRUNE_CANDIDATES)):
                    after = _place(garden, cell, dice_faces[die], season)
                    prune = (after, Turn(TurnKind.PRUNE, (die,), cell=cell))
                    if wants_prune and not greedy:
                        candidates = []
                    candidates.append(prune)
        if not candidates:
            turns.append(Turn(TurnKind.SKIP))
        else:
            if greedy:
                garden, turn = _best(rng, candidates, rules)
            else:
                garden, turn = rng.choice(candidates)
            turns.append(turn)
        if (turn_index + 1) % TURNS_PER_SEASON == 0 and len(pond_seasons) < MAX_PONDS:
            shapes = [s for s in (_pond_shape(rng, garden) for _ in range(POND_CANDIDATES)) if s]
            if shapes:
                options = [(_with_pond(garden, s), s) for s in shapes]
                if greedy:
                    best_garden, _ = _best(rng, options, rules)
                    if score(best_garden, rules).total > score(garden, rules).total:
                        garden = best_garden
                        pond_seasons.append(season.value)
                elif rng.random() < pond_whim:
                    garden = rng.choice(options)[0]
                    pond_seasons.append(season.value)
    breakdown = score(garden, rules).breakdown
    record = SheetRecord(
        garden,
        turns=tuple(turns),
        bonsai_pruned=sum(t.kind is TurnKind.PRUNE for t in turns),
        ponds_marked=tuple(s.value in pond_seasons for s in Season),
        written=_written(rng, breakdown, mistake_rate),
    )
    return SimulatedGame(record, breakdown, skill, tuple(pond_seasons))


def _place(garden: Garden, cell: Cell, decoration: Decoration, season: Season) -> Garden:
    late = decoration is Decoration.TREE and season.is_late
    return garden.with_cell(cell, decoration, late=late or None)


def _written(rng: random.Random, breakdown: dict[str, int], mistake_rate: float) -> dict[str, int]:
    """What the player wrote: the breakdown, with one mistake at ``mistake_rate``."""
    written = dict(breakdown)
    if rng.random() < mistake_rate:
        category = rng.choice(CATEGORIES)
        written[category] += rng.choice(MISTAKE_SIZES)
        if category != "total":  # the player adds up the wrong number faithfully
            written["total"] = sum(written[c] for c in CATEGORIES[:-1])
    return written
