"""Ways to draw invented on 2026-12-07, after every choice: two a decoration, two marks.

No network trains on them and no constant was chosen with them (archetypes.py ``UNSEEN``): the
benches' ``--unseen-styles`` draw sheets with these alone, the project's estimate of a hand
nobody in it has seen, now that the fresh ways (ways_fresh.py) train the drawing network. Each
function is one archetype's ``draw(rng)``: strokes in a unit box, y down.
"""

from __future__ import annotations

import numpy as np

from sheetscan.synthetic.glyphs import arc, ellipse, fill, line, maybe_open, polygon

# -- lanterns -------------------------------------------------------------------------------

def glowing_lantern(rng):
    """A flame seen as a filled drop, short rays all round it, a foot line below."""
    r = rng.uniform(0.09, 0.12)
    drop = polygon((0.5, 0.3), (0.5 + r, 0.48), (0.5, 0.48 + r), (0.5 - r, 0.48))
    rays = [line((0.5 + 0.2 * np.cos(a), 0.46 + 0.2 * np.sin(a)), (0.5 + 0.3 * np.cos(a), 0.46 + 0.3 * np.sin(a)))
            for a in np.radians(np.arange(0, 360, 360 / rng.integers(6, 9)))]
    return [drop, *fill(drop, 0.03, 0), *rays, line((0.34, 0.84), (0.66, 0.84))]


def jar_lantern(rng):
    """An oil jar: a round belly, a narrow neck with a loop to carry it, a flame in the mouth."""
    belly = rng.uniform(0.2, 0.26)
    neck = 0.74 - 2 * belly * 0.9
    return [maybe_open(arc(0.5, 0.74 - belly * 0.9, belly, belly * 0.9, -60, 240, 24), rng),
            line((0.5 - belly * 0.5, neck + 0.02), (0.5 - belly * 0.5, neck - 0.08)),
            line((0.5 + belly * 0.5, neck + 0.02), (0.5 + belly * 0.5, neck - 0.08)),
            arc(0.5 + belly, 0.74 - belly * 0.9, 0.08, 0.12, -90, 90, 10),
            ellipse(0.5, neck - 0.16, 0.04, 0.07, 10)]


# -- bamboo ---------------------------------------------------------------------------------

def two_leaf_bamboo(rng):
    """A stalk with knot ticks and two long thin leaves hanging from its knots, one each side."""
    knots = rng.integers(3, 5)
    ys = np.linspace(0.3, 0.72, knots)
    strokes = [line((0.5, 0.9), (0.5, 0.1)), *[line((0.44, y), (0.56, y)) for y in ys]]
    for k, y in enumerate(ys[::2] if knots > 3 else ys[:2]):
        side = 1 if k % 2 == 0 else -1
        tip = (0.5 + side * 0.3, y + 0.16)
        strokes.append(np.concatenate([line((0.5, y), ((0.5 + tip[0]) / 2, y + 0.02), tip),
                                       line(((0.5 + tip[0]) / 2, y + 0.1), (0.5, y))]))
    return strokes


def sprout_bamboo(rng):
    """Two stalks rising from one root in a V, each crossed by short knot ticks."""
    spread = rng.uniform(0.16, 0.24)
    strokes = []
    for side in (-1, 1):
        top = (0.5 + side * spread, 0.12)
        strokes.append(line((0.5, 0.88), top))
        for t in (0.35, 0.65):
            x, y = 0.5 + side * spread * t, 0.88 - 0.76 * t
            strokes.append(line((x - 0.06, y), (x + 0.06, y)))
    return strokes


# -- trees ----------------------------------------------------------------------------------

def dome_tree(rng):
    """A wide low dome of crown on a short, thick trunk drawn as two lines."""
    width = rng.uniform(0.3, 0.38)
    base = rng.uniform(0.56, 0.62)
    return [maybe_open(np.concatenate([arc(0.5, base, width, 0.34, 180, 360, 20), line((0.5 + width, base), (0.5 - width, base))]), rng),
            line((0.45, base), (0.44, 0.9)), line((0.55, base), (0.56, 0.9))]


def bare_tree(rng):
    """A bare tree in winter: a trunk that forks, and forks again, with no crown."""
    fork = rng.uniform(0.5, 0.58)
    strokes = [line((0.5, 0.92), (0.5, fork))]
    for side in (-1, 1):
        end = (0.5 + side * 0.2, fork - 0.24)
        strokes += [line((0.5, fork), end), line(end, (end[0] + side * 0.12, end[1] - 0.16)),
                    line(end, (end[0] - side * 0.04, end[1] - 0.2))]
    return strokes


# -- rocks ----------------------------------------------------------------------------------

def peak_rock(rng):
    """A rock drawn as a little mountain: a peak with a jagged line of snow across its top."""
    half = rng.uniform(0.28, 0.36)
    top = (0.5 + rng.uniform(-0.06, 0.06), 0.24)
    left, right = (0.5 - half, 0.8), (0.5 + half, 0.8)
    cap_y = 0.44
    at = lambda edge: top[0] + (edge[0] - top[0]) * (cap_y - top[1]) / (edge[1] - top[1])
    cap = line((at(left), cap_y), (top[0] - 0.04, cap_y - 0.05), (top[0], cap_y + 0.02), (top[0] + 0.05, cap_y - 0.04),
               (at(right), cap_y))
    return [line(left, top, right), line(left, right), cap]


def egg_rock(rng):
    """A smooth stone: a tilted oval with two short curves of shine on it."""
    tilt = rng.uniform(-0.3, 0.3)
    t = np.linspace(0, 2 * np.pi, 28)
    rx, ry = rng.uniform(0.26, 0.32), rng.uniform(0.18, 0.22)
    x, y = rx * np.cos(t), ry * np.sin(t)
    oval = np.stack([0.5 + x * np.cos(tilt) - y * np.sin(tilt), 0.56 + x * np.sin(tilt) + y * np.cos(tilt)], axis=1)
    return [maybe_open(oval, rng), arc(0.44, 0.52, 0.1, 0.07, 200, 260, 6), arc(0.44, 0.52, 0.14, 0.1, 205, 250, 6)]


# -- moss -----------------------------------------------------------------------------------

def moss_tufts(rng):
    """Three or four tufts, each a few short strokes fanning up from one point."""
    count = rng.integers(3, 5)
    xs = np.linspace(0.2, 0.8, count) + rng.uniform(-0.03, 0.03, count)
    ys = rng.uniform(0.55, 0.8, count)
    return [line((x, y), (x + 0.08 * np.cos(a), y - 0.12 * np.sin(a)))
            for x, y in zip(xs, ys) for a in np.radians((55, 90, 125))]


def moss_hatched(rng):
    """A low flat mound cross-hatched all over."""
    height = rng.uniform(0.2, 0.28)
    mound = np.concatenate([arc(0.5, 0.78, 0.36, height, 180, 360, 18), line((0.86, 0.78), (0.14, 0.78))])
    return [mound, *fill(mound, 0.07, 45), *fill(mound, 0.07, -45)]


# -- bridges --------------------------------------------------------------------------------

def stepping_stones(rng):
    """A crossing of stepping stones: four or five small ovals in a row across the cell."""
    count = rng.integers(4, 6)
    xs = np.linspace(0.16, 0.84, count)
    return [ellipse(x, 0.52 + rng.uniform(-0.04, 0.04), 0.06, 0.045, 10) for x in xs]


def post_bridge(rng):
    """A flat footbridge from the side: the deck and a rail on two posts, an H lying long."""
    deck, rail = rng.uniform(0.6, 0.66), rng.uniform(0.36, 0.42)
    return [line((0.14, deck), (0.86, deck)), line((0.14, rail), (0.86, rail)),
            line((0.22, rail - 0.06), (0.22, deck + 0.18)), line((0.78, rail - 0.06), (0.78, deck + 0.18))]


# -- the Spring/Summer mark ------------------------------------------------------------------

def mark_arrow(rng):
    """A small arrow pointing up and right."""
    return [line((0.15, 0.85), (0.85, 0.15)), line((0.5, 0.15), (0.85, 0.15), (0.85, 0.5))]


def mark_tilde(rng):
    """A tilde: one wave."""
    return [np.concatenate([arc(0.3, 0.5, 0.2, 0.18, 180, 360, 10), arc(0.7, 0.5, 0.2, 0.18, 180, 0, 10)[1:]])]
