"""Each digit read alone, by networks of its own, beside the box networks that read a box whole.

The turn network reads a turn box whole, and the number network a written number as its sign,
tens and units: each digit among others, in its place. Each digit is also read alone (train.PLANS
"digits", a third of its photos' digits from a coarse source): a turn's digit box, where it holds
one digit (ALONE_HEADS), by the digit network (the digits 1 to 6); a written number's digits,
where its box shows as many as the number network reads (digits.number_digit_boxes), by the
number digit network (0 to 9). A box network's head and the digit read alone are joined by the
geometric mean of their probabilities (``joined``): their product was as often right but surer,
so digits misread surely doubled (docs/models.md).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Hashable, Mapping

import cv2
import numpy as np

from sheetscan.game.garden import TurnKind
from sheetscan.reading.networks import Network, load_networks, model_paths, shipped_model_set

DIGIT_CLASSES = tuple(f"digit:{digit}" for digit in range(1, 7))  # a turn's digits
NUMBER_DIGIT_CLASSES = tuple(f"digit:{digit}" for digit in range(10))  # a written number's
DIGIT_NETWORKS = {"digit": DIGIT_CLASSES, "number_digit": NUMBER_DIGIT_CLASSES}
DIGIT_PATCH = (32, 32)
DEFAULT_DIGIT_MODEL_PATH = shipped_model_set("digits")
DIGIT_MODEL_PATH = model_paths("SHEETSCAN_DIGIT_MODEL", (DEFAULT_DIGIT_MODEL_PATH,))[0]
DIGIT_REBUILD_COMMAND = "sheetscan train --networks digits"
# the turn network's heads whose digit box holds that digit alone, each kind of turn's (a
# pruning's location box holds its row and column side by side): the digit network reads these,
# and trains on them
ALONE_HEADS = {TurnKind.DRAW: ("first", "second", "place"), TurnKind.PRUNE: ("first",)}
# A written number the number network reads as one digit may show two in its box (a writer's tens
# the network took for none, or one digit written in two strokes): that the box holds no tens is
# then the network's chance joined with the ink's. On photos of the writers the networks trained
# on (seeds 95 and 96, 900 numbers), 13 of the 213 whose boxes showed two digits held no tens.
NO_TENS_WHERE_TWO_SEEN = 13 / 213


@lru_cache(maxsize=1)
def load_digit_networks(path: Path = DIGIT_MODEL_PATH) -> dict[str, Network]:
    """The digit networks (DIGIT_NETWORKS) of the model set ``path``, loaded once for every set of
    box models; a missing or foreign file is a ModelError naming DIGIT_REBUILD_COMMAND."""
    return load_networks(path, DIGIT_NETWORKS, DIGIT_REBUILD_COMMAND)


def joined(head: np.ndarray, alone: np.ndarray) -> np.ndarray:
    """A box network head's probabilities of some digits joined with those of the same digits
    read alone: their geometric mean, summing to 1."""
    both = np.sqrt(head.astype(np.float64) * alone.astype(np.float64))
    return both / both.sum()


def number_digit_patch(digit: np.ndarray) -> np.ndarray:
    """A DIGIT_PATCH float32 patch of one of a written number's digits from its ink (the rows of
    its box's inside, its own columns: digits.number_digit_boxes): centred in a square as tall as
    the box, so that a 1 stays narrow and every digit keeps the box's scale."""
    height, width = digit.shape
    side = max(height, width)
    square = np.zeros((side, side), np.float32)
    top, left = (side - height) // 2, (side - width) // 2
    square[top : top + height, left : left + width] = digit
    return cv2.resize(square, DIGIT_PATCH[::-1], interpolation=cv2.INTER_AREA)


def number_digits_alone(network: Network, digits: Mapping[Hashable, np.ndarray]) -> dict[Hashable, np.ndarray]:
    """The (10,) probabilities of the digits 0 to 9 of each written number's digit ``digits``
    (its ink by any key, as digits.number_digit_boxes cuts it), read alone by ``network``."""
    if not digits:
        return {}
    patches = np.array([number_digit_patch(digit) for digit in digits.values()], np.float32)
    return dict(zip(digits, network.probabilities(patches), strict=True))


def joined_number_heads(heads: Mapping[str, np.ndarray], alone: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One written number's ``heads`` (the number network's sign, tens and units, 1-D each)
    joined with its digits read ``alone`` ((10,) each, by head): the units' probabilities; the
    tens' of the digits 1 to 9, whose chance of no tens at all stays the number network's."""
    heads = dict(heads)
    if "units" in alone:
        heads["units"] = joined(heads["units"], alone["units"])
    if "tens" in alone:
        tens = heads["tens"].astype(np.float64)  # "none", then the digits 1 to 9
        heads["tens"] = np.r_[tens[0], joined(tens[1:], alone["tens"][1:]) * (1 - tens[0])]
    return heads


def one_or_two_digits(heads: Mapping[str, np.ndarray], seen: Mapping[str, np.ndarray]
                      ) -> tuple[float, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """A written number the number network reads as one digit (``heads``: its sign, tens and
    units, 1-D each) whose box shows two, read alone as ``seen`` ((10,) each: its "tens" and
    "units"): the chance it is one digit (the network's chance of no tens joined with
    NO_TENS_WHERE_TWO_SEEN, as ``joined`` joins digits), its heads as one digit, and its heads as
    two (the network's digits joined with those seen: joined_number_heads)."""
    none = float(heads["tens"][0])
    one = float(joined(np.array([none, 1 - none]), np.array([NO_TENS_WHERE_TWO_SEEN, 1 - NO_TENS_WHERE_TWO_SEEN]))[0])
    no_tens = np.zeros(len(heads["tens"]))
    no_tens[0] = 1.0
    # the network's tens digits, floored: one that took the tens for none may give each about 0
    tens_digits = np.maximum(heads["tens"][1:].astype(np.float64), np.finfo(np.float32).tiny)
    as_two = joined_number_heads({**heads, "tens": np.r_[0.0, tens_digits / tens_digits.sum()]}, seen)
    return one, {**heads, "tens": no_tens}, as_two
