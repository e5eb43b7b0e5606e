"""Training samples: every sheet of a photo found by the locator, labelled with its own truth."""

import numpy as np

from sheetscan.game.rules import CATEGORIES
from sheetscan.lab.dataset import collect, collect_parallel, decoration_labels, joined, number_labels, sheet_id, water_labels
from sheetscan.synthetic.synth import synth_photo


def test_a_table_photo_gives_each_sheet_its_own_labels_and_leaves_out_a_held_out_pen():
    truth = synth_photo(0, 5, "scan", 3).truth["sheets"]
    samples = collect(5, range(1), ("scan",), "cells", sheets_per_photo=(3,))
    assert samples.sheets == 3 and samples.patches["decoration"].shape[0] == 3 * 36
    # each sheet's samples are told apart (the drawing network contrasts drawings within a sheet)
    assert np.array_equal(samples.sheet_ids["decoration"], np.repeat([sheet_id(0, place) for place in range(3)], 36))
    assert np.array_equal(samples.labels["decoration"], np.concatenate([decoration_labels(t["garden"]) for t in truth]))
    assert np.array_equal(samples.labels["water"], np.concatenate([water_labels(t["garden"]) for t in truth]))
    held_out = truth[0]["style"]["pen"]
    kept = [t for t in truth if t["style"]["pen"] != held_out]
    without = collect(5, range(1), ("scan",), "cells", (held_out,), sheets_per_photo=(3,))
    assert 0 < without.sheets == len(kept) < 3
    assert np.array_equal(without.labels["water"], np.concatenate([water_labels(t["garden"]) for t in kept]))


def test_another_designs_photos_join_only_the_networks_named():
    own = collect(7, range(2), ("scan",), "boxes", scramble=True)
    pad = collect_parallel(7, 1, ("scan",), "boxes", scramble=True, layout_name="pad", first=2, jobs=1)
    truth = synth_photo(2, 7, "scan", scramble=True, layout_name="pad").truth["sheets"][0]
    assert pad.sheets == 1 and set(pad.sheet_ids["number"]) == {sheet_id(2, 0)}
    assert np.array_equal(pad.labels["number"], [number_labels(truth["written"][c]) for c in CATEGORIES])
    both = joined(own, pad, ("number",))
    assert np.array_equal(both.patches["number"], np.concatenate([own.patches["number"], pad.patches["number"]]))
    assert np.array_equal(both.labels["turn"], own.labels["turn"]) and np.array_equal(both.patches["mark"], own.patches["mark"])
    assert both.sheets == own.sheets + 1


def test_the_digit_samples_are_each_turn_boxs_one_digit_boxes_and_the_written_numbers_digits(monkeypatch):
    from sheetscan.lab import dataset
    from sheetscan.game.rules import CATEGORIES
    from sheetscan.reading.lone_digits import DIGIT_PATCH

    truth = synth_photo(0, 7, "scan", scramble=True).truth["sheets"][0]
    digits = [d for t in truth["turns"] if t["kind"] != "skip"
              for d in ([*t["dice"], t["location"]] if t["kind"] == "draw" else t["dice"])]
    coarse = []
    monkeypatch.setattr(dataset, "synth_photo", lambda *a, **k: coarse.append(k["coarse_digits"]) or synth_photo(*a, **k))
    samples = collect(7, range(1), ("scan",), "digits", scramble=True)
    assert samples.patches["digit"].shape == (len(digits), *DIGIT_PATCH)
    assert samples.labels["digit"].tolist() == [d - 1 for d in digits]
    # each number's digits in order, where its box shows as many (digits that touch are left out)
    numbers = [[int(d) for d in str(abs(truth["written"][c]))] for c in CATEGORIES]
    read, labels = 0, samples.labels["number_digit"].tolist()
    for number in numbers:
        read += labels[read : read + len(number)] == number and len(number)
    assert read == len(labels) >= 0.7 * sum(map(len, numbers))
    assert samples.patches["number_digit"].shape == (len(labels), *DIGIT_PATCH)
    collect(7, range(4), ("scan", "phone"), "digits", scramble=True, coarse_every=2)  # rounds of the two levels
    assert coarse == [False, True, True, False, False]
