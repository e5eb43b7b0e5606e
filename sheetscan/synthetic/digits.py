"""Real handwritten digits for the synthetic hand: OpenCV's sample of MNIST writers.

Debian's ``opencv-doc`` ships ``digits.png``: 5,000 digits of 20 x 20 pixels, 500 of each, in
50 rows of 100 (rows 5d to 5d + 4 hold the digit d). A player who writes real digits keeps one
sample of each digit for the whole sheet. Samples from HELD_OUT_FROM on are held out of
training: the benches' ``--held-out-styles`` write with those alone. Reading never needs them.
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


@lru_cache(maxsize=1)
def digit_images() -> np.ndarray:
    """(10, 500, 20, 20) float32 ink, 0 paper to 1 full ink."""
    image = cv2.imread(str(DIGITS_PNG), cv2.IMREAD_GRAYSCALE)
    if image is None:
        raise RuntimeError(f"{DIGITS_PNG}: no handwritten digits; install Debian's opencv-doc (run .ci/setup)")
    rows, columns = image.shape[0] // DIGIT_PX, image.shape[1] // DIGIT_PX
    cells = image.reshape(rows, DIGIT_PX, columns, DIGIT_PX).transpose(0, 2, 1, 3).reshape(10, SAMPLES_PER_DIGIT, DIGIT_PX, DIGIT_PX)
    return cells.astype(np.float32) / 255


def pick_writer(rng: np.random.Generator, held_out: bool = False) -> tuple[int, ...]:
    """One sample index for each digit: the held-out samples alone, or the others."""
    low, high = (HELD_OUT_FROM, SAMPLES_PER_DIGIT) if held_out else (0, HELD_OUT_FROM)
    return tuple(int(i) for i in rng.integers(low, high, 10))


def digits_mask(text: str, writer: tuple[int, ...]) -> np.ndarray:
    """A number (digits and a leading minus) in the ``writer``'s digits: a float32 ink mask."""
    images = digit_images()
    parts = []
    for char in text:
        if char == "-":
            glyph = np.zeros((DIGIT_PX, MINUS[0]), np.float32)
            glyph[DIGIT_PX // 2 - MINUS[1] // 2 : DIGIT_PX // 2 + MINUS[1] - MINUS[1] // 2] = 1
        else:
            glyph = images[int(char), writer[int(char)]]
            columns = np.flatnonzero(glyph.max(axis=0) > 0.1)
            glyph = glyph[:, columns.min() : columns.max() + 1] if columns.size else glyph
        parts += [glyph, np.zeros((DIGIT_PX, SPACING_PX), np.float32)]
    mask = np.hstack(parts[:-1])
    rows = np.flatnonzero(mask.max(axis=1) > 0.1)
    return mask[rows.min() : rows.max() + 1] if rows.size else mask
