"""What a labelling of a sheet's drawings costs: the energy that labelling.py minimises.

For labels given to the n decorated cells (indices into KINDS, or LATE_TREE), the energy is

    - NETWORK_WEIGHT x the sum of log p(kind) over the cells       (the networks, trusted little)
    - the sum over pairs given one kind of (similarity - SAME_DRAWING)  (alike drawings, one kind)
    + COUNT_COST x how far each kind's count is from the turn log's
    + PLACE_COST x the cells no logged turn can have put there      (a maximum matching)
    - KNOWN_WEIGHT x how far above SAME_DRAWING each cell is alike to the player's known drawings
      of its kind (drawings a person labelled on the player's earlier sheet), when there are any

Problem computes it for any labels; TrackedLabels says what changing one cell, or swapping two,
would change it by, without the whole sum (the polish tries every such change, round after round).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from sheetscan.game.garden import Cell
from sheetscan.game.matching import maximum_matching
from sheetscan.game.rules import Decoration

KINDS = tuple(Decoration)
LATE_TREE = len(KINDS)  # the label of a tree drawn in Spring or Summer, after the kinds
LABELS = len(KINDS) + 1
DRAWN_AS = np.array([*range(len(KINDS)), KINDS.index(Decoration.TREE)])  # each label's drawing: a late tree is a tree
_EACH_LABEL = np.arange(LABELS)[:, None]  # a labelling compared with it: the cells given each label
# The networks' view of an unseen drawing is weak evidence; the turn log is strong. Chosen on
# validation photos of held-out hands (seeds 77 and 78, 40 phone sheets each, none a bench
# figure's): exact totals 25 + 31 of 80 at 0.05, against 24 + 26 at 0, 24 + 30 at 0.02,
# 25 + 29 at 0.1 and 21 + 26 at 0.2; own hands 40 of 40 at each.
NETWORK_WEIGHT = 0.05
SAME_DRAWING = 0.8  # similarity (groups.drawing_similarity, -2 to 2) above which two drawings are alike
COUNT_COST = 3.0
PLACE_COST = 3.0
KNOWN_WEIGHT = 4.0  # a drawing alike to one a person labelled: far stronger than the networks
LEAST_PROBABILITY = 1e-4  # a network's view, however sure, never rules a label out


def label_log_probabilities(label_probabilities: np.ndarray) -> np.ndarray:
    """(n, LABELS) the networks' log probabilities of each label, each at least
    log(LEAST_PROBABILITY). A tree's is its kind's (tree or late tree) times its mark's (marked
    or not, given it is a tree), each floored on its own: a tree drawn in a way no network saw
    reads as another kind, both tree classes far below the floor, yet their ratio still tells
    its mark (on held-out scans, 90% of such trees' marks by its sign)."""
    p = label_probabilities / label_probabilities.sum(axis=1, keepdims=True)
    log_p = np.log(np.clip(p, LEAST_PROBABILITY, 1))
    tree = KINDS.index(Decoration.TREE)
    as_tree = p[:, tree] + p[:, LATE_TREE]
    marked = np.divide(p[:, LATE_TREE], as_tree, out=np.full(len(p), 0.5), where=as_tree > 0)
    log_tree = np.log(np.clip(as_tree, LEAST_PROBABILITY, 1))
    log_p[:, tree] = log_tree + np.log(np.clip(1 - marked, LEAST_PROBABILITY, 1))
    log_p[:, LATE_TREE] = log_tree + np.log(np.clip(marked, LEAST_PROBABILITY, 1))
    return log_p


def known_fit(known_similarity: np.ndarray, known_kinds: np.ndarray) -> np.ndarray:
    """(n, LABELS) what each of n cells gains by each label from the player's known drawings:
    KNOWN_WEIGHT x how far its most alike known drawing of the label's kind is above SAME_DRAWING."""
    fit = np.zeros((len(known_similarity), LABELS))
    for label in range(LABELS):
        of_kind = known_kinds == DRAWN_AS[label]
        if of_kind.any():
            fit[:, label] = KNOWN_WEIGHT * np.clip(known_similarity[:, of_kind].max(axis=1) - SAME_DRAWING, 0, None)
    return fit


class Problem:
    """One sheet's labelling: what the energy needs, computed once."""

    def __init__(self, label_probabilities: np.ndarray, similarity: np.ndarray, cells: list[Cell],
                 logged: list[tuple[int, frozenset[Cell]]], known_fit: np.ndarray | None = None):
        self.log_p = label_log_probabilities(label_probabilities)
        self.known_fit = np.zeros((len(cells), LABELS)) if known_fit is None else known_fit
        self.unary = -NETWORK_WEIGHT * self.log_p - self.known_fit  # (n, LABELS): each cell's own terms
        self.pairs = similarity - SAME_DRAWING
        np.fill_diagonal(self.pairs, 0)
        self.counts = np.bincount([label for label, _ in logged], minlength=LABELS)
        self.slot_kinds = np.array([label for label, _ in logged], int)
        self.may_lie = np.zeros((len(cells), len(logged)), bool)
        for i, cell in enumerate(cells):
            self.may_lie[i] = [cell in where for _, where in logged]
        # a cell no logged decoration of a label may lie in cannot have that label
        self.off_log = ~np.stack([self.may_lie[:, self.slot_kinds == label].any(axis=1) for label in range(LABELS)], axis=1)
        # for each label and cell, the label's logged decorations (numbered within the label) it may be
        self._slots_of = [[np.flatnonzero(row).tolist() for row in self.may_lie[:, self.slot_kinds == label]]
                          for label in range(LABELS)]
        self._unplaced: dict[tuple[int, bytes], int] = {}

    def unplaced(self, labels: np.ndarray) -> int:
        """Cells of ``labels`` that no logged decoration can be: a cell may only be one of its
        own kind, so the matching falls apart into one per kind, each remembered."""
        return sum(self.unplaced_by_label(labels))

    def unplaced_by_label(self, labels: np.ndarray) -> list[int]:
        """unplaced_of_label of each label (the cells given each found at once)."""
        given = labels == _EACH_LABEL
        return [self._unplaced_given(label, given[label]) for label in range(LABELS)]

    def unplaced_of_label(self, label: int, labels: np.ndarray) -> int:
        """Cells given ``label`` in ``labels`` that no logged decoration of that label can be."""
        return self._unplaced_given(label, labels == label)

    def _unplaced_given(self, label: int, given: np.ndarray) -> int:
        """Cells ``given`` (a mask) ``label`` that no logged decoration of that label can be."""
        key = (label, given.tobytes())
        if key not in self._unplaced:
            slots = self._slots_of[label]
            rows = np.flatnonzero(given).tolist()
            self._unplaced[key] = len(rows) - len(maximum_matching([slots[row] for row in rows]))
        return self._unplaced[key]

    def energy(self, labels: np.ndarray) -> float:
        return self.energy_beyond(labels, self.energies_unplaced_aside(labels[None])[0])

    def energies(self, labellings: np.ndarray) -> list[float]:
        """Each of (m, n) ``labellings``' energy, the sums but the matching worked out at once."""
        asides = self.energies_unplaced_aside(labellings)
        return [self.energy_beyond(labels, aside) for labels, aside in zip(labellings, asides)]

    def energy_beyond(self, labels: np.ndarray, unplaced_aside: float) -> float:
        """``labels``' energy from its energy with unplaced cells aside (energies_unplaced_aside,
        the same to the last bit for one labelling as for many)."""
        return float(unplaced_aside + PLACE_COST * self.unplaced(labels))

    def energies_unplaced_aside(self, labellings: np.ndarray, alike_as: np.ndarray | None = None) -> np.ndarray:
        """(m,) the energies of (m, n) ``labellings`` less their unplaced cells' term: at most
        their energies, computed at once (the matching that counts unplaced cells is not).
        ``alike_as``: a labelling whose cells share a kind where each of theirs do (kinds traded
        for each other), whose pairs' term is then theirs: worked out once."""
        # in C order, so that each row's sums are added in the order one labelling's are (numpy
        # adds another array's in another order, and the energies then differ in the last bits)
        labellings = np.ascontiguousarray(labellings)
        drawn = DRAWN_AS[labellings if alike_as is None else alike_as[None]]
        alike = (self.pairs * (drawn[:, :, None] == drawn[:, None, :])).sum(axis=(1, 2)) / 2
        counts = (labellings[:, :, None] == np.arange(LABELS)).sum(axis=1)
        return (self.unary[np.arange(labellings.shape[1]), labellings].sum(axis=1) - alike
                + COUNT_COST * np.abs(counts - self.counts).sum(axis=1))

    def as_drawn(self, kinds: np.ndarray) -> np.ndarray:
        """Labels of cells whose drawings are ``kinds``: a tree late where its networks say so."""
        tree = KINDS.index(Decoration.TREE)
        return np.where((kinds == tree) & (self.log_p[:, LATE_TREE] > self.log_p[:, tree]), LATE_TREE, kinds)


class TrackedLabels:
    """Labels with what each of their energy's terms needs to judge one change kept at hand:
    each cell's summed pair terms with the cells of each kind of drawing (``alike``), each
    label's count, and each label's unplaced cells."""

    def __init__(self, problem: Problem, labels: np.ndarray):
        self.problem, self.labels, drawn = problem, labels, DRAWN_AS[labels]
        self.alike = np.stack([problem.pairs[:, drawn == kind].sum(axis=1) for kind in range(len(KINDS))], axis=1)
        self.label_counts = np.bincount(self.labels, minlength=LABELS)
        self.unplaced = problem.unplaced_by_label(self.labels)

    @functools.cached_property
    def change_rests(self) -> np.ndarray:
        """(n, LABELS) what giving each cell each label (another than its own) changes the energy
        by, its unplaced cells aside (dearest to count)."""
        labels, counts, wanted = self.labels, self.label_counts, self.problem.counts
        unary, cells = self.problem.unary, np.arange(len(self.labels))
        gained = np.abs(counts + 1 - wanted) - np.abs(counts - wanted)
        lost = np.abs(counts[labels] - 1 - wanted[labels]) - np.abs(counts[labels] - wanted[labels])
        rests = (unary - unary[cells, labels][:, None] + self.alike[cells, DRAWN_AS[labels]][:, None]
                 - self.alike[:, DRAWN_AS] + COUNT_COST * (gained[None, :] + lost[:, None]))
        return rests

    @functools.cached_property
    def swap_rests(self) -> np.ndarray:
        """(n, n) what swapping the labels of each two cells changes the energy by (the counts
        stay; the pair itself stays apart), their unplaced cells aside."""
        labels, drawn = self.labels, DRAWN_AS[self.labels]
        cells = np.arange(len(labels))
        unary = self.problem.unary[:, labels]  # [first, second]: first's unary term with second's label
        own = unary[cells, cells]
        rests = unary - own[:, None] + unary.T - own[None, :]
        alike = self.alike[:, drawn]  # [first, second]: first's pairs with the drawings of second's kind
        alike_own = alike[cells, cells]
        apart = drawn[:, None] != drawn[None, :]
        return rests + np.where(apart, alike_own[:, None] - alike + alike_own[None, :] - alike.T
                                + 2 * self.problem.pairs, 0.0)

    def change_floors(self) -> np.ndarray:
        """(n, LABELS) the least each change can be: its rest, less the most its unplaced cells
        can fall by (a label gaining a cell has no fewer unplaced, one losing a cell one fewer at
        the most, and none where it has none); math.inf on each cell's own label."""
        floors = self.change_rests - PLACE_COST * np.minimum(self.unplaced, 1)[self.labels][:, None]
        floors[np.arange(len(self.labels)), self.labels] = math.inf
        return floors

    def swap_floors(self) -> np.ndarray:
        """(n, n) the least each swap can be: its rest, less the most its unplaced cells can fall
        by (each of the two labels losing a cell and gaining one has one unplaced cell fewer at
        the most, and none fewer where it has none). Each pair of labels once (first < second):
        math.inf below the diagonal, and where the two share a label."""
        some_unplaced = np.minimum(self.unplaced, 1)[self.labels]
        floors = self.swap_rests - PLACE_COST * (some_unplaced[:, None] + some_unplaced[None, :])
        floors[(self.labels[:, None] == self.labels[None, :]) | np.tri(len(self.labels), dtype=bool)] = math.inf
        return floors

    def _unplaced_change(self, candidate: np.ndarray, first: int, second: int) -> float:
        return PLACE_COST * sum(self.problem.unplaced_of_label(label, candidate) - self.unplaced[label]
                                for label in (first, second))

    def change(self, cell: int, label: int) -> float:
        """What giving ``cell`` ``label`` (another than its own) changes the energy by."""
        old = self.labels[cell]
        candidate = self.labels.copy()
        candidate[cell] = label
        return float(self.change_rests[cell, label] + self._unplaced_change(candidate, old, label))

    def swap(self, first: int, second: int) -> float:
        """What swapping the labels of cells ``first`` and ``second`` (not alike) changes the energy by."""
        a, b = self.labels[first], self.labels[second]
        candidate = self.labels.copy()
        candidate[[first, second]] = b, a
        return float(self.swap_rests[first, second] + self._unplaced_change(candidate, a, b))