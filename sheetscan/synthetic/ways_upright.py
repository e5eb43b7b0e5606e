"""The ways people draw the upright decorations: lanterns, bamboo and trees.

Each function is one archetype's ``draw(rng)`` (archetypes.py holds the registry): the strokes
of one player's version, in a unit box, y down.
"""

from __future__ import annotations

import numpy as np

from sheetscan.synthetic.glyphs import arc, ellipse, fill, line, maybe_open, polygon, rectangle

# -- lanterns -------------------------------------------------------------------------------

def stone_lantern(rng):
    w, top = rng.uniform(0.26, 0.36), rng.uniform(0.12, 0.2)
    return [maybe_open(polygon((0.5 - w, 0.38), (0.5, top), (0.5 + w, 0.38)), rng),
            rectangle(0.38, 0.38, 0.62, 0.6),
            line((0.47, 0.6), (0.47, 0.78)), line((0.53, 0.6), (0.53, 0.78)), line((0.3, 0.82), (0.7, 0.82))]


def paper_lantern(rng):
    ribs = rng.integers(2, 5)
    return [line((0.5, 0.06), (0.5, 0.18)), line((0.4, 0.18), (0.6, 0.18)), maybe_open(ellipse(0.5, 0.5, 0.27, 0.3), rng),
            *[arc(0.5, 0.5, 0.27 * np.cos(np.arcsin(y)), 0.02, 180, 360, 8) + (0, 0.3 * y) for y in np.linspace(-0.6, 0.6, ribs)],
            line((0.4, 0.82), (0.6, 0.82))]


def candle_lantern(rng):
    flame = arc(0.5, 0.36, 0.06, 0.12, -90, 270, 16)
    return [rectangle(0.34, 0.22, 0.66, 0.82), flame, line((0.28, 0.22), (0.72, 0.22)),
            line((0.5, 0.1), (0.5, 0.22)), *fill(rectangle(0.44, 0.6, 0.56, 0.8), 0.03, 90)]


def pagoda_lantern(rng):
    roofs = rng.integers(2, 4)
    strokes = [line((0.5 - 0.32 + 0.06 * i, 0.3 + 0.16 * i), (0.5, 0.14 + 0.16 * i), (0.5 + 0.32 - 0.06 * i, 0.3 + 0.16 * i))
               for i in range(roofs)]
    return [*strokes, line((0.5, 0.14 + 0.16 * roofs), (0.5, 0.88)), line((0.36, 0.88), (0.64, 0.88))]


def light_lantern(rng):
    rays = rng.integers(6, 10)
    angles = np.linspace(0, 2 * np.pi, rays, endpoint=False) + rng.uniform(0, 1)
    return [maybe_open(ellipse(0.5, 0.5, 0.14, 0.14, 20), rng),
            *[line((0.5 + 0.22 * np.cos(a), 0.5 + 0.22 * np.sin(a)), (0.5 + 0.36 * np.cos(a), 0.5 + 0.36 * np.sin(a))) for a in angles]]


def filled_lantern(rng):
    body = rectangle(0.36, 0.36, 0.64, 0.64)
    return [polygon((0.2, 0.36), (0.5, 0.14), (0.8, 0.36)), body, *fill(body, rng.uniform(0.035, 0.07), rng.uniform(20, 70)),
            line((0.5, 0.64), (0.5, 0.82)), line((0.3, 0.84), (0.7, 0.84))]


def hanging_lantern(rng):
    return [arc(0.5, 0.16, 0.2, 0.1, 180, 360, 12), line((0.5, 0.06), (0.5, 0.26)),
            maybe_open(polygon((0.36, 0.26), (0.64, 0.26), (0.7, 0.7), (0.3, 0.7)), rng), line((0.5, 0.7), (0.5, 0.86))]


def street_lantern(rng):
    """A lamp on a post: a small box high on a thin pole, capped."""
    top, half = rng.uniform(0.12, 0.2), rng.uniform(0.08, 0.13)
    lamp = rectangle(0.5 - half, top + 0.06, 0.5 + half, top + 0.26)
    return [line((0.45 - half, top + 0.06), (0.5, top - 0.04), (0.55 + half, top + 0.06)), maybe_open(lamp, rng),
            line((0.5, top + 0.26), (0.5, 0.9)), line((0.4, 0.9), (0.6, 0.9))]


def flame_lantern(rng):
    """The light alone: a flame (a drop with its point up), often a smaller one inside."""
    t = np.radians(np.linspace(0, 360, 25))
    width, height = rng.uniform(0.16, 0.24), rng.uniform(0.5, 0.72)

    def drop(scale):
        return np.stack([0.5 + scale * width * np.sin(t) * np.sin(t / 2),
                         0.86 - scale * height / 2 * (1 + np.cos(t))], axis=1)

    return [maybe_open(drop(1.0), rng), drop(0.45)] if rng.random() < 0.6 else [drop(1.0)]


def window_lantern(rng):
    """A lamp seen as its window: a square of four panes under a curved roof."""
    half = rng.uniform(0.18, 0.26)
    top, bottom = 0.36, 0.36 + 2 * half
    middle = (top + bottom) / 2
    return [arc(0.5, top, half + 0.1, rng.uniform(0.14, 0.22), 180, 360, 14),
            rectangle(0.5 - half, top, 0.5 + half, bottom),
            line((0.5, top), (0.5, bottom)), line((0.5 - half, middle), (0.5 + half, middle))]


# -- bamboo ---------------------------------------------------------------------------------

def bamboo_clump(rng):
    stalks = rng.integers(2, 5)
    xs = np.linspace(0.3, 0.7, stalks) + rng.uniform(-0.03, 0.03, stalks)
    strokes = []
    for x in xs:
        top = rng.uniform(0.08, 0.3)
        strokes.append(line((x, 0.9), (x + rng.uniform(-0.04, 0.04), top)))
        strokes += [line((x - 0.04, y), (x + 0.04, y)) for y in np.arange(top + 0.15, 0.85, 0.2)]
    return strokes


def bamboo_tube(rng):
    segments = rng.integers(3, 6)
    ys = np.linspace(0.1, 0.9, segments + 1)
    return [line((0.44, 0.1), (0.44, 0.9)), line((0.56, 0.1), (0.56, 0.9)), *[line((0.42, y), (0.58, y)) for y in ys[1:-1]]]


def bamboo_leafy(rng):
    leaves = rng.integers(3, 6)
    strokes = [line((0.45, 0.92), (0.5, 0.1))]
    for i, y in enumerate(np.linspace(0.2, 0.7, leaves)):
        side = 1 if i % 2 else -1
        strokes.append(line((0.48, y), (0.48 + side * 0.3, y - 0.1)))
    return strokes


def bamboo_dashes(rng):
    pieces = rng.integers(3, 6)
    ys = np.linspace(0.1, 0.9, pieces + 1)
    return [line((0.5, a + 0.02), (0.5 + rng.uniform(-0.02, 0.02), b - 0.02)) for a, b in zip(ys[:-1], ys[1:])]


def bamboo_spray(rng):
    leaves = rng.integers(4, 7)
    angles = np.radians(np.linspace(-150, -30, leaves))
    return [line((0.5, 0.9), (0.5, 0.62)),
            *[maybe_open(ellipse(0.5 + 0.24 * np.cos(a), 0.6 + 0.3 * np.sin(a), 0.06, 0.06, 10), rng) for a in angles]]


def bamboo_pair(rng):
    return [line((0.38, 0.92), (0.36, 0.1)), line((0.62, 0.92), (0.64, 0.16)),
            *[line((0.3, y), (0.44, y)) for y in (0.35, 0.6)], *[line((0.56, y), (0.7, y)) for y in (0.45, 0.7)],
            arc(0.8, 0.3, 0.14, 0.04, 180, 360, 8)]


def bamboo_filled(rng):
    tube = rectangle(0.42, 0.08, 0.58, 0.92)
    return [tube, *fill(tube, rng.uniform(0.04, 0.07), rng.uniform(30, 60)), line((0.38, 0.38), (0.62, 0.38)),
            line((0.38, 0.66), (0.62, 0.66))]


def knotted_bamboo(rng):
    """One stalk whose joints are drawn as little rings round it."""
    x = rng.uniform(0.44, 0.56)
    return [line((x, 0.92), (x + rng.uniform(-0.04, 0.04), 0.08)),
            *[ellipse(x, y, 0.07, 0.025, 10) for y in np.linspace(0.25, 0.75, rng.integers(2, 5))]]


def bent_bamboo(rng):
    """A stalk bending over, ticks at its joints, two long leaves hanging from its top."""
    s = np.linspace(0, 1, 16)
    bend = rng.uniform(0.08, 0.18)
    stalk = np.stack([0.35 + 0.25 * s + bend * np.sin(np.pi * s), 0.92 - 0.8 * s], axis=1)
    ticks = [line((x - 0.05, y), (x + 0.05, y)) for x, y in stalk[[5, 9, 13]]]
    x, y = stalk[-1]
    return [stalk, *ticks, line((x, y + 0.02), (x + 0.16, y + 0.1), (x + 0.26, y + 0.24)),
            line((x, y + 0.02), (x - 0.18, y + 0.08), (x - 0.3, y + 0.2))]


def cut_bamboo(rng):
    """A cut length of stalk seen from above: a tube, its open end an ellipse, one joint."""
    half, top = rng.uniform(0.09, 0.14), rng.uniform(0.14, 0.24)
    joint = rng.uniform(0.5, 0.7)
    return [ellipse(0.5, top, half, 0.05, 14), line((0.5 - half, top), (0.5 - half, 0.9)), line((0.5 + half, top), (0.5 + half, 0.9)),
            arc(0.5, joint, half, 0.04, 0, 180, 8), line((0.5 - half, 0.9), (0.5 + half, 0.9))]


# -- trees ----------------------------------------------------------------------------------

def lollipop_tree(rng):
    r = rng.uniform(0.18, 0.26)
    return [maybe_open(ellipse(0.5, 0.2 + r, r, r * rng.uniform(0.85, 1.1)), rng), line((0.5, 0.2 + 2 * r), (0.5, 0.9))]


def pine_tree(rng):
    tiers = rng.integers(1, 4)
    strokes = [polygon((0.5 - 0.3 + 0.05 * i, 0.42 + 0.2 * i), (0.5, 0.1 + 0.16 * i), (0.5 + 0.3 - 0.05 * i, 0.42 + 0.2 * i))
               for i in range(tiers)]
    return [*strokes, line((0.5, 0.42 + 0.2 * (tiers - 1)), (0.5, 0.9))]


def stick_tree(rng):
    return [line((0.5, 0.92), (0.5, 0.2)), line((0.5, 0.55), (0.28, 0.3)), line((0.5, 0.45), (0.72, 0.22)),
            line((0.5, 0.7), (0.7, 0.52)), line((0.38, 0.42), (0.3, 0.42))]


def scribble_tree(rng):
    t = np.linspace(0, rng.uniform(5, 8) * np.pi, 60)
    crown = np.stack([0.5 + (0.1 + 0.02 * t / np.pi) * np.cos(t), 0.38 + (0.08 + 0.016 * t / np.pi) * np.sin(t)], axis=1)
    return [crown, line((0.5, 0.62), (0.5, 0.92))]


def filled_tree(rng):
    crown = ellipse(0.5, 0.38, 0.26, 0.24)
    return [crown, *fill(crown, rng.uniform(0.035, 0.07), rng.uniform(0, 180)), line((0.46, 0.62), (0.46, 0.9)),
            line((0.54, 0.62), (0.54, 0.9))]


def three_ball_tree(rng):
    return [maybe_open(ellipse(0.36, 0.4, 0.14, 0.13), rng), ellipse(0.64, 0.4, 0.14, 0.13), ellipse(0.5, 0.22, 0.15, 0.13),
            line((0.5, 0.53), (0.5, 0.9))]


def bonsai_tree(rng):
    return [line((0.5, 0.9), (0.44, 0.7), (0.56, 0.52), (0.5, 0.36)), arc(0.34, 0.4, 0.16, 0.07, 180, 360, 12) + (0, 0.02),
            arc(0.64, 0.3, 0.17, 0.08, 180, 360, 12), line((0.18, 0.42), (0.5, 0.42)), line((0.47, 0.3), (0.81, 0.3))]


def cloud_tree(rng):
    """A crown of bumps round its centre, like a cloud, on a trunk of two lines."""
    bumps, radius = rng.integers(5, 9), rng.uniform(0.2, 0.26)
    centre = 0.14 + radius
    t = np.radians(np.linspace(0, 360, bumps * 8 + 1))
    outline = radius * (1 + 0.15 * np.abs(np.sin(bumps * t / 2)))
    crown = np.stack([0.5 + outline * np.cos(t), centre + 0.9 * outline * np.sin(t)], axis=1)
    return [crown, line((0.46, centre + 0.8 * radius), (0.44, 0.9)), line((0.54, centre + 0.8 * radius), (0.56, 0.9))]


def leaf_tree(rng):
    """A single leaf standing for the tree: two arcs meeting in points, a midrib, veins."""
    width = rng.uniform(0.18, 0.26)
    s = np.linspace(0, 1, 14)
    edge = width * np.sin(np.pi * s)
    ys = 0.12 + 0.62 * s
    veins = [line((0.5, y), (0.5 + side * 0.6 * width, y - 0.07)) for y, side in zip((0.35, 0.45, 0.55), (-1, 1, -1))]
    return [np.stack([0.5 - edge, ys], axis=1), np.stack([0.5 + edge, ys], axis=1), line((0.5, 0.12), (0.5, 0.9)), *veins]


def cypress_tree(rng):
    """A tall narrow crown (a cypress) on a short trunk."""
    width, height = rng.uniform(0.1, 0.16), rng.uniform(0.3, 0.36)
    return [maybe_open(ellipse(0.5, 0.1 + height, width, height), rng), line((0.5, 0.1 + 2 * height), (0.5, 0.92))]
