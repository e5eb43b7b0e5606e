"""One writer's digits read together: a player writes each digit alike all over a sheet.

A writer the networks never saw may write a digit they read as another in every turn box (each
5 read as a 6). Those 5s are unlike the writer's own 6s, and alike to each other. So the
digits of the turn boxes (a draw's two dice and its row or column, a pruning's die, row and
column) are read together, minimising

    - the sum of log p(digit) over the digits, as the networks read them
    - DIGIT_WEIGHT x the sum, over two digits read alike, of (their likeness - the sheet's threshold)

by iterated conditional modes from the networks' reading. Each digit's probabilities become the
mean of its networks' and of its networks' times what the sheet's other digits, so read, say of
it (KEEP_NETWORKS): the decoder weighs those, and still sees the networks' runner-up.
Likeness: the correlation of the two digits' ink, each cut from its box, fitted to a square by
its inked extent and blurred (``digit_vector``). The threshold is the sheet's own: a little below
how alike the writer's copies of a digit are (``same_digit_likeness``): a writer whose 4 is
much like their 1 still copies each 4 more closely than that.

Where the networks read a writer's digit as another with confidence, no likeness outweighs them.
The digits are then also grouped by likeness (``DigitGroup``: each group one way the writer
writes one digit), and the decoder may take a whole group as another digit, as it takes a way to
draw a decoration (decode.py): one digit misread everywhere is one misreading.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform

from sheetscan.design.layout import load_layout
from sheetscan.game.garden import TurnKind
from sheetscan.names import DEFAULT_LAYOUT

# Chosen on validation photos (none a bench figure's). The draws' digits read right, and sheets
# with every such digit right: held-out writers, seed 80 (100 phone sheets) 96.2% and 62 by the
# networks, 97.7% and 80 together (weights 1 to 5 and likeness 0.6 to 0.8: 74 to 83); seed 78
# (40) 98.4% and 33, 98.8% and 34; own writers, seed 77 (40) 98.5% and 33, 99.6% and 36. The
# decoder's exact totals, with the networks' probabilities kept half: seed 80 73 -> 83 of 100,
# seed 78 37 -> 37 of 40 (35 with none kept), own hands seed 77 40 -> 39 of 40.
DIGIT_WEIGHT = 3.0
SAME_DIGIT = 0.8  # likeness (a correlation, -1 to 1) above which two digits are alike, at least
# The sheet's threshold: its median digit's likeness to its most alike other, less COPY_MARGIN,
# kept from SAME_DIGIT to SAME_DIGIT_CEILING. Validation (draws' digits right; sheets with every
# one right), fixed 0.8 against this: own seed 77 99.16%, 33 -> 99.24%, 33; held out seed 80
# 97.68%, 76 -> 98.23%, 77; the pad's own seed 77 98.11%, 30 -> 98.28%, 30; writers who vary each
# digit, own 98.76%, 29 -> 98.76%, 29, held out 96.74%, 24 -> 96.68%, 24 (margins 0.02 to 0.1:
# 74 to 77 on seed 80).
COPY_MARGIN = 0.04
SAME_DIGIT_CEILING = 0.95
DIGIT_SIDE = 20  # px: a digit fitted into (DIGIT_SIDE - 4) px, blurred by DIGIT_BLUR
DIGIT_BLUR = 1.0
INKED = 0.3  # ink above which a pixel counts to a digit's extent, on a sheet written in a dark pen
# A light pen (a pencil: its strokes 0.3 to 0.45 ink) lies near INKED, so its digits' extents
# were their strokes' cores, and a faint copy none at all (an empty box, left out of the
# writer's digits). Below a dark pen the threshold is this share of the sheet's ink (the 75th
# percentile of its digit boxes' darkest pixels), never below PRINTED_INK: the boxes' printed
# outlines, inside a digit's box, show up to about 0.2 ink in a scan.
LIGHT_PEN_SHARE = 0.55
PRINTED_INK = 0.2
SHEET_INK_PERCENTILE = 75
MIN_INKED = 3  # pixels: less is an empty box
MAX_ROUNDS = 20
KEEP_NETWORKS = 0.5  # of the networks' own probabilities kept: the decoder still sees their runner-up
# Digits grouped as one way of writing one digit: average likeness at least the sheet's threshold
# less GROUP_MARGIN. Looked at on validation photos (seed 78, coarse held-out writers): at 0.03 to
# 0.12 every group held one true digit, and a writer's 5s read as 6, 4, 2 and 5 formed one group.
GROUP_MARGIN = 0.05
HEAD_PARTS = {"first": "first", "second": "second", "place": "location"}  # a draw's heads and their boxes


@lru_cache(maxsize=1)
def _part_windows(margin_mm: float, shape: tuple[int, int]) -> dict[str, tuple[slice, slice]]:
    """Where each digit box of a turn lies in a turn patch (the trained design's frame, which
    boxes.turn_patches maps every design to): rows and columns of the patch."""
    layout = load_layout(DEFAULT_LAYOUT)
    box = layout.region("turn_0")
    scale_y, scale_x = shape[0] / (box.h + 2 * margin_mm), shape[1] / (box.w + 2 * margin_mm)
    windows = {}
    for head, part in HEAD_PARTS.items():
        region = layout.turn_part(0, part)
        x0, y0 = region.x - box.x + margin_mm, region.y - box.y + margin_mm
        windows[head] = (slice(round(y0 * scale_y), round((y0 + region.h) * scale_y)),
                         slice(round(x0 * scale_x), round((x0 + region.w) * scale_x)))
    return windows


def inked_threshold(boxes: list[np.ndarray]) -> float:
    """The ink above which a pixel counts to a digit's extent on a sheet whose digit ``boxes``
    (ink, 0 to 1) these are: INKED, or less for a light pen (LIGHT_PEN_SHARE)."""
    sheet_ink = float(np.percentile([box.max() for box in boxes], SHEET_INK_PERCENTILE))
    return float(np.clip(LIGHT_PEN_SHARE * sheet_ink, PRINTED_INK, INKED))


def digit_vector(ink: np.ndarray, inked: float = INKED) -> np.ndarray | None:
    """A digit's (DIGIT_SIDE**2,) unit vector of zero mean from its box's (h, w) ink (0 to 1):
    its extent (the pixels above ``inked``) fitted into a square and blurred; None for an empty box."""
    rows, columns = np.nonzero(ink > inked)
    if len(rows) < MIN_INKED:
        return None
    digit = ink[rows.min():rows.max() + 1, columns.min():columns.max() + 1].astype(np.float32)
    scale = (DIGIT_SIDE - 4) / max(digit.shape)
    width, height = max(1, round(digit.shape[1] * scale)), max(1, round(digit.shape[0] * scale))
    digit = cv2.resize(digit, (width, height), interpolation=cv2.INTER_AREA)
    square = np.zeros((DIGIT_SIDE, DIGIT_SIDE), np.float32)
    top, left = (DIGIT_SIDE - height) // 2, (DIGIT_SIDE - width) // 2
    square[top:top + height, left:left + width] = digit
    square = cv2.GaussianBlur(square, (0, 0), DIGIT_BLUR).ravel()
    square -= square.mean()
    norm = np.linalg.norm(square)
    return square / norm if norm > 0 else None


def same_digit_likeness(likeness: np.ndarray) -> float:
    """The likeness above which two of a sheet's n >= 2 digits count as one digit, from their
    (n, n) ``likeness``: a little below how alike the writer's copies of one digit are."""
    others = likeness.copy()
    np.fill_diagonal(others, -1)
    return float(np.clip(np.median(others.max(axis=1)) - COPY_MARGIN, SAME_DIGIT, SAME_DIGIT_CEILING))


def read_together(probabilities: np.ndarray, likeness: np.ndarray) -> np.ndarray:
    """(n, k) probabilities of n >= 2 digits read together with their (n, n) ``likeness`` (see the
    module's note): each row its networks' times what the others, as read together, say of it."""
    n, values = probabilities.shape
    unary = np.log(np.clip(probabilities, 1e-4, 1))
    pairs = DIGIT_WEIGHT * (likeness - same_digit_likeness(likeness))
    np.fill_diagonal(pairs, 0)
    read = probabilities.argmax(axis=1)
    for _ in range(MAX_ROUNDS):
        changed = False
        for i in range(n):
            best = int(np.argmax(unary[i] + pairs[i] @ np.eye(values)[read]))
            changed |= best != read[i]
            read[i] = best
        if not changed:
            break
    together = unary + pairs @ np.eye(values)[read]
    together = np.exp(together - together.max(axis=1, keepdims=True))
    together = together / together.sum(axis=1, keepdims=True)
    return KEEP_NETWORKS * probabilities + (1 - KEEP_NETWORKS) * together


@dataclass(frozen=True)
class DigitGroup:
    """Digits of the turn boxes written alike: one way the writer writes one digit. Each ``slots``
    item is (turn index, head): a draw's "first", "second" and "place", a pruning's "first" (its
    die), "place" (its row) and "column"; ``probabilities`` their (m, 6) probabilities of the
    digits 1 to 6, as read together."""

    slots: tuple[tuple[int, str], ...]
    probabilities: np.ndarray


def digit_groups(likeness: np.ndarray) -> np.ndarray:
    """(n,) group numbers of n >= 2 digits from their (n, n) ``likeness``: average linkage, cut
    where the groups' likeness falls below the sheet's threshold less GROUP_MARGIN."""
    distance = np.clip(1 - likeness, 0, None)
    np.fill_diagonal(distance, 0)
    hierarchy = linkage(squareform(distance, checks=False), "average")
    return fcluster(hierarchy, 1 - (same_digit_likeness(likeness) - GROUP_MARGIN), "distance") - 1


def turn_digits_together(patches: np.ndarray, heads: dict[str, np.ndarray], kinds: tuple[str, ...],
                         margin_mm: float) -> tuple[dict[str, np.ndarray], tuple[DigitGroup, ...]]:
    """The turn network's ``heads`` ((12, k) each) with the digits of the turns read as draws
    (two dice and a row or column) or prunings (a die, a row and a column) read together
    (read_together), and those digits grouped as the writer wrote them alike (every group, a
    lone digit's too); ``patches``: the (12, h, w) turn patches they were read from, ``kinds``
    the kind head's classes, ``margin_mm`` the patches' margin."""
    windows = _part_windows(margin_mm, patches.shape[1:])
    rows, columns = windows["place"]
    middle = (columns.start + columns.stop) // 2  # a pruning writes its row and column side by side there
    pruning = {"first": windows["first"], "place": (rows, slice(columns.start, middle)),
               "column": (rows, slice(middle, columns.stop))}
    read_as = heads["kind"].argmax(axis=1)
    heads_read = {kinds.index(TurnKind.DRAW.value): windows, kinds.index(TurnKind.PRUNE.value): pruning}
    boxes = {(int(turn), head): patches[turn][rows, columns]
             for turn in np.flatnonzero(np.isin(read_as, list(heads_read)))
             for head, (rows, columns) in heads_read[read_as[turn]].items()}
    if len(boxes) < 2:
        return heads, ()
    inked = inked_threshold(list(boxes.values()))
    slots, vectors = [], []
    for slot, box in boxes.items():
        vector = digit_vector(box, inked)
        if vector is not None:
            slots.append(slot)
            vectors.append(vector)
    if len(slots) < 2:
        return heads, ()
    vectors = np.array(vectors)
    likeness = vectors @ vectors.T
    together = read_together(np.array([heads[head][turn] for turn, head in slots]), likeness)
    adjusted = {head: p.copy() for head, p in heads.items()}
    for (turn, head), p in zip(slots, together, strict=True):
        adjusted[head][turn] = p
    groups = digit_groups(likeness)
    members = [np.flatnonzero(groups == group) for group in range(groups.max() + 1)]
    return adjusted, tuple(DigitGroup(tuple(slots[i] for i in group), together[group]) for group in members)
