"""Training: the ONNX network computes what PyTorch trained; calibration and the plan travel in
each file's metadata; no PyTorch gives a clear error."""

import json
import sys
import numpy as np
import onnx
import pytest

from sheetscan.errors import SheetscanError
from sheetscan.lab.export import calibrated_model
from sheetscan.reading.networks import Network, head_slices, load_networks


def toy_patches(count: int, seed: int):
    """Patches with a filled square in the top left (class 0) or bottom right (class 1)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, count)
    patches = rng.uniform(0, 0.1, (count, 48, 48)).astype(np.float32)
    for patch, label in zip(patches, labels, strict=True):
        top = 6 if label == 0 else 30
        patch[top : top + 12, top : top + 12] = 1.0
    return patches, labels


def test_the_onnx_network_matches_pytorch_and_learns_a_toy_task():
    torch = pytest.importorskip("torch")
    from sheetscan.lab.train import _network, _to_network, train_cellnet

    patches, labels = toy_patches(400, 0)
    net = train_cellnet(patches, labels, ("top_left", "bottom_right"), seed=0, epochs=6, batch=32)
    test, truth = toy_patches(100, 1)
    assert (net.probabilities(test).argmax(1) == truth).mean() == 1.0
    torch.manual_seed(3)
    network = _network(torch, (48, 48), 2)
    expected = torch.softmax(network(torch.as_tensor(test[:8, None])), dim=1).detach().numpy()
    assert np.allclose(_to_network(network, (48, 48), ("a", "b")).probabilities(test[:8]), expected, atol=1e-5)


def test_a_multi_head_network_learns_each_head_and_skips_labels_that_do_not_apply():
    pytest.importorskip("torch")
    from sheetscan.lab.train import train_cellnet

    patches, corner = toy_patches(400, 0)
    patches = np.concatenate([patches, patches[:, :, :16]], axis=2)  # rectangular: 48 x 64
    bright = (patches.mean(axis=(1, 2)) > np.median(patches.mean(axis=(1, 2)))).astype(int)
    labels = np.stack([corner, np.where(corner == 0, bright, -1)], axis=1)  # "bright" only for class 0
    classes = ("corner:top_left", "corner:bottom_right", "bright:no", "bright:yes")
    net = train_cellnet(patches, labels, classes, seed=0, epochs=6, batch=32)
    heads = net.head_probabilities(patches)
    assert list(heads) == ["corner", "bright"]
    assert (heads["corner"].argmax(1) == corner).mean() == 1.0
    assert np.allclose(heads["bright"].sum(axis=1), 1)


def test_training_gives_the_same_bytes_twice():
    # `sheetscan train` is one deterministic command: the same patches and seed, the same file
    # (on one machine; another CPU's vector code may round otherwise, docs/models.md)
    pytest.importorskip("torch")
    from sheetscan.lab.train import train_cellnet

    patches, labels = toy_patches(200, 0)
    first, second = (train_cellnet(patches, labels, ("top_left", "bottom_right"), seed=5, epochs=2, batch=32)
                     for _ in range(2))
    assert first.model == second.model
    other_seed = train_cellnet(patches, labels, ("top_left", "bottom_right"), seed=6, epochs=2, batch=32)
    assert other_seed.model != first.model  # the seed is what decides: the comparison can fail


def test_training_without_pytorch_says_how_to_get_it(monkeypatch):
    from sheetscan.lab.train import _torch

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(SheetscanError, match="pip install torch"):
        _torch()


def test_temperature_scaling_finds_the_temperature_that_drew_the_labels():
    from networks import random_net

    from sheetscan.lab.train import fit_temperatures, head_accuracies

    rng = np.random.default_rng(5)
    classes = ("colour:red", "colour:green", "colour:blue", "size:small", "size:large")
    net = random_net(rng, (16, 16), classes)
    patches = rng.random((4000, 16, 16), dtype=np.float32)
    logits = net.logits(patches)
    drawn = {"colour": 2.5, "size": 0.5}
    labels = []
    for part, temperature in ((slice(0, 3), drawn["colour"]), (slice(3, 5), drawn["size"])):
        p = np.exp(logits[:, part] / temperature)
        p /= p.sum(axis=1, keepdims=True)
        labels.append([rng.choice(len(row), p=row) for row in p])
    labels = np.array(labels).T
    labels[::3, 1] = -1  # "size" does not apply to every sample
    temperature = fit_temperatures(net.classes, logits, labels)
    assert temperature[0] == temperature[1] == temperature[2] and temperature[3] == temperature[4]
    assert abs(temperature[0] / drawn["colour"] - 1) < 0.2 and abs(temperature[3] / drawn["size"] - 1) < 0.2
    calibrated = Network.from_model(calibrated_model(net, temperature, {"plan": "toy"}))
    assert np.array_equal(calibrated.temperature, temperature) and net.temperature is None
    assert calibrated.metadata["plan"] == "toy"
    assert np.allclose(calibrated.probabilities(patches[:3])[:, :3].sum(axis=1), 1)
    assert np.abs(calibrated.probabilities(patches[:3]) - net.probabilities(patches[:3])).max() > 0.01
    accuracies = head_accuracies(calibrated.classes, calibrated.logits(patches), labels)
    assert list(accuracies) == ["colour", "size"] and 0.3 < accuracies["colour"] < 1


def _made_by_plan(made: dict, plan_name: str) -> None:
    """The run a shipped network's metadata names is its plan's."""
    from sheetscan.lab.train import PLANS

    plan = PLANS[plan_name]
    assert made["plan"] == plan_name
    assert (made["train_seed"], made["train_photos"]) == (str(plan.seed), str(plan.photos))
    assert json.loads(made["sheets_per_photo"]) == list(plan.sheets_per_photo)
    assert made["megapixels"] == str(plan.megapixels) and made["scrambled"] == str(plan.scramble)
    assert json.loads(made["epochs"]) == plan.epochs
    # files made before the plans named these were of the print-and-play sheet alone, no coarse
    # digits, no fresh ways
    assert json.loads(made.get("other_designs", "[]")) == [list(design) for design in plan.other_designs]
    assert made.get("coarse_every", "0") == str(plan.coarse_every)
    assert made.get("fresh_ways", "False") == str(plan.fresh_ways)


def test_the_shipped_drawing_network_was_made_by_its_plans_command():
    from sheetscan.lab.train import PLANS
    from sheetscan.reading.read import DRAWING_CLASSES

    made = load_networks(PLANS["drawings"].out, {"drawing": DRAWING_CLASSES}, "")["drawing"].metadata
    _made_by_plan(made, "drawings")
    assert set(json.loads(made["validation_nearest_same_kind"])) == {"hog", "network", "both"}


@pytest.mark.parametrize("plan_name", ["cells", "cells-tables", "boxes", "boxes-tables", "digits"])
def test_each_shipped_model_was_made_by_its_plans_command(plan_name):
    from sheetscan.lab.train import PLANS, network_classes

    plan = PLANS[plan_name]
    for name, net in load_networks(plan.out, network_classes(plan.kind), "").items():
        made = net.metadata
        _made_by_plan(made, plan_name)
        assert set(json.loads(made["validation_accuracy"])) == {head or "class" for head in head_slices(net.classes)}
        assert net.temperature is not None and len(net.temperature) == len(net.classes)


def test_a_model_file_is_standard_onnx_that_names_its_classes_and_calibration():
    from sheetscan.reading.read import DEFAULT_MODEL_PATHS

    model = onnx.load(DEFAULT_MODEL_PATHS[0] / "decoration.onnx")
    onnx.checker.check_model(model, full_check=True)  # shapes inferred through every node
    properties = {prop.key: prop.value for prop in model.metadata_props}
    assert json.loads(properties["classes"])[:2] == ["empty", "lantern"]
    assert len(json.loads(properties["temperature"])) == 8
    (patches,) = model.graph.input
    assert [d.dim_value or d.dim_param for d in patches.type.tensor_type.shape.dim] == ["n", 1, 48, 48]


def test_a_model_set_is_written_whole_or_not_at_all(tmp_path):
    from networks import random_net

    from sheetscan.lab.export import write_model_set

    net = random_net(np.random.default_rng(0), (8, 8), ("a", "b"))
    written = write_model_set(tmp_path / "set", {"x": calibrated_model(net, np.ones(2, np.float32), {"plan": "p"})})
    assert written == [tmp_path / "set" / "x.onnx"]
    assert sorted(p.name for p in (tmp_path / "set").iterdir()) == ["x.onnx"]  # no temporary left beside it
    assert Network.from_model(onnx.load(written[0])).metadata["plan"] == "p"


def test_the_drawing_network_learns_to_tell_one_hands_drawings_apart():
    pytest.importorskip("torch")
    from sheetscan.lab.alike import nearest_same_kind
    from sheetscan.lab.train import train_drawing_net
    from sheetscan.reading.groups import drawing_similarity

    # each "sheet" holds two kinds drawn as the corner toy's two corners, the kinds given at random
    patches, corner = toy_patches(480, 0)
    sheets = np.repeat(np.arange(40), 12)
    rng = np.random.default_rng(1)
    kinds = np.where(rng.random(40)[sheets] < 0.5, corner, 1 - corner)
    net = train_drawing_net(patches, kinds, sheets, seed=0, epochs=4)
    similar = lambda p: drawing_similarity(np.zeros((len(p), 1)), net.logits(p))  # noqa: E731
    test, test_corner = toy_patches(120, 1)
    test_sheets = np.repeat(np.arange(10), 12)
    assert nearest_same_kind(similar, test, test_corner, test_sheets) == 1.0
    unlike = lambda p: -similar(p)  # noqa: E731 the least alike: always the other kind
    assert nearest_same_kind(unlike, test, test_corner, test_sheets) == 0.0
