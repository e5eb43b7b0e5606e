"""A small convolutional network for image patches, run in plain numpy.

Three 3x3 convolutions (each followed by ReLU and 2x2 max pooling), a hidden dense layer and
one softmax per head. A single-head network names its classes plainly (``"rock"``); a
multi-head one names them ``"head:class"`` (``"kind:prune"``, ``"units:7"``), so one output
layer serves every head. PyTorch trains it (``sheetscan train``, an optional extra); reading
needs only numpy and the weights in an ``.npz`` file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import ModelError

CONVOLUTIONS = 3  # each followed by ReLU and 2x2 max pooling: inputs are multiples of 8 pixels


@dataclass(frozen=True)
class Architecture:
    """The widths of a network: what training builds; inference reads them off the weights."""

    channels: tuple[int, ...] = (1, 16, 32, 48)  # input channels, then each convolution's outputs
    hidden: int = 64  # units of the dense layer


SMALL = Architecture()


@dataclass(frozen=True)
class CellNet:
    """Weights of the network (PyTorch layouts) and its class names."""

    convolutions: tuple[tuple[np.ndarray, np.ndarray], ...]  # ((out, in, 3, 3), (out,)) each
    hidden: tuple[np.ndarray, np.ndarray]  # ((hidden, flat), (hidden,))
    output: tuple[np.ndarray, np.ndarray]  # ((K, hidden), (K,))
    classes: tuple[str, ...]

    def probabilities(self, patches: np.ndarray) -> np.ndarray:
        """(n, K) class probabilities of (n, h, w) float32 ink patches, softmax per head."""
        x = patches[:, :, :, None].astype(np.float32)  # channels last: im2col copies less
        for weight, bias in self.convolutions:
            x = _max_pool(np.maximum(_convolve(x, weight, bias), 0))
        x = x.transpose(0, 3, 1, 2).reshape(len(x), -1)  # PyTorch flattens channels first
        x = np.maximum(x @ self.hidden[0].T + self.hidden[1], 0)
        logits = x @ self.output[0].T + self.output[1]
        out = np.empty_like(logits)
        for part in head_slices(self.classes).values():
            exp = np.exp(logits[:, part] - logits[:, part].max(axis=1, keepdims=True))
            out[:, part] = exp / exp.sum(axis=1, keepdims=True)
        return out

    def head_probabilities(self, patches: np.ndarray) -> dict[str, np.ndarray]:
        """Each head's (n, K_head) probabilities."""
        probabilities = self.probabilities(patches)
        return {head: probabilities[:, part] for head, part in head_slices(self.classes).items()}

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        arrays = {f"{prefix}_classes": np.array(self.classes)}
        for i, (weight, bias) in enumerate((*self.convolutions, self.hidden, self.output)):
            arrays[f"{prefix}_w{i}"], arrays[f"{prefix}_b{i}"] = weight, bias
        return arrays

    @classmethod
    def from_arrays(cls, arrays, prefix: str) -> "CellNet":
        layers = [(arrays[f"{prefix}_w{i}"].astype(np.float32), arrays[f"{prefix}_b{i}"].astype(np.float32))
                  for i in range(CONVOLUTIONS + 2)]
        classes = tuple(str(c) for c in arrays[f"{prefix}_classes"])
        return cls(tuple(layers[:CONVOLUTIONS]), layers[-2], layers[-1], classes)


def load_networks(path: Path, classes: dict[str, tuple[str, ...]], rebuild: str) -> tuple[dict[str, CellNet], dict]:
    """The networks named in ``classes`` from a model file, and its metadata; a missing or
    foreign file, or one whose classes differ, is a ModelError that says to run ``rebuild``."""
    try:
        with np.load(path) as arrays:
            nets = {name: CellNet.from_arrays(arrays, name) for name in classes}
            metadata = {k[5:]: str(arrays[k]) for k in arrays.files if k.startswith("meta_")}
    except (OSError, KeyError, ValueError):
        raise ModelError(f"{path}: no usable model; rebuild it with '{rebuild}'") from None
    if any(nets[name].classes != expected for name, expected in classes.items()):
        raise ModelError(f"{path}: the model's classes do not match this version; run '{rebuild}'")
    return nets, metadata


def _convolve(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """'Same' 3x3 convolution of (n, h, w, c) by PyTorch's (out, c, 3, 3), as one matrix product.

    The nine shifted copies are laid side by side along the channels (contiguous runs, so the
    copy is quick), and the weights reordered to match: (out, dy, dx, c).
    """
    n, h, w, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    columns = np.concatenate([padded[:, dy : dy + h, dx : dx + w] for dy in range(3) for dx in range(3)], axis=3)
    out = columns.reshape(n * h * w, 9 * c) @ weight.transpose(0, 2, 3, 1).reshape(len(weight), -1).T + bias
    return out.reshape(n, h, w, -1)


def _max_pool(x: np.ndarray) -> np.ndarray:
    """2x2 max pooling of (n, h, w, c), as the maximum of four strided views (no reshaping copy)."""
    n, h, w, c = x.shape
    x = x[:, : h // 2 * 2, : w // 2 * 2]
    return np.maximum(np.maximum(x[:, 0::2, 0::2], x[:, 1::2, 0::2]), np.maximum(x[:, 0::2, 1::2], x[:, 1::2, 1::2]))


def head_slices(classes: tuple[str, ...]) -> dict[str, slice]:
    """Where each head's classes lie in ``classes`` ("head:class" names; "" for a single head)."""
    heads: dict[str, list[int]] = {}
    for index, name in enumerate(classes):
        heads.setdefault(name.partition(":")[0] if ":" in name else "", []).append(index)
    return {head: slice(indices[0], indices[-1] + 1) for head, indices in heads.items()}


def head_classes(classes: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Each head's class names without the head prefix."""
    return {head: tuple(name.rpartition(":")[2] for name in classes[part])
            for head, part in head_slices(classes).items()}
