"""A small convolutional network for cell patches, run in plain numpy.

Three 3x3 convolutions (each followed by ReLU and 2x2 max pooling), a hidden dense layer and
a softmax. PyTorch trains it (``sheetscan train``, an optional extra); reading needs only
numpy and the weights in an ``.npz`` file.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

CHANNELS = (1, 16, 32, 48)  # input channels, then the output channels of each convolution
HIDDEN = 64  # units of the dense layer


@dataclass(frozen=True)
class CellNet:
    """Weights of the network (PyTorch layouts) and its class names."""

    convolutions: tuple[tuple[np.ndarray, np.ndarray], ...]  # ((out, in, 3, 3), (out,)) each
    hidden: tuple[np.ndarray, np.ndarray]  # ((HIDDEN, flat), (HIDDEN,))
    output: tuple[np.ndarray, np.ndarray]  # ((K, HIDDEN), (K,))
    classes: tuple[str, ...]

    def probabilities(self, patches: np.ndarray) -> np.ndarray:
        """(n, K) class probabilities of (n, size, size) float32 ink patches."""
        x = patches[:, :, :, None].astype(np.float32)  # channels last: im2col copies less
        for weight, bias in self.convolutions:
            x = _max_pool(np.maximum(_convolve(x, weight, bias), 0))
        x = x.transpose(0, 3, 1, 2).reshape(len(x), -1)  # PyTorch flattens channels first
        x = np.maximum(x @ self.hidden[0].T + self.hidden[1], 0)
        logits = x @ self.output[0].T + self.output[1]
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        arrays = {f"{prefix}_classes": np.array(self.classes)}
        for i, (weight, bias) in enumerate((*self.convolutions, self.hidden, self.output)):
            arrays[f"{prefix}_w{i}"], arrays[f"{prefix}_b{i}"] = weight, bias
        return arrays

    @classmethod
    def from_arrays(cls, arrays, prefix: str) -> "CellNet":
        layers = [(arrays[f"{prefix}_w{i}"].astype(np.float32), arrays[f"{prefix}_b{i}"].astype(np.float32))
                  for i in range(len(CHANNELS) + 1)]
        classes = tuple(str(c) for c in arrays[f"{prefix}_classes"])
        return cls(tuple(layers[: len(CHANNELS) - 1]), layers[-2], layers[-1], classes)


def _convolve(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """'Same' 3x3 convolution of (n, h, w, c) by PyTorch's (out, c, 3, 3), as one matrix product."""
    n, h, w, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    windows = sliding_window_view(padded, (3, 3), axis=(1, 2))  # (n, h, w, c, 3, 3)
    columns = windows.reshape(n * h * w, c * 9)
    out = columns @ weight.reshape(len(weight), -1).T + bias
    return out.reshape(n, h, w, -1)


def _max_pool(x: np.ndarray) -> np.ndarray:
    n, h, w, c = x.shape
    return x[:, : h // 2 * 2, : w // 2 * 2].reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))
