"""Trained weights written as standard ONNX files, with what the reader needs in their metadata.

The patch network (see train.py): three 3x3 convolutions, each followed by ReLU and 2x2 max
pooling, a hidden dense layer with ReLU and the output layer. Any ONNX tool can open, inspect
and run the files; the reader runs them with ONNX Runtime (reading/networks.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from sheetscan.files import write_atomically
from sheetscan.reading.networks import CLASSES_KEY, TEMPERATURE_KEY, Network, network_path

# OpenCV 4.8's ONNX importer reads these; every node used here exists in opset 13.
OPSET = 13
IR_VERSION = 7


@dataclass(frozen=True)
class Weights:
    """A trained network's weights, in PyTorch's layouts."""

    convolutions: tuple[tuple[np.ndarray, np.ndarray], ...]  # ((out, in, 3, 3), (out,)) each
    hidden: tuple[np.ndarray, np.ndarray]  # ((hidden, flat), (hidden,))
    output: tuple[np.ndarray, np.ndarray]  # ((K, hidden), (K,))


def network_model(weights: Weights, patch_shape: tuple[int, int], classes: tuple[str, ...]) -> onnx.ModelProto:
    """The ONNX model of a patch network: input ``patches`` (n, 1, h, w) float32 ink, output
    ``logits`` (n, K); the class names travel in its metadata_props."""
    nodes, initializers, layer = [], [], "patches"

    def add_weights(name: str, weight: np.ndarray, bias: np.ndarray) -> None:
        initializers.extend((numpy_helper.from_array(np.asarray(weight, np.float32), f"{name}.weight"),
                             numpy_helper.from_array(np.asarray(bias, np.float32), f"{name}.bias")))

    for index, (weight, bias) in enumerate(weights.convolutions):
        add_weights(f"conv{index}", weight, bias)
        nodes += [helper.make_node("Conv", [layer, f"conv{index}.weight", f"conv{index}.bias"], [f"conv{index}"],
                                   kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                  helper.make_node("Relu", [f"conv{index}"], [f"relu{index}"]),
                  helper.make_node("MaxPool", [f"relu{index}"], [f"pool{index}"], kernel_shape=[2, 2], strides=[2, 2])]
        layer = f"pool{index}"
    add_weights("hidden", *weights.hidden)
    add_weights("logits", *weights.output)
    nodes += [helper.make_node("Flatten", [layer], ["flat"], axis=1),  # channels first, as PyTorch flattens
              helper.make_node("Gemm", ["flat", "hidden.weight", "hidden.bias"], ["hidden"], transB=1),
              helper.make_node("Relu", ["hidden"], ["hidden.relu"]),
              helper.make_node("Gemm", ["hidden.relu", "logits.weight", "logits.bias"], ["logits"], transB=1)]
    graph = helper.make_graph(
        nodes, "patch_network",
        [helper.make_tensor_value_info("patches", TensorProto.FLOAT, ["n", 1, *patch_shape])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", len(classes)])],
        initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="sheetscan")
    model.ir_version = IR_VERSION
    helper.set_model_props(model, {CLASSES_KEY: json.dumps(list(classes))})
    onnx.checker.check_model(model)
    return model


def calibrated_model(network: Network, temperature: np.ndarray, metadata: Mapping[str, str]) -> onnx.ModelProto:
    """``network``'s model with each class's softmax ``temperature`` and the training run's
    ``metadata`` (its plan and figures) added to its metadata_props."""
    model = onnx.load_from_string(network.model)
    properties = {prop.key: prop.value for prop in model.metadata_props}
    properties.update(metadata)
    properties[TEMPERATURE_KEY] = json.dumps([float(t) for t in temperature])  # exact: a float32 fits a float
    del model.metadata_props[:]
    helper.set_model_props(model, properties)
    return model


def write_model(model: onnx.ModelProto, path: Path) -> None:
    """Write ``model`` to ``path`` through a temporary name, so no half-written model is left."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, lambda temporary: temporary.write_bytes(model.SerializeToString()))


def write_model_set(folder: Path, models: Mapping[str, onnx.ModelProto]) -> list[Path]:
    """Write each network of a model set as ``folder/<name>.onnx``; the paths written."""
    paths = [network_path(folder, name) for name in models]
    for path, model in zip(paths, models.values(), strict=True):
        write_model(model, path)
    return paths
