"""Training the cell networks on synthetic photos (needs PyTorch: ``pip install '.[train]'``).

Deterministic: the photos come from fixed seeds, and PyTorch is seeded and single-process.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sheetscan.lab.alike import alike_shares, sheet_kinds
from sheetscan.lab.export import Weights, calibrated_model, network_model, write_model_set
from sheetscan.reading.boxes import CLASSES as BOX_CLASSES, DEFAULT_BOX_MODEL_PATHS
from sheetscan.reading.lone_digits import DEFAULT_DIGIT_MODEL_PATH, DIGIT_NETWORKS
from sheetscan.reading.networks import Network, head_slices
from sheetscan.errors import SheetscanError
from sheetscan.names import TRAINING_PLANS
from sheetscan.reading.read import CLASSES as CELL_CLASSES, DEFAULT_DRAWING_MODEL_PATH, DEFAULT_MODEL_PATHS, DRAWING_CLASSES

SHIFT_PX = 2  # random shifts of a patch during training: alignment is never exact
INK_GAIN = (0.6, 1.3)  # random ink strength: light pencil to heavy felt
CONVOLUTIONS = 3  # each followed by ReLU and 2x2 max pooling: patches are multiples of 8 pixels


@dataclass(frozen=True)
class Architecture:
    """The widths of a patch network."""

    channels: tuple[int, ...] = (1, 16, 32, 48)  # input channels, then each convolution's outputs
    hidden: int = 64  # units of the dense layer


SMALL = Architecture()


def _torch():
    try:
        import torch
    except ImportError:
        raise SheetscanError("training needs PyTorch: pip install torch (or '.[train]')") from None
    return torch


def _network(torch, shape: tuple[int, int], classes: int, architecture: Architecture = SMALL):
    nn = torch.nn
    channels = architecture.channels
    layers = []
    for cin, cout in zip(channels[:-1], channels[1:], strict=True):
        layers += [nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
    pooled = 2**CONVOLUTIONS
    flat = channels[-1] * (shape[0] // pooled) * (shape[1] // pooled)
    layers += [nn.Flatten(), nn.Linear(flat, architecture.hidden), nn.ReLU(), nn.Linear(architecture.hidden, classes)]
    return nn.Sequential(*layers)


def _seeded_network(seed: int, shape: tuple[int, int], outputs: int, architecture: Architecture):
    """PyTorch, a generator and a fresh network, all seeded by ``seed`` (training on 2 threads)."""
    torch = _torch()
    torch.manual_seed(seed)
    torch.set_num_threads(2)
    return torch, np.random.default_rng(seed), _network(torch, shape, outputs, architecture)


def _augmented(padded: np.ndarray, chosen: np.ndarray, generator: np.random.Generator,
               shape: tuple[int, int]) -> np.ndarray:
    """The ``chosen`` patches of ``padded`` (padded by SHIFT_PX), shifted at random (one shift a
    batch) and their ink strength varied: alignment is never exact, pens press differently."""
    dy, dx = generator.integers(0, 2 * SHIFT_PX + 1, 2)
    x = padded[chosen, dy : dy + shape[0], dx : dx + shape[1]]
    return np.clip(x * generator.uniform(*INK_GAIN, (len(chosen), 1, 1)), 0, 1).astype(np.float32)


def _step(optimiser, schedule, loss) -> None:
    optimiser.zero_grad()
    loss.backward()
    optimiser.step()
    schedule.step()


def train_cellnet(patches: np.ndarray, labels: np.ndarray, classes: tuple[str, ...], *, seed: int,
                  epochs: int = 12, batch: int = 128, learning_rate: float = 2e-3, architecture: Architecture = SMALL,
                  progress=None) -> Network:
    """Train a patch network on (n, h, w) float32 ink ``patches``.

    ``labels`` is (n,) class indices for a single-head network, or (n, heads) indices within
    each head (see cnn.head_slices), -1 where a head does not apply to a sample.
    """
    torch, generator, network = _seeded_network(seed, patches.shape[1:3], len(classes), architecture)
    height, width = patches.shape[1:3]
    parts = list(head_slices(classes).values())
    labels = labels.reshape(len(labels), -1)
    optimiser = torch.optim.Adam(network.parameters(), lr=learning_rate)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, learning_rate, total_steps=epochs * (-(-len(patches) // batch)))
    padded = np.pad(patches, ((0, 0), (SHIFT_PX, SHIFT_PX), (SHIFT_PX, SHIFT_PX)))
    targets = torch.as_tensor(labels, dtype=torch.long)
    for epoch in range(epochs):
        order = generator.permutation(len(patches))
        for start in range(0, len(order), batch):
            chosen = order[start : start + batch]
            logits = network(torch.as_tensor(_augmented(padded, chosen, generator, (height, width))[:, None]))
            # Summed, not averaged, per head: a batch may hold no sample a head applies to.
            loss = sum(torch.nn.functional.cross_entropy(logits[:, part], targets[chosen, h], ignore_index=-1,
                                                         reduction="sum") for h, part in enumerate(parts)) / len(chosen)
            _step(optimiser, schedule, loss)
        if progress:
            progress(epoch, float(loss.detach()))
    return _to_network(network, (height, width), classes)


TEMPERATURES = np.exp(np.linspace(np.log(0.5), np.log(8.0), 81))  # the candidates fit_temperatures tries


# The drawing network: a supervised contrastive loss (Khosla et al. 2020) within each sheet, whose
# positives are the cells the player drew as the same kind and whose negatives are that player's
# other kinds. It learns what tells one hand's drawings apart, whatever the hand, not the kinds.
CONTRAST_TEMPERATURE = 0.1
SHEETS_PER_BATCH = 12


def train_drawing_net(patches: np.ndarray, kinds: np.ndarray, sheets: np.ndarray, *, seed: int, epochs: int,
                      architecture: Architecture = SMALL, progress=None) -> Network:
    """Train the drawing network on (n, h, w) ink ``patches`` of decorated cells, each with its
    ``kinds`` and its ``sheets`` (the sheet it was drawn on): its outputs, scaled to unit
    length, are alike for one hand's drawings of one kind and unlike for its others."""
    torch, generator, network = _seeded_network(seed, patches.shape[1:3], len(DRAWING_CLASSES), architecture)
    height, width = patches.shape[1:3]
    by_sheet = [np.flatnonzero(sheets == sheet) for sheet in np.unique(sheets)]
    batches = len(by_sheet) // SHEETS_PER_BATCH
    optimiser = torch.optim.Adam(network.parameters(), lr=2e-3)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 2e-3, total_steps=epochs * batches)
    padded = np.pad(patches, ((0, 0), (SHIFT_PX, SHIFT_PX), (SHIFT_PX, SHIFT_PX)))
    for epoch in range(epochs):
        order = generator.permutation(len(by_sheet))
        for batch in range(batches):
            chosen = np.concatenate([by_sheet[i] for i in order[batch * SHEETS_PER_BATCH : (batch + 1) * SHEETS_PER_BATCH]])
            x = _augmented(padded, chosen, generator, (height, width))
            units = torch.nn.functional.normalize(network(torch.as_tensor(x[:, None])), dim=1)
            same_sheet = torch.as_tensor(sheets[chosen][:, None] == sheets[chosen][None, :])
            others = same_sheet & ~torch.eye(len(chosen), dtype=torch.bool)
            positive = others & torch.as_tensor(kinds[chosen][:, None] == kinds[chosen][None, :])
            logits = (units @ units.T / CONTRAST_TEMPERATURE).masked_fill(~others, -1e9)
            log_p = logits - torch.logsumexp(logits, dim=1, keepdim=True)
            has = positive.sum(dim=1) > 0
            loss = -(log_p.masked_fill(~positive, 0).sum(dim=1)[has] / positive.sum(dim=1)[has]).mean()
            _step(optimiser, schedule, loss)
        if progress:
            progress(epoch, float(loss.detach()))
    return _to_network(network, (height, width), DRAWING_CLASSES)


def fit_temperatures(classes: tuple[str, ...], logits: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each class's softmax temperature (its head's): the one of TEMPERATURES that gives a
    network's ``logits`` of unseen patches the most likely ``labels`` (temperature scaling,
    Guo et al. 2017)."""
    logits = logits.astype(np.float64)
    labels = labels.reshape(len(labels), -1)
    temperature = np.ones(len(classes), np.float32)
    for head, part in enumerate(head_slices(classes).values()):
        applies = labels[:, head] >= 0
        z, y = logits[applies, part], labels[applies, head]
        if not len(y):
            continue
        losses = []
        for t in TEMPERATURES:
            scaled = z / t
            scaled -= scaled.max(axis=1, keepdims=True)
            losses.append(np.mean(np.log(np.exp(scaled).sum(axis=1)) - scaled[np.arange(len(y)), y]))
        temperature[part] = TEMPERATURES[int(np.argmin(losses))]
    return temperature


def head_accuracies(classes: tuple[str, ...], logits: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """Each head's share of samples read right (where the head applies), from a network's
    ``logits``: a head's temperature scales all its classes alike, so it never changes the pick."""
    labels = labels.reshape(len(labels), -1)
    accuracies = {}
    for head, (name, part) in enumerate(head_slices(classes).items()):
        applies = labels[:, head] >= 0
        right = logits[applies, part].argmax(axis=1) == labels[applies, head]
        accuracies[name or "class"] = round(float(right.mean()), 4) if len(right) else float("nan")
    return accuracies


def _to_network(network, patch_shape: tuple[int, int], classes: tuple[str, ...]) -> Network:
    """A PyTorch network as the reader runs it: through its ONNX model."""
    layers = [(layer.weight.detach().numpy().copy(), layer.bias.detach().numpy().copy())
              for layer in network if hasattr(layer, "weight")]
    weights = Weights(tuple(layers[:CONVOLUTIONS]), layers[CONVOLUTIONS], layers[CONVOLUTIONS + 1])
    return Network.from_model(network_model(weights, patch_shape, classes))


@dataclass(frozen=True)
class TrainingPlan:
    """What one ``sheetscan train --networks PLAN`` run makes: its photos and its networks."""

    seed: int  # training photos come from this run; benches use other seeds
    photos: int
    scramble: bool  # boxes filled at random, not by the game (see synth.scrambled_record)
    out: Path
    epochs: dict[str, int]  # per network: the number reader needs the most passes
    architectures: dict[str, Architecture]  # per network
    # Photo size: None draws it from the level's range. The boxes are read at about 3 px/mm,
    # which a 3-megapixel photo already gives: small photos make more samples per second.
    megapixels: float | None = None
    sheets_per_photo: tuple[int, ...] = (1,)  # photo i holds sheets_per_photo[i % len] sheets
    kind: str = "cells"  # the networks it trains: cells (decoration, water) or boxes
    # Photos of other sheet designs, (design, photos), numbered on after the plan's own (which show the
    # print-and-play sheet), for the networks of OTHER_DESIGN_NETWORKS alone
    other_designs: tuple[tuple[str, int], ...] = ()
    coarse_every: int = 0  # every coarse_every-th round of the levels writes digits from a coarse source
    fresh_ways: bool = False  # its hands draw the fresh ways (archetypes.FRESH) beside the others


# One cell photo in seven is a table photo, of 2 or 4 sheets: a sheet there has 1.2 to 3 px/mm,
# not the 4 to 6 of a sheet alone, and the cells must read at both. (On 60 unseen table photos
# of seed 999, 6336 cells: decoration errors 102 -> 65, water 33 -> 20; sheets alone and the
# held-out pen gained too. The mix is 14 photos long, prime to the three levels, so each table
# size meets every level.)
TABLE_MIX = (1,) * 6 + (2,) + (1,) * 6 + (4,)
# The second cell model, whose probabilities the reader averages with the first's: three photos
# in ten are tables, of 2, 3 or 4 sheets. Alone it reads table sheets better and sheets alone a
# little worse than the first; the pair does both about as well as the better one (see
# read.DEFAULT_MODEL_PATHS).
TABLES_MIX = (1, 1, 2, 1, 1, 3, 1, 1, 4, 1)

# A written number's digits vary in count and place: the number reader needs twice the width
# (measured: 97.2% of numbers exact against 93.0% for SMALL on the same data). The box plans
# render 4800 photos seen 12 times, not 2400 seen 24: the number reader read 99.1% of training
# digits but 96.0% of unseen ones, so it sees more hands rather than the same ones again.
BOX_EPOCHS = {"turn": 4, "mark": 4, "number": 12}
BOX_ARCHITECTURES = {"turn": SMALL, "mark": SMALL, "number": Architecture((1, 32, 64, 96), 128)}
# Both box sets' number readers also learn the pad, from 3,200 photos of it after the 4,800 of the
# print-and-play sheet (table photos of pads for boxes-tables): the first, trained on that sheet
# alone, read 79.5% of the pad's unseen scrambled numbers against 90.9% of the sheet's. The turn
# and mark networks train on the print-and-play photos alone: trained with the pad too, the turn
# network read held-out writers' turn boxes worse, and the pad's turn boxes are read in that
# sheet's frame anyway (boxes.turn_patches). Figures in docs/models.md.
BOX_OTHER_DESIGNS = (("pad", 3200),)
DIGIT_ARCHITECTURE = Architecture((1, 32, 64, 96), 128)
OTHER_DESIGN_NETWORKS = ("number",)  # the networks the other designs' photos train
# The plans, in the order of TRAINING_PLANS (the names `sheetscan train --networks` takes).
# The drawing plan's hands draw the fresh ways too (fresh_ways): two more ways a thing, twelve
# in all (the held-out ones stay out, to measure on). With them the drawing network tells held-out
# drawings' kinds apart better (bench drawings, validation seed 82, phone: 92.2% -> 94.6%), and
# held-out tables of 3 read more exactly. The cell plans trained so as well read no better on
# held-out sheets and held-out scans' tree marks worse (docs/models.md): they draw as before.
PLANS = dict(zip(TRAINING_PLANS, (
    # cells
    TrainingPlan(1000, 1500, False, DEFAULT_MODEL_PATHS[0], {"decoration": 12, "water": 12},
                 {"decoration": SMALL, "water": SMALL}, sheets_per_photo=TABLE_MIX),
    # cells-tables
    TrainingPlan(1000, 1500, False, DEFAULT_MODEL_PATHS[1], {"decoration": 12, "water": 12},
                 {"decoration": SMALL, "water": SMALL}, sheets_per_photo=TABLES_MIX),
    # boxes
    TrainingPlan(2000, 4800, True, DEFAULT_BOX_MODEL_PATHS[0], BOX_EPOCHS, BOX_ARCHITECTURES, megapixels=3.0,
                 kind="boxes", other_designs=BOX_OTHER_DESIGNS),
    # boxes-tables: the same run with table photos too (the first cell model's mix, still at 3 megapixels:
    # a table sheet there has 1.2 to 2 px/mm). Alone it reads table sheets' boxes better and
    # sheets alone a little worse (number tens 98.7% -> 97.7%); the reader averages the two.
    TrainingPlan(2000, 4800, True, DEFAULT_BOX_MODEL_PATHS[1], BOX_EPOCHS, BOX_ARCHITECTURES,
                 megapixels=3.0, sheets_per_photo=TABLE_MIX, kind="boxes", other_designs=BOX_OTHER_DESIGNS),
    # drawings: the drawing network, on sheets alone (its contrast is within each sheet; trained with
    # table photos too, it read held-out tables better and fresh ones worse: docs/models.md)
    TrainingPlan(3000, 1800, False, DEFAULT_DRAWING_MODEL_PATH, {"drawing": 20}, {"drawing": SMALL}, kind="drawings",
                 fresh_ways=True),
    # digits: each digit of a turn box and of a written number alone (lone_digits.py), on the box
    # plan's photos, the digits of one round of the levels in three from a coarse source
    TrainingPlan(2000, 4500, True, DEFAULT_DIGIT_MODEL_PATH, dict.fromkeys(DIGIT_NETWORKS, 6),
                 dict.fromkeys(DIGIT_NETWORKS, DIGIT_ARCHITECTURE), megapixels=3.0, kind="digits", coarse_every=3),
), strict=True))
TRAIN_LEVELS = ("phone", "scan", "hard")  # photo i is taken at level i % 3: this order made the shipped models
HELD_OUT_PEN = "felt"  # a drawing style kept out of training, to measure how the reader generalises
VALIDATION_SEED = 999  # photos for calibration and comparisons, never trained on
VALIDATION_PHOTOS = 240
COMPARISON_PHOTOS = 120  # phone photos for --compare-linear


def network_classes(kind: str) -> dict[str, tuple[str, ...]]:
    """The networks a kind of model set holds, and their classes."""
    return {"cells": dict(CELL_CLASSES), "boxes": dict(BOX_CLASSES), "drawings": {"drawing": DRAWING_CLASSES},
            "digits": dict(DIGIT_NETWORKS)}[kind]


def _other_designs(plan: TrainingPlan, photos: int) -> list[tuple[str, int]]:
    """The plan's other designs with their photos scaled as ``photos`` is to the plan's."""
    return [(name, round(count * photos / plan.photos)) for name, count in plan.other_designs]


def _plan_samples(plan: TrainingPlan, seed: int, photos: int, held_out_pen: str, jobs: int):
    """The samples of ``photos`` print-and-play photos of run ``seed`` made as ``plan`` says,
    and of its other designs' photos after them (in proportion) for the networks they train."""
    from sheetscan.lab.dataset import collect_parallel, joined

    def run(count: int, **design):
        return collect_parallel(seed, count, TRAIN_LEVELS, plan.kind, (held_out_pen,), jobs, plan.scramble,
                                plan.megapixels, plan.sheets_per_photo, coarse_every=plan.coarse_every,
                                fresh_trained=plan.fresh_ways, **design)

    samples, first = run(photos), photos
    for name, count in _other_designs(plan, photos):
        samples = joined(samples, run(count, layout_name=name, first=first), OTHER_DESIGN_NETWORKS)
        first += count
    return samples


def train_models(plan_name: str, out: Path, *, photos: int, seed: int, epochs: int | None = None,
                 held_out_pen: str = HELD_OUT_PEN, jobs: int = 2, compare_linear: bool = False,
                 say=print) -> dict:
    """Render training photos, train the networks of the plan ``plan_name`` (a key of PLANS),
    write them as ONNX files into the folder ``out``; ``epochs`` overrides the plan's for every
    network. The metadata the files share is returned."""
    _torch()  # fail before the long rendering, not after
    started = time.perf_counter()
    plan = PLANS[plan_name]
    kind = plan.kind
    samples = _plan_samples(plan, seed, photos, held_out_pen, jobs)
    rendered = photos + sum(count for _, count in _other_designs(plan, photos))
    say(f"rendered and read {rendered} photos ({samples.sheets} sheets kept) in {time.perf_counter() - started:.0f} s")
    passes = {name: epochs or plan.epochs[name] for name in network_classes(kind)}
    metadata = {"plan": plan_name, "train_seed": str(seed), "train_photos": str(photos), "levels": ",".join(TRAIN_LEVELS),
                "held_out_pen": held_out_pen, "epochs": json.dumps(passes), "scrambled": str(plan.scramble),
                "megapixels": str(plan.megapixels), "sheets_per_photo": json.dumps(plan.sheets_per_photo),
                "other_designs": json.dumps(_other_designs(plan, photos)), "coarse_every": str(plan.coarse_every),
                "fresh_ways": str(plan.fresh_ways)}
    if kind == "drawings":
        models = _drawing_models(samples, seed, passes, plan, metadata, jobs, say)
        written = write_model_set(out, models)
        say(f"wrote {', '.join(map(str, written))} in {time.perf_counter() - started:.0f} s in all")
        return metadata
    nets = {}
    for name, classes in network_classes(kind).items():
        nets[name] = train_cellnet(samples.patches[name], samples.labels[name], classes, seed=seed, epochs=passes[name],
                                   architecture=plan.architectures[name], progress=lambda e, loss, n=name: say(f"  {n} epoch {e + 1}/{passes[n]}: loss {loss:.4f}"))
    # Calibrate on unseen photos (another seed, the held-out pen still out): the decoder
    # weighs the readers' probabilities against each other and against the rules.
    validation = _plan_samples(plan, VALIDATION_SEED, VALIDATION_PHOTOS, held_out_pen, jobs)
    models = {}
    for name, net in nets.items():
        logits, labels = net.logits(validation.patches[name]), validation.labels[name]  # one pass serves both
        temperature = fit_temperatures(net.classes, logits, labels)
        accuracy = json.dumps(head_accuracies(net.classes, logits, labels))
        models[name] = calibrated_model(net, temperature, {**metadata, "validation_accuracy": accuracy})
        say(f"  {name} on {VALIDATION_PHOTOS} unseen photos: {accuracy}, "
            f"temperatures {sorted({round(float(t), 2) for t in temperature})}")
    written = write_model_set(out, models)
    say(f"wrote {', '.join(map(str, written))} in {time.perf_counter() - started:.0f} s in all")
    if compare_linear and kind == "cells":
        _compare_with_linear(samples, nets, jobs, say)
    return metadata


def _drawing_models(samples, seed: int, passes: dict[str, int], plan: TrainingPlan, metadata: dict[str, str],
                    jobs: int, say) -> dict:
    """The drawing network, trained on the decorated cells of ``samples``, with the share of
    validation drawings whose most alike other drawing on their sheet is the same kind."""
    decorated = samples.labels["drawing"] > 0
    net = train_drawing_net(samples.patches["drawing"][decorated], sheet_kinds(samples.labels["drawing"][decorated]),
                            samples.sheet_ids["drawing"][decorated], seed=seed, epochs=passes["drawing"],
                            architecture=plan.architectures["drawing"],
                            progress=lambda e, loss: say(f"  drawing epoch {e + 1}/{passes['drawing']}: loss {loss:.4f}"))
    validation = _plan_samples(plan, VALIDATION_SEED, VALIDATION_PHOTOS, metadata["held_out_pen"], jobs)
    nearest = alike_shares(validation, net)
    say(f"  on {VALIDATION_PHOTOS} unseen photos, the most alike other drawing of a sheet is the same kind: {nearest}")
    return {"drawing": calibrated_model(net, np.ones(len(DRAWING_CLASSES), np.float32),
                                        {**metadata, "validation_nearest_same_kind": json.dumps(nearest)})}


def _compare_with_linear(samples, nets, jobs: int, say) -> None:
    """Validation accuracy of the networks against HOG features with a softmax (same data)."""
    from sheetscan.lab.dataset import collect_parallel
    from sheetscan.lab.linear import fit_softmax, patch_features

    validation = collect_parallel(VALIDATION_SEED, COMPARISON_PHOTOS, ("phone",), "cells", (), jobs)
    for name, classes in network_classes("cells").items():
        train_x, train_y = samples.patches[name], samples.labels[name]
        test_x, test_y = validation.patches[name], validation.labels[name]
        linear = fit_softmax(patch_features(train_x), train_y, classes, l2=1e-2)
        linear_accuracy = (linear.probabilities(patch_features(test_x)).argmax(1) == test_y).mean()
        net_accuracy = (nets[name].probabilities(test_x).argmax(1) == test_y).mean()
        say(f"{name} on {COMPARISON_PHOTOS} unseen phone photos: CNN {net_accuracy:.4f}, HOG + softmax {linear_accuracy:.4f}")
