"""Training: the numpy network computes what PyTorch trained; no PyTorch gives a clear error."""

import json
import sys
from dataclasses import replace

import numpy as np
import pytest

from sheetscan.reading.networks import CellNet
from sheetscan.errors import SheetscanError


def toy_patches(count: int, seed: int):
    """Patches with a filled square in the top left (class 0) or bottom right (class 1)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, count)
    patches = rng.uniform(0, 0.1, (count, 48, 48)).astype(np.float32)
    for patch, label in zip(patches, labels, strict=True):
        top = 6 if label == 0 else 30
        patch[top : top + 12, top : top + 12] = 1.0
    return patches, labels


def test_numpy_network_matches_pytorch_and_learns_a_toy_task():
    torch = pytest.importorskip("torch")
    from sheetscan.lab.train import _network, _to_cellnet, train_cellnet

    patches, labels = toy_patches(400, 0)
    net = train_cellnet(patches, labels, ("top_left", "bottom_right"), seed=0, epochs=6, batch=32)
    test, truth = toy_patches(100, 1)
    assert (net.probabilities(test).argmax(1) == truth).mean() == 1.0
    torch.manual_seed(3)
    network = _network(torch, (48, 48), 2)
    expected = torch.softmax(network(torch.as_tensor(test[:8, None])), dim=1).detach().numpy()
    assert np.allclose(_to_cellnet(network, ("a", "b")).probabilities(test[:8]), expected, atol=1e-5)


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
    calibrated = replace(net, temperature=temperature)
    assert np.allclose(calibrated.probabilities(patches[:3])[:, :3].sum(axis=1), 1)
    assert np.abs(calibrated.probabilities(patches[:3]) - net.probabilities(patches[:3])).max() > 0.01
    saved = CellNet.from_arrays(calibrated.arrays("net"), "net")
    assert np.array_equal(saved.temperature, temperature) and CellNet.from_arrays(net.arrays("n"), "n").temperature is None
    accuracies = head_accuracies(calibrated.classes, calibrated.logits(patches), labels)
    assert list(accuracies) == ["colour", "size"] and 0.3 < accuracies["colour"] < 1


@pytest.mark.parametrize("plan_name", ["cells", "cells-tables", "boxes", "boxes-tables"])
def test_each_shipped_model_was_made_by_its_plans_command(plan_name):
    from sheetscan.lab.train import PLANS

    plan = PLANS[plan_name]
    with np.load(plan.out) as arrays:
        made = {key[5:]: str(arrays[key]) for key in arrays.files if key.startswith("meta_")}
    assert (made["train_seed"], made["train_photos"]) == (str(plan.seed), str(plan.photos))
    # a file made before the key was written had one sheet per photo, the plans' default
    assert json.loads(made.get("sheets_per_photo", "[1]")) == list(plan.sheets_per_photo)
    assert made["megapixels"] == str(plan.megapixels)
    assert json.loads(made["epochs"]) == plan.epochs and made["scrambled"] == str(plan.scramble)
