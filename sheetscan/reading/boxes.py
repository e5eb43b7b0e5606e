"""Read the sheet's boxes: the 12 turn boxes, the bonsai leaves and pond icons, the written scores.

Each box kind has one small multi-head network (see cnn.py). A turn box is read whole: its
kind (draw, prune, X) and each digit it can hold, so the digits are read in their place and
an X drawn across the sub-boxes is seen as one stroke. A written number is read as its sign,
tens and units. Each digit is also read alone (lone_digits.py). Every reading keeps its
probabilities, so the decoder can weigh the runners-up.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Mapping

import cv2
import numpy as np

from sheetscan.reading.digits import DigitGroup, digits_together, part_windows
from sheetscan.reading.ink import ink_map
from sheetscan.reading.lone_digits import (ALONE_HEADS, DIGIT_MODEL_PATH, DIGIT_PATCH, joined, joined_number_heads,
                                           load_digit_networks, number_digits_alone, one_or_two_digits)
from sheetscan.reading.networks import (Ensemble, Network, for_sheet_size, head_classes, load_ensembles, model_paths,
                                        shipped_model_set, split_heads)
from sheetscan.game.garden import Turn, TurnKind
from sheetscan.design.layout import TURN_PARTS, Layout, Region, load_layout
from sheetscan.names import DEFAULT_LAYOUT
from sheetscan.reading.rectify import CANONICAL_PX_PER_MM
from sheetscan.game.rules import CATEGORIES, MAX_PRUNINGS
from sheetscan.game.score import points_bounds

# Two box models trained on the same run, the second with table photos too (train.PLANS "boxes"
# and "boxes-tables"). A sheet on a table photo may have 1.2 to 3 px/mm, where a turn log read
# by the first alone is often wrong and leads the decoder to change right cells; a sheet read
# at less than networks.SMALL_SHEET_PX_PER_MM gets the average of both. On validation photos (seeds
# 77-82, none a bench figure's), wrong totals of table sheets: 14 of 449 with the first alone,
# 10 with both on every sheet, 10 with both below 2.5 px/mm (137 sheets). Above that, both on
# every sheet changed no total (298 sheets alone) and cost 9 ms a sheet (read_boxes 14 -> 23 ms).
DEFAULT_BOX_MODEL_PATHS = (shipped_model_set("boxes"), shipped_model_set("boxes_tables"))
BOX_MODEL_PATHS = model_paths("SHEETSCAN_BOX_MODEL", DEFAULT_BOX_MODEL_PATHS)
BOX_REBUILD_COMMAND = "sheetscan train --networks boxes; sheetscan train --networks boxes-tables"
TURNS = 12
DIGITS = tuple(str(d) for d in range(1, 7))
TURN_CLASSES = (*(f"kind:{k.value}" for k in TurnKind), *(f"first:{d}" for d in DIGITS),
                *(f"second:{d}" for d in DIGITS), *(f"place:{d}" for d in DIGITS),
                *(f"column:{d}" for d in DIGITS))
MARK_CLASSES = ("blank", "marked")
NUMBER_CLASSES = ("sign:+", "sign:-", "tens:none", *(f"tens:{d}" for d in range(1, 10)),
                  *(f"units:{d}" for d in range(10)))
CANDIDATES = 12  # readings kept per turn box for the decoder
# A turn box or written number whose reading is unsure (a head's likeliest class below this) is
# read again moved a pixel up, down, left and right, and the five readings averaged: a writer's
# digit the networks never saw may read as another a pixel off. Validation (held out, seeds 77
# and 78 with coarse varied digits, 80; 40 phone sheets each): turn boxes first read right
# 422, 424, 450 of 480 -> 424, 432, 454; written numbers 332, 336, 342 of 360 -> 335, 340, 344;
# own hands (79) the same. Every box read so: about as good, and own hands' reads 30% slower.
SHIFTED_READ_BELOW = 0.9
# the digit heads that read each kind of turn (turn_digits' keys, in order); a skip has none
TURN_HEADS = {TurnKind.DRAW: ("first", "second", "place"), TurnKind.PRUNE: ("first", "place", "column")}
# A struck-out number beside the rewritten one makes the number reader unsure of every digit:
# the right value then ranks 35th to 55th of the 220 (seed 21 and validation seeds), still
# within what the decoder may take. Keep that many, so that it can.
NUMBER_CANDIDATES = 64
# A number beyond what its category can give on any garden by more than a player's miscount is
# misread (a struck-out digit read as a tens: the lanterns' 6 as 56). Validation (held out, 4,230
# numbers): 26 first read wrong read right, none the other way; at 5, 20 (docs/benchmarks.md).
SLIP_ALLOWANCE = 3
# Each digit of a turn box and of a written number is read alone as well (lone_digits.py). On
# validation photos of held-out hands (phone, coarse varied digits): a turn's, a draw's digits
# read right 95.4% -> 97.4% (seeds 79 and 80, 2,619); exact totals 139 -> 147 of 160, sure 70 ->
# 82 (seeds 79-81, 83). A number's, its numbers read right 90.0% -> 94.4% (seeds 79-81, 1,080);
# exact 147 -> 148, sure 82 -> 104 (docs/models.md).
DIGIT_BOX_GROWTH_PX = 3  # in the turn patch, about 1 mm


@dataclass(frozen=True)
class PatchSpec:
    """How a box becomes a network input: the box grown by ``margin_mm``, resized to ``shape``."""

    margin_mm: float
    shape: tuple[int, int]  # (height, width) pixels, multiples of 8 (three 2x2 poolings)


TURN_PATCH = PatchSpec(1.0, (48, 104))  # 35 x 16 mm: about 3 px/mm, digits 15-25 px tall
MARK_PATCH = PatchSpec(1.0, (32, 32))
NUMBER_PATCH = PatchSpec(0.5, (48, 56))  # 18.5 x 16 mm


def box_regions(layout: Layout) -> dict[str, list[Region]]:
    """The regions each box network reads, in sheet order: turns, marks (3 leaves then 4 pond
    icons), numbers (one per scoring category)."""
    return {
        "turn": [layout.region(f"turn_{i}") for i in range(TURNS)],
        "mark": [layout.region(f"leaf_{i}") for i in range(MAX_PRUNINGS)]
        + [layout.region(f"pond_icon_{i}") for i in range(len(layout.of_kind("pond_icon")))],
        "number": [layout.region(f"score_{category}") for category in CATEGORIES],
    }


PATCHES = {"turn": TURN_PATCH, "mark": MARK_PATCH, "number": NUMBER_PATCH}
CLASSES = {"turn": TURN_CLASSES, "mark": MARK_CLASSES, "number": NUMBER_CLASSES}


def region_patches(canonical: np.ndarray, regions: list[Region], spec: PatchSpec,
                   px_per_mm: float = CANONICAL_PX_PER_MM) -> np.ndarray:
    """(n, h, w) float32 ink patches of ``regions`` of a canonical sheet image."""
    height, width = spec.shape
    patches = np.empty((len(regions), height, width), np.float32)
    for index, region in enumerate(regions):
        x0 = int(round((region.x - spec.margin_mm) * px_per_mm))
        y0 = int(round((region.y - spec.margin_mm) * px_per_mm))
        x1 = int(round((region.x + region.w + spec.margin_mm) * px_per_mm))
        y1 = int(round((region.y + region.h + spec.margin_mm) * px_per_mm))
        crop = canonical[max(y0, 0) : y1, max(x0, 0) : x1]
        patches[index] = ink_map(cv2.resize(crop, (width, height), interpolation=cv2.INTER_AREA))
    return patches


def _turn_knots(layout: Layout, index: int, margin_mm: float, trained: Layout) -> tuple[np.ndarray, np.ndarray]:
    """Per axis (x, y), in mm from the turn box's corner: its edges and margin; along y its
    sub-boxes' edges, along x each sub-box's centre plus and minus half the ``trained`` design's
    sub-box width, scaled as its height is to the trained one's (a digit is written to its box's
    height, and so keeps the shape the networks learnt). For the trained design, its edges."""
    box = layout.region(f"turn_{index}")
    parts = [layout.turn_part(index, part) for part in TURN_PARTS]
    known = [trained.turn_part(0, part) for part in TURN_PARTS]
    sides = [p.x + p.w / 2 - box.x + side * k.w / 2 * p.h / k.h for p, k in zip(parts, known, strict=True)
             for side in (-1, 1)]
    x = [-margin_mm, 0, box.w, box.w + margin_mm, *sides]
    y = [-margin_mm, 0, box.h, box.h + margin_mm, *(e - box.y for p in parts for e in (p.y, p.y + p.h))]
    return np.array(x), np.array(y)


@lru_cache(maxsize=1)
def _trained_layout() -> Layout:
    return load_layout(DEFAULT_LAYOUT)


def turn_patches(canonical: np.ndarray, layout: Layout, px_per_mm: float = CANONICAL_PX_PER_MM) -> np.ndarray:
    """(12, h, w) float32 ink patches of the turn boxes. The box networks trained on one design:
    another design's turn box (the pad's is 10 mm tall, its digit boxes 7 x 7.6 mm, not 8 x 10)
    is stretched, piece by piece along each axis, so that its box, digit boxes and location
    box land where the trained design's are, and its digits have the shape the networks know."""
    regions = box_regions(layout)["turn"]
    trained = _turn_knots(_trained_layout(), 0, TURN_PATCH.margin_mm, _trained_layout())
    designs = [_turn_knots(layout, index, TURN_PATCH.margin_mm, _trained_layout()) for index in range(len(regions))]
    if all(np.allclose(k, t) for knots in designs for k, t in zip(knots, trained, strict=True)):
        return region_patches(canonical, regions, TURN_PATCH, px_per_mm)
    height, width = TURN_PATCH.shape
    patches = np.empty((len(regions), height, width), np.float32)
    for index, (region, knots) in enumerate(zip(regions, designs, strict=True)):
        axes = []
        for origin, trained_knots, design_knots in zip((region.x, region.y), trained, knots, strict=True):
            # sub-boxes side by side share edges: one knot each, where this design's are averaged
            at, which = np.unique(trained_knots, return_inverse=True)
            to = np.maximum.accumulate(np.bincount(which, design_knots) / np.bincount(which))  # never folded back
            # pixel centres of the trained design's patch, in its mm, then in this design's
            trained_mm = at[0] + (np.arange(int(round((at[-1] - at[0]) * px_per_mm))) + 0.5) / px_per_mm
            axes.append(((origin + np.interp(trained_mm, at, to)) * px_per_mm - 0.5).astype(np.float32))
        map_x, map_y = np.meshgrid(*axes)
        warped = cv2.remap(canonical, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        patches[index] = ink_map(cv2.resize(warped, (width, height), interpolation=cv2.INTER_AREA))
    return patches


def sheet_box_patches(canonical: np.ndarray, layout: Layout) -> dict[str, np.ndarray]:
    """Every box network's patches of one sheet: what they read, in training and reading alike."""
    return {kind: turn_patches(canonical, layout) if kind == "turn" else region_patches(canonical, regions, PATCHES[kind])
            for kind, regions in box_regions(layout).items()}


def digit_patches(patches_of_turns: np.ndarray) -> dict[str, np.ndarray]:
    """Per digit head of a draw (first, second, place): the (n, *DIGIT_PATCH) float32 patches of
    that digit's box in each of ``patches_of_turns`` (the trained design's frame), grown by
    DIGIT_BOX_GROWTH_PX: a stroke may overrun its box."""
    grow = DIGIT_BOX_GROWTH_PX
    patches = {}
    for head, (rows, columns) in part_windows(TURN_PATCH.margin_mm, TURN_PATCH.shape).items():
        crops = patches_of_turns[:, max(rows.start - grow, 0) : rows.stop + grow, max(columns.start - grow, 0) : columns.stop + grow]
        patches[head] = np.array([cv2.resize(crop, DIGIT_PATCH[::-1], interpolation=cv2.INTER_AREA) for crop in crops],
                                 np.float32).reshape(len(crops), *DIGIT_PATCH)
    return patches


@dataclass(frozen=True)
class BoxModels:
    """The box networks of one or more model files, each kind read as one ensemble; and the
    networks that read each digit alone (lone_digits.DIGIT_MODEL_PATH): a turn's, a number's."""

    turn: Ensemble
    mark: Ensemble
    number: Ensemble
    digit: Network
    number_digit: Network


def load_box_models(paths: tuple[Path, ...] = BOX_MODEL_PATHS) -> BoxModels:
    """The trained box networks of ``paths`` and the digit networks, loaded once in a process; a
    missing or foreign file is a ModelError."""
    return _loaded_box_models(tuple(paths))


@lru_cache(maxsize=4)  # keyed by the paths alone: asked with its default or with it, loaded once
def _loaded_box_models(paths: tuple[Path, ...]) -> BoxModels:
    return BoxModels(**load_ensembles(paths, CLASSES, BOX_REBUILD_COMMAND), **load_digit_networks(DIGIT_MODEL_PATH))


def box_models_for(px_per_mm: float, paths: tuple[Path, ...] = BOX_MODEL_PATHS) -> BoxModels:
    """The box networks for a sheet seen at ``px_per_mm`` photo pixels: those of every file of
    ``paths`` for a small sheet, of the first alone otherwise."""
    return for_sheet_size(load_box_models(paths), px_per_mm)


@dataclass(frozen=True)
class Candidate:
    """One reading of a box and its probability under the network."""

    value: object  # a Turn, a bool (marked) or an int (a written number)
    probability: float


@dataclass(frozen=True)
class BoxReading:
    """The boxes of one sheet as read, each with its best candidates, most likely first."""

    turns: tuple[tuple[Candidate, ...], ...]  # 12 boxes
    leaves: tuple[tuple[Candidate, ...], ...]  # 3 leaves: marked or not
    pond_icons: tuple[tuple[Candidate, ...], ...]  # 4 icons
    written: dict[str, tuple[Candidate, ...]]  # per scoring category
    digit_groups: tuple[DigitGroup, ...] = ()  # the turns' and numbers' digits as the writer wrote them alike (digits.py)


def without_written(boxes: BoxReading) -> BoxReading:
    """``boxes`` as if no number were written: the turn boxes and marks alone, each way the
    writer writes a digit kept for the turn boxes it is in."""
    groups = tuple(replace(group, numbers=(), number_probabilities=group.number_probabilities[:0])
                   for group in boxes.digit_groups if group.slots)
    return replace(boxes, written={}, digit_groups=groups)


def turn_digits(turn: Turn) -> dict[str, int]:
    """The digits of ``turn`` by the turn network's head that reads each: a draw's "first" and
    "second" dice and its "place" (row or column), a pruning's "first" die, "place" (its row)
    and "column"; none for a skip."""
    if turn.kind is TurnKind.DRAW:
        return {"first": turn.dice[0], "second": turn.dice[1], "place": turn.location}
    if turn.kind is TurnKind.PRUNE:
        return {"first": turn.dice[0], "place": turn.cell[0] + 1, "column": turn.cell[1] + 1}
    return {}


def turn_of_digits(kind: TurnKind, digits: Mapping[str, int]) -> Turn:
    """The draw or pruning whose heads read ``digits`` (turn_digits' inverse)."""
    if kind is TurnKind.DRAW:
        return Turn(kind, (digits["first"], digits["second"]), location=digits["place"])
    return Turn(kind, (digits["first"],), cell=(digits["place"] - 1, digits["column"] - 1))


def turn_candidates(heads: dict[str, np.ndarray], alone: dict[str, np.ndarray] | None = None) -> tuple[Candidate, ...]:
    """The CANDIDATES likeliest readings of one turn box from its heads' probabilities (1-D
    each), every digit of every head weighed: a writer the networks never saw may have a digit
    its head ranks third in a reading likelier than most. (Turn boxes first read wrong on
    validation photos of held-out hands, digits from a coarse source written anew in each box,
    seeds 77 and 78: the true reading was a candidate for 70 of 114 from each head's two
    likeliest digits, for 111 from every digit.)"""
    kinds = [TurnKind(k) for k in head_classes(TURN_CLASSES)["kind"]]
    heads = {head: p.astype(np.float64) for head, p in heads.items()}  # products in double precision
    reads, joint = [], []
    for kind, p_kind in zip(kinds, heads["kind"], strict=True):
        read = TURN_HEADS.get(kind, ())
        reads.append((kind, read))
        if not read:
            joint.append(np.array([p_kind]))
            continue
        first, second, third = (joined(heads[head], alone[head]) if alone is not None and head in ALONE_HEADS[kind]
                                else heads[head] for head in read)
        joint.append((((p_kind * first)[:, None, None] * second[None, :, None]) * third[None, None, :]).ravel())
    starts = np.cumsum([0, *map(len, joint)])
    joint = np.concatenate(joint)
    candidates = []
    for index in np.argsort(-joint, kind="stable")[:CANDIDATES].tolist():
        which = int(np.searchsorted(starts, index, side="right")) - 1
        kind, read = reads[which]
        digits = np.unravel_index(index - starts[which], (len(DIGITS),) * len(read)) if read else ()
        digit_of = {head: int(DIGITS[int(i)]) for head, i in zip(read, digits, strict=True)}
        candidates.append(Candidate(turn_of_digits(kind, digit_of) if read else Turn(kind), float(joint[index])))
    return tuple(candidates)


def number_candidates(heads: dict[str, np.ndarray], alone: dict[str, np.ndarray] | None = None,
                      bounds: tuple[int, int] | None = None,
                      two_seen: dict[str, np.ndarray] | None = None) -> tuple[Candidate, ...]:
    """The most likely written numbers from the sign, tens and units heads (1-D each), joined
    with the digits read ``alone`` ((10,) each, by head) where there are some: each number's
    probability the sum of its ways to be written ("-0" and "0", "07" and "7" are one number).
    With ``bounds`` (the least and most points the number's category can give), a number beyond
    them by more than SLIP_ALLOWANCE is a misreading: none is a candidate, unless every one is.
    ``two_seen``: the two digits ((10,) each, "tens" and "units") read alone of a box that shows
    two where the heads read one: the number is one digit or those two (one_or_two_digits)."""
    numbers, number_of_way = _written_numbers()
    if two_seen:
        one, as_one, as_two = one_or_two_digits(heads, two_seen)
        ways = one * _ways(as_one) + (1 - one) * _ways(as_two)
    else:
        ways = _ways(joined_number_heads(heads, alone or {}))
    joint = np.bincount(number_of_way, weights=ways.ravel())  # each number's ways added in turn, in their order
    if bounds is not None:
        values = np.array(numbers)
        possible = np.where((values >= bounds[0] - SLIP_ALLOWANCE) & (values <= bounds[1] + SLIP_ALLOWANCE), joint, 0)
        if possible.sum() > 0:
            joint = possible / possible.sum()
    return tuple(Candidate(numbers[index], float(joint[index]))
                 for index in np.argsort(-joint, kind="stable")[:NUMBER_CANDIDATES].tolist())


def _ways(heads: dict[str, np.ndarray]) -> np.ndarray:
    """(signs, tens, units) the chance of each way to write a number, from its heads."""
    return (heads["sign"][:, None, None] * heads["tens"][None, :, None]) * heads["units"][None, None, :]


@lru_cache(maxsize=None)
def _written_numbers() -> tuple[list[int], np.ndarray]:
    """The numbers the sign, tens and units heads' classes write, in the order of their first
    way (the heads' classes in turn, the units' fastest), and the number each way writes."""
    names = head_classes(NUMBER_CLASSES)
    written = [-value if sign == "-" else value
               for sign, tens, units in itertools.product(names["sign"], names["tens"], names["units"])
               for value in [(0 if tens == "none" else 10 * int(tens)) + int(units)]]
    numbers = list(dict.fromkeys(written))
    return numbers, np.array([numbers.index(value) for value in written])


def mark_candidates(p_marked: float) -> tuple[Candidate, ...]:
    return tuple(sorted((Candidate(True, p_marked), Candidate(False, 1 - p_marked)), key=lambda c: -c.probability))


def shifted(patches: np.ndarray, down: int, right: int) -> np.ndarray:
    """(n, h, w) ``patches`` moved ``down`` rows and ``right`` columns (negative: up, left), blank
    where nothing moved in."""
    moved = np.zeros_like(patches)
    height, width = patches.shape[1:]
    moved[:, max(down, 0) : height + min(down, 0), max(right, 0) : width + min(right, 0)] = \
        patches[:, max(-down, 0) : height - max(down, 0), max(-right, 0) : width - max(right, 0)]
    return moved


def steadied_heads(ensemble: Ensemble, patches: np.ndarray,
                   unsure_below: float = SHIFTED_READ_BELOW) -> dict[str, np.ndarray]:
    """Each head's (n, K_head) probabilities of ``patches``; where a patch's reading is unsure (a
    head's likeliest class below ``unsure_below``), the mean of its readings as it is and moved
    a pixel each way."""
    probabilities = ensemble.probabilities(patches)
    heads = split_heads(ensemble.classes, probabilities)
    unsure = np.flatnonzero(np.min([head.max(axis=1) for head in heads.values()], axis=0) < unsure_below)
    if not len(unsure):
        return heads
    moves = ((1, 0), (-1, 0), (0, 1), (0, -1))
    again = ensemble.probabilities(np.concatenate([shifted(patches[unsure], *move) for move in moves]))
    probabilities = probabilities.copy()
    again = again.reshape(len(moves), len(unsure), -1)
    probabilities[unsure] = (probabilities[unsure] + again.sum(axis=0)) / (len(moves) + 1)
    return split_heads(ensemble.classes, probabilities)


def read_boxes(canonical: np.ndarray, layout: Layout, models: BoxModels | None = None,
               bounds: Mapping[str, tuple[int, int]] | None = None) -> BoxReading:
    """Read every box of a canonical sheet image ((h, w) uint8); each written number within the
    ``bounds`` of its category's points (score.points_bounds; the default rules' unless given)."""
    bounds = points_bounds() if bounds is None else bounds
    models = models or load_box_models()
    patches = sheet_box_patches(canonical, layout)
    turn_heads, number_heads, digit_groups, number_digits, seen_as_two = digits_together(
        patches["turn"], steadied_heads(models.turn, patches["turn"]), tuple(head_classes(TURN_CLASSES)["kind"]),
        TURN_PATCH.margin_mm, patches["number"], steadied_heads(models.number, patches["number"]))
    marked = models.mark.probabilities(patches["mark"])[:, MARK_CLASSES.index("marked")]
    views = {head: models.digit.probabilities(digits) for head, digits in digit_patches(patches["turn"]).items()}
    turns = tuple(turn_candidates({h: p[i] for h, p in turn_heads.items()}, {h: p[i] for h, p in views.items()})
                  for i in range(TURNS))
    marks = tuple(mark_candidates(float(p)) for p in marked)
    numbers_alone = number_digits_alone(models.number_digit, number_digits)
    seen_alone = number_digits_alone(models.number_digit, {(number, head): digit for number, digits in seen_as_two.items()
                                                           for head, digit in zip(("tens", "units"), digits, strict=True)})
    written = {category: number_candidates({h: p[i] for h, p in number_heads.items()}, _of_number(numbers_alone, i),
                                           bounds[category], _of_number(seen_alone, i))
               for i, category in enumerate(CATEGORIES)}
    return BoxReading(turns, marks[:MAX_PRUNINGS], marks[MAX_PRUNINGS:], written, digit_groups)


def _of_number(by_slot: Mapping[tuple[int, str], np.ndarray], number: int) -> dict[str, np.ndarray]:
    """A written number's digits read alone, by head, from those of every number by (number, head)."""
    return {head: p for (of, head), p in by_slot.items() if of == number}


def number_digits(value: int) -> dict[str, int | None]:
    """A written number's digits by the number network's head that reads each: its "tens"
    (None where it has none) and its "units"."""
    tens, units = divmod(abs(value), 10)
    return {"tens": tens or None, "units": units}
