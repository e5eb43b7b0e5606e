"""The patch network as an ONNX graph, written in memory for OpenCV's dnn module to run.

OpenCV's convolutions are several times faster than a numpy matrix product, and reading an
ONNX graph needs no package beyond OpenCV itself: the few protobuf messages a graph of Conv,
Relu, MaxPool, Flatten and Gemm nodes needs are encoded here (field numbers from onnx.proto).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

IR_VERSION = 7
OPSET = 13
FLOAT = 1  # TensorProto.DataType
ATTRIBUTE_INT, ATTRIBUTE_INTS = 2, 7  # AttributeProto.AttributeType
VARINT, LENGTH_DELIMITED = 0, 2  # protobuf wire types


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64s take ten bytes, as protobuf writes them
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | 0x80 if value else low)
        if not value:
            return bytes(out)


def _integer(field: int, value: int) -> bytes:
    return _varint(field << 3 | VARINT) + _varint(value)


def _message(field: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    return _varint(field << 3 | LENGTH_DELIMITED) + _varint(len(data)) + data


def _tensor(name: str, array: np.ndarray) -> bytes:
    array = np.ascontiguousarray(array, dtype="<f4")
    return (b"".join(_integer(1, side) for side in array.shape) + _integer(2, FLOAT) + _message(8, name)
            + _message(9, array.tobytes()))


def _attribute(name: str, value: int | Sequence[int]) -> bytes:
    if isinstance(value, int):
        return _message(1, name) + _integer(20, ATTRIBUTE_INT) + _integer(3, value)
    return _message(1, name) + _integer(20, ATTRIBUTE_INTS) + b"".join(_integer(8, v) for v in value)


def _node(op_type: str, inputs: Sequence[str], output: str, **attributes: int | Sequence[int]) -> bytes:
    return (b"".join(_message(1, name) for name in inputs) + _message(2, output) + _message(3, output)
            + _message(4, op_type) + b"".join(_message(5, _attribute(k, v)) for k, v in attributes.items()))


def _value_info(name: str, shape: Sequence[int | str]) -> bytes:
    dims = b"".join(_message(1, _message(2, d) if isinstance(d, str) else _integer(1, d)) for d in shape)
    tensor_type = _integer(1, FLOAT) + _message(2, dims)
    return _message(1, name) + _message(2, _message(1, tensor_type))


def patch_network(convolutions: Sequence[tuple[np.ndarray, np.ndarray]], hidden: tuple[np.ndarray, np.ndarray],
                  output: tuple[np.ndarray, np.ndarray], patch_shape: tuple[int, int]) -> bytes:
    """A serialized ONNX model of the patch network (see cnn.py): input ``(n, 1, h, w)``
    patches, output ``(n, K)`` logits. Weights are in PyTorch's layouts."""
    nodes, weights = [], []
    layer = "patches"
    for index, (weight, bias) in enumerate(convolutions):
        weights += [_tensor(f"conv{index}.weight", weight), _tensor(f"conv{index}.bias", bias)]
        nodes += [_node("Conv", [layer, f"conv{index}.weight", f"conv{index}.bias"], f"conv{index}",
                        kernel_shape=(3, 3), pads=(1, 1, 1, 1)),
                  _node("Relu", [f"conv{index}"], f"relu{index}"),
                  _node("MaxPool", [f"relu{index}"], f"pool{index}", kernel_shape=(2, 2), strides=(2, 2))]
        layer = f"pool{index}"
    weights += [_tensor("hidden.weight", hidden[0]), _tensor("hidden.bias", hidden[1]),
                _tensor("logits.weight", output[0]), _tensor("logits.bias", output[1])]
    nodes += [_node("Flatten", [layer], "flat", axis=1),  # channels first, as PyTorch flattens
              _node("Gemm", ["flat", "hidden.weight", "hidden.bias"], "hidden", transB=1),
              _node("Relu", ["hidden"], "hidden.relu"),
              _node("Gemm", ["hidden.relu", "logits.weight", "logits.bias"], "logits", transB=1)]
    graph = (b"".join(_message(1, node) for node in nodes) + _message(2, "patch_network")
             + b"".join(_message(5, weight) for weight in weights)
             + _message(11, _value_info("patches", ("n", 1, *patch_shape)))
             + _message(12, _value_info("logits", ("n", len(output[1])))))
    return (_integer(1, IR_VERSION) + _message(2, "sheetscan") + _message(7, graph)
            + _message(8, _message(1, "") + _integer(2, OPSET)))
