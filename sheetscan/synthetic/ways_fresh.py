"""Ways to draw invented after the decoder's last choice was made: two a decoration, two marks.

No constant was chosen with them (archetypes.py ``FRESH``): the benches' ``--fresh-styles`` drew
sheets with these alone, as an estimate of a hand nobody in the project had seen, until the
drawing network's plan took them into training (2026-12-06: two more ways a thing there, the
held-out ways still out). The cell networks still never see them. Each function is one archetype's ``draw(rng)``: strokes in a unit box, y down.
"""

from __future__ import annotations

import numpy as np

from sheetscan.synthetic.glyphs import arc, ellipse, fill, line, maybe_open, polygon, rectangle

# -- lanterns -------------------------------------------------------------------------------

def bulb_lantern(rng):
    """A light bulb: a round glass over a screw base of a few bands."""
    r = rng.uniform(0.2, 0.26)
    glass = arc(0.5, 0.14 + r, r, r, 130, 410, 24)
    neck = 0.14 + r + r * np.sin(np.radians(50))
    half = r * np.cos(np.radians(50))
    bands = [line((0.5 - half, neck + 0.06 * i), (0.5 + half, neck + 0.06 * i)) for i in range(rng.integers(2, 4))]
    return [maybe_open(glass, rng), *bands, line((0.5 - half, neck), (0.5 - half, neck + 0.14)),
            line((0.5 + half, neck), (0.5 + half, neck + 0.14)), line((0.46, neck + 0.2), (0.54, neck + 0.2))]


def cage_lantern(rng):
    """A box braced by an X, with a ring to carry it by on top."""
    left, right = 0.5 - rng.uniform(0.18, 0.24), 0.5 + rng.uniform(0.18, 0.24)
    return [rectangle(left, 0.32, right, 0.84), line((left, 0.32), (right, 0.84)), line((right, 0.32), (left, 0.84)),
            maybe_open(ellipse(0.5, 0.2, 0.09, 0.09, 16), rng)]


# -- bamboo ---------------------------------------------------------------------------------

def bamboo_beads(rng):
    """One stalk drawn as separate rounded segments stacked with gaps."""
    segments = rng.integers(3, 6)
    height = 0.76 / segments
    half = rng.uniform(0.06, 0.1)
    return [rectangle(0.5 - half, 0.12 + i * height + 0.02, 0.5 + half, 0.12 + (i + 1) * height - 0.02)
            for i in range(segments)]


def bamboo_shoot(rng):
    """A bamboo shoot: a tall cone wrapped in overlapping sheaths (slanted bands)."""
    base = rng.uniform(0.22, 0.3)
    bands = [line((0.5 - base * (1 - t), 0.86 - 0.7 * t), (0.5 + base * (1 - t + 0.12), 0.86 - 0.7 * (t + 0.12)))
             for t in np.linspace(0.12, 0.72, rng.integers(3, 5))]
    return [polygon((0.5 - base, 0.86), (0.5, 0.12), (0.5 + base, 0.86)), *bands]


# -- trees ----------------------------------------------------------------------------------

def palm_tree(rng):
    """A curved trunk with fronds arching out of its top."""
    lean = rng.uniform(-0.12, 0.12)
    top = (0.5 + lean, 0.3)
    trunk = np.stack([np.linspace(0.5, top[0], 10) + 0.04 * np.sin(np.linspace(0, np.pi, 10)),
                      np.linspace(0.9, top[1], 10)], axis=1)
    fronds = [arc(top[0] + side * 0.16, top[1] + 0.02, 0.16, 0.12, 180 if side > 0 else 0, 300 if side > 0 else -120, 10)
              for side in (-1, 1)]
    fronds += [arc(top[0] + side * 0.12, top[1] + 0.1, 0.13, 0.14, 200 if side > 0 else -20, 280 if side > 0 else -100, 8)
               for side in (-1, 1)]
    return [trunk, *fronds]


def weeping_tree(rng):
    """A willow: a trunk whose top spills into long hanging strands."""
    strands = rng.integers(4, 7)
    xs = np.linspace(0.22, 0.78, strands)
    hanging = [line((0.5, 0.22), (x, 0.26 + 0.04 * abs(x - 0.5)), (x + 0.02, rng.uniform(0.55, 0.72))) for x in xs]
    return [line((0.5, 0.9), (0.5, 0.22)), *hanging]


# -- rocks ----------------------------------------------------------------------------------

def block_rock(rng):
    """A stone seen as a block: a hexagon with the three edges of its near corner."""
    w, h = rng.uniform(0.26, 0.34), rng.uniform(0.2, 0.26)
    cx, cy = 0.5, 0.58
    near = (cx, cy - h * 0.2)  # the corner nearest the eye, where the three edges meet
    outline = polygon((cx - w, cy - h * 0.6), (cx, cy - h * 1.1), (cx + w, cy - h * 0.6), (cx + w, cy + h * 0.7),
                      (cx, cy + h * 1.1), (cx - w, cy + h * 0.7))
    return [outline, line((cx - w, cy - h * 0.6), near, (cx + w, cy - h * 0.6)), line(near, (cx, cy + h * 1.1))]


def grounded_rock(rng):
    """A half-round stone sitting on a ground line, with tufts beside it."""
    r = rng.uniform(0.22, 0.3)
    ground = 0.74
    return [arc(0.5, ground, r, r * rng.uniform(0.7, 0.95), 180, 360, 16), line((0.1, ground), (0.9, ground)),
            line((0.14, ground), (0.16, ground - 0.08)), line((0.84, ground), (0.86, ground - 0.08))]


# -- moss -----------------------------------------------------------------------------------

def moss_stars(rng):
    """Small asterisks scattered over the cell."""
    count = rng.integers(3, 6)
    spots = rng.uniform(0.22, 0.78, (count, 2))
    stars = []
    for x, y in spots:
        for angle in np.radians((0, 60, 120)):
            dx, dy = 0.06 * np.cos(angle), 0.06 * np.sin(angle)
            stars.append(line((x - dx, y - dy), (x + dx, y + dy)))
    return stars


def moss_scallops(rng):
    """Rows of small joined bumps, like the edge of a cushion."""
    rows, bumps = rng.integers(2, 4), rng.integers(4, 7)
    width = 0.7 / bumps
    strokes = []
    for row in range(rows):
        y = 0.42 + 0.16 * row
        t = np.linspace(0, np.pi * bumps, bumps * 8 + 1)
        strokes.append(np.stack([0.15 + t / np.pi * width, y - 0.07 * np.abs(np.sin(t))], axis=1))
    return strokes


# -- bridges --------------------------------------------------------------------------------

def suspension_bridge(rng):
    """Two towers, a cable sagging between them, and the deck below."""
    deck = rng.uniform(0.64, 0.72)
    t = np.linspace(0, 1, 14)
    cable = np.stack([0.24 + 0.52 * t, 0.26 + 0.3 * (1 - (2 * t - 1) ** 2)], axis=1)
    hangers = [line((x, 0.26 + 0.3 * (1 - (2 * (x - 0.24) / 0.52 - 1) ** 2)), (x, deck)) for x in (0.37, 0.5, 0.63)]
    return [line((0.1, deck), (0.9, deck)), line((0.24, 0.22), (0.24, 0.82)), line((0.76, 0.22), (0.76, 0.82)), cable, *hangers]


def topview_bridge(rng):
    """A bridge seen from above: two rails with a post at each corner."""
    half = rng.uniform(0.1, 0.16)
    posts = [rectangle(x - 0.04, y - 0.04, x + 0.04, y + 0.04) for x in (0.18, 0.82) for y in (0.5 - half, 0.5 + half)]
    return [line((0.18, 0.5 - half), (0.82, 0.5 - half)), line((0.18, 0.5 + half), (0.82, 0.5 + half)),
            *[stroke for post in posts for stroke in (post, *fill(post, 0.03, 45))]]


# -- the Spring/Summer mark ------------------------------------------------------------------

def mark_letter_s(rng):
    """An S, for Spring or Summer."""
    return [np.concatenate([arc(0.5, 0.3, 0.26, 0.2, 330, 90, 10), arc(0.5, 0.7, 0.26, 0.2, 270, 510, 14)[1:]])]


def mark_hash(rng):
    """A hash sign."""
    return [line((0.35, 0.1), (0.3, 0.9)), line((0.7, 0.1), (0.65, 0.9)), line((0.1, 0.35), (0.9, 0.35)),
            line((0.1, 0.65), (0.9, 0.65))]
