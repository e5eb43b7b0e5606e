"""Training samples: every sheet of a photo found by the locator, labelled with its own truth."""

import numpy as np

from sheetscan.lab.dataset import collect, decoration_labels, water_labels
from sheetscan.synthetic.synth import synth_photo


def test_a_table_photo_gives_each_sheet_its_own_labels_and_leaves_out_a_held_out_pen():
    truth = synth_photo(0, 5, "scan", 3).truth["sheets"]
    samples = collect(5, range(1), ("scan",), "cells", sheets_per_photo=(3,))
    assert samples.sheets == 3 and samples.patches["decoration"].shape[0] == 3 * 36
    assert np.array_equal(samples.labels["decoration"], np.concatenate([decoration_labels(t["garden"]) for t in truth]))
    assert np.array_equal(samples.labels["water"], np.concatenate([water_labels(t["garden"]) for t in truth]))
    held_out = truth[0]["style"]["pen"]
    kept = [t for t in truth if t["style"]["pen"] != held_out]
    without = collect(5, range(1), ("scan",), "cells", (held_out,), sheets_per_photo=(3,))
    assert 0 < without.sheets == len(kept) < 3
    assert np.array_equal(without.labels["water"], np.concatenate([water_labels(t["garden"]) for t in kept]))
