"""The hand renderer: draws a played game onto the blank sheet as a person would."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from sheetscan.game.garden import ALL_CELLS, Cell, SheetRecord, TurnKind, ponds
from sheetscan.synthetic.archetypes import ARCHETYPES, TREE_MARKS, choices
from sheetscan.synthetic.glyphs import Stroke, hatch_mask
from sheetscan.design.layout import Layout
from sheetscan.synthetic.pen import HandStyle, apply_ink, hand_strokes, ink_strokes, ink_text
from sheetscan.game.rules import CATEGORIES, GRID_SIZE, Decoration
from sheetscan.synthetic.sheet import mm_to_px

POND_GRID_PX = 40  # resolution of a cell when tracing a pond outline
# Outline distance inside the pond's cells, in cell widths: clear of the garden's thick border
# (0.8 mm inside the edge), so that a person, too, can see the outline apart from it.
POND_INSET = (0.1, 0.18)
POND_GAP_CHANCE = 0.25  # chance an outline is left with a small gap
POND_FILLS = ("plain", "hatched", "wavy")
POND_FILL_WEIGHTS = (0.6, 0.2, 0.2)
TREE_MARK_SIZE = (0.08, 0.2)  # the Spring/Summer mark's side, in cell widths (a player's own)
TREE_MARK_SPOTS = 7  # candidate places across the cell, each way; the mark goes where ink is least
ERASED_CHANCE = 0.3  # chance a sheet carries an erased, smudged glyph in an empty cell
CROSSED_OUT_CHANCE = 0.2  # chance a written score was crossed out and rewritten beside
ERASED_STRENGTH = (0.12, 0.3)
PLAYER_NAMES = ("Aiko", "Ben", "Chiara", "Daniel", "Emi", "Farid", "Greta", "Hiro", "Ines", "Jonas",
                "Kenji", "Lucia", "Mara", "Nils", "Olga", "Pablo", "Rin", "Sofia", "Tomas", "Yuki")
CROSS = [np.array([[0.15, 0.15], [0.85, 0.85]]), np.array([[0.85, 0.15], [0.15, 0.85]])]
CHECK = [np.array([[0.15, 0.55], [0.4, 0.82], [0.88, 0.15]])]
SCRIBBLE = [np.array([[0.2 + 0.6 * (i % 2), 0.2 + 0.6 * i / 7] for i in range(8)])]
MARKS = {"cross": CROSS, "check": CHECK, "scribble": SCRIBBLE}


@dataclass(frozen=True)
class Drawings:
    """How one player draws: an archetype for each decoration and for the Spring/Summer mark,
    drawn once in the player's own version (the same all over the sheet)."""

    names: dict[str, str]  # category (and "tree_mark") -> archetype name
    strokes: dict[Decoration, list[Stroke]]
    tree_mark: list[Stroke]
    tree_mark_size: float  # in cell widths


def player_drawings(rng: np.random.Generator, held_out: bool = False, fresh: bool = False,
                    fresh_trained: bool = False, unseen: bool = False) -> Drawings:
    """A player's drawings: each from the unseen archetypes, the fresh ones, those held out of
    training, or the others, the fresh ones among them with ``fresh_trained`` (archetypes.choices)."""
    names, strokes = {}, {}
    for decoration, archetypes in ARCHETYPES.items():
        options = choices(archetypes, held_out, fresh, fresh_trained, unseen)
        archetype = options[rng.integers(len(options))]
        names[decoration.category], strokes[decoration] = archetype.name, archetype.draw(rng)
    marks = choices(TREE_MARKS, held_out, fresh, fresh_trained, unseen)
    mark = marks[rng.integers(len(marks))]
    names["tree_mark"] = mark.name
    return Drawings(names, strokes, mark.draw(rng), float(rng.uniform(*TREE_MARK_SIZE)))


@dataclass(frozen=True)
class Drawn:
    """A filled sheet image and what was drawn on it besides the game."""

    image: np.ndarray  # (height, width, 3) uint8 BGR
    name: str
    mark: str  # how this player marks leaves and icons
    distractors: tuple[dict, ...]


def _box(layout: Layout, name: str, dpi: float) -> tuple[int, int, int, int]:
    return layout.region(name).px(dpi)


def _pond_strokes(pond: frozenset[Cell], rng: np.random.Generator, fill: str) -> list[Stroke]:
    """The outline of ``pond`` (and its fill), in garden units: (column, row) cells of size 1."""
    size = GRID_SIZE * POND_GRID_PX
    mask = np.zeros((size, size), np.uint8)
    for r, c in pond:
        mask[r * POND_GRID_PX : (r + 1) * POND_GRID_PX, c * POND_GRID_PX : (c + 1) * POND_GRID_PX] = 255
    inset = int(rng.uniform(*POND_INSET) * POND_GRID_PX)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * inset + 1, 2 * inset + 1))
    inner = cv2.erode(mask, kernel)
    contours, _ = cv2.findContours(inner, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    strokes = []
    for contour in contours:
        points = contour[:: POND_GRID_PX // 8, 0, :].astype(float) / POND_GRID_PX
        drift = np.cumsum(rng.normal(0, 0.004, points.shape), axis=0)
        drift -= np.linspace(0, 1, len(points))[:, None] * drift[-1]  # the stroke ends where it began
        points = points + drift + rng.normal(0, 0.006, points.shape)
        points = np.vstack([points, points[:1]])
        if rng.random() < POND_GAP_CHANCE:
            start = rng.integers(len(points))
            points = np.roll(points[:-1], -start, axis=0)[rng.integers(1, 3) :]
        strokes.append(points)
    if fill == "hatched":
        strokes += hatch_mask(inner, POND_GRID_PX, rng.uniform(0.2, 0.35), 45)
    elif fill == "wavy":
        for r, c in pond:
            t = np.linspace(0, 1, 12)
            y = r + rng.uniform(0.35, 0.65) + 0.05 * np.sin(t * 4 * np.pi)
            strokes.append(np.stack([c + 0.3 + 0.4 * t, y], axis=1))
    return strokes


def draw_game(
    blank: np.ndarray,
    record: SheetRecord,
    layout: Layout,
    dpi: float,
    style: HandStyle,
    drawings: Drawings,
    rng: np.random.Generator,
    crossed_out_chance: float = CROSSED_OUT_CHANCE,
) -> Drawn:
    """Draw ``record`` onto a copy of the blank sheet ``blank`` (rendered at ``dpi``) with the
    player's ``drawings``; a written number is struck out and rewritten with ``crossed_out_chance``."""
    coverage = np.zeros(blank.shape[:2], np.float32)
    width = mm_to_px(style.width_mm, dpi)
    garden = record.garden
    for cell, decoration in garden.decorated_cells():
        box = _box(layout, f"cell_{cell[0]}_{cell[1]}", dpi)
        ink_strokes(coverage, hand_strokes(drawings.strokes[decoration], rng, style.neatness), box, width)
        if cell in garden.tree_late:
            _tree_mark(coverage, box, drawings, rng, width)
    garden_box = _box(layout, "garden", dpi)
    for pond in ponds(garden):
        fill = str(rng.choice(POND_FILLS, p=POND_FILL_WEIGHTS))
        strokes = _pond_strokes(pond, rng, fill)
        ink_strokes(coverage, [s / GRID_SIZE for s in strokes], garden_box, width)
    if record.turns is not None:
        _turn_boxes(coverage, record, layout, dpi, style, rng, width)
    mark = str(rng.choice(sorted(MARKS)))
    for leaf in range(record.bonsai_pruned or 0):
        ink_strokes(coverage, hand_strokes(MARKS[mark], rng, "neat"), _box(layout, f"leaf_{leaf}", dpi), width)
    for season, marked in enumerate(record.ponds_marked or ()):
        if marked:
            ink_strokes(coverage, hand_strokes(MARKS[mark], rng, "neat"), _box(layout, f"pond_icon_{season}", dpi), width)
    distractors = []
    if record.written is not None:
        crossed = rng.random() < crossed_out_chance
        crossed_category = str(rng.choice(CATEGORIES)) if crossed else None
        for category in CATEGORIES:
            if category not in record.written:
                continue
            box = _box(layout, f"score_{category}", dpi)
            if category == crossed_category:
                distractors.append(_crossed_out(coverage, record.written[category], box, style, rng, width, category))
            else:
                ink_text(coverage, str(record.written[category]), style, box, rng, height_frac=(0.5, 0.72))
    name = str(rng.choice(PLAYER_NAMES))
    ink_text(coverage, name, style, _box(layout, "name", dpi), rng, height_frac=(0.55, 0.75))
    if rng.random() < ERASED_CHANCE:
        empty = [cell for cell in ALL_CELLS if garden.decoration(cell) is None]
        if empty:
            distractors.append(_erased(coverage, empty[rng.integers(len(empty))], drawings, layout, dpi, rng, width))
    image = apply_ink(blank, coverage, style, rng)
    return Drawn(image, name, mark, tuple(distractors))


def _tree_mark(coverage: np.ndarray, box: tuple[int, int, int, int], drawings: Drawings, rng: np.random.Generator,
               width: float) -> None:
    """The player's Spring/Summer mark beside the tree: anywhere in the cell, where ink is least."""
    x, y, w, h = box
    side = drawings.tree_mark_size * w
    spots = [(x + fx * (w - side), y + fy * (h - side)) for fx in np.linspace(0.05, 0.95, TREE_MARK_SPOTS)
             for fy in np.linspace(0.05, 0.95, TREE_MARK_SPOTS)]

    def ink_under(spot: tuple[float, float]) -> float:
        left, top = int(spot[0]), int(spot[1])
        return float(coverage[top : top + int(side) + 1, left : left + int(side) + 1].sum())

    clearest = sorted(spots, key=ink_under)[: len(spots) // 6]
    left, top = clearest[rng.integers(len(clearest))]
    ink_strokes(coverage, hand_strokes(drawings.tree_mark, rng, "neat"), (left, top, side, side), width)


def _turn_boxes(coverage, record: SheetRecord, layout: Layout, dpi: float, style: HandStyle,
                rng: np.random.Generator, width: float) -> None:
    for index, turn in enumerate(record.turns):
        if turn.kind is TurnKind.SKIP:
            ink_text(coverage, "X", style, _box(layout, f"turn_{index}", dpi), rng, height_frac=(0.6, 0.8))
            continue
        ink_text(coverage, str(turn.dice[0]), style, _box(layout, f"turn_{index}_first", dpi), rng)
        if turn.kind is TurnKind.DRAW:
            ink_text(coverage, str(turn.dice[1]), style, _box(layout, f"turn_{index}_second", dpi), rng)
            location = str(turn.location)
        else:  # a pruning writes the cell as row and column digits in the location box
            location = f"{turn.cell[0] + 1}{turn.cell[1] + 1}"
        ink_text(coverage, location, style, _box(layout, f"turn_{index}_location", dpi), rng)


def _crossed_out(coverage, value: int, box, style: HandStyle, rng: np.random.Generator, width: float,
                 category: str) -> dict:
    """A wrong number struck through in the box's left half, the right one written beside it."""
    x, y, w, h = box
    wrong = value + int(rng.choice([-2, -1, 1, 2]))
    left, right = (x, y, w * 0.48, h), (x + w * 0.5, y, w * 0.5, h)
    ink_text(coverage, str(wrong), style, left, rng, height_frac=(0.45, 0.6))
    strike = [np.array([[0.05, rng.uniform(0.4, 0.6)], [0.95, rng.uniform(0.4, 0.6)]])]
    ink_strokes(coverage, strike, left, width)
    ink_text(coverage, str(value), style, right, rng, height_frac=(0.5, 0.7))
    return {"kind": "crossed_out", "box": f"score_{category}", "wrong": wrong}


def _erased(coverage, cell: Cell, drawings: Drawings, layout: Layout, dpi: float, rng: np.random.Generator,
            width: float) -> dict:
    """A faint, smudged drawing of the player's left by an eraser in an empty cell."""
    decoration = list(Decoration)[rng.integers(len(Decoration))]
    x, y, w, h = _box(layout, f"cell_{cell[0]}_{cell[1]}", dpi)
    layer = np.zeros((h, w), np.float32)
    ink_strokes(layer, hand_strokes(drawings.strokes[decoration], rng, "normal"), (0, 0, w, h), width,
                strength=float(rng.uniform(*ERASED_STRENGTH)))
    layer = cv2.GaussianBlur(layer, (0, 0), width * 1.5)
    np.maximum(coverage[y : y + h, x : x + w], layer, out=coverage[y : y + h, x : x + w])
    return {"kind": "erased_glyph", "cell": list(cell), "glyph": decoration.category}
