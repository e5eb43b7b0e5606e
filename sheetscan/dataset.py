"""Training and bench data: synthetic photos read by the real locator, with truth labels."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import cv2
import numpy as np

from .layout import load_layout
from .locate import locate_sheets
from .read import DECORATION_CLASSES, cell_patches
from .rectify import rectify
from .rules import DECORATION_BY_LETTER, EMPTY_LETTER, WATER_LETTER, Decoration
from .synth import synth_photo



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


@dataclass(frozen=True)
class CellSamples:
    """Ink patches and labels of every garden cell of a set of sheets."""

    decoration_patches: np.ndarray  # (n, size, size): see read.cell_patches
    decoration_labels: np.ndarray
    water_patches: np.ndarray
    water_labels: np.ndarray
    pens: np.ndarray  # the pen of each cell's sheet
    photos: np.ndarray  # the index of each cell's photo


def collect(seed: int, indices: range, levels: tuple[str, ...], skip_pens: tuple[str, ...] = ()) -> CellSamples:
    """Cell samples of the synthetic photos ``indices`` of run ``seed``, levels taken in turn.

    Sheets drawn with a pen in ``skip_pens`` are left out (a style held out of training).
    """
    layout = load_layout()
    parts = {"df": [], "dl": [], "wf": [], "wl": [], "pen": [], "photo": []}
    for index in indices:
        photo = synth_photo(index, seed, levels[index % len(levels)])
        truth = photo.truth["sheets"][0]
        if truth["style"]["pen"] in skip_pens:
            continue
        gray = cv2.imdecode(np.frombuffer(photo.jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
        located = locate_sheets(gray, layout)
        if len(located.sheets) != 1:
            continue
        canonical = rectify(gray, located.sheets[0], layout)
        decoration_patches, water_patches = cell_patches(canonical, layout)
        parts["df"].append(decoration_patches)
        parts["dl"].append(decoration_labels(truth["garden"]))
        parts["wf"].append(water_patches)
        parts["wl"].append(water_labels(truth["garden"]))
        parts["pen"].append(np.full(36, truth["style"]["pen"]))
        parts["photo"].append(np.full(36, index))
    return CellSamples(*(np.concatenate(parts[key]) for key in ("df", "dl", "wf", "wl", "pen", "photo")))


def collect_parallel(seed: int, count: int, levels: tuple[str, ...], skip_pens: tuple[str, ...] = (),
                     jobs: int = 2) -> CellSamples:
    """``collect`` over ``jobs`` processes; the result does not depend on ``jobs``."""
    chunks = [range(start, count, jobs) for start in range(jobs)]
    with ProcessPoolExecutor(jobs) as pool:
        parts = list(pool.map(collect, [seed] * jobs, chunks, [levels] * jobs, [skip_pens] * jobs))
    order = np.argsort(np.concatenate([p.photos for p in parts]), kind="stable")
    return CellSamples(*(np.concatenate([getattr(p, field) for p in parts])[order] for field in CellSamples.__dataclass_fields__))
