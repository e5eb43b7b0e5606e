"""Real handwritten digits for the synthetic hand: OpenCV's sample of MNIST writers.

Debian's ``opencv-doc`` ships ``digits.png``: 5,000 digits of 20 x 20 pixels, 500 of each, in
50 rows of 100 (rows 5d to 5d + 4 hold the digit d). A player who writes real digits keeps one
sample of each digit for the whole sheet. Samples from HELD_OUT_FROM on are held out of
training: the benches' ``--held-out-styles`` write with those alone. Reading never needs them.

A writer's digits may also come from a coarser source (``source_px``): each sample squared to
its ink, reduced to source_px x source_px with 16 grey levels and enlarged back, as digits
scanned small or photographed blurred look; thicker, rounder strokes than MNIST's.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

DIGITS_PNG = Path("/usr/share/doc/opencv-doc/examples/data/digits.png")  # Debian's opencv-doc (.ci/setup)
DIGIT_PX = 20
SAMPLES_PER_DIGIT = 500
HELD_OUT_FROM = 400  # samples 400-499 of each digit: writers no network trains on
SPACING_PX = 2  # between two digits of a number, in the samples' pixels
MINUS = (8, 2)  # a minus sign's width and thickness, in the samples' pixels
INK_FLOOR = 0.1  # a sample's pixel above this much ink is part of its digit (its ink's bounds)
SOURCE_PX = (7, 12)  # a coarse source's side, in pixels, least and most
SOURCE_LEVELS = 16  # grey levels a coarse source keeps


@lru_cache(maxsize=1)
def digit_images() -> np.ndarray:
    """(10, 500, 20, 20) float32 ink, 0 paper to 1 full ink."""
    image = cv2.imread(str(DIGITS_PNG), cv2.IMREAD_GRAYSCALE)
    if image is None:
        raise RuntimeError(f"{DIGITS_PNG}: no handwritten digits; install Debian's opencv-doc (run .ci/setup)")
    rows, columns = image.shape[0] // DIGIT_PX, image.shape[1] // DIGIT_PX
    cells = image.reshape(rows, DIGIT_PX, columns, DIGIT_PX).transpose(0, 2, 1, 3).reshape(10, SAMPLES_PER_DIGIT, DIGIT_PX, DIGIT_PX)
    return cells.astype(np.float32) / 255


def coarse_digit(glyph: np.ndarray, source_px: int) -> np.ndarray:
    """A float ink ``glyph`` squared about its ink, reduced to ``source_px`` pixels a side with
    SOURCE_LEVELS grey levels and enlarged back to its own size (its darkest pixel full ink)."""
    rows, columns = np.flatnonzero(glyph.max(axis=1) > INK_FLOOR), np.flatnonzero(glyph.max(axis=0) > INK_FLOOR)
    if not rows.size:
        return glyph
    ink = glyph[rows.min() : rows.max() + 1, columns.min() : columns.max() + 1]
    side = max(ink.shape)
    square = np.zeros((side, side), np.float32)
    top, left = (side - ink.shape[0]) // 2, (side - ink.shape[1]) // 2
    square[top : top + ink.shape[0], left : left + ink.shape[1]] = ink
    small = np.round(cv2.resize(square, (source_px, source_px), interpolation=cv2.INTER_AREA) * SOURCE_LEVELS) / SOURCE_LEVELS
    large = cv2.resize(small, glyph.shape[::-1], interpolation=cv2.INTER_LINEAR)
    return np.clip(large / max(float(large.max()), 1e-6), 0, 1).astype(np.float32)


def pick_source_px(rng: np.random.Generator) -> int:
    """A coarse source's side for one writer."""
    return int(rng.integers(SOURCE_PX[0], SOURCE_PX[1] + 1))


def pick_writer(rng: np.random.Generator, held_out: bool = False) -> tuple[int, ...]:
    """One sample index for each digit: the held-out samples alone, or the others."""
    low, high = (HELD_OUT_FROM, SAMPLES_PER_DIGIT) if held_out else (0, HELD_OUT_FROM)
    return tuple(int(i) for i in rng.integers(low, high, 10))


def another_sample(writer: tuple[int, ...], rng: np.random.Generator) -> tuple[int, ...]:
    """A new sample of each digit, from the samples ``writer``'s come from (held out or not): the
    digits of a writer who does not copy themselves."""
    return pick_writer(rng, held_out=min(writer) >= HELD_OUT_FROM)


def digits_mask(text: str, writer: tuple[int, ...], source_px: int | None = None) -> np.ndarray:
    """A number (digits and a leading minus) in the ``writer``'s digits, seen first at
    ``source_px`` when given (coarse_digit): a float32 ink mask."""
    parts = []
    for char in text:
        if char == "-":
            glyph = np.zeros((DIGIT_PX, MINUS[0]), np.float32)
            glyph[DIGIT_PX // 2 - MINUS[1] // 2 : DIGIT_PX // 2 + MINUS[1] - MINUS[1] // 2] = 1
        else:
            glyph = digit_images()[int(char), writer[int(char)]]
            glyph = glyph if source_px is None else coarse_digit(glyph, source_px)
            columns = np.flatnonzero(glyph.max(axis=0) > INK_FLOOR)
            glyph = glyph[:, columns.min() : columns.max() + 1] if columns.size else glyph
        parts += [glyph, np.zeros((DIGIT_PX, SPACING_PX), np.float32)]
    mask = np.hstack(parts[:-1])
    rows = np.flatnonzero(mask.max(axis=1) > INK_FLOOR)
    return mask[rows.min() : rows.max() + 1] if rows.size else mask
