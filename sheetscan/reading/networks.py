"""A small convolutional network for image patches, run in plain numpy.

Three 3x3 convolutions (each followed by ReLU and 2x2 max pooling), a hidden dense layer and
one softmax per head. A single-head network names its classes plainly (``"rock"``); a
multi-head one names them ``"head:class"`` (``"kind:prune"``, ``"units:7"``), so one output
layer serves every head. PyTorch trains it (``sheetscan train``, an optional extra); reading
needs only the weights in an ``.npz`` file: OpenCV's dnn module runs them (see onnxgraph.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from sheetscan.errors import ModelError
from sheetscan.onnxgraph import patch_network

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
    # Each class's softmax temperature (its head's), fitted on unseen photos so that the
    # probabilities the decoder weighs are calibrated; None: 1 (as trained)
    temperature: np.ndarray | None = None
    # OpenCV networks built from the weights, one per patch shape: made on first use
    _runners: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def probabilities(self, patches: np.ndarray) -> np.ndarray:
        """(n, K) class probabilities of (n, h, w) float32 ink patches, softmax per head."""
        logits = self.logits(patches)
        if self.temperature is not None:
            logits = logits / self.temperature
        out = np.empty_like(logits)
        for part in head_slices(self.classes).values():
            exp = np.exp(logits[:, part] - logits[:, part].max(axis=1, keepdims=True))
            out[:, part] = exp / exp.sum(axis=1, keepdims=True)
        return out

    def logits(self, patches: np.ndarray) -> np.ndarray:
        """(n, K) output layer of (n, h, w) float32 ink patches."""
        if not len(patches):
            return np.empty((0, len(self.classes)), np.float32)
        shape = patches.shape[1:]
        if shape not in self._runners:
            model = patch_network(self.convolutions, self.hidden, self.output, shape)
            self._runners[shape] = cv2.dnn.readNetFromONNX(np.frombuffer(model, np.uint8))
        runner = self._runners[shape]
        runner.setInput(np.ascontiguousarray(patches[:, None], dtype=np.float32))
        return runner.forward().copy()

    def __getstate__(self) -> dict:  # OpenCV networks do not pickle: workers rebuild theirs
        return {**self.__dict__, "_runners": {}}

    def head_probabilities(self, patches: np.ndarray) -> dict[str, np.ndarray]:
        """Each head's (n, K_head) probabilities."""
        return split_heads(self.classes, self.probabilities(patches))

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        arrays = {f"{prefix}_classes": np.array(self.classes)}
        for i, (weight, bias) in enumerate((*self.convolutions, self.hidden, self.output)):
            arrays[f"{prefix}_w{i}"], arrays[f"{prefix}_b{i}"] = weight, bias
        if self.temperature is not None:
            arrays[f"{prefix}_temperature"] = self.temperature
        return arrays

    @classmethod
    def from_arrays(cls, arrays, prefix: str) -> "CellNet":
        layers = [(arrays[f"{prefix}_w{i}"].astype(np.float32), arrays[f"{prefix}_b{i}"].astype(np.float32))
                  for i in range(CONVOLUTIONS + 2)]
        classes = tuple(str(c) for c in arrays[f"{prefix}_classes"])
        temperature = arrays[f"{prefix}_temperature"].astype(np.float32) if f"{prefix}_temperature" in arrays else None
        return cls(tuple(layers[:CONVOLUTIONS]), layers[-2], layers[-1], classes, temperature)


@dataclass(frozen=True)
class Ensemble:
    """Networks with the same classes, trained on different photos, read as one: each class's
    probability is the mean of theirs (the networks err on different patches)."""

    nets: tuple[CellNet, ...]

    def probabilities(self, patches: np.ndarray) -> np.ndarray:
        """(n, K) mean class probabilities of (n, h, w) float32 ink patches."""
        return sum(net.probabilities(patches) for net in self.nets) / len(self.nets)

    def head_probabilities(self, patches: np.ndarray) -> dict[str, np.ndarray]:
        """Each head's (n, K_head) mean probabilities."""
        return split_heads(self.nets[0].classes, self.probabilities(patches))


def split_heads(classes: tuple[str, ...], probabilities: np.ndarray) -> dict[str, np.ndarray]:
    """(n, K) probabilities over ``classes`` as each head's (n, K_head) columns."""
    return {head: probabilities[:, part] for head, part in head_slices(classes).items()}


def model_paths(variable: str, defaults: tuple[Path, ...]) -> tuple[Path, ...]:
    """The model files named by the environment ``variable`` (paths joined by os.pathsep), else
    ``defaults``."""
    value = os.environ.get(variable)
    return tuple(Path(path) for path in value.split(os.pathsep)) if value else defaults


def load_networks(path: Path, classes: dict[str, tuple[str, ...]], rebuild: str) -> dict[str, CellNet]:
    """The networks named in ``classes`` from a model file; a missing or foreign file, or one
    whose classes differ, is a ModelError that says to run ``rebuild``."""
    try:
        with np.load(path) as arrays:
            nets = {name: CellNet.from_arrays(arrays, name) for name in classes}
    except (OSError, KeyError, ValueError):
        raise ModelError(f"{path}: no usable model; rebuild it with '{rebuild}'") from None
    if any(nets[name].classes != expected for name, expected in classes.items()):
        raise ModelError(f"{path}: the model's classes do not match this version; run '{rebuild}'")
    return nets


def load_ensembles(paths: tuple[Path, ...], classes: dict[str, tuple[str, ...]], rebuild: str) -> dict[str, Ensemble]:
    """The networks named in ``classes``, one from each model file of ``paths``, as ensembles."""
    files = [load_networks(path, classes, rebuild) for path in paths]
    return {name: Ensemble(tuple(nets[name] for nets in files)) for name in classes}


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
