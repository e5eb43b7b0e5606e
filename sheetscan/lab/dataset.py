"""Training and bench data: synthetic photos read by the real locator, with truth labels."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import cv2
import numpy as np

from sheetscan.design.layout import load_layout
from sheetscan.reading.locate import locate_sheets
from sheetscan.reading.boxes import (NUMBER_CLASSES, TURN_CLASSES, TURN_PATCH, digit_patches, number_digits,
                                     sheet_box_patches, turn_digits)
from sheetscan.reading.digits import number_heads_read, sheet_digit_boxes
from sheetscan.reading.lone_digits import ALONE_HEADS, DIGIT_PATCH, number_digit_patch
from sheetscan.reading.networks import head_classes
from sheetscan.game.gardenfile import turn_from_dict
from sheetscan.reading.read import DECORATION_CLASSES, cell_patches
from sheetscan.reading.rectify import rectify
from sheetscan.names import DEFAULT_LAYOUT
from sheetscan.game.rules import CATEGORIES, DECORATION_BY_LETTER, EMPTY_LETTER, MAX_PRUNINGS, WATER_LETTER, Decoration
from sheetscan.synthetic.synth import match_truth, synth_photo


def decoration_labels(garden: dict) -> np.ndarray:
    """(36,) class indices of a truth garden (golden form) in reading order."""
    late = {tuple(cell) for cell in garden["tree_late"]}
    labels = []
    for r, row in enumerate(garden["cells"]):
        for c, letter in enumerate(row):
            if letter == EMPTY_LETTER:
                name = "empty"
            elif DECORATION_BY_LETTER[letter] is Decoration.TREE and (r, c) in late:
                name = "tree_late"
            else:
                name = DECORATION_BY_LETTER[letter].category
            labels.append(DECORATION_CLASSES.index(name))
    return np.array(labels)


def water_labels(garden: dict) -> np.ndarray:
    return np.array([letter == WATER_LETTER for row in garden["water"] for letter in row], dtype=int)


def _cell_samples(canonical: np.ndarray, layout, truth: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    decoration_patches, water_patches = cell_patches(canonical, layout)
    return {"decoration": (decoration_patches, decoration_labels(truth["garden"])),
            "water": (water_patches, water_labels(truth["garden"]))}


def _box_samples(canonical: np.ndarray, layout, truth: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    patches = sheet_box_patches(canonical, layout)
    leaves = [leaf < truth["bonsai_pruned"] for leaf in range(MAX_PRUNINGS)]  # leaves are marked in order
    return {"turn": (patches["turn"], np.array([turn_labels(turn) for turn in truth["turns"]])),
            "mark": (patches["mark"], np.array(leaves + truth["ponds_marked"], dtype=int)),
            "number": (patches["number"], np.array([number_labels(truth["written"][c]) for c in CATEGORIES]))}


def _drawing_samples(canonical: np.ndarray, layout, truth: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {"drawing": (cell_patches(canonical, layout)[0], decoration_labels(truth["garden"]))}


def _digit_samples(canonical: np.ndarray, layout, truth: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each digit read alone (lone_digits.py), with its label: a turn box's digit boxes that hold
    one digit (a draw's three, a pruning's die), by its index in boxes.DIGITS; each written
    number's digits, where its box shows as many as the number has (cut as the reader cuts them),
    by their value."""
    patches = sheet_box_patches(canonical, layout)
    alone = digit_patches(patches["turn"])
    chosen, labels = [], []
    turns = [turn_from_dict(turn, index) for index, turn in enumerate(truth["turns"])]
    for index, turn in enumerate(turns):
        for head in ALONE_HEADS.get(turn.kind, ()):
            chosen.append(alone[head][index])
            labels.append(turn_digits(turn)[head] - 1)
    values = [truth["written"][category] for category in CATEGORIES]
    kinds = head_classes(TURN_CLASSES)["kind"]
    numbers_read = [number_heads_read(abs(value) >= 10) for value in values]
    _, number_boxes, _, _ = sheet_digit_boxes(patches["turn"], np.array([kinds.index(turn.kind.value) for turn in turns]),
                                              kinds, TURN_PATCH.margin_mm, patches["number"], numbers_read)
    numbers = [(number_digit_patch(ink), number_digits(values[number])[head]) for (number, head), ink in number_boxes.items()]
    return {"digit": (np.array(chosen, np.float32).reshape(-1, *DIGIT_PATCH), np.array(labels, int)),
            "number_digit": (np.array([patch for patch, _ in numbers], np.float32).reshape(-1, *DIGIT_PATCH),
                             np.array([digit for _, digit in numbers], int))}


SAMPLERS = {"cells": _cell_samples, "boxes": _box_samples, "drawings": _drawing_samples, "digits": _digit_samples}
SHEETS_PER_PHOTO_AT_MOST = 16  # a sample's sheet is told by its photo and its place there (sheet_id)


def sheet_id(photo: int, place: int) -> int:
    """The id of the ``place``-th sheet found on photo ``photo`` of a run: ordered by photo, then place."""
    return photo * SHEETS_PER_PHOTO_AT_MOST + place


@dataclass(frozen=True)
class Samples:
    """Ink patches and labels for each network of a kind (cells: decoration and water; boxes:
    turn, mark and number), with the sheet each sample came from."""

    patches: dict[str, np.ndarray]  # (n, h, w) per network: see read.cell_patches, boxes.sheet_box_patches
    labels: dict[str, np.ndarray]  # (n,) or (n, heads)
    sheet_ids: dict[str, np.ndarray]  # (n,) the sheet of each sample (sheet_id): a table photo holds several
    sheets: int


def collect(seed: int, indices: range, levels: tuple[str, ...], kind: str = "cells",
            skip_pens: tuple[str, ...] = (), scramble: bool = False, megapixels: float | None = None,
            sheets_per_photo: tuple[int, ...] = (1,), held_out_styles: bool = False,
            layout_name: str = DEFAULT_LAYOUT, fresh_styles: bool = False, coarse_every: int = 0,
            fresh_trained: bool = False, unseen_styles: bool = False) -> Samples:
    """Samples of the synthetic photos ``indices`` of run ``seed`` of the sheet design
    ``layout_name``; levels and sheets per photo are taken in turn (photo i: ``levels[i % len]``,
    ``sheets_per_photo[i % len]``).

    Sheets drawn with a pen in ``skip_pens`` are left out (a style held out of training), and
    so are sheets the locator misses; ``scramble`` fills the boxes at random (see
    synth.scrambled_record); ``megapixels`` fixes the photo size (default: drawn from the
    level's range); ``held_out_styles`` draws the sheets by the hands held out of training, and
    ``fresh_styles`` and ``unseen_styles`` by the fresh or the unseen ones (never a training
    set's: for measuring); with
    ``coarse_every``, every coarse_every-th round of the levels has its digits from a coarse source;
    ``fresh_trained`` lets the hands draw the fresh ways too (a plan that trains on them).
    """
    layout = load_layout(layout_name)
    parts: dict[str, list] = {}
    sheets = 0
    for index in indices:
        photo = synth_photo(index, seed, levels[index % len(levels)], sheets_per_photo[index % len(sheets_per_photo)],
                            megapixels=megapixels, scramble=scramble, held_out_styles=held_out_styles,
                            layout_name=layout_name, fresh_styles=fresh_styles, fresh_trained=fresh_trained,
                            unseen_styles=unseen_styles, coarse_digits=coarse_every > 0 and index // len(levels) % coarse_every == 0)
        if all(truth["style"]["pen"] in skip_pens for truth in photo.truth["sheets"]):
            continue
        gray = cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
        located = locate_sheets(gray, layout).sheets
        corners = [sheet.page_corners(layout) for sheet in located]
        for place, (truth, found) in enumerate(match_truth(photo.truth["sheets"], corners)):
            if truth["style"]["pen"] in skip_pens:
                continue
            sheets += 1
            for name, (patches, labels) in SAMPLERS[kind](rectify(gray, located[found], layout), layout, truth).items():
                parts.setdefault(name, []).append((patches, labels, np.full(len(patches), sheet_id(index, place))))
    return Samples(*({name: np.concatenate([p[i] for p in chunks]) for name, chunks in parts.items()} for i in range(3)),
                   sheets)


def collect_parallel(seed: int, count: int, levels: tuple[str, ...], kind: str = "cells",
                     skip_pens: tuple[str, ...] = (), jobs: int = 2, scramble: bool = False,
                     megapixels: float | None = None, sheets_per_photo: tuple[int, ...] = (1,),
                     held_out_styles: bool = False, layout_name: str = DEFAULT_LAYOUT, first: int = 0,
                     fresh_styles: bool = False, coarse_every: int = 0, fresh_trained: bool = False,
                     unseen_styles: bool = False) -> Samples:
    """``collect`` of the ``count`` photos from photo ``first`` on, over ``jobs`` processes;
    the result does not depend on ``jobs``."""
    chunks = [range(first + start, first + count, jobs) for start in range(jobs)]
    with ProcessPoolExecutor(jobs) as pool:
        parts = list(pool.map(collect, [seed] * jobs, chunks, [levels] * jobs, [kind] * jobs,
                              [skip_pens] * jobs, [scramble] * jobs, [megapixels] * jobs, [sheets_per_photo] * jobs,
                              [held_out_styles] * jobs, [layout_name] * jobs, [fresh_styles] * jobs,
                              [coarse_every] * jobs, [fresh_trained] * jobs, [unseen_styles] * jobs))
    merged = []
    for field in ("patches", "labels", "sheet_ids"):
        merged.append({name: np.concatenate([getattr(p, field)[name] for p in parts if name in p.sheet_ids])
                       for name in parts[0].sheet_ids})
    for name, sheets in merged[2].items():
        order = np.argsort(sheets, kind="stable")
        for table in merged:
            table[name] = table[name][order]
    return Samples(*merged, sum(p.sheets for p in parts))


def joined(first: Samples, second: Samples, networks: tuple[str, ...]) -> Samples:
    """``first``'s samples, with ``second``'s after them for the ``networks`` named."""
    fields = []
    for field in ("patches", "labels", "sheet_ids"):
        mine, theirs = getattr(first, field), getattr(second, field)
        fields.append({name: np.concatenate([table, theirs[name]]) if name in networks else table
                       for name, table in mine.items()})
    return Samples(*fields, first.sheets + second.sheets)


def turn_labels(turn: dict) -> list[int]:
    """A truth turn (bench form) as the turn network's per-head labels, -1 where a head does
    not apply."""
    names = head_classes(TURN_CLASSES)
    labels = dict.fromkeys(names, -1)
    labels["kind"] = names["kind"].index(turn["kind"])
    for head, digit in turn_digits(turn_from_dict(turn, 0)).items():
        labels[head] = names[head].index(str(digit))
    return [labels[head] for head in names]


def number_labels(value: int) -> list[int]:
    """A written number as the number network's sign, tens and units labels."""
    names = head_classes(NUMBER_CLASSES)
    digits = number_digits(value)
    if (digits["tens"] or 0) > 9:
        raise ValueError(f"{value}: the number reader reads at most two digits")
    return [names["sign"].index("-" if value < 0 else "+"),
            names["tens"].index(str(digits["tens"]) if digits["tens"] else "none"), names["units"].index(str(digits["units"]))]
