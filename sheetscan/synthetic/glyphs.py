"""The legend's glyph of each decoration, as pen strokes in a unit box, and stroke geometry.

A glyph is a list of strokes; a stroke is an (n, 2) array of (x, y) points in [0, 1], y down.
The printed scoring summary draws these; the hand draws them as one of many archetypes
(archetypes.py, ../shared/DESIGN.md "Hand drawing").
"""

from __future__ import annotations

import cv2
import numpy as np

from sheetscan.game.rules import Decoration

Stroke = np.ndarray  # (n, 2) float, x and y in the unit box
FILL_PX = 96  # resolution of the unit box when a shape is hatched or filled
OPEN_CHANCE = 0.3  # chance a player leaves a closed outline with a gap


def arc(cx: float, cy: float, rx: float, ry: float, start_deg: float, end_deg: float, n: int = 24) -> Stroke:
    """Points along an elliptic arc, angles in degrees clockwise from +x (y is down)."""
    t = np.radians(np.linspace(start_deg, end_deg, n))
    return np.stack([cx + rx * np.cos(t), cy + ry * np.sin(t)], axis=1)


def line(*points: tuple[float, float]) -> Stroke:
    """A polyline through ``points``."""
    return np.array(points, dtype=float)


def hatch_mask(mask: np.ndarray, px_per_unit: float, spacing: float, angle_deg: float) -> list[Stroke]:
    """Parallel lines ``spacing`` units apart at ``angle_deg``, clipped to where the (h, w) ``mask``
    is set, in the mask's units (pixel / ``px_per_unit``). Dense lines fill a shape."""
    height, width = mask.shape
    extent = np.hypot(height, width) / px_per_unit
    direction = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
    normal = np.array([-direction[1], direction[0]])
    centre = np.array([width, height]) / (2 * px_per_unit)
    steps = np.linspace(-extent / 2, extent / 2, max(2, int(extent * px_per_unit)))
    strokes = []
    for offset in np.arange(-extent / 2, extent / 2, spacing):
        points = centre + offset * normal + steps[:, None] * direction
        px = np.round(points * px_per_unit).astype(int)
        within = (px[:, 0] >= 0) & (px[:, 0] < width) & (px[:, 1] >= 0) & (px[:, 1] < height)
        inside = np.zeros(len(points), bool)
        inside[within] = mask[px[within, 1], px[within, 0]] > 0
        edges = np.flatnonzero(np.diff(np.concatenate([[0], inside.astype(int), [0]])))
        strokes += [points[start:end] for start, end in zip(edges[::2], edges[1::2], strict=True) if end - start > 2]
    return strokes


def ellipse(cx: float, cy: float, rx: float, ry: float, n: int = 28) -> Stroke:
    """A closed ellipse."""
    return arc(cx, cy, rx, ry, 0, 360, n)


def polygon(*points: tuple[float, float]) -> Stroke:
    """A closed polyline through ``points``."""
    return line(*points, points[0])


def rectangle(left: float, top: float, right: float, bottom: float) -> Stroke:
    """A closed axis-aligned rectangle, from its top left corner clockwise."""
    return polygon((left, top), (right, top), (right, bottom), (left, bottom))


def maybe_open(stroke: Stroke, rng: np.random.Generator) -> Stroke:
    """A closed stroke, or with a gap where the pen lifted early."""
    return stroke[: max(3, int(len(stroke) * rng.uniform(0.8, 0.92)))] if rng.random() < OPEN_CHANCE else stroke


def fill(outline: Stroke, spacing: float, angle_deg: float) -> list[Stroke]:
    """Hatching inside a closed ``outline``; a spacing near the pen's width fills it."""
    mask = np.zeros((FILL_PX, FILL_PX), np.uint8)
    cv2.fillPoly(mask, [np.round(outline * FILL_PX).astype(np.int32)], 255)
    return hatch_mask(mask, FILL_PX, spacing, angle_deg)


def _lantern() -> list[Stroke]:
    roof = line((0.18, 0.36), (0.5, 0.14), (0.82, 0.36), (0.18, 0.36))
    light_box = line((0.33, 0.36), (0.33, 0.56), (0.67, 0.56), (0.67, 0.36))
    window = line((0.44, 0.42), (0.44, 0.5), (0.56, 0.5), (0.56, 0.42), (0.44, 0.42))
    post = line((0.44, 0.56), (0.44, 0.8))
    post_right = line((0.56, 0.56), (0.56, 0.8))
    base = line((0.28, 0.8), (0.72, 0.8), (0.72, 0.88), (0.28, 0.88), (0.28, 0.8))
    return [roof, light_box, window, post, post_right, base]


def _bamboo() -> list[Stroke]:
    stalk = line((0.5, 0.92), (0.49, 0.6), (0.5, 0.3), (0.52, 0.08))
    nodes = [line((0.4, y), (0.61, y)) for y in (0.3, 0.52, 0.74)]
    leaf = np.concatenate([arc(0.66, 0.26, 0.16, 0.05, 180, 360, 10), arc(0.66, 0.26, 0.16, 0.05, 0, 180, 10)])
    leaf_left = np.concatenate([arc(0.36, 0.46, 0.14, 0.045, 180, 360, 10), arc(0.36, 0.46, 0.14, 0.045, 0, 180, 10)])
    return [stalk, *nodes, leaf, leaf_left]


def _tree() -> list[Stroke]:
    bumps = []
    for angle in range(150, 150 + 360, 60):
        cx = 0.5 + 0.2 * np.cos(np.radians(angle))
        cy = 0.38 + 0.17 * np.sin(np.radians(angle))
        bumps.append(arc(cx, cy, 0.13, 0.12, angle - 80, angle + 80, 10))
    crown = np.concatenate(bumps + [bumps[0][:1]])
    trunk = [line((0.45, 0.66), (0.44, 0.9)), line((0.55, 0.66), (0.56, 0.9))]
    return [crown, *trunk]


def _rock() -> list[Stroke]:
    t = np.radians(np.linspace(0, 360, 15))
    radius = 1 + 0.12 * np.cos(3 * t) + 0.06 * np.sin(5 * t)
    blob = np.stack([0.5 + 0.34 * radius * np.cos(t), 0.6 + 0.24 * radius * np.sin(t)], axis=1)
    crack = line((0.42, 0.42), (0.5, 0.58), (0.46, 0.7))
    return [blob, crack]


def _moss() -> list[Stroke]:
    tufts = []
    for cx, cy, size in ((0.28, 0.8, 0.1), (0.52, 0.74, 0.12), (0.74, 0.82, 0.09)):
        tufts.append(line((cx - size, cy + 0.06), (cx - size / 2, cy - 0.04), (cx, cy + 0.05),
                           (cx + size / 2, cy - 0.06), (cx + size, cy + 0.06)))
    ground = line((0.12, 0.9), (0.88, 0.9))
    return [*tufts, ground]


def _bridge() -> list[Stroke]:
    deck = arc(0.5, 0.88, 0.42, 0.34, 195, 345, 20)
    underside = arc(0.5, 0.92, 0.34, 0.24, 200, 340, 16)
    rail = arc(0.5, 0.7, 0.42, 0.34, 200, 340, 18)
    posts = []
    for angle in (210, 245, 290, 330):
        top = (0.5 + 0.42 * np.cos(np.radians(angle)), 0.7 + 0.34 * np.sin(np.radians(angle)))
        posts.append(line(top, (top[0], top[1] + 0.17)))
    return [deck, underside, rail, *posts]


GLYPHS: dict[Decoration, list[Stroke]] = {
    Decoration.LANTERN: _lantern(),
    Decoration.BAMBOO: _bamboo(),
    Decoration.TREE: _tree(),
    Decoration.ROCK: _rock(),
    Decoration.MOSS: _moss(),
    Decoration.BRIDGE: _bridge(),
}


def pond_icon() -> list[Stroke]:
    """The printed pond icon: a pond outline with two ripples."""
    outline = arc(0.5, 0.55, 0.4, 0.28, 0, 360, 28)
    ripples = [arc(0.42, 0.5, 0.14, 0.05, 200, 340, 8), arc(0.6, 0.64, 0.12, 0.04, 200, 340, 8)]
    return [outline, *ripples]


def bonsai_pot() -> list[Stroke]:
    """The printed bonsai below its three leaves: trunk, branches and pot (bonsai box units)."""
    trunk = line((0.5, 0.8), (0.46, 0.6), (0.52, 0.45), (0.5, 0.3))
    branches = [line((0.47, 0.56), (0.3, 0.42)), line((0.52, 0.45), (0.7, 0.42))]
    pot = line((0.22, 0.8), (0.78, 0.8), (0.7, 0.95), (0.3, 0.95), (0.22, 0.8))
    return [trunk, *branches, pot]
