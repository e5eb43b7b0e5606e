"""The patch networks the reader runs: standard ONNX files, one per network, run by ONNX Runtime.

A model set is a folder holding one ``<network>.onnx`` per network (``models/cells`` holds
``decoration.onnx`` and ``water.onnx``). Each file carries its class names and each class's
softmax temperature in its metadata. A single-head network names its classes plainly
(``"rock"``); a multi-head one names them ``"head:class"`` (``"kind:prune"``, ``"units:7"``), so
one output layer serves every head. ``sheetscan train`` writes the files (lab/export.py).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from pathlib import Path
from typing import Mapping, TypeVar

import cv2
import numpy as np
import onnx
import onnxruntime
from google.protobuf.message import DecodeError
from onnxruntime.capi import onnxruntime_pybind11_state as runtime_errors

from sheetscan.errors import ModelError

CLASSES_KEY = "classes"  # metadata: the output layer's class names, a JSON list
TEMPERATURE_KEY = "temperature"  # metadata: each class's softmax temperature, a JSON list (absent: 1)
SHIPPED_MODELS = "sheetscan.models"  # the package that holds the trained model sets
# Cells and boxes each have two model sets trained on the same run, the second with more table
# photos (train.PLANS "cells-tables", "boxes-tables"): a sheet seen at less than this many photo
# pixels per sheet mm (a table photo's sheet, 1.2-3 px/mm) is read by both, averaged; a larger
# one by the first alone, which reads it as well (boxes.py and read.py say how each was chosen).
SMALL_SHEET_PX_PER_MM = 2.5
# what ONNX Runtime raises on a graph it cannot run (its errors derive from Exception alone)
Models = TypeVar("Models")  # a dataclass of a reader's networks (read.CellModels, boxes.BoxModels)
UNRUNNABLE = (runtime_errors.Fail, runtime_errors.InvalidGraph, runtime_errors.InvalidProtobuf,
              runtime_errors.InvalidArgument, runtime_errors.NotImplemented, runtime_errors.RuntimeException)


def shipped_model_set(name: str) -> Path:
    """The folder of a model set shipped inside the package (``models/`` in the source tree)."""
    return Path(str(resources.files(SHIPPED_MODELS).joinpath(name)))


def network_path(folder: Path, name: str) -> Path:
    """The file of network ``name`` in the model set ``folder``."""
    return folder / f"{name}.onnx"


@dataclass(frozen=True)
class Network:
    """A trained patch network: its ONNX model, class names and calibration."""

    model: bytes  # the serialized ONNX model
    classes: tuple[str, ...]
    # Each class's softmax temperature (its head's), fitted on unseen photos so that the
    # probabilities the decoder weighs are calibrated; None: 1 (as trained)
    temperature: np.ndarray | None
    metadata: Mapping[str, str]  # everything in the file's metadata, the training plan's figures too
    # the ONNX Runtime session for each thread count asked for, made when first asked
    _runner: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_model(cls, model: onnx.ModelProto) -> "Network":
        """The network of an ONNX model written by lab/export.py (KeyError without classes)."""
        metadata = {prop.key: prop.value for prop in model.metadata_props}
        temperature = metadata.get(TEMPERATURE_KEY)
        return cls(model.SerializeToString(), tuple(json.loads(metadata[CLASSES_KEY])),
                   None if temperature is None else np.asarray(json.loads(temperature), np.float32), metadata)

    def _network(self) -> onnxruntime.InferenceSession:
        """The session that runs the network, on as many threads as OpenCV is set to use (the
        one setting batch.py and the benches turn: a batch's workers run single-threaded)."""
        threads = max(cv2.getNumThreads(), 1)
        if threads not in self._runner:
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
            self._runner[threads] = onnxruntime.InferenceSession(self.model, options,
                                                                  providers=["CPUExecutionProvider"])
        return self._runner[threads]

    def logits(self, patches: np.ndarray) -> np.ndarray:
        """(n, K) output layer of (n, h, w) float32 ink patches."""
        if not len(patches):
            return np.empty((0, len(self.classes)), np.float32)
        session = self._network()
        (logits,) = session.run(None, {session.get_inputs()[0].name:
                                       np.ascontiguousarray(patches[:, None], dtype=np.float32)})
        return logits

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

    def head_probabilities(self, patches: np.ndarray) -> dict[str, np.ndarray]:
        """Each head's (n, K_head) probabilities."""
        return split_heads(self.classes, self.probabilities(patches))

    def __getstate__(self) -> dict:  # sessions do not pickle: workers make their own
        return {**self.__dict__, "_runner": {}}


@dataclass(frozen=True)
class Ensemble:
    """Networks with the same classes, trained on different photos, read as one: each class's
    probability is the mean of theirs (the networks err on different patches)."""

    nets: tuple[Network, ...]

    def probabilities(self, patches: np.ndarray) -> np.ndarray:
        """(n, K) mean class probabilities of (n, h, w) float32 ink patches."""
        return sum(net.probabilities(patches) for net in self.nets) / len(self.nets)

    @property
    def classes(self) -> tuple[str, ...]:
        return self.nets[0].classes


def split_heads(classes: tuple[str, ...], probabilities: np.ndarray) -> dict[str, np.ndarray]:
    """(n, K) probabilities over ``classes`` as each head's (n, K_head) columns."""
    return {head: probabilities[:, part] for head, part in head_slices(classes).items()}


def model_paths(variable: str, defaults: tuple[Path, ...]) -> tuple[Path, ...]:
    """The model sets (folders) named by the environment ``variable`` (paths joined by
    os.pathsep), else ``defaults``."""
    value = os.environ.get(variable)
    return tuple(Path(path) for path in value.split(os.pathsep)) if value else defaults


def load_networks(folder: Path, classes: dict[str, tuple[str, ...]], rebuild: str) -> dict[str, Network]:
    """The networks named in ``classes`` from the model set ``folder``; a missing or foreign
    file, or one whose classes differ, is a ModelError that names it and says to run ``rebuild``."""
    nets = {}
    for name, expected in classes.items():
        path = network_path(folder, name)
        try:
            nets[name] = Network.from_model(onnx.load(path))
            nets[name]._network()  # a graph the runtime cannot run fails here, not on the first photo
        except (OSError, DecodeError, KeyError, ValueError, *UNRUNNABLE):
            raise ModelError(f"{path}: no usable model; rebuild it with '{rebuild}'") from None
        if nets[name].classes != expected:
            raise ModelError(f"{path}: the model's classes do not match this version; run '{rebuild}'")
    return nets


def for_sheet_size(models: Models, px_per_mm: float) -> Models:
    """``models`` (a dataclass whose ensembles hold a network of each model set) as a sheet seen
    at ``px_per_mm`` photo pixels per sheet mm is read: every ensemble whole for a small sheet,
    of its first network alone otherwise (SMALL_SHEET_PX_PER_MM). The networks are shared, so a
    process that loaded the sets loads nothing more for either size."""
    if px_per_mm < SMALL_SHEET_PX_PER_MM:
        return models
    return replace(models, **{item.name: Ensemble(value.nets[:1]) for item in fields(models)
                              if isinstance(value := getattr(models, item.name), Ensemble)})


def load_ensembles(paths: tuple[Path, ...], classes: dict[str, tuple[str, ...]], rebuild: str) -> dict[str, Ensemble]:
    """The networks named in ``classes``, one from each model set of ``paths``, as ensembles."""
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
