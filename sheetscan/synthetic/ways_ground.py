"""The ways people draw the decorations of the ground and the water: rocks, moss and bridges.

Each function is one archetype's ``draw(rng)`` (archetypes.py holds the registry): the strokes
of one player's version, in a unit box, y down.
"""

from __future__ import annotations

import numpy as np

from sheetscan.synthetic.glyphs import arc, ellipse, fill, line, maybe_open, polygon, rectangle

# -- rocks ----------------------------------------------------------------------------------

def blob(rng, cx=0.5, cy=0.58, rx=0.32, ry=0.24):
    t = np.radians(np.linspace(0, 360, 17))
    radius = 1 + rng.uniform(0.05, 0.15) * np.cos(3 * t + rng.uniform(0, 6)) + 0.05 * np.sin(5 * t)
    return np.stack([cx + rx * radius * np.cos(t), cy + ry * radius * np.sin(t)], axis=1)


def filled_rock(rng):
    outline = blob(rng)
    return [outline, *fill(outline, rng.uniform(0.035, 0.07), rng.uniform(0, 180))]


def pile_rock(rng):
    return [maybe_open(blob(rng, 0.34, 0.72, 0.18, 0.13), rng), blob(rng, 0.66, 0.72, 0.17, 0.13), blob(rng, 0.5, 0.46, 0.16, 0.12)]


def angular_rock(rng):
    outline = polygon((0.16, 0.8), (0.26, 0.42), (0.5, 0.28), (0.76, 0.4), (0.86, 0.8))
    return [outline, line((0.5, 0.28), (0.46, 0.56), (0.16, 0.8)), line((0.46, 0.56), (0.86, 0.8))]


def plain_rock(rng):
    return [maybe_open(ellipse(0.5, 0.6, rng.uniform(0.26, 0.36), rng.uniform(0.16, 0.24)), rng)]


def shaded_rock(rng):
    outline = blob(rng)
    return [outline, *[line((0.62 + 0.05 * i, 0.48 + 0.03 * i), (0.7 + 0.04 * i, 0.7)) for i in range(3)]]


def flat_rock(rng):
    return [maybe_open(ellipse(0.5, 0.7, 0.38, 0.12), rng), arc(0.5, 0.66, 0.3, 0.05, 200, 340, 10)]


def dotted_rock(rng):
    outline = blob(rng)
    spots = rng.uniform(-0.1, 0.1, (rng.integers(3, 6), 2)) + (0.5, 0.6)
    return [outline, *[ellipse(x, y, 0.015, 0.015, 6) for x, y in spots]]


def cracked_rock(rng):
    """A stone with a crack across it."""
    x = rng.uniform(0.4, 0.6)
    return [blob(rng), line((x, 0.4), (x + 0.05, 0.52), (x - 0.03, 0.6), (x + 0.04, 0.72))]


def scribbled_rock(rng):
    """A stone shaded by one looping scribble rather than hatching."""
    t = np.linspace(0, 2 * np.pi, 80)
    a, b = rng.integers(3, 6), rng.integers(2, 5)
    rx, ry = rng.uniform(0.24, 0.32), rng.uniform(0.16, 0.22)
    return [blob(rng), np.stack([0.5 + 0.8 * rx * np.sin(a * t + rng.uniform(0, 1)), 0.58 + 0.8 * ry * np.sin(b * t)], axis=1)]


def standing_stone(rng):
    """An upright stone, taller than wide, with a highlight near its top."""
    rx, ry = rng.uniform(0.16, 0.23), rng.uniform(0.3, 0.37)
    return [maybe_open(ellipse(0.5, 0.54, rx, ry), rng), arc(0.5, 0.54, 0.65 * rx, 0.65 * ry, 200, 250, 6)]


# -- moss -----------------------------------------------------------------------------------

def moss_dots(rng):
    count = rng.integers(6, 11)
    spots = np.column_stack([rng.uniform(0.18, 0.82, count), rng.uniform(0.5, 0.88, count)])
    return [ellipse(x, y, 0.03, 0.03, 8) for x, y in spots]


def moss_waves(rng):
    t = np.linspace(0, 1, 20)
    return [np.stack([0.18 + 0.64 * t, y + 0.04 * np.sin(t * rng.uniform(4, 7) * np.pi)], axis=1)
            for y in np.linspace(0.55, 0.85, rng.integers(2, 4))]


def moss_grass(rng):
    tufts = rng.integers(3, 6)
    strokes = []
    for cx in np.linspace(0.2, 0.8, tufts):
        strokes.append(line((cx - 0.07, 0.6), (cx, 0.86), (cx + 0.07, 0.6)))
    return strokes


def moss_bush(rng):
    bumps = rng.integers(3, 6)
    xs = np.linspace(0.14, 0.86, bumps + 1)
    outline = np.concatenate([arc((a + b) / 2, 0.82, (b - a) / 2, 0.14, 180, 360, 8) for a, b in zip(xs[:-1], xs[1:])])
    return [outline, line((0.14, 0.84), (0.86, 0.84))]


def moss_curls(rng):
    strokes = []
    for cx in np.linspace(0.24, 0.76, rng.integers(3, 5)):
        t = np.linspace(0, 3 * np.pi, 18)
        strokes.append(np.stack([cx + 0.012 * t * np.cos(t), 0.72 + 0.012 * t * np.sin(t)], axis=1))
    return strokes


def moss_patch(rng):
    patch = rectangle(0.16, 0.62, 0.84, 0.86)
    return [*fill(patch, rng.uniform(0.05, 0.08), 45), *fill(patch, rng.uniform(0.05, 0.08), 135)]


def moss_stones(rng):
    return [ellipse(x, 0.78, 0.09, 0.05, 12) for x in (0.26, 0.5, 0.74)] + [line((0.14, 0.7), (0.2, 0.62), (0.26, 0.7))]


def moss_carpet(rng):
    """A low rounded carpet with small tufts drawn inside it."""
    outline = np.vstack([arc(0.28, 0.74, 0.12, 0.12, 90, 270, 8), arc(0.72, 0.74, 0.12, 0.12, 270, 450, 8)])
    tufts = [line((x - 0.03, 0.7), (x, 0.78), (x + 0.03, 0.7)) for x in np.linspace(0.3, 0.7, rng.integers(3, 6))]
    return [maybe_open(np.vstack([outline, outline[:1]]), rng), *tufts]


def moss_ferns(rng):
    """Two or three low fronds: a curved stem, short leaves off it in turn."""
    strokes = []
    for x in np.linspace(0.26, 0.74, rng.integers(2, 4)):
        stem = arc(x + 0.12, 0.86, 0.12, 0.28, 180, 250, 8)
        strokes.append(stem)
        strokes += [line(tuple(p), (p[0] + side * 0.06, p[1] - 0.03)) for p, side in zip(stem[2:7:2], (1, -1, 1))]
    return strokes


def moss_mound(rng):
    """A low mound with fur along its top: short hairs standing off its curve."""
    width, height = rng.uniform(0.3, 0.38), rng.uniform(0.12, 0.2)
    angles = np.radians(np.linspace(200, 340, rng.integers(6, 11)))
    hairs = [line((0.5 + width * np.cos(a), 0.86 + height * np.sin(a)),
                  (0.5 + 1.15 * width * np.cos(a), 0.86 + 1.35 * height * np.sin(a))) for a in angles]
    return [arc(0.5, 0.86, width, height, 180, 360, 16), *hairs]


# -- bridges --------------------------------------------------------------------------------

def simple_arch(rng):
    return [arc(0.5, 0.86, 0.4, rng.uniform(0.3, 0.45), 180, 360, 20), line((0.06, 0.86), (0.94, 0.86))]


def ladder_bridge(rng):
    planks = rng.integers(4, 8)
    return [line((0.1, 0.4), (0.9, 0.4)), line((0.1, 0.64), (0.9, 0.64)),
            *[line((x, 0.4), (x, 0.64)) for x in np.linspace(0.16, 0.84, planks)]]


def equals_bridge(rng):
    return [line((0.18, 0.42), (0.82, 0.42)), line((0.18, 0.6), (0.82, 0.6))]


def double_arch(rng):
    return [arc(0.5, 0.8, 0.42, 0.36, 190, 350, 18), arc(0.5, 0.84, 0.3, 0.2, 190, 350, 14), line((0.08, 0.86), (0.92, 0.86))]


def wave_bridge(rng):
    t = np.linspace(0, 1, 24)
    return [arc(0.5, 0.62, 0.4, 0.3, 180, 360, 18), line((0.1, 0.62), (0.9, 0.62)),
            np.stack([0.12 + 0.76 * t, 0.8 + 0.04 * np.sin(t * 6 * np.pi)], axis=1)]


def plank_bridge(rng):
    deck = rectangle(0.1, 0.42, 0.9, 0.6)
    return [deck, *[line((x, 0.42), (x, 0.6)) for x in np.linspace(0.2, 0.8, rng.integers(3, 7))],
            line((0.2, 0.6), (0.2, 0.78)), line((0.8, 0.6), (0.8, 0.78))]


def filled_arch(rng):
    outline = np.vstack([arc(0.5, 0.84, 0.42, 0.38, 180, 360, 18), arc(0.5, 0.84, 0.26, 0.2, 360, 180, 14)])
    return [outline, *fill(outline, rng.uniform(0.035, 0.06), rng.uniform(30, 150))]


def moon_bridge(rng):
    """A moon bridge: its arch and the arch's reflection make a circle, cut by the water line."""
    radius = rng.uniform(0.28, 0.38)
    reflection = arc(0.5, 0.56, radius, radius, 0, 180, 12)
    return [arc(0.5, 0.56, radius, radius, 180, 360, 16), line((0.06, 0.56), (0.94, 0.56)),
            *(np.array_split(reflection, 3)[::2] if rng.random() < 0.5 else [reflection])]


def flat_top_bridge(rng):
    """A bridge whose deck climbs, runs flat and comes down, drawn as two parallel lines."""
    rise, run = rng.uniform(0.16, 0.28), rng.uniform(0.16, 0.24)
    deck = line((0.06, 0.8), (0.5 - run, 0.8 - rise), (0.5 + run, 0.8 - rise), (0.94, 0.8))
    return [deck, deck + (0, rng.uniform(-0.14, -0.08))]


def zigzag_bridge(rng):
    """A zigzag plank bridge (yatsuhashi) seen from above: planks laid end to end, turning in turn."""
    planks = rng.integers(3, 5)
    length, width = 0.84 / planks, rng.uniform(0.08, 0.12)
    strokes = []
    for i in range(planks):
        angle = np.radians(25 if i % 2 else -25)
        along, across = np.array([np.cos(angle), np.sin(angle)]) * length / 2, np.array([-np.sin(angle), np.cos(angle)]) * width / 2
        centre = np.array([0.08 + length * (i + 0.5), 0.55])
        strokes.append(polygon(*(tuple(centre + a * along + b * across) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)))))
    return strokes
