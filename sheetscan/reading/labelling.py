"""The sheet explains itself: its drawings labelled together, with its turn log.

A player draws each decoration one way all over a sheet, and the turn log says how many of each
were drawn, on which row or column, and in which season (a tree drawn in Spring or Summer is
marked: a seventh label, LATE_TREE, drawn as a tree). A drawing the networks never saw is read as another kind,
confidently, and so is every copy of it: no cell can be put right alone. Here the decorated cells
are labelled together, minimising the energy of labelling_energy.py (the networks, trusted little;
drawings alike given one kind; the turn log's counts and places; the player's known drawings).

Candidates come from cutting the drawings' similarity tree into CUTS groups: each way to give the
groups kinds whose sizes fit the turn log's counts (MAX_COUNT_SLACK cells over at most), the
MAX_CANDIDATES likeliest scored in full. From the best, simulated annealing (ANNEALING;
labelling_annealing.py) changes one cell or swaps two at a falling temperature: the cuts alone
often miss a labelling that several groups must change together to reach. The best found is
polished by changing one cell, or swapping two, while that lowers the sum; then its kinds
trading drawings (the TRADES_POLISHED trades of least energy, each polished) replace it where
one fits better: annealing rarely gives two whole kinds each other's cells. The decoder weighs
the result against its own (decode.py).
"""

from __future__ import annotations

import itertools
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, TypeVar

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform

from sheetscan.game.garden import ALL_CELLS, Cell, Turn, TurnKind, cross_cells
from sheetscan.game.rules import Decoration, Season
from sheetscan.reading.labelling_annealing import Annealing, anneal
from sheetscan.reading.labelling_energy import (DRAWN_AS, KINDS, LATE_TREE, NETWORK_WEIGHT, PLACE_COST, Problem,
                                                TrackedLabels)

T = TypeVar("T")
CUTS = range(5, 11)  # groups the similarity tree is cut into: a kind or two may be split
MAX_COUNT_SLACK = 2
MAX_ASSIGNMENTS = 5000  # ways to give a cut's groups kinds, enumerated at most
MAX_CANDIDATES = 300  # of those, scored in full
MAX_POLISH_ROUNDS = 50
# kinds' trades of least energy polished after the annealing: on validation photos of held-out
# hands with coarse varied digits (seed 79), one of them beat about one labelling in five of the
# sheets the log rounds reach, by up to 6; seeds 79-83 (160 phone sheets) 132 -> 137 exact
TRADES_POLISHED = 3
MAX_PERMUTATIONS = 15  # ways for the kinds to trade drawings polished (of up to 719), least energy first (5: 73 of 80, decode.py)


# Chosen on validation photos of held-out hands (seed 77, 40 phone sheets, none a bench figure's):
# the labelling with the least energy was missed on 6 sheets by the cuts and the polish, on 3 by
# 5,000 steps in one run, on none by this schedule (33 of 40 labelled right, against 28). A run
# takes about 4 ms; they run only where the decoder labels a sheet together, and end at the first
# after two that finds no lower energy (most sheets' second). On validation photos of held-out
# hands (seeds 79-83, 410 sheets) the same totals as four runs each, 3 sheets more sure, none
# wrong; ending at the first such run lost one sheet there, one of 40 bench scans and one table
# sheet of 180 (docs/benchmarks.md).
ANNEALING = Annealing()


def logged_drawings(turns: tuple[Turn, ...], dice_faces: Mapping[int, Decoration]) -> list[tuple[int, frozenset[Cell]]]:
    """Each decoration the turn log puts into the garden: its label (an index into KINDS, or
    LATE_TREE) and the cells it may lie in (a draw's row and column, a pruning's cell)."""
    logged = []
    for index, turn in enumerate(turns):
        if turn.kind is TurnKind.DRAW:
            cells = frozenset(cross_cells(turn.location))
        elif turn.kind is TurnKind.PRUNE:
            cells = frozenset((turn.cell,) if turn.cell is not None else ALL_CELLS)
        else:
            continue
        late = Season.of_turn(index).is_late
        logged += [(LATE_TREE if late and dice_faces[die] is Decoration.TREE else KINDS.index(dice_faces[die]), cells)
                   for die in turn.dice]
    return logged


# What a sheet's labelling works out, kept while the sheet is read (sheet_remembered): its turn
# logs read otherwise cut its drawings into the same groups, mostly with the same counts (the
# ways to give groups kinds), and the verdict's decode without the written numbers labels many
# of the decode's logs again (the labellings; on held-out validation photos, one labelling's time
# in nine). Kept no longer, so that a photo read again is timed as a new one.
_REMEMBERED: ContextVar[dict | None] = ContextVar("sheet_remembered", default=None)


@contextmanager
def sheet_remembered() -> Iterator[None]:
    """Within it (a sheet's decodes), each way to give groups kinds and each labelling is worked
    out once. Within another, the outer one's memory serves."""
    if _REMEMBERED.get() is not None:
        yield
        return
    token = _REMEMBERED.set({})
    try:
        yield
    finally:
        _REMEMBERED.reset(token)


def _group_kinds(sizes: tuple[int, ...], counts: tuple[int, ...]) -> np.ndarray:
    """(ways, groups) ways to give groups of ``sizes`` kinds, no kind over its ``counts`` by
    more than MAX_COUNT_SLACK cells in all; the first MAX_ASSIGNMENTS in order, the largest
    group's kind first (remembered within sheet_remembered)."""
    return _remembered(("ways", sizes, counts), lambda: _ways_to_give_kinds(sizes, counts))


def _remembered(key: tuple, work_out: Callable[[], T]) -> T:
    """What ``work_out`` gives, worked out once for ``key`` within sheet_remembered."""
    memory = _REMEMBERED.get()
    if memory is None:
        return work_out()
    if key not in memory:
        memory[key] = work_out()
    return memory[key]


def _ways_to_give_kinds(sizes: tuple[int, ...], counts: tuple[int, ...]) -> np.ndarray:
    """_group_kinds's ways, worked out. The ways on from a group depend only on the sizes of the
    groups from there on, the cells each kind has left and the slack used, so each such state's
    ways are worked out once, as a block of rows: a third of the time of enumerating them one by
    one. The blocks serve every cut of the sheet's similarity tree (within sheet_remembered): the
    cuts share their smallest groups, and a sheet's cuts work out about a quarter fewer blocks.
    A block keeps its kinds as bytes, so that a hard sheet's blocks take a few megabytes."""
    order = np.argsort(-np.array(sizes), kind="stable").tolist()
    ordered = [sizes[group] for group in order]
    suffixes = [tuple(ordered[position:]) for position in range(len(order))]
    blocks: dict[tuple, np.ndarray] = _remembered(("ways blocks",), dict)

    in_order = _ways_on(0, tuple(max(count, 0) for count in counts), 0, ordered, suffixes, blocks)
    ways = np.empty((len(in_order), len(sizes)), int)
    ways[:, order] = in_order
    ways.flags.writeable = False  # shared by every labelling of a sheet
    return ways


def _ways_on(position: int, left: tuple[int, ...], over: int, ordered: list[int], suffixes: list[tuple],
             blocks: dict[tuple, np.ndarray]) -> np.ndarray:
    """The kinds of the groups from ``position`` on (of sizes ``ordered``), each kind ``left``
    cells (none below 0), ``over`` cells of slack used; each state's block kept in ``blocks``.
    Not a closure within _ways_to_give_kinds: a function that calls itself by its closure is a
    reference cycle, and the blocks with it would wait for the garbage collector."""
    size, last = ordered[position], len(ordered) - 1
    if position == last:
        found = np.array([kind for kind in range(len(KINDS)) if over + max(0, size - left[kind]) <= MAX_COUNT_SLACK],
                         np.int8).reshape(-1, 1)
    else:
        parts, rows = [], 0
        for kind in range(len(KINDS)):
            more = max(0, size - left[kind])
            if over + more > MAX_COUNT_SLACK:
                continue
            state = (position + 1, (*left[:kind], max(left[kind] - size, 0), *left[kind + 1:]), over + more)
            key = (suffixes[position + 1], *state[1:])
            rest = blocks[key] if key in blocks else _ways_on(*state, ordered, suffixes, blocks)
            if not len(rest):
                continue
            part = np.empty((len(rest), len(ordered) - position), np.int8)
            part[:, 0], part[:, 1:] = kind, rest
            parts.append(part)
            rows += len(rest)
            if rows >= MAX_ASSIGNMENTS:
                break
        found = np.concatenate(parts)[:MAX_ASSIGNMENTS] if parts else np.empty((0, len(ordered) - position), np.int8)
    blocks[suffixes[position], left, over] = found
    return found


def _polish(problem: Problem, labels: np.ndarray, energy: float) -> tuple[np.ndarray, float]:
    """Change one cell, or swap two, while that lowers the energy: each cell's labels in turn,
    then each pair of cells, taking every change that lowers it as it comes. The floors of every
    change, computed at once, spare the tracked change where it cannot fall, and the tracked
    change spares the whole sum where it plainly does not (its rounding is far below the 1e-9 it
    must fall by): every change is still taken or not by the whole sum."""
    tracked = TrackedLabels(problem, labels)
    for _ in range(MAX_POLISH_ROUNDS):
        improved = False
        for floors_of, changed in ((TrackedLabels.change_floors, _changed), (TrackedLabels.swap_floors, _swapped)):
            position = 0  # the changes in their order, as flat indices into the floors
            while (taken := _first_fall(problem, tracked, labels, energy, floors_of(tracked), changed, position)):
                position, labels, energy = taken
                tracked, improved = TrackedLabels(problem, labels), True
        if not improved:
            break
    return labels, energy


def _first_fall(problem: Problem, tracked: TrackedLabels, labels: np.ndarray, energy: float, floors: np.ndarray,
                changed: Callable, start: int) -> tuple[int, np.ndarray, float] | None:
    """The first change from flat index ``start`` of ``floors`` on (``changed`` makes it) whose
    whole sum falls below ``energy``: the index after it, its labels and their energy; or None."""
    for index in (start + np.flatnonzero(floors.ravel()[start:] < 0)).tolist():
        candidate = changed(tracked, labels, *divmod(index, floors.shape[1]))
        if candidate is not None and (candidate_energy := problem.energy(candidate)) < energy - 1e-9:
            return index + 1, candidate, candidate_energy
    return None


def _changed(tracked: TrackedLabels, labels: np.ndarray, cell: int, label: int) -> np.ndarray | None:
    """``labels`` with ``cell`` given ``label``, where the tracked change says that may lower the energy."""
    if tracked.change(cell, label) >= 0:
        return None
    candidate = labels.copy()
    candidate[cell] = label
    return candidate


def _swapped(tracked: TrackedLabels, labels: np.ndarray, first: int, second: int) -> np.ndarray | None:
    """``labels`` with ``first`` and ``second`` swapped, where the tracked swap says that may lower the energy."""
    if tracked.swap(first, second) >= 0:
        return None
    candidate = labels.copy()
    candidate[first], candidate[second] = labels[second], labels[first]
    return candidate


@dataclass(frozen=True)
class Labelling:
    """A sheet's drawings labelled together: (n,) labels (indices into KINDS, or LATE_TREE) and
    their energy (the lower, the better the drawings fit each other and the turn log)."""

    labels: np.ndarray
    energy: float


def label_together(label_probabilities: np.ndarray, similarity: np.ndarray, cells: list[Cell],
                   logged: list[tuple[int, frozenset[Cell]]], known: np.ndarray | None = None,
                   start: np.ndarray | None = None) -> Labelling:
    """The n decorated ``cells`` labelled together (see the module's note) from the networks'
    (n, 7) ``label_probabilities`` (KINDS, then LATE_TREE), the drawings' (n, n) ``similarity``,
    the turn log's ``logged`` drawings and what the player's ``known`` drawings say ((n, 7),
    known_fit). From ``start`` (labels for another turn log of the same sheet), the cuts'
    candidates must beat it: another log's labels may sit far from this log's least energy, on
    held-out coarse scans further than the annealing gets (validation seed 81, 1 sheet in 30).
    Within sheet_remembered, each is worked out once; its labels are read-only, as it is shared."""
    key = ("labelling", label_probabilities.tobytes(), similarity.tobytes(), tuple(cells), tuple(logged),
           None if known is None else known.tobytes(), None if start is None else start.tobytes())
    labelling = _remembered(key, lambda: _labelled(label_probabilities, similarity, cells, logged, known, start))
    labelling.labels.flags.writeable = False
    return labelling


def _labelled(label_probabilities: np.ndarray, similarity: np.ndarray, cells: list[Cell],
              logged: list[tuple[int, frozenset[Cell]]], known: np.ndarray | None, start: np.ndarray | None) -> Labelling:
    """label_together's work."""
    problem = Problem(label_probabilities, similarity, cells, logged, known)
    labels = problem.log_p.argmax(axis=1) if start is None else start
    energy = problem.energy(labels)
    n = len(cells)
    if n < 2:
        return Labelling(labels, energy)
    labels, energy = _cut_candidates(problem, similarity, labels, energy)
    for run in range(ANNEALING.runs):
        candidate = anneal(problem, labels, np.random.default_rng([ANNEALING.seed, run]), ANNEALING)
        candidate_energy = problem.energy(candidate)
        if candidate_energy < energy:
            labels, energy = candidate, candidate_energy
        elif run >= 1:
            break  # two runs from where this one started found nothing lower: another seldom does
    labels, energy = _polish(problem, labels, energy)
    return Labelling(*_least_kind_trade(problem, labels, energy))


def _kinds_traded(problem: Problem, labels: np.ndarray) -> np.ndarray:
    """(m, n) every labelling ``labels`` becomes when its kinds drawn give each other's drawings
    (a tree late where its networks say so), in the order of itertools.permutations."""
    drawn = DRAWN_AS[labels]
    present = np.unique(drawn)
    orders = np.array(list(itertools.permutations(present.tolist())))[1:]  # the first leaves every kind
    kind_of = np.tile(np.arange(len(KINDS)), (len(orders), 1))
    kind_of[:, present] = orders
    traded_drawn = kind_of[:, drawn]
    return np.where(traded_drawn != drawn, problem.as_drawn(traded_drawn), labels)


def _least_energies(problem: Problem, labels: np.ndarray, labellings: np.ndarray, count: int) -> list[tuple[float, int]]:
    """The ``count`` least energies of (m, n) ``labellings`` (``labels``' kinds traded:
    _kinds_traded), with their indices, least first (ties by index): each worked out in full only
    where its energy with unplaced cells aside, a floor of it, may still join them. Kinds traded
    keep which cells share a kind, and so the drawings' likeness term: worked out once."""
    asides = problem.energies_unplaced_aside(labellings, alike_as=labels)
    least: list[tuple[float, int]] = []
    for index in np.argsort(asides, kind="stable").tolist():
        if len(least) == count and (not least or asides[index] > least[-1][0]):
            break  # this one's energy, and every later one's, is above them all
        least = sorted([*least, (problem.energy_beyond(labellings[index], asides[index]), index)])[:count]
    return least


def _least_kind_trade(problem: Problem, labels: np.ndarray, energy: float) -> tuple[np.ndarray, float]:
    """``labels`` and their ``energy``, or where kinds trading drawings lowers it, once polished,
    the least such of the TRADES_POLISHED trades of least energy: two ways to draw that no
    network saw, each labelled as the other's kind, sit past the annealing's reach."""
    traded = _kinds_traded(problem, labels)
    for traded_energy, index in _least_energies(problem, labels, traded, TRADES_POLISHED):
        candidate, candidate_energy = _polish(problem, traded[index].copy(), traded_energy)
        if candidate_energy < energy - 1e-9:
            labels, energy = candidate, candidate_energy
    return labels, energy


def kind_permutations(label_probabilities: np.ndarray, similarity: np.ndarray, cells: list[Cell],
                      logged: list[tuple[int, frozenset[Cell]]], known: np.ndarray | None,
                      labels: np.ndarray) -> list[Labelling]:
    """The labellings ``labels`` becomes when the drawings of its kinds trade kinds: every way
    to give the kinds drawn each other's kind (a tree late where its networks say so), the
    MAX_PERMUTATIONS of least energy polished, with their energy (arguments as label_together's).
    Two or three ways to draw that the networks never saw may fit the turn log either way round;
    what the player wrote then tells them apart (decode.py)."""
    problem = Problem(label_probabilities, similarity, cells, logged, known)
    traded = _kinds_traded(problem, labels)
    least = _least_energies(problem, labels, traded, MAX_PERMUTATIONS)
    # each its own array: a row's view would keep every trade alive with the labelling
    return [Labelling(*_polish(problem, traded[index].copy(), energy)) for energy, index in least]


def cell_swaps(label_probabilities: np.ndarray, similarity: np.ndarray, cells: list[Cell],
               logged: list[tuple[int, frozenset[Cell]]], known: np.ndarray | None, labels: np.ndarray,
               margin: float) -> list[Labelling]:
    """The labellings ``labels`` becomes when two cells of other labels trade them, those at most
    ``margin`` above its energy, least first (arguments as label_together's): two drawings alike
    to both kinds, or two trees' marks, in cells the turn log allows either way, that only the
    written numbers tell apart."""
    problem = Problem(label_probabilities, similarity, cells, logged, known)
    limit = problem.energy(labels) + margin
    traded = []
    for first, second in itertools.combinations(range(len(labels)), 2):
        if labels[first] != labels[second]:
            candidate = labels.copy()
            candidate[[first, second]] = labels[[second, first]]
            traded.append(candidate)
    near = [Labelling(candidate, energy) for candidate, energy in zip(traded, problem.energies(np.array(traded)))
            if energy <= limit] if traded else []
    return sorted(near, key=lambda labelling: labelling.energy)


def _cut_candidates(problem: Problem, similarity: np.ndarray, labels: np.ndarray,
                    energy: float) -> tuple[np.ndarray, float]:
    """The labels of least energy among ``labels`` and the cuts' candidates, and that energy."""
    n = len(labels)
    distance = np.clip(2 - similarity, 0, None)
    np.fill_diagonal(distance, 0)
    hierarchy = linkage(squareform(distance, checks=False), "average")
    # groups are given kinds of drawing (a late tree is a tree; its mark comes after)
    tree = KINDS.index(Decoration.TREE)
    log_p = problem.log_p[:, :len(KINDS)].copy()
    log_p[:, tree] = np.logaddexp(log_p[:, tree], problem.log_p[:, LATE_TREE])
    off_log = problem.off_log[:, :len(KINDS)].copy()
    off_log[:, tree] &= problem.off_log[:, LATE_TREE]
    drawn_counts = np.bincount(DRAWN_AS[problem.slot_kinds], minlength=len(KINDS))
    for cut in CUTS:
        groups = fcluster(hierarchy, min(cut, n), "maxclust") - 1
        members = [groups == g for g in range(groups.max() + 1)]
        sizes = np.array([m.sum() for m in members])
        # how likely each group is of each kind, before the full energy: the networks, and its
        # cells that no logged decoration of the kind may lie in
        fit = np.stack([NETWORK_WEIGHT * log_p[m].sum(axis=0) - PLACE_COST * off_log[m].sum(axis=0)
                        + problem.known_fit[m][:, :len(KINDS)].sum(axis=0) for m in members])
        ways = _group_kinds(tuple(sizes.tolist()), tuple(drawn_counts.tolist()))
        likeliest = np.argsort(-fit[np.arange(len(members)), ways].sum(axis=1), kind="stable")[:MAX_CANDIDATES]
        candidates = problem.as_drawn(ways[likeliest][:, groups])
        for candidate, at_least in zip(candidates, problem.energies_unplaced_aside(candidates)):
            if at_least < energy:  # else its energy cannot be less
                candidate_energy = problem.energy_beyond(candidate, at_least)
                if candidate_energy < energy:
                    labels, energy = candidate, candidate_energy
    return labels, energy
