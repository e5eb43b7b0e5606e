"""Training the cell networks on synthetic photos (needs PyTorch: ``pip install '.[train]'``).

Deterministic: the photos come from fixed seeds, and PyTorch is seeded and single-process.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .cnn import CHANNELS, HIDDEN, CellNet
from .errors import SheetscanError

SHIFT_PX = 2  # random shifts of a patch during training: alignment is never exact
INK_GAIN = (0.6, 1.3)  # random ink strength: light pencil to heavy felt


def _torch():
    try:
        import torch
    except ImportError:
        raise SheetscanError("training needs PyTorch: pip install torch (or '.[train]')") from None
    return torch


def _network(torch, size: int, classes: int):
    nn = torch.nn
    layers = []
    for cin, cout in zip(CHANNELS[:-1], CHANNELS[1:], strict=True):
        layers += [nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
    flat = CHANNELS[-1] * (size // 2 ** (len(CHANNELS) - 1)) ** 2
    layers += [nn.Flatten(), nn.Linear(flat, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, classes)]
    return nn.Sequential(*layers)


def train_cellnet(patches: np.ndarray, labels: np.ndarray, classes: tuple[str, ...], *, seed: int,
                  epochs: int = 12, batch: int = 128, learning_rate: float = 2e-3, progress=None) -> CellNet:
    """Train a CellNet on (n, size, size) float32 ink ``patches`` with (n,) class ``labels``."""
    torch = _torch()
    torch.manual_seed(seed)
    torch.set_num_threads(2)
    generator = np.random.default_rng(seed)
    size = patches.shape[1]
    network = _network(torch, size, len(classes))
    optimiser = torch.optim.Adam(network.parameters(), lr=learning_rate)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, learning_rate, total_steps=epochs * (-(-len(patches) // batch)))
    padded = np.pad(patches, ((0, 0), (SHIFT_PX, SHIFT_PX), (SHIFT_PX, SHIFT_PX)))
    targets = torch.as_tensor(labels, dtype=torch.long)
    for epoch in range(epochs):
        order = generator.permutation(len(patches))
        for start in range(0, len(order), batch):
            chosen = order[start : start + batch]
            dy, dx = generator.integers(0, 2 * SHIFT_PX + 1, 2)
            x = padded[chosen, dy : dy + size, dx : dx + size]
            x = np.clip(x * generator.uniform(*INK_GAIN, (len(chosen), 1, 1)), 0, 1).astype(np.float32)
            loss = torch.nn.functional.cross_entropy(network(torch.as_tensor(x[:, None])), targets[chosen])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
        if progress:
            progress(epoch, float(loss.detach()))
    return _to_cellnet(network, classes)


def _to_cellnet(network, classes: tuple[str, ...]) -> CellNet:
    weights = [(layer.weight.detach().numpy().copy(), layer.bias.detach().numpy().copy())
               for layer in network if hasattr(layer, "weight")]
    convolutions = len(CHANNELS) - 1
    return CellNet(tuple(weights[:convolutions]), weights[convolutions], weights[convolutions + 1], classes)


TRAIN_SEED = 1000  # training photos come from this run; benches use other seeds
TRAIN_PHOTOS = 900
TRAIN_LEVELS = ("phone", "scan", "hard")
HELD_OUT_PEN = "felt"  # a drawing style kept out of training, to measure how the reader generalises
VALIDATION_SEED = 999
VALIDATION_PHOTOS = 120


def train_models(out: Path, *, photos: int = TRAIN_PHOTOS, seed: int = TRAIN_SEED, epochs: int = 12,
                 held_out_pen: str = HELD_OUT_PEN, jobs: int = 2, compare_linear: bool = False,
                 say=print) -> dict:
    """Render training photos, train both cell networks and write them to ``out``."""
    from .dataset import collect_parallel
    from .read import DECORATION_CLASSES, WATER_CLASSES

    _torch()  # fail before the long rendering, not after
    started = time.perf_counter()
    samples = collect_parallel(seed, photos, TRAIN_LEVELS, (held_out_pen,), jobs)
    say(f"rendered and read {photos} photos ({len(samples.pens) // 36} sheets kept) in {time.perf_counter() - started:.0f} s")
    nets = {}
    for name, patches, labels, classes in (
        ("decoration", samples.decoration_patches, samples.decoration_labels, DECORATION_CLASSES),
        ("water", samples.water_patches, samples.water_labels, WATER_CLASSES),
    ):
        nets[name] = train_cellnet(patches, labels, classes, seed=seed, epochs=epochs,
                                   progress=lambda e, loss, n=name: say(f"  {n} epoch {e + 1}/{epochs}: loss {loss:.4f}"))
    metadata = {"train_seed": str(seed), "train_photos": str(photos), "levels": ",".join(TRAIN_LEVELS),
                "held_out_pen": held_out_pen, "epochs": str(epochs)}
    arrays = {**nets["decoration"].arrays("decoration"), **nets["water"].arrays("water"),
              **{f"meta_{k}": np.array(v) for k, v in metadata.items()}}
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as handle:
        np.savez_compressed(handle, **arrays)
    say(f"wrote {out} in {time.perf_counter() - started:.0f} s in all")
    if compare_linear:
        _compare_with_linear(samples, nets, jobs, say)
    return metadata


def _compare_with_linear(samples, nets, jobs: int, say) -> None:
    """Validation accuracy of the networks against HOG features with a softmax (same data)."""
    from .cells import patch_features
    from .dataset import collect_parallel
    from .linear import fit_softmax
    from .read import DECORATION_CLASSES, WATER_CLASSES

    validation = collect_parallel(VALIDATION_SEED, VALIDATION_PHOTOS, ("phone",), (), jobs)
    for name, train_x, train_y, test_x, test_y, classes in (
        ("decoration", samples.decoration_patches, samples.decoration_labels,
         validation.decoration_patches, validation.decoration_labels, DECORATION_CLASSES),
        ("water", samples.water_patches, samples.water_labels, validation.water_patches,
         validation.water_labels, WATER_CLASSES),
    ):
        linear = fit_softmax(patch_features(train_x), train_y, classes, l2=1e-2)
        linear_accuracy = (linear.probabilities(patch_features(test_x)).argmax(1) == test_y).mean()
        net_accuracy = (nets[name].probabilities(test_x).argmax(1) == test_y).mean()
        say(f"{name} on {VALIDATION_PHOTOS} unseen phone photos: CNN {net_accuracy:.4f}, HOG + softmax {linear_accuracy:.4f}")
