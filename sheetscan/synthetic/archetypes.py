"""The ways people draw: a registry of archetypes for each decoration and for the Spring/Summer mark.

An archetype is one structurally different way to draw a thing: the legend's icon, a quick
shorthand, a sketchier or a more detailed picture, several objects instead of one, an initial
letter, a filled shape. Its ``draw(rng)`` gives the strokes of one player's version (proportions,
counts, closure and filling drawn from ``rng``), in a unit box; the hand then places and wobbles
each drawing (pen.hand_strokes). Adding a hand is one entry here.

Some archetypes are held out of training (``HELD_OUT``): the benches' ``--held-out-styles`` draw
sheets with those alone, to measure reading on drawings the networks never saw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from sheetscan.game.rules import Decoration
from sheetscan.synthetic.glyphs import GLYPHS, Stroke, arc, ellipse, fill, line, polygon

Draw = Callable[[np.random.Generator], list[Stroke]]
OPEN_CHANCE = 0.3  # chance a player leaves a closed outline with a gap


@dataclass(frozen=True)
class Archetype:
    """One way to draw a decoration (or a mark): ``draw(rng)`` gives a player's version."""

    name: str
    draw: Draw


def maybe_open(stroke: Stroke, rng: np.random.Generator) -> Stroke:
    """A closed stroke, or with a gap where the pen lifted early."""
    return stroke[: max(3, int(len(stroke) * rng.uniform(0.8, 0.92)))] if rng.random() < OPEN_CHANCE else stroke


def letter(strokes: list[Stroke]) -> Draw:
    """An initial letter, drawn as its strokes (a capital of about two thirds of the cell)."""
    return lambda rng: [s * rng.uniform(0.9, 1.05) + rng.uniform(-0.03, 0.03, 2) for s in strokes]


def legend(decoration: Decoration) -> Draw:
    return lambda rng: list(GLYPHS[decoration])


# -- lanterns -------------------------------------------------------------------------------

def _stone_lantern(rng):
    w, top = rng.uniform(0.26, 0.36), rng.uniform(0.12, 0.2)
    return [maybe_open(polygon((0.5 - w, 0.38), (0.5, top), (0.5 + w, 0.38)), rng),
            polygon((0.38, 0.38), (0.62, 0.38), (0.62, 0.6), (0.38, 0.6)),
            line((0.47, 0.6), (0.47, 0.78)), line((0.53, 0.6), (0.53, 0.78)), line((0.3, 0.82), (0.7, 0.82))]


def _paper_lantern(rng):
    ribs = rng.integers(2, 5)
    return [line((0.5, 0.06), (0.5, 0.18)), line((0.4, 0.18), (0.6, 0.18)), maybe_open(ellipse(0.5, 0.5, 0.27, 0.3), rng),
            *[arc(0.5, 0.5, 0.27 * np.cos(np.arcsin(y)), 0.02, 180, 360, 8) + (0, 0.3 * y) for y in np.linspace(-0.6, 0.6, ribs)],
            line((0.4, 0.82), (0.6, 0.82))]


def _candle_lantern(rng):
    flame = arc(0.5, 0.36, 0.06, 0.12, -90, 270, 16)
    return [polygon((0.34, 0.22), (0.66, 0.22), (0.66, 0.82), (0.34, 0.82)), flame, line((0.28, 0.22), (0.72, 0.22)),
            line((0.5, 0.1), (0.5, 0.22)), *fill(polygon((0.44, 0.6), (0.56, 0.6), (0.56, 0.8), (0.44, 0.8)), 0.03, 90)]


def _pagoda_lantern(rng):
    roofs = rng.integers(2, 4)
    strokes = [line((0.5 - 0.32 + 0.06 * i, 0.3 + 0.16 * i), (0.5, 0.14 + 0.16 * i), (0.5 + 0.32 - 0.06 * i, 0.3 + 0.16 * i))
               for i in range(roofs)]
    return [*strokes, line((0.5, 0.14 + 0.16 * roofs), (0.5, 0.88)), line((0.36, 0.88), (0.64, 0.88))]


def _light_lantern(rng):
    rays = rng.integers(6, 10)
    angles = np.linspace(0, 2 * np.pi, rays, endpoint=False) + rng.uniform(0, 1)
    return [maybe_open(ellipse(0.5, 0.5, 0.14, 0.14, 20), rng),
            *[line((0.5 + 0.22 * np.cos(a), 0.5 + 0.22 * np.sin(a)), (0.5 + 0.36 * np.cos(a), 0.5 + 0.36 * np.sin(a))) for a in angles]]


def _filled_lantern(rng):
    body = polygon((0.36, 0.36), (0.64, 0.36), (0.64, 0.64), (0.36, 0.64))
    return [polygon((0.2, 0.36), (0.5, 0.14), (0.8, 0.36)), body, *fill(body, rng.uniform(0.035, 0.07), rng.uniform(20, 70)),
            line((0.5, 0.64), (0.5, 0.82)), line((0.3, 0.84), (0.7, 0.84))]


def _hanging_lantern(rng):
    return [arc(0.5, 0.16, 0.2, 0.1, 180, 360, 12), line((0.5, 0.06), (0.5, 0.26)),
            maybe_open(polygon((0.36, 0.26), (0.64, 0.26), (0.7, 0.7), (0.3, 0.7)), rng), line((0.5, 0.7), (0.5, 0.86))]


LANTERNS = (Archetype("lantern-legend", legend(Decoration.LANTERN)), Archetype("lantern-stone", _stone_lantern),
            Archetype("lantern-paper", _paper_lantern), Archetype("lantern-candle", _candle_lantern),
            Archetype("lantern-pagoda", _pagoda_lantern), Archetype("lantern-light", _light_lantern),
            Archetype("lantern-filled", _filled_lantern), Archetype("lantern-hanging", _hanging_lantern),
            Archetype("lantern-letter", letter([line((0.36, 0.16), (0.36, 0.84), (0.68, 0.84))])))

# -- bamboo ---------------------------------------------------------------------------------

def _bamboo_clump(rng):
    stalks = rng.integers(2, 5)
    xs = np.linspace(0.3, 0.7, stalks) + rng.uniform(-0.03, 0.03, stalks)
    strokes = []
    for x in xs:
        top = rng.uniform(0.08, 0.3)
        strokes.append(line((x, 0.9), (x + rng.uniform(-0.04, 0.04), top)))
        strokes += [line((x - 0.04, y), (x + 0.04, y)) for y in np.arange(top + 0.15, 0.85, 0.2)]
    return strokes


def _bamboo_tube(rng):
    segments = rng.integers(3, 6)
    ys = np.linspace(0.1, 0.9, segments + 1)
    return [line((0.44, 0.1), (0.44, 0.9)), line((0.56, 0.1), (0.56, 0.9)), *[line((0.42, y), (0.58, y)) for y in ys[1:-1]]]


def _bamboo_leafy(rng):
    leaves = rng.integers(3, 6)
    strokes = [line((0.45, 0.92), (0.5, 0.1))]
    for i, y in enumerate(np.linspace(0.2, 0.7, leaves)):
        side = 1 if i % 2 else -1
        strokes.append(line((0.48, y), (0.48 + side * 0.3, y - 0.1)))
    return strokes


def _bamboo_dashes(rng):
    pieces = rng.integers(3, 6)
    ys = np.linspace(0.1, 0.9, pieces + 1)
    return [line((0.5, a + 0.02), (0.5 + rng.uniform(-0.02, 0.02), b - 0.02)) for a, b in zip(ys[:-1], ys[1:])]


def _bamboo_spray(rng):
    leaves = rng.integers(4, 7)
    angles = np.radians(np.linspace(-150, -30, leaves))
    return [line((0.5, 0.9), (0.5, 0.62)),
            *[maybe_open(ellipse(0.5 + 0.24 * np.cos(a), 0.6 + 0.3 * np.sin(a), 0.06, 0.06, 10), rng) for a in angles]]


def _bamboo_pair(rng):
    return [line((0.38, 0.92), (0.36, 0.1)), line((0.62, 0.92), (0.64, 0.16)),
            *[line((0.3, y), (0.44, y)) for y in (0.35, 0.6)], *[line((0.56, y), (0.7, y)) for y in (0.45, 0.7)],
            arc(0.8, 0.3, 0.14, 0.04, 180, 360, 8)]


def _bamboo_filled(rng):
    tube = polygon((0.42, 0.08), (0.58, 0.08), (0.58, 0.92), (0.42, 0.92))
    return [tube, *fill(tube, rng.uniform(0.04, 0.07), rng.uniform(30, 60)), line((0.38, 0.38), (0.62, 0.38)),
            line((0.38, 0.66), (0.62, 0.66))]


BAMBOOS = (Archetype("bamboo-legend", legend(Decoration.BAMBOO)), Archetype("bamboo-clump", _bamboo_clump),
           Archetype("bamboo-tube", _bamboo_tube), Archetype("bamboo-leafy", _bamboo_leafy),
           Archetype("bamboo-dashes", _bamboo_dashes), Archetype("bamboo-spray", _bamboo_spray),
           Archetype("bamboo-pair", _bamboo_pair), Archetype("bamboo-filled", _bamboo_filled),
           Archetype("bamboo-letter", letter([line((0.36, 0.84), (0.36, 0.16), (0.58, 0.18), (0.62, 0.32), (0.58, 0.46),
                                                   (0.36, 0.48), (0.64, 0.52), (0.68, 0.7), (0.6, 0.84), (0.36, 0.84))])))

# -- trees ----------------------------------------------------------------------------------

def _lollipop_tree(rng):
    r = rng.uniform(0.18, 0.26)
    return [maybe_open(ellipse(0.5, 0.2 + r, r, r * rng.uniform(0.85, 1.1)), rng), line((0.5, 0.2 + 2 * r), (0.5, 0.9))]


def _pine_tree(rng):
    tiers = rng.integers(1, 4)
    strokes = [polygon((0.5 - 0.3 + 0.05 * i, 0.42 + 0.2 * i), (0.5, 0.1 + 0.16 * i), (0.5 + 0.3 - 0.05 * i, 0.42 + 0.2 * i))
               for i in range(tiers)]
    return [*strokes, line((0.5, 0.42 + 0.2 * (tiers - 1)), (0.5, 0.9))]


def _stick_tree(rng):
    return [line((0.5, 0.92), (0.5, 0.2)), line((0.5, 0.55), (0.28, 0.3)), line((0.5, 0.45), (0.72, 0.22)),
            line((0.5, 0.7), (0.7, 0.52)), line((0.38, 0.42), (0.3, 0.42))]


def _scribble_tree(rng):
    t = np.linspace(0, rng.uniform(5, 8) * np.pi, 60)
    crown = np.stack([0.5 + (0.1 + 0.02 * t / np.pi) * np.cos(t), 0.38 + (0.08 + 0.016 * t / np.pi) * np.sin(t)], axis=1)
    return [crown, line((0.5, 0.62), (0.5, 0.92))]


def _filled_tree(rng):
    crown = ellipse(0.5, 0.38, 0.26, 0.24)
    return [crown, *fill(crown, rng.uniform(0.035, 0.07), rng.uniform(0, 180)), line((0.46, 0.62), (0.46, 0.9)),
            line((0.54, 0.62), (0.54, 0.9))]


def _three_ball_tree(rng):
    return [maybe_open(ellipse(0.36, 0.4, 0.14, 0.13), rng), ellipse(0.64, 0.4, 0.14, 0.13), ellipse(0.5, 0.22, 0.15, 0.13),
            line((0.5, 0.53), (0.5, 0.9))]


def _bonsai_tree(rng):
    return [line((0.5, 0.9), (0.44, 0.7), (0.56, 0.52), (0.5, 0.36)), arc(0.34, 0.4, 0.16, 0.07, 180, 360, 12) + (0, 0.02),
            arc(0.64, 0.3, 0.17, 0.08, 180, 360, 12), line((0.18, 0.42), (0.5, 0.42)), line((0.47, 0.3), (0.81, 0.3))]


TREES = (Archetype("tree-legend", legend(Decoration.TREE)), Archetype("tree-lollipop", _lollipop_tree),
         Archetype("tree-pine", _pine_tree), Archetype("tree-stick", _stick_tree), Archetype("tree-scribble", _scribble_tree),
         Archetype("tree-filled", _filled_tree), Archetype("tree-three-balls", _three_ball_tree),
         Archetype("tree-bonsai", _bonsai_tree),
         Archetype("tree-letter", letter([line((0.28, 0.16), (0.72, 0.16)), line((0.5, 0.16), (0.5, 0.86))])))

# -- rocks ----------------------------------------------------------------------------------

def _blob(rng, cx=0.5, cy=0.58, rx=0.32, ry=0.24):
    t = np.radians(np.linspace(0, 360, 17))
    radius = 1 + rng.uniform(0.05, 0.15) * np.cos(3 * t + rng.uniform(0, 6)) + 0.05 * np.sin(5 * t)
    return np.stack([cx + rx * radius * np.cos(t), cy + ry * radius * np.sin(t)], axis=1)


def _filled_rock(rng):
    outline = _blob(rng)
    return [outline, *fill(outline, rng.uniform(0.035, 0.07), rng.uniform(0, 180))]


def _pile_rock(rng):
    return [maybe_open(_blob(rng, 0.34, 0.72, 0.18, 0.13), rng), _blob(rng, 0.66, 0.72, 0.17, 0.13), _blob(rng, 0.5, 0.46, 0.16, 0.12)]


def _angular_rock(rng):
    outline = polygon((0.16, 0.8), (0.26, 0.42), (0.5, 0.28), (0.76, 0.4), (0.86, 0.8))
    return [outline, line((0.5, 0.28), (0.46, 0.56), (0.16, 0.8)), line((0.46, 0.56), (0.86, 0.8))]


def _plain_rock(rng):
    return [maybe_open(ellipse(0.5, 0.6, rng.uniform(0.26, 0.36), rng.uniform(0.16, 0.24)), rng)]


def _shaded_rock(rng):
    outline = _blob(rng)
    return [outline, *[line((0.62 + 0.05 * i, 0.48 + 0.03 * i), (0.7 + 0.04 * i, 0.7)) for i in range(3)]]


def _flat_rock(rng):
    return [maybe_open(ellipse(0.5, 0.7, 0.38, 0.12), rng), arc(0.5, 0.66, 0.3, 0.05, 200, 340, 10)]


def _dotted_rock(rng):
    outline = _blob(rng)
    spots = rng.uniform(-0.1, 0.1, (rng.integers(3, 6), 2)) + (0.5, 0.6)
    return [outline, *[ellipse(x, y, 0.015, 0.015, 6) for x, y in spots]]


ROCKS = (Archetype("rock-legend", legend(Decoration.ROCK)), Archetype("rock-filled", _filled_rock),
         Archetype("rock-pile", _pile_rock), Archetype("rock-angular", _angular_rock), Archetype("rock-plain", _plain_rock),
         Archetype("rock-shaded", _shaded_rock), Archetype("rock-flat", _flat_rock), Archetype("rock-dotted", _dotted_rock),
         Archetype("rock-letter", letter([line((0.36, 0.84), (0.36, 0.16), (0.6, 0.18), (0.66, 0.32), (0.6, 0.48),
                                               (0.36, 0.5)), line((0.48, 0.5), (0.68, 0.84))])))

# -- moss -----------------------------------------------------------------------------------

def _moss_dots(rng):
    count = rng.integers(6, 11)
    spots = np.column_stack([rng.uniform(0.18, 0.82, count), rng.uniform(0.5, 0.88, count)])
    return [ellipse(x, y, 0.03, 0.03, 8) for x, y in spots]


def _moss_waves(rng):
    t = np.linspace(0, 1, 20)
    return [np.stack([0.18 + 0.64 * t, y + 0.04 * np.sin(t * rng.uniform(4, 7) * np.pi)], axis=1)
            for y in np.linspace(0.55, 0.85, rng.integers(2, 4))]


def _moss_grass(rng):
    tufts = rng.integers(3, 6)
    strokes = []
    for cx in np.linspace(0.2, 0.8, tufts):
        strokes.append(line((cx - 0.07, 0.6), (cx, 0.86), (cx + 0.07, 0.6)))
    return strokes


def _moss_bush(rng):
    bumps = rng.integers(3, 6)
    xs = np.linspace(0.14, 0.86, bumps + 1)
    outline = np.concatenate([arc((a + b) / 2, 0.82, (b - a) / 2, 0.14, 180, 360, 8) for a, b in zip(xs[:-1], xs[1:])])
    return [outline, line((0.14, 0.84), (0.86, 0.84))]


def _moss_curls(rng):
    strokes = []
    for cx in np.linspace(0.24, 0.76, rng.integers(3, 5)):
        t = np.linspace(0, 3 * np.pi, 18)
        strokes.append(np.stack([cx + 0.012 * t * np.cos(t), 0.72 + 0.012 * t * np.sin(t)], axis=1))
    return strokes


def _moss_patch(rng):
    patch = polygon((0.16, 0.62), (0.84, 0.62), (0.84, 0.86), (0.16, 0.86))
    return [*fill(patch, rng.uniform(0.05, 0.08), 45), *fill(patch, rng.uniform(0.05, 0.08), 135)]


def _moss_stones(rng):
    return [ellipse(x, 0.78, 0.09, 0.05, 12) for x in (0.26, 0.5, 0.74)] + [line((0.14, 0.7), (0.2, 0.62), (0.26, 0.7))]


MOSSES = (Archetype("moss-legend", legend(Decoration.MOSS)), Archetype("moss-dots", _moss_dots),
          Archetype("moss-waves", _moss_waves), Archetype("moss-grass", _moss_grass), Archetype("moss-bush", _moss_bush),
          Archetype("moss-curls", _moss_curls), Archetype("moss-patch", _moss_patch), Archetype("moss-stones", _moss_stones),
          Archetype("moss-letter", letter([line((0.26, 0.84), (0.3, 0.16), (0.5, 0.6), (0.7, 0.16), (0.74, 0.84))])))

# -- bridges --------------------------------------------------------------------------------

def _simple_arch(rng):
    return [arc(0.5, 0.86, 0.4, rng.uniform(0.3, 0.45), 180, 360, 20), line((0.06, 0.86), (0.94, 0.86))]


def _ladder_bridge(rng):
    planks = rng.integers(4, 8)
    return [line((0.1, 0.4), (0.9, 0.4)), line((0.1, 0.64), (0.9, 0.64)),
            *[line((x, 0.4), (x, 0.64)) for x in np.linspace(0.16, 0.84, planks)]]


def _equals_bridge(rng):
    return [line((0.18, 0.42), (0.82, 0.42)), line((0.18, 0.6), (0.82, 0.6))]


def _double_arch(rng):
    return [arc(0.5, 0.8, 0.42, 0.36, 190, 350, 18), arc(0.5, 0.84, 0.3, 0.2, 190, 350, 14), line((0.08, 0.86), (0.92, 0.86))]


def _wave_bridge(rng):
    t = np.linspace(0, 1, 24)
    return [arc(0.5, 0.62, 0.4, 0.3, 180, 360, 18), line((0.1, 0.62), (0.9, 0.62)),
            np.stack([0.12 + 0.76 * t, 0.8 + 0.04 * np.sin(t * 6 * np.pi)], axis=1)]


def _plank_bridge(rng):
    deck = polygon((0.1, 0.42), (0.9, 0.42), (0.9, 0.6), (0.1, 0.6))
    return [deck, *[line((x, 0.42), (x, 0.6)) for x in np.linspace(0.2, 0.8, rng.integers(3, 7))],
            line((0.2, 0.6), (0.2, 0.78)), line((0.8, 0.6), (0.8, 0.78))]


def _filled_arch(rng):
    outline = np.vstack([arc(0.5, 0.84, 0.42, 0.38, 180, 360, 18), arc(0.5, 0.84, 0.26, 0.2, 360, 180, 14)])
    return [outline, *fill(outline, rng.uniform(0.035, 0.06), rng.uniform(30, 150))]


BRIDGES = (Archetype("bridge-legend", legend(Decoration.BRIDGE)), Archetype("bridge-arch", _simple_arch),
           Archetype("bridge-ladder", _ladder_bridge), Archetype("bridge-equals", _equals_bridge),
           Archetype("bridge-double-arch", _double_arch), Archetype("bridge-wave", _wave_bridge),
           Archetype("bridge-planks", _plank_bridge), Archetype("bridge-filled", _filled_arch))

ARCHETYPES: dict[Decoration, tuple[Archetype, ...]] = {
    Decoration.LANTERN: LANTERNS, Decoration.BAMBOO: BAMBOOS, Decoration.TREE: TREES,
    Decoration.ROCK: ROCKS, Decoration.MOSS: MOSSES, Decoration.BRIDGE: BRIDGES,
}

# -- the Spring/Summer mark: any small mark, anywhere in the cell ----------------------------

TREE_MARKS = (
    Archetype("mark-dot", lambda rng: fill(ellipse(0.5, 0.5, 0.42, 0.42, 16), 0.06, 0)),
    Archetype("mark-ring", lambda rng: [ellipse(0.5, 0.5, 0.4, 0.4, 16)]),
    Archetype("mark-star", lambda rng: [line((0.5 + 0.45 * np.cos(a), 0.5 + 0.45 * np.sin(a)),
                                             (0.5 - 0.45 * np.cos(a), 0.5 - 0.45 * np.sin(a))) for a in np.radians((0, 60, 120))]),
    Archetype("mark-cross", lambda rng: [line((0.1, 0.1), (0.9, 0.9)), line((0.9, 0.1), (0.1, 0.9))]),
    Archetype("mark-tick", lambda rng: [line((0.1, 0.55), (0.38, 0.88), (0.92, 0.1))]),
    Archetype("mark-dash", lambda rng: [line((0.05, 0.5), (0.95, 0.5))]),
    Archetype("mark-plus", lambda rng: [line((0.5, 0.05), (0.5, 0.95)), line((0.05, 0.5), (0.95, 0.5))]),
    Archetype("mark-triangle", lambda rng: [*fill(polygon((0.5, 0.1), (0.92, 0.85), (0.08, 0.85)), 0.08, 0),
                                            polygon((0.5, 0.1), (0.92, 0.85), (0.08, 0.85))]),
    Archetype("mark-sun", lambda rng: [ellipse(0.5, 0.5, 0.2, 0.2, 12),
                                       *[line((0.5 + 0.3 * np.cos(a), 0.5 + 0.3 * np.sin(a)),
                                              (0.5 + 0.48 * np.cos(a), 0.5 + 0.48 * np.sin(a))) for a in np.radians(range(0, 360, 60))]]),
)

# Held out of training: two archetypes a decoration and two marks, each unlike the others in
# structure (several objects, another silhouette, a filled or a ringed form).
HELD_OUT = frozenset({
    "lantern-paper", "lantern-pagoda", "bamboo-clump", "bamboo-spray", "tree-pine", "tree-stick",
    "rock-pile", "rock-angular", "moss-dots", "moss-waves", "bridge-ladder", "bridge-planks",
    "mark-ring", "mark-plus",
})


def choices(archetypes: tuple[Archetype, ...], held_out: bool) -> tuple[Archetype, ...]:
    """The archetypes a hand may use: the held-out ones alone, or all the others."""
    return tuple(a for a in archetypes if (a.name in HELD_OUT) == held_out)
