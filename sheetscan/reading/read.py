"""Read: the garden of a rectified sheet, each cell with a confidence and a runner-up.

The cell networks give probabilities; the decoder then applies what the rules allow: a pond
may not enclose earth, so an inner cell whose four neighbours are water is water.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from sheetscan.reading.cells import DECORATION_MARGIN, PATCH_PX, WATER_MARGIN, WATER_PATCH_PX, garden_patches
from sheetscan.reading.groups import alike_groups, drawing_features, drawing_similarity
from sheetscan.reading.networks import (Ensemble, Network, for_sheet_size, load_ensembles, load_networks, model_paths,
                                        shipped_model_set)
from sheetscan.game.garden import ALL_CELLS, Garden, orthogonal_neighbours
from sheetscan.design.layout import Layout
from sheetscan.game.rules import DECORATION_BY_LETTER, GRID_SIZE, Decoration

# Two cell models trained on the same run with different shares of table photos (train.PLANS
# "cells" and "cells-tables"); a small sheet's cells (networks.SMALL_SHEET_PX_PER_MM) get the
# average of theirs, a larger one's the first's alone. On validation photos (seeds 77-81, none a
# bench figure's), wrong totals: table sheets 12 of 449 with the first alone, 6 with the second,
# 7 with the pair; sheets alone 6, 9 and 7 of 450. Held-out hands alone (2026-12-07, seeds 79-82,
# 160 sheets at 2.7-8.6 px/mm): the first alone 153 exact, 103 sure (2 wrong), the pair 152, 101
# (2 wrong); the pair's second network cost 16 ms a sheet.
DEFAULT_MODEL_PATHS = (shipped_model_set("cells"), shipped_model_set("cells_tables"))
MODEL_PATHS = model_paths("SHEETSCAN_MODEL", DEFAULT_MODEL_PATHS)
REBUILD_COMMAND = "sheetscan train --networks cells; sheetscan train --networks cells-tables"
DECORATION_CLASSES = ("empty", "lantern", "bamboo", "tree", "tree_late", "rock", "moss", "bridge")
WATER_CLASSES = ("earth", "water")
CLASSES = {"decoration": DECORATION_CLASSES, "water": WATER_CLASSES}  # each cell network's classes
REVIEW_BELOW = 0.9  # cells read with less confidence than this go to review
# The drawing network (train.PLANS "drawings"): its outputs, scaled to unit length, are alike for
# one hand's drawings of one kind (groups.drawing_similarity).
DEFAULT_DRAWING_MODEL_PATH = shipped_model_set("drawings")
DRAWING_MODEL_PATH = model_paths("SHEETSCAN_DRAWING_MODEL", (DEFAULT_DRAWING_MODEL_PATH,))[0]
DRAWING_CLASSES = tuple(f"d{i}" for i in range(32))


@dataclass(frozen=True)
class CellModels:
    """The cell networks of one or more model files, each kind read as one ensemble."""

    decoration: Ensemble
    water: Ensemble

    def decoration_probabilities(self, patches: np.ndarray) -> np.ndarray:
        """(n, 8) probabilities over DECORATION_CLASSES of (n, h, w) decoration patches."""
        return self.decoration.probabilities(patches)

    def water_probabilities(self, patches: np.ndarray) -> np.ndarray:
        """(n,) probabilities that (n, h, w) water patches are water."""
        return self.water.probabilities(patches)[:, WATER_CLASSES.index("water")]


def load_cell_models(paths: tuple[Path, ...] = MODEL_PATHS) -> CellModels:
    """The trained cell networks of ``paths``, loaded once in a process; a missing or foreign
    file is a ModelError."""
    return _loaded_cell_models(tuple(paths))


@lru_cache(maxsize=4)  # keyed by the paths alone: asked with its default or with it, loaded once
def _loaded_cell_models(paths: tuple[Path, ...]) -> CellModels:
    return CellModels(**load_ensembles(paths, CLASSES, REBUILD_COMMAND))


def cell_models_for(px_per_mm: float, paths: tuple[Path, ...] = MODEL_PATHS) -> CellModels:
    """The cell networks for a sheet seen at ``px_per_mm`` photo pixels: those of every file of
    ``paths`` for a small sheet, of the first alone otherwise (networks.for_sheet_size)."""
    return for_sheet_size(load_cell_models(paths), px_per_mm)


@lru_cache(maxsize=2)
def load_drawing_network(path: Path = DRAWING_MODEL_PATH) -> Network:
    """The trained drawing network; a missing or foreign file is a ModelError."""
    return load_networks(path, {"drawing": DRAWING_CLASSES}, "sheetscan train --networks drawings")["drawing"]


@dataclass(frozen=True)
class GardenReading:
    """A garden as read, with what the reader was unsure of.

    Attributes
    ----------
    garden : Garden
    decoration_probabilities : (6, 6, 8) array over DECORATION_CLASSES
    water_probability : (6, 6) array
    decoder_changes : tuple of str
        Readings the decoder changed, and why.
    groups : tuple of tuples of cells
        Cells read as decorated whose drawings look alike (groups.py), two or more each.
    similarity : (36, 36) array
        How alike each two cells' drawings are (groups.drawing_similarity), those read as empty too.
    known_similarity : (36, m) array, or None
        How alike each cell's drawing is to each of the player's known drawings (KnownDrawings).
    known_kinds : (m,) array, or None
        The known drawings' kinds (indices into labelling_energy.KINDS).
    """

    garden: Garden
    decoration_probabilities: np.ndarray
    water_probability: np.ndarray
    decoder_changes: tuple[str, ...]
    groups: tuple[tuple[tuple[int, int], ...], ...] = ()
    similarity: np.ndarray | None = None
    known_similarity: np.ndarray | None = None
    known_kinds: np.ndarray | None = None

    def cell_confidence(self) -> np.ndarray:
        """(6, 6): the lower of the decoration's and the water reading's confidence."""
        water = np.maximum(self.water_probability, 1 - self.water_probability)
        return np.minimum(self.decoration_probabilities.max(axis=2), water)

    def runner_up(self) -> list[list[str]]:
        """(6 x 6) the second most likely decoration class of each cell."""
        second = np.argsort(self.decoration_probabilities, axis=2)[:, :, -2]
        return [[DECORATION_CLASSES[i] for i in row] for row in second]

    def review(self) -> list[tuple[tuple[int, int], float, str]]:
        """Cells read with confidence below REVIEW_BELOW, worst first: (cell, confidence, why)."""
        confidence = self.cell_confidence()
        water = np.maximum(self.water_probability, 1 - self.water_probability)
        runner_up = self.runner_up()
        doubtful = []
        for r, c in ALL_CELLS:
            if confidence[r, c] < REVIEW_BELOW:
                if water[r, c] <= self.decoration_probabilities[r, c].max():
                    why = "water or earth is a close call"
                else:
                    why = f"could be {runner_up[r][c].replace('_', ' ')}"
                doubtful.append(((r, c), float(confidence[r, c]), why))
        return sorted(doubtful, key=lambda item: item[1])


@dataclass(frozen=True)
class KnownDrawings:
    """Drawings of a player whose kinds a person gave (corrected on an earlier sheet): the
    ink patches (as cell_patches gives them) and their kinds (indices into labelling_energy.KINDS)."""

    patches: np.ndarray  # (m, PATCH_PX, PATCH_PX) float32
    kinds: np.ndarray  # (m,) int


def decoration_of_class(index: int) -> tuple[Decoration | None, bool]:
    """A decoration class (an index into DECORATION_CLASSES) as its decoration and whether it
    is a tree drawn in Spring or Summer."""
    name = DECORATION_CLASSES[index]
    if name == "empty":
        return None, False
    if name == "tree_late":
        return Decoration.TREE, True
    return Decoration[name.upper()], False


def decoration_class(decoration: Decoration | None, late: bool = False) -> int:
    """The class (an index into DECORATION_CLASSES) of a decoration; a tree drawn in Spring or
    Summer when ``late``. The inverse of decoration_of_class."""
    if decoration is None:
        return DECORATION_CLASSES.index("empty")
    return DECORATION_CLASSES.index("tree_late" if late and decoration is Decoration.TREE else decoration.category)


def garden_from_classes(decoration: np.ndarray, water: np.ndarray) -> Garden:
    cells = {cell: decoration_of_class(int(decoration[cell])) for cell in ALL_CELLS}
    decorations = tuple(tuple(cells[(r, c)][0] for c in range(GRID_SIZE)) for r in range(GRID_SIZE))
    late = frozenset(cell for cell, (_, is_late) in cells.items() if is_late)
    return Garden(decorations, tuple(tuple(bool(w) for w in row) for row in water), late)


def decode_water(water: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Water cells after the rules: an inner earth cell surrounded by water is water."""
    water = water.copy()
    changes = []
    for r, c in ALL_CELLS:
        neighbours = orthogonal_neighbours((r, c))
        if not water[r, c] and len(neighbours) == 4 and all(water[n] for n in neighbours):
            water[r, c] = True
            changes.append(f"cell ({r + 1},{c + 1}) read as earth, made water: a pond may not enclose earth")
    return water, changes


def cell_patches(canonical: np.ndarray, layout: Layout) -> tuple[np.ndarray, np.ndarray]:
    """The decoration and the water patches of the 36 cells: what the networks read, in
    training and in reading alike."""
    return (garden_patches(canonical, DECORATION_MARGIN, PATCH_PX, layout),
            garden_patches(canonical, WATER_MARGIN, WATER_PATCH_PX, layout))


def known_drawings(canonical: np.ndarray, layout: Layout, cells: list[str]) -> KnownDrawings:
    """The drawings of a reviewed sheet: each decorated cell's ink patch, with the kind of its
    letter in ``cells`` (6 strings of 6, the golden form)."""
    kinds = list(Decoration)
    decorated = [(r * GRID_SIZE + c, kinds.index(DECORATION_BY_LETTER[letter])) for r, row in enumerate(cells)
                 for c, letter in enumerate(row) if letter in DECORATION_BY_LETTER]
    patches = cell_patches(canonical, layout)[0]
    return KnownDrawings(patches[[i for i, _ in decorated]], np.array([kind for _, kind in decorated], int))


def read_garden(canonical: np.ndarray, layout: Layout, models: CellModels | None = None,
                drawing_network: Network | None = None, known: KnownDrawings | None = None) -> GardenReading:
    """Read the garden of a canonical sheet image ((h, w) uint8); ``known``: the player's
    drawings a person labelled on an earlier sheet, compared with this sheet's."""
    models = models or load_cell_models()
    drawing_network = drawing_network or load_drawing_network()
    decoration_patches, water_patches = cell_patches(canonical, layout)
    decoration = models.decoration_probabilities(decoration_patches)
    water = models.water_probabilities(water_patches)
    decoration = decoration.reshape(GRID_SIZE, GRID_SIZE, -1)
    water = water.reshape(GRID_SIZE, GRID_SIZE)
    is_water, changes = decode_water(water > 0.5)
    garden = garden_from_classes(decoration.argmax(axis=2), is_water)
    decorated = [index for index, cell in enumerate(ALL_CELLS) if garden.decoration(cell) is not None]
    # every cell's likeness, the empty ones' too: the decoder may take a cell read as empty as a drawing
    features = drawing_features(decoration_patches)
    alike = alike_groups(features[decorated])
    groups = tuple(tuple(ALL_CELLS[decorated[i]] for i in group) for group in alike if len(group) > 1)
    embeddings = drawing_network.logits(decoration_patches)
    similarity = drawing_similarity(features, embeddings)
    known_similarity = known_kinds = None
    if known is not None and len(known.kinds):
        known_similarity = drawing_similarity(features, embeddings, drawing_features(known.patches),
                                              drawing_network.logits(known.patches))
        known_kinds = np.asarray(known.kinds, int)
    return GardenReading(garden, decoration, water, tuple(changes), groups, similarity, known_similarity, known_kinds)
