"""One simulated annealing run over a sheet's labels (labelling.py's search, after its cuts):
one cell changed, or two swapped, at a falling temperature, the energy of labelling_energy.py
followed move by move in plain Python floats (a sheet's run takes 10,000 moves)."""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import numpy as np

from sheetscan.reading.labelling_energy import COUNT_COST, DRAWN_AS, KINDS, LABELS, PLACE_COST, Problem


@dataclass(frozen=True)
class Annealing:
    """The annealing's schedule: each run takes ``steps`` moves (one cell changed, or two
    swapped, half and half), its temperature falling geometrically from ``hottest`` to
    ``coldest``. Each run starts from the best labelling so far (the cuts' at first), and the
    runs end at the first after two that finds none lower, ``runs`` at most."""

    steps: int = 10_000
    hottest: float = 5.0
    coldest: float = 0.1
    runs: int = 4
    seed: int = 0  # the same sheet is always labelled the same way


def anneal(problem: Problem, start: np.ndarray, rng: np.random.Generator, schedule: Annealing) -> np.ndarray:
    """The labelling of least energy met by one annealing run of ``schedule`` from ``start``. The
    energy is followed move by move (each cell's similarity to every kind's cells kept up to
    date); the cells no logged turn can have placed are counted per cell here (``off_log``) and
    by the full matching only on the result."""
    n, kinds, steps = len(start), len(KINDS), schedule.steps
    drawn_as = DRAWN_AS.tolist()
    unary = (problem.unary + PLACE_COST * problem.off_log).tolist()
    pairs = problem.pairs.tolist()
    pairs_with = list(problem.pairs.T.copy())  # pairs_with[i][j]: cell j's pair term with cell i
    labels = start.tolist()
    # alike[k][i]: the summed pair terms of cell i with the cells drawn as kind k, read as Python
    # floats; a cell moving between kinds updates two of them whole, in place, through numpy views
    alike = [array("d", problem.pairs[:, DRAWN_AS[start] == kind].sum(axis=1).tolist()) for kind in range(kinds)]
    alike_arrays = [np.frombuffer(row) for row in alike]
    # over[label]: how many more cells the label has than the turn log's count; what a label
    # gaining or losing a cell costs, for each such excess
    over = (np.bincount(start, minlength=LABELS) - problem.counts).tolist()
    most = n + int(problem.counts.sum()) + 1
    gaining = {excess: COUNT_COST * (abs(excess + 1) - abs(excess)) for excess in range(-most, most + 1)}
    losing = {excess: COUNT_COST * (abs(excess - 1) - abs(excess)) for excess in range(-most, most + 1)}

    swaps = (rng.random(steps) < 0.5).tolist()
    firsts, seconds = rng.integers(n, size=(2, steps)).tolist()
    new_labels = rng.integers(LABELS, size=steps).tolist()
    chances = rng.random(steps)
    cooling = (schedule.coldest / schedule.hottest) ** (1 / steps)
    temperatures = np.cumprod([schedule.hottest, *[cooling] * steps])[1:]  # each step's, cooled first
    # a move is taken when chance < exp(-change / temperature), that is change < limit
    with np.errstate(divide="ignore"):
        limits = (-temperatures * np.log(chances)).tolist()
    subtract, add = np.subtract, np.add
    energy, best, best_energy = 0.0, list(labels), 0.0
    for i, j, swap, new_label, limit in zip(firsts, seconds, swaps, new_labels, limits):
        old = labels[i]
        new = labels[j] if swap else new_label
        if new == old:
            continue
        before, after = drawn_as[old], drawn_as[new]
        unary_i = unary[i]
        if swap:  # j takes i's label: the counts stay, the pair i-j stays apart
            unary_j = unary[j]
            if before != after:
                alike_before, alike_after = alike[before], alike[after]
                change = unary_i[new] - unary_i[old] + (alike_before[i] - alike_after[i])
                change += unary_j[old] - unary_j[new]
                change += alike_after[j] - alike_before[j] + 2 * pairs[i][j]
            else:
                change = unary_i[new] - unary_i[old]
                change += unary_j[old] - unary_j[new]
            if change >= limit:
                continue
            if before != after:  # i moves to after's kind, j to before's
                from_before, to_after = alike_arrays[before], alike_arrays[after]
                subtract(from_before, pairs_with[i], out=from_before)
                add(from_before, pairs_with[j], out=from_before)
                add(to_after, pairs_with[i], out=to_after)
                subtract(to_after, pairs_with[j], out=to_after)
            labels[i], labels[j] = new, old
        else:  # new gains a cell, old loses one
            change = unary_i[new] - unary_i[old]
            if before != after:
                change += alike[before][i] - alike[after][i]
            change += gaining[over[new]] + losing[over[old]]
            if change >= limit:
                continue
            if before != after:
                from_before, to_after = alike_arrays[before], alike_arrays[after]
                subtract(from_before, pairs_with[i], out=from_before)
                add(to_after, pairs_with[i], out=to_after)
            over[old] -= 1
            over[new] += 1
            labels[i] = new
        energy += change
        if energy < best_energy - 1e-9:
            best, best_energy = list(labels), energy
    return np.array(best, int)
