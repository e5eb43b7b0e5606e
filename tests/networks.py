"""Small random patch networks: inputs for the network, calibration and head tests."""

import numpy as np

from sheetscan.reading.networks import CellNet

CHANNELS = (1, 4, 6, 8)
HIDDEN = 16


def random_net(rng: np.random.Generator, shape: tuple[int, int], classes: tuple[str, ...]) -> CellNet:
    """A network of random weights for (h, w) patches (multiples of 8) and ``classes``."""
    convolutions = tuple((rng.normal(0, 0.5, (out, c, 3, 3)).astype(np.float32), rng.normal(0, 0.1, out).astype(np.float32))
                         for c, out in zip(CHANNELS[:-1], CHANNELS[1:], strict=True))
    flat = CHANNELS[-1] * (shape[0] // 8) * (shape[1] // 8)
    return CellNet(convolutions, (rng.normal(0, 0.1, (HIDDEN, flat)).astype(np.float32), np.zeros(HIDDEN, np.float32)),
                   (rng.normal(0, 1, (len(classes), HIDDEN)).astype(np.float32), np.zeros(len(classes), np.float32)),
                   classes)
