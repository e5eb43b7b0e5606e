"""The ways people draw: a registry of archetypes for each decoration and for the Spring/Summer mark.

An archetype is one structurally different way to draw a thing: the legend's icon, a quick
shorthand, a sketchier or a more detailed picture, several objects instead of one, an initial
letter, a filled shape. Its ``draw(rng)`` gives the strokes of one player's version (proportions,
counts, closure and filling drawn from ``rng``), in a unit box; the hand then places and wobbles
each drawing (pen.hand_strokes). The draw functions live in ways_upright.py (lanterns, bamboo,
trees) and ways_ground.py (rocks, moss, bridges); adding a way to draw is one function there and
one entry here.

Some archetypes are held out of training (``HELD_OUT``): the benches' ``--held-out-styles`` draw
sheets with those alone, to measure reading on drawings the networks never saw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from sheetscan.game.rules import Decoration
from sheetscan.synthetic import ways_ground as ground
from sheetscan.synthetic import ways_upright as upright
from sheetscan.synthetic.glyphs import GLYPHS, Stroke, ellipse, fill, line, polygon

Draw = Callable[[np.random.Generator], list[Stroke]]


@dataclass(frozen=True)
class Archetype:
    """One way to draw a decoration (or a mark): ``draw(rng)`` gives a player's version."""

    name: str
    draw: Draw


def letter(strokes: list[Stroke]) -> Draw:
    """An initial letter, drawn as its strokes (a capital of about two thirds of the cell)."""
    return lambda rng: [s * rng.uniform(0.9, 1.05) + rng.uniform(-0.03, 0.03, 2) for s in strokes]


def legend(decoration: Decoration) -> Draw:
    return lambda rng: list(GLYPHS[decoration])


LANTERNS = (Archetype("lantern-legend", legend(Decoration.LANTERN)),
            Archetype("lantern-stone", upright.stone_lantern), Archetype("lantern-paper", upright.paper_lantern),
            Archetype("lantern-candle", upright.candle_lantern), Archetype("lantern-pagoda", upright.pagoda_lantern),
            Archetype("lantern-light", upright.light_lantern), Archetype("lantern-filled", upright.filled_lantern),
            Archetype("lantern-hanging", upright.hanging_lantern),
            Archetype("lantern-letter", letter([line((0.36, 0.16), (0.36, 0.84), (0.68, 0.84))])),
            Archetype("lantern-street", upright.street_lantern), Archetype("lantern-flame", upright.flame_lantern),
            Archetype("lantern-window", upright.window_lantern))

BAMBOOS = (Archetype("bamboo-legend", legend(Decoration.BAMBOO)), Archetype("bamboo-clump", upright.bamboo_clump),
           Archetype("bamboo-tube", upright.bamboo_tube), Archetype("bamboo-leafy", upright.bamboo_leafy),
           Archetype("bamboo-dashes", upright.bamboo_dashes), Archetype("bamboo-spray", upright.bamboo_spray),
           Archetype("bamboo-pair", upright.bamboo_pair), Archetype("bamboo-filled", upright.bamboo_filled),
           Archetype("bamboo-letter", letter([line((0.36, 0.84), (0.36, 0.16), (0.58, 0.18), (0.62, 0.32), (0.58, 0.46),
                                                   (0.36, 0.48), (0.64, 0.52), (0.68, 0.7), (0.6, 0.84), (0.36, 0.84))])),
           Archetype("bamboo-knotted", upright.knotted_bamboo), Archetype("bamboo-bent", upright.bent_bamboo),
           Archetype("bamboo-cut", upright.cut_bamboo))

TREES = (Archetype("tree-legend", legend(Decoration.TREE)), Archetype("tree-lollipop", upright.lollipop_tree),
         Archetype("tree-pine", upright.pine_tree), Archetype("tree-stick", upright.stick_tree),
         Archetype("tree-scribble", upright.scribble_tree), Archetype("tree-filled", upright.filled_tree),
         Archetype("tree-three-balls", upright.three_ball_tree), Archetype("tree-bonsai", upright.bonsai_tree),
         Archetype("tree-letter", letter([line((0.28, 0.16), (0.72, 0.16)), line((0.5, 0.16), (0.5, 0.86))])),
         Archetype("tree-cloud", upright.cloud_tree), Archetype("tree-leaf", upright.leaf_tree),
         Archetype("tree-cypress", upright.cypress_tree))

ROCKS = (Archetype("rock-legend", legend(Decoration.ROCK)), Archetype("rock-filled", ground.filled_rock),
         Archetype("rock-pile", ground.pile_rock), Archetype("rock-angular", ground.angular_rock),
         Archetype("rock-plain", ground.plain_rock), Archetype("rock-shaded", ground.shaded_rock),
         Archetype("rock-flat", ground.flat_rock), Archetype("rock-dotted", ground.dotted_rock),
         Archetype("rock-letter", letter([line((0.36, 0.84), (0.36, 0.16), (0.6, 0.18), (0.66, 0.32), (0.6, 0.48),
                                               (0.36, 0.5)), line((0.48, 0.5), (0.68, 0.84))])),
         Archetype("rock-cracked", ground.cracked_rock), Archetype("rock-scribbled", ground.scribbled_rock),
         Archetype("rock-standing", ground.standing_stone))

MOSSES = (Archetype("moss-legend", legend(Decoration.MOSS)), Archetype("moss-dots", ground.moss_dots),
          Archetype("moss-waves", ground.moss_waves), Archetype("moss-grass", ground.moss_grass),
          Archetype("moss-bush", ground.moss_bush), Archetype("moss-curls", ground.moss_curls),
          Archetype("moss-patch", ground.moss_patch), Archetype("moss-stones", ground.moss_stones),
          Archetype("moss-letter", letter([line((0.26, 0.84), (0.3, 0.16), (0.5, 0.6), (0.7, 0.16), (0.74, 0.84))])),
          Archetype("moss-carpet", ground.moss_carpet), Archetype("moss-ferns", ground.moss_ferns),
          Archetype("moss-mound", ground.moss_mound))

BRIDGES = (Archetype("bridge-legend", legend(Decoration.BRIDGE)), Archetype("bridge-arch", ground.simple_arch),
           Archetype("bridge-ladder", ground.ladder_bridge), Archetype("bridge-equals", ground.equals_bridge),
           Archetype("bridge-double-arch", ground.double_arch), Archetype("bridge-wave", ground.wave_bridge),
           Archetype("bridge-planks", ground.plank_bridge), Archetype("bridge-filled", ground.filled_arch),
           Archetype("bridge-moon", ground.moon_bridge), Archetype("bridge-flat-top", ground.flat_top_bridge),
           Archetype("bridge-zigzag", ground.zigzag_bridge))

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
    Archetype("mark-square", lambda rng: [*fill(polygon((0.15, 0.15), (0.85, 0.15), (0.85, 0.85), (0.15, 0.85)), 0.08, 45),
                                          polygon((0.15, 0.15), (0.85, 0.15), (0.85, 0.85), (0.15, 0.85))]),
    Archetype("mark-scribble", lambda rng: [line((0.08, 0.35), (0.3, 0.7), (0.5, 0.3), (0.7, 0.7), (0.92, 0.35))]),
    Archetype("mark-slash", lambda rng: [line((0.15, 0.85), (0.85, 0.15))]),
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
