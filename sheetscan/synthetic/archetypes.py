"""The ways people draw: a registry of archetypes for each decoration and for the Spring/Summer mark.

An archetype is one structurally different way to draw a thing: the legend's icon, a quick
shorthand, a sketchier or a more detailed picture, several objects instead of one, an initial
letter, a filled shape. Its ``draw(rng)`` gives the strokes of one player's version (proportions,
counts, closure and filling drawn from ``rng``), in a unit box; the hand then places and wobbles
each drawing (pen.hand_strokes). The draw functions live in ways_upright.py (lanterns, bamboo,
trees), ways_ground.py (rocks, moss, bridges), ways_fresh.py and ways_unseen.py (the fresh and the
unseen ways, below); adding a way to draw is one function there and one entry here.

Some archetypes are held out of training (``HELD_OUT``): the benches' ``--held-out-styles`` draw
sheets with those alone, to measure reading on drawings the networks never saw. Many rounds of the
decoder's tuning looked at those sheets; the ``FRESH`` ways (ways_fresh.py), invented after, were
out of training and of tuning alike (``--fresh-styles`` draws with them alone) until the drawing
network's plan took them into training (``choices(fresh_trained=True)``); the cell networks never see them.
The ``UNSEEN`` ways (ways_unseen.py), invented on 2026-12-07, are out of all training and tuning
(``--unseen-styles``): the measure of a hand nobody in the project has seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from sheetscan.game.rules import Decoration
from sheetscan.synthetic import ways_fresh as fresh
from sheetscan.synthetic import ways_ground as ground
from sheetscan.synthetic import ways_unseen as unseen
from sheetscan.synthetic import ways_upright as upright
from sheetscan.synthetic.glyphs import GLYPHS, Stroke, ellipse, fill, line, polygon, rectangle

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


def ways(thing: str, **draws: Draw) -> tuple[Archetype, ...]:
    """A thing's archetypes, each named ``thing-way`` (``three_balls`` gives ``tree-three-balls``), in order."""
    return tuple(Archetype(f"{thing}-{way.replace('_', '-')}", draw) for way, draw in draws.items())


LANTERNS = ways("lantern", legend=legend(Decoration.LANTERN), stone=upright.stone_lantern,
                paper=upright.paper_lantern, candle=upright.candle_lantern, pagoda=upright.pagoda_lantern,
                light=upright.light_lantern, filled=upright.filled_lantern,
                hanging=upright.hanging_lantern,
                letter=letter([line((0.36, 0.16), (0.36, 0.84), (0.68, 0.84))]),
                street=upright.street_lantern, flame=upright.flame_lantern, window=upright.window_lantern,
                bulb=fresh.bulb_lantern, cage=fresh.cage_lantern,
                glowing=unseen.glowing_lantern, jar=unseen.jar_lantern)

BAMBOOS = ways("bamboo", legend=legend(Decoration.BAMBOO), clump=upright.bamboo_clump, tube=upright.bamboo_tube,
               leafy=upright.bamboo_leafy, dashes=upright.bamboo_dashes, spray=upright.bamboo_spray,
               pair=upright.bamboo_pair, filled=upright.bamboo_filled,
               letter=letter([line((0.36, 0.84), (0.36, 0.16), (0.58, 0.18), (0.62, 0.32), (0.58, 0.46),
                                   (0.36, 0.48), (0.64, 0.52), (0.68, 0.7), (0.6, 0.84), (0.36, 0.84))]),
               knotted=upright.knotted_bamboo, bent=upright.bent_bamboo, cut=upright.cut_bamboo,
               beads=fresh.bamboo_beads, shoot=fresh.bamboo_shoot,
               two_leaves=unseen.two_leaf_bamboo, sprout=unseen.sprout_bamboo)

TREES = ways("tree", legend=legend(Decoration.TREE), lollipop=upright.lollipop_tree, pine=upright.pine_tree,
             stick=upright.stick_tree, scribble=upright.scribble_tree, filled=upright.filled_tree,
             three_balls=upright.three_ball_tree, bonsai=upright.bonsai_tree,
             letter=letter([line((0.28, 0.16), (0.72, 0.16)), line((0.5, 0.16), (0.5, 0.86))]),
             cloud=upright.cloud_tree, leaf=upright.leaf_tree, cypress=upright.cypress_tree,
             palm=fresh.palm_tree, weeping=fresh.weeping_tree,
             dome=unseen.dome_tree, bare=unseen.bare_tree)

ROCKS = ways("rock", legend=legend(Decoration.ROCK), filled=ground.filled_rock, pile=ground.pile_rock,
             angular=ground.angular_rock, plain=ground.plain_rock, shaded=ground.shaded_rock,
             flat=ground.flat_rock, dotted=ground.dotted_rock,
             letter=letter([line((0.36, 0.84), (0.36, 0.16), (0.6, 0.18), (0.66, 0.32), (0.6, 0.48),
                                 (0.36, 0.5)), line((0.48, 0.5), (0.68, 0.84))]),
             cracked=ground.cracked_rock, scribbled=ground.scribbled_rock, standing=ground.standing_stone,
             block=fresh.block_rock, grounded=fresh.grounded_rock,
             peak=unseen.peak_rock, egg=unseen.egg_rock)

MOSSES = ways("moss", legend=legend(Decoration.MOSS), dots=ground.moss_dots, waves=ground.moss_waves,
              grass=ground.moss_grass, bush=ground.moss_bush, curls=ground.moss_curls,
              patch=ground.moss_patch, stones=ground.moss_stones,
              letter=letter([line((0.26, 0.84), (0.3, 0.16), (0.5, 0.6), (0.7, 0.16), (0.74, 0.84))]),
              carpet=ground.moss_carpet, ferns=ground.moss_ferns, mound=ground.moss_mound,
              stars=fresh.moss_stars, scallops=fresh.moss_scallops,
              tufts=unseen.moss_tufts, hatched=unseen.moss_hatched)

BRIDGES = ways("bridge", legend=legend(Decoration.BRIDGE), arch=ground.simple_arch, ladder=ground.ladder_bridge,
               equals=ground.equals_bridge, double_arch=ground.double_arch, wave=ground.wave_bridge,
               planks=ground.plank_bridge, filled=ground.filled_arch, moon=ground.moon_bridge,
               flat_top=ground.flat_top_bridge, zigzag=ground.zigzag_bridge,
               suspension=fresh.suspension_bridge, topview=fresh.topview_bridge,
               stepping_stones=unseen.stepping_stones, posts=unseen.post_bridge)

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
    Archetype("mark-square", lambda rng: [*fill(rectangle(0.15, 0.15, 0.85, 0.85), 0.08, 45),
                                          rectangle(0.15, 0.15, 0.85, 0.85)]),
    Archetype("mark-scribble", lambda rng: [line((0.08, 0.35), (0.3, 0.7), (0.5, 0.3), (0.7, 0.7), (0.92, 0.35))]),
    Archetype("mark-slash", lambda rng: [line((0.15, 0.85), (0.85, 0.15))]),
    Archetype("mark-letter-s", fresh.mark_letter_s),
    Archetype("mark-hash", fresh.mark_hash),
    Archetype("mark-arrow", unseen.mark_arrow),
    Archetype("mark-tilde", unseen.mark_tilde),
)

# Held out of training: two archetypes a decoration and two marks, each unlike the others in
# structure (several objects, another silhouette, a filled or a ringed form).
HELD_OUT = frozenset({
    "lantern-paper", "lantern-pagoda", "bamboo-clump", "bamboo-spray", "tree-pine", "tree-stick",
    "rock-pile", "rock-angular", "moss-dots", "moss-waves", "bridge-ladder", "bridge-planks",
    "mark-ring", "mark-plus",
})


# Invented after the decoder's last choice (ways_fresh.py): out of its tuning; trained on by the drawing
# plan alone (its fresh_ways).
FRESH = frozenset({
    "lantern-bulb", "lantern-cage", "bamboo-beads", "bamboo-shoot", "tree-palm", "tree-weeping",
    "rock-block", "rock-grounded", "moss-stars", "moss-scallops", "bridge-suspension", "bridge-topview",
    "mark-letter-s", "mark-hash",
})


# Invented on 2026-12-07, after every choice (ways_unseen.py): out of all training and tuning, the
# benches' estimate of a hand nobody in the project has seen.
UNSEEN = frozenset({
    "lantern-glowing", "lantern-jar", "bamboo-two-leaves", "bamboo-sprout", "tree-dome", "tree-bare",
    "rock-peak", "rock-egg", "moss-tufts", "moss-hatched", "bridge-stepping-stones", "bridge-posts",
    "mark-arrow", "mark-tilde",
})


def choices(archetypes: tuple[Archetype, ...], held_out: bool, fresh: bool = False,
            fresh_trained: bool = False, unseen: bool = False) -> tuple[Archetype, ...]:
    """The archetypes a hand may use: the unseen ones alone, the fresh ones alone, the held-out
    ones alone, or all the others (the ways the networks train on), the fresh ones among them for
    a plan that trains on them too (``fresh_trained``)."""
    if unseen:
        return tuple(a for a in archetypes if a.name in UNSEEN)
    if fresh:
        return tuple(a for a in archetypes if a.name in FRESH)
    if held_out:
        return tuple(a for a in archetypes if a.name in HELD_OUT)
    return tuple(a for a in archetypes if a.name not in HELD_OUT | UNSEEN and (fresh_trained or a.name not in FRESH))
