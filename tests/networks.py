"""Small random patch networks as ONNX models, and any network's weights read back from its file."""

import numpy as np
import onnx
from onnx import numpy_helper

from sheetscan.lab.export import Weights, network_model
from sheetscan.reading.networks import Network

CHANNELS = (1, 4, 6, 8)
HIDDEN = 16


def random_weights(rng: np.random.Generator, shape: tuple[int, int], classes: int) -> Weights:
    """Random weights for (h, w) patches (multiples of 8) and ``classes`` outputs."""
    convolutions = tuple((rng.normal(0, 0.5, (out, c, 3, 3)).astype(np.float32), rng.normal(0, 0.1, out).astype(np.float32))
                         for c, out in zip(CHANNELS[:-1], CHANNELS[1:], strict=True))
    flat = CHANNELS[-1] * (shape[0] // 8) * (shape[1] // 8)
    return Weights(convolutions, (rng.normal(0, 0.1, (HIDDEN, flat)).astype(np.float32), np.zeros(HIDDEN, np.float32)),
                   (rng.normal(0, 1, (classes, HIDDEN)).astype(np.float32), np.zeros(classes, np.float32)))


def random_net(rng: np.random.Generator, shape: tuple[int, int], classes: tuple[str, ...]) -> Network:
    """A network of random weights for (h, w) patches and ``classes``, as the reader runs it."""
    return Network.from_model(network_model(random_weights(rng, shape, len(classes)), shape, classes))


def weights_of(network: Network) -> Weights:
    """The weights stored in a network's ONNX model, by the names lab/export.py gives them."""
    arrays = {tensor.name: numpy_helper.to_array(tensor) for tensor in onnx.load_from_string(network.model).graph.initializer}
    layer = lambda name: (arrays[f"{name}.weight"], arrays[f"{name}.bias"])  # noqa: E731
    convolutions = sorted({name.split(".")[0] for name in arrays if name.startswith("conv")})
    return Weights(tuple(layer(name) for name in convolutions), layer("hidden"), layer("logits"))
