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
draw a decoration (decode.py): one digit misread everywhere is one misreading. A copy written
less alike than the rest falls into a group of its own; it strays from the group its most alike
digit is in (``stray_groups``), and the decoder also takes the group with its strays.

The written numbers' digits are the same writer's: each number box is cut into its digits
(``number_digit_boxes``), and where it shows as many as the number network reads, they are read
and grouped with the turn boxes' (a shape the turn boxes, which hold 1 to 6, read as 1 may be
what the number network reads as 7).
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
# A number patch (48 x 56 px, about 3 px/mm) less this much all round is its box's inside: the
# margin and the printed outline (a total's heavy one too) left out, as a box lands within a
# pixel or two of where the sheet's fit puts it.
NUMBER_INSET = 6
MINUS_HEIGHT = 0.3  # of the box's inside height: a mark less tall is a minus sign or a speck
TURN_DIGITS = 6  # a turn box holds the digits 1 to 6
DIGIT_VALUES = 10  # a turn's and a number's digits are read together as digits 0 to 9
MAX_ROUNDS = 20
KEEP_NETWORKS = 0.5  # of the networks' own probabilities kept: the decoder still sees their runner-up
# Digits grouped as one way of writing one digit: average likeness at least the sheet's threshold
# less GROUP_MARGIN. Looked at on validation photos (seed 78, coarse held-out writers): at 0.03 to
# 0.12 every group held one true digit, and a writer's 5s read as 6, 4, 2 and 5 formed one group.
GROUP_MARGIN = 0.05
HEAD_PARTS = {"first": "first", "second": "second", "place": "location"}  # a draw's heads and their boxes


@lru_cache(maxsize=1)
def part_windows(margin_mm: float, shape: tuple[int, int]) -> dict[str, tuple[slice, slice]]:
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
    """Digits written alike: one way the writer writes one digit. Each ``slots`` item is (turn
    index, head) of a turn box: a draw's "first", "second" and "place", a pruning's "first" (its
    die), "place" (its row) and "column"; ``probabilities`` their (m, 6) probabilities of the
    digits 1 to 6, as read together. Each ``numbers`` item is (number index, "tens" or "units") of
    a written number (in scoring order), ``number_probabilities`` their (k, 10) probabilities of
    the digits 0 to 9, as read together."""

    slots: tuple[tuple[int, str], ...]
    probabilities: np.ndarray
    numbers: tuple[tuple[int, str], ...] = ()
    number_probabilities: np.ndarray = field(default_factory=lambda: np.zeros((0, DIGIT_VALUES)))
    # turn digits alone in their own group whose most alike digit is in this one (``strays``),
    # with their (s, 6) ``stray_probabilities``: a copy written less alike than the rest
    strays: tuple[tuple[int, str], ...] = ()
    stray_probabilities: np.ndarray = field(default_factory=lambda: np.zeros((0, TURN_DIGITS)))

    @property
    def turn_digits_read(self) -> list[int]:
        """Each turn box copy's likeliest digit (1 to 6)."""
        return [int(digit) + 1 for digit in self.probabilities.argmax(axis=1)]

    @property
    def number_digits_read(self) -> list[int]:
        """Each written number copy's likeliest digit (0 to 9)."""
        return [int(digit) for digit in self.number_probabilities.argmax(axis=1)]


def digit_groups(likeness: np.ndarray) -> np.ndarray:
    """(n,) group numbers of n >= 2 digits from their (n, n) ``likeness``: average linkage, cut
    where the groups' likeness falls below the sheet's threshold less GROUP_MARGIN."""
    distance = np.clip(1 - likeness, 0, None)
    np.fill_diagonal(distance, 0)
    hierarchy = linkage(squareform(distance, checks=False), "average")
    return fcluster(hierarchy, 1 - (same_digit_likeness(likeness) - GROUP_MARGIN), "distance") - 1


def stray_groups(groups: np.ndarray, likeness: np.ndarray) -> np.ndarray:
    """(n,) for each of n digits grouped as ``groups`` (digit_groups), the group of more than one
    digit that it strays from, or -1: a digit alone in its group whose most alike other digit, at
    least SAME_DIGIT alike, lies in that group (a copy the writer wrote less alike than the rest:
    one digit misread everywhere may be misread in it too)."""
    sizes = np.bincount(groups)
    others = likeness.copy()
    np.fill_diagonal(others, -np.inf)
    nearest = others.argmax(axis=1)
    strays = groups[nearest]
    alone, near = sizes[groups] == 1, others[np.arange(len(groups)), nearest] >= SAME_DIGIT
    return np.where(alone & near & (sizes[strays] > 1), strays, -1)


def number_digit_boxes(inside: np.ndarray, inked: float) -> list[np.ndarray]:
    """A written number's digits, left to right, from the ink of its box's ``inside`` (within its
    printed outline): each run of columns holding a pixel above ``inked``, as tall as a digit
    (MINUS_HEIGHT); a minus sign or a speck is none."""
    inked_columns = np.flatnonzero((inside > inked).any(axis=0))
    if not inked_columns.size:
        return []
    gaps = np.flatnonzero(np.diff(inked_columns) > 1)
    starts = np.r_[inked_columns[0], inked_columns[gaps + 1]]
    stops = np.r_[inked_columns[gaps], inked_columns[-1]] + 1
    digits = []
    for start, stop in zip(starts, stops, strict=True):
        rows = np.flatnonzero((inside[:, start:stop] > inked).any(axis=1))
        if rows[-1] - rows[0] + 1 >= MINUS_HEIGHT * inside.shape[0]:
            digits.append(inside[:, start:stop])
    return digits


def _turn_digit_boxes(patches: np.ndarray, read_as: np.ndarray, kinds: tuple[str, ...],
                      margin_mm: float) -> dict[tuple[int, str], np.ndarray]:
    """The digit boxes of the turns ``read_as`` draws (two dice and a row or column) or prunings
    (a die, a row and a column), by (turn, head), cut from the turn ``patches``."""
    windows = part_windows(margin_mm, patches.shape[1:])
    rows, columns = windows["place"]
    middle = (columns.start + columns.stop) // 2  # a pruning writes its row and column side by side there
    pruning = {"first": windows["first"], "place": (rows, slice(columns.start, middle)),
               "column": (rows, slice(middle, columns.stop))}
    heads_read = {kinds.index(TurnKind.DRAW.value): windows, kinds.index(TurnKind.PRUNE.value): pruning}
    return {(int(turn), head): patches[turn][rows, columns]
            for turn in np.flatnonzero(np.isin(read_as, list(heads_read)))
            for head, (rows, columns) in heads_read[read_as[turn]].items()}


def _number_slots(digits_seen: list[list[np.ndarray]], reads: list[tuple[str, ...]]) -> dict[tuple[int, str], np.ndarray]:
    """The digits of the written numbers, by (number, head), where a number's box shows as many
    digits (``digits_seen``: number_digit_boxes of each) as are read of it (``reads``: its units,
    or its tens and units; a struck-out number, or digits that touch, is left out)."""
    slots = {}
    for number, (digits, read) in enumerate(zip(digits_seen, reads, strict=True)):
        if len(digits) == len(read):
            slots.update({(number, head): digit for head, digit in zip(read, digits, strict=True)})
    return slots


def two_digits_seen(digits_seen: list[list[np.ndarray]], reads: list[tuple[str, ...]]) -> dict[int, list[np.ndarray]]:
    """The written numbers read as one digit (``reads``) whose boxes show two (``digits_seen``:
    number_digit_boxes of each), by number: the two digits' ink, left to right (a tens the number
    network took for none, or one digit written in two strokes)."""
    return {number: digits for number, (digits, read) in enumerate(zip(digits_seen, reads, strict=True))
            if len(read) == 1 and len(digits) == 2}


def number_heads_read(has_tens: bool) -> tuple[str, ...]:
    """The heads of the number network a written number's digits are: its units, and its tens
    where it has two digits (``has_tens``)."""
    return ("tens", "units") if has_tens else ("units",)


def sheet_digit_boxes(turn_patches: np.ndarray, turns_read: np.ndarray, kinds: tuple[str, ...], margin_mm: float,
                      number_patches: np.ndarray, numbers_read: list[tuple[str, ...]],
                      ) -> tuple[dict[tuple[int, str], np.ndarray], dict[tuple[int, str], np.ndarray], float,
                                 dict[int, list[np.ndarray]]]:
    """A sheet's digit boxes, by (turn, head) and (number, head): those of the turns read as the
    ``kinds`` indices ``turns_read`` (cut from ``turn_patches``, of margin ``margin_mm``) and of the
    written numbers whose ``number_patches`` show as many digits as ``numbers_read``; the ink
    above which a pixel counts to a digit on this sheet (inked_threshold); and the digits of the
    numbers read as one whose boxes show two (two_digits_seen)."""
    turn_boxes = _turn_digit_boxes(turn_patches, turns_read, kinds, margin_mm)
    insides = [patch[NUMBER_INSET:-NUMBER_INSET, NUMBER_INSET:-NUMBER_INSET] for patch in number_patches]
    inked = inked_threshold([*turn_boxes.values(), *insides])
    digits_seen = [number_digit_boxes(inside, inked) for inside in insides]
    return turn_boxes, _number_slots(digits_seen, numbers_read), inked, two_digits_seen(digits_seen, numbers_read)


def _as_digits(p: np.ndarray, first: int) -> np.ndarray:
    """Probabilities of the digits ``first``, ``first`` + 1, ... as those of the digits 0 to 9."""
    digits = np.zeros(DIGIT_VALUES)
    digits[first : first + len(p)] = p / p.sum()
    return digits


def digits_together(turn_patches: np.ndarray, turn_heads: dict[str, np.ndarray], kinds: tuple[str, ...],
                    margin_mm: float, number_patches: np.ndarray, number_heads: dict[str, np.ndarray],
                    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], tuple[DigitGroup, ...],
                               dict[tuple[int, str], np.ndarray], dict[int, list[np.ndarray]]]:
    """The turn network's ``turn_heads`` ((12, k) each) and the number network's ``number_heads``
    ((9, k) each) with the writer's digits read together (read_together): the turns read as draws
    (two dice and a row or column) or prunings (a die, a row and a column), and the written
    numbers' digits where their boxes show as many as are read; and those digits grouped as the
    writer wrote them alike (every group, a lone digit's too); and the written numbers' digits
    so read (their ink by (number, head): sheet_digit_boxes); and the digits of the numbers read
    as one digit whose boxes show two (two_digits_seen). ``turn_patches``: the (12, h, w) turn
    patches they were read from, ``kinds`` the kind head's classes, ``margin_mm`` the turn
    patches' margin; ``number_patches`` the (9, h, w) number patches."""
    numbers_read = [number_heads_read(bool(tens.argmax())) for tens in number_heads["tens"]]  # its "none" first
    turn_boxes, number_boxes, inked, seen_as_two = sheet_digit_boxes(turn_patches, turn_heads["kind"].argmax(axis=1), kinds,
                                                                     margin_mm, number_patches, numbers_read)
    if len(turn_boxes) + len(number_boxes) < 2:
        return turn_heads, number_heads, (), number_boxes, seen_as_two
    slots, vectors, probabilities = [], [], []
    for (index, head), box in [*turn_boxes.items(), *number_boxes.items()]:
        vector = digit_vector(box, inked)
        if vector is not None:
            in_turn = (index, head) in turn_boxes
            slots.append((in_turn, index, head))
            vectors.append(vector)
            p = (turn_heads if in_turn else number_heads)[head][index]
            # a turn's digit is 1 to 6, a tens 1 to 9 (its "none" first), a units 0 to 9
            probabilities.append(_as_digits(p, 1) if in_turn else _as_digits(p[1:], 1) if head == "tens" else _as_digits(p, 0))
    if len(slots) < 2:
        return turn_heads, number_heads, (), number_boxes, seen_as_two
    vectors = np.array(vectors)
    likeness = vectors @ vectors.T
    together = read_together(np.array(probabilities), likeness)
    adjusted_turns = {head: p.copy() for head, p in turn_heads.items()}
    adjusted_numbers = {head: p.copy() for head, p in number_heads.items()}
    for (in_turn, index, head), p in zip(slots, together, strict=True):
        if in_turn:
            adjusted_turns[head][index] = p[1 : 1 + TURN_DIGITS] / p[1 : 1 + TURN_DIGITS].sum()
        elif head == "tens":  # the chance it holds no tens stays the network's
            adjusted_numbers[head][index, 1:] = p[1:] / p[1:].sum() * (1 - number_heads[head][index, 0])
        else:
            adjusted_numbers[head][index] = p
    groups = digit_groups(likeness)
    in_turns = np.array([in_turn for in_turn, _, _ in slots])
    strays_from = np.where(in_turns, stray_groups(groups, likeness), -1)
    where = [(index, head) for _, index, head in slots]
    turn_probabilities = np.array([adjusted_turns[head][index] if in_turn else np.zeros(TURN_DIGITS)
                                   for in_turn, index, head in slots])

    def group_of(group: int) -> DigitGroup:
        members, strays = np.flatnonzero(groups == group), np.flatnonzero(strays_from == group)
        turns, numbers = members[in_turns[members]], members[~in_turns[members]]
        return DigitGroup(tuple(where[i] for i in turns), turn_probabilities[turns],
                          tuple(where[i] for i in numbers), together[numbers],
                          tuple(where[i] for i in strays), turn_probabilities[strays])

    return (adjusted_turns, adjusted_numbers, tuple(group_of(group) for group in range(groups.max() + 1)), number_boxes,
            seen_as_two)
