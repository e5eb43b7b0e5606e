"""The default glyph of each decoration, as pen strokes in a unit box.

A glyph is a list of strokes; a stroke is an (n, 2) array of (x, y) points in [0, 1], y down.
The printed scoring summary and the hand renderer both draw from these descriptions
(../shared/DESIGN.md, "Hand drawing").
"""

from __future__ import annotations

import numpy as np

from sheetscan.game.rules import Decoration

Stroke = np.ndarray  # (n, 2) float, x and y in the unit box


def _arc(cx: float, cy: float, rx: float, ry: float, start_deg: float, end_deg: float, n: int = 24) -> Stroke:
    t = np.radians(np.linspace(start_deg, end_deg, n))
    return np.stack([cx + rx * np.cos(t), cy + ry * np.sin(t)], axis=1)


def _line(*points: tuple[float, float]) -> Stroke:
    return np.array(points, dtype=float)


def _lantern() -> list[Stroke]:
    roof = _line((0.18, 0.36), (0.5, 0.14), (0.82, 0.36), (0.18, 0.36))
    light_box = _line((0.33, 0.36), (0.33, 0.56), (0.67, 0.56), (0.67, 0.36))
    window = _line((0.44, 0.42), (0.44, 0.5), (0.56, 0.5), (0.56, 0.42), (0.44, 0.42))
    post = _line((0.44, 0.56), (0.44, 0.8))
    post_right = _line((0.56, 0.56), (0.56, 0.8))
    base = _line((0.28, 0.8), (0.72, 0.8), (0.72, 0.88), (0.28, 0.88), (0.28, 0.8))
    return [roof, light_box, window, post, post_right, base]


def _bamboo() -> list[Stroke]:
    stalk = _line((0.5, 0.92), (0.49, 0.6), (0.5, 0.3), (0.52, 0.08))
    nodes = [_line((0.4, y), (0.61, y)) for y in (0.3, 0.52, 0.74)]
    leaf = np.concatenate([_arc(0.66, 0.26, 0.16, 0.05, 180, 360, 10), _arc(0.66, 0.26, 0.16, 0.05, 0, 180, 10)])
    leaf_left = np.concatenate([_arc(0.36, 0.46, 0.14, 0.045, 180, 360, 10), _arc(0.36, 0.46, 0.14, 0.045, 0, 180, 10)])
    return [stalk, *nodes, leaf, leaf_left]


def _tree() -> list[Stroke]:
    bumps = []
    for angle in range(150, 150 + 360, 60):
        cx = 0.5 + 0.2 * np.cos(np.radians(angle))
        cy = 0.38 + 0.17 * np.sin(np.radians(angle))
        bumps.append(_arc(cx, cy, 0.13, 0.12, angle - 80, angle + 80, 10))
    crown = np.concatenate(bumps + [bumps[0][:1]])
    trunk = [_line((0.45, 0.66), (0.44, 0.9)), _line((0.55, 0.66), (0.56, 0.9))]
    return [crown, *trunk]


def _rock() -> list[Stroke]:
    t = np.radians(np.linspace(0, 360, 15))
    radius = 1 + 0.12 * np.cos(3 * t) + 0.06 * np.sin(5 * t)
    blob = np.stack([0.5 + 0.34 * radius * np.cos(t), 0.6 + 0.24 * radius * np.sin(t)], axis=1)
    crack = _line((0.42, 0.42), (0.5, 0.58), (0.46, 0.7))
    return [blob, crack]


def _moss() -> list[Stroke]:
    tufts = []
    for cx, cy, size in ((0.28, 0.8, 0.1), (0.52, 0.74, 0.12), (0.74, 0.82, 0.09)):
        tufts.append(_line((cx - size, cy + 0.06), (cx - size / 2, cy - 0.04), (cx, cy + 0.05),
                           (cx + size / 2, cy - 0.06), (cx + size, cy + 0.06)))
    ground = _line((0.12, 0.9), (0.88, 0.9))
    return [*tufts, ground]


def _bridge() -> list[Stroke]:
    deck = _arc(0.5, 0.88, 0.42, 0.34, 195, 345, 20)
    underside = _arc(0.5, 0.92, 0.34, 0.24, 200, 340, 16)
    rail = _arc(0.5, 0.7, 0.42, 0.34, 200, 340, 18)
    posts = []
    for angle in (210, 245, 290, 330):
        top = (0.5 + 0.42 * np.cos(np.radians(angle)), 0.7 + 0.34 * np.sin(np.radians(angle)))
        posts.append(_line(top, (top[0], top[1] + 0.17)))
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
    outline = _arc(0.5, 0.55, 0.4, 0.28, 0, 360, 28)
    ripples = [_arc(0.42, 0.5, 0.14, 0.05, 200, 340, 8), _arc(0.6, 0.64, 0.12, 0.04, 200, 340, 8)]
    return [outline, *ripples]


def bonsai_pot() -> list[Stroke]:
    """The printed bonsai below its three leaves: trunk, branches and pot (bonsai box units)."""
    trunk = _line((0.5, 0.8), (0.46, 0.6), (0.52, 0.45), (0.5, 0.3))
    branches = [_line((0.47, 0.56), (0.3, 0.42)), _line((0.52, 0.45), (0.7, 0.42))]
    pot = _line((0.22, 0.8), (0.78, 0.8), (0.7, 0.95), (0.3, 0.95), (0.22, 0.8))
    return [trunk, *branches, pot]
