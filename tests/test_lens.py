"""The lens's bend, measured on the garden's grid and straightened before a layout is made."""

import numpy as np
import pytest

from sheetscan.design.layout import Region, expand_layout, load_layout
from sheetscan.reading.discover import _garden_crossings, discover_layout
from sheetscan.reading.lens import MIN_PLUMB_LINES, grid_bend, lens_k, plumb_k
from sheetscan.reading.photo import load_photo
from sheetscan.synthetic.camera import Lens
from sheetscan.synthetic.synth import blank_photo, synth_photo

NOMINAL_GARDEN = Region("garden", "garden", 0.0, 0.0, 120.0, 120.0)


def _gray(photo, folder):
    """The photo as `layout from-photo` reads it (a large one decoded reduced)."""
    path = folder / "photo.jpg"
    path.write_bytes(photo.jpeg)
    return load_photo(path).gray


def test_a_plane_grid_is_straight_and_a_lens_bends_it():
    steps = np.arange(7, dtype=np.float64) * 50 + 300
    plane = np.stack(np.meshgrid(steps, steps), axis=-1)
    assert grid_bend(plane) < 1e-6
    bent = Lens((1600, 1200), 0.04).distort(plane.reshape(-1, 2)).reshape(plane.shape)
    assert grid_bend(bent) > 1e-3


@pytest.mark.parametrize("index", [0, 4])
def test_the_lens_of_a_phone_photo_is_measured_on_its_garden(index, tmp_path):
    photo = blank_photo(index, 1, "phone", "pad")
    k = lens_k(_gray(photo, tmp_path), lambda image: _garden_crossings(image, NOMINAL_GARDEN))
    assert abs(k - photo.truth["camera"]["distortion"]) < 0.005
    assert abs(photo.truth["camera"]["distortion"]) > 0.03


def test_a_scan_is_left_as_it_is(tmp_path):
    photo = blank_photo(0, 1, "scan", "pad")
    assert photo.truth["camera"]["distortion"] == 0
    assert lens_k(_gray(photo, tmp_path), lambda image: _garden_crossings(image, NOMINAL_GARDEN)) == 0.0


@pytest.mark.parametrize("k", [0.03, -0.02, 0.0])
def test_printed_lines_bent_by_a_lens_measure_it_though_writing_crosses_them(k):
    size = (2000, 1500)
    rng = np.random.default_rng(5)
    along = np.linspace(0, 1, 80)[:, None]
    lines = []
    for start, end in rng.uniform([[150, 150], [1250, 150]], [[750, 1350], [1850, 1350]], size=(10, 2, 2)):
        straight = start + along * (end - start)
        seen = Lens(size, k).distort(straight) + rng.normal(0, 0.15, straight.shape)
        seen[20:26] += 4.0  # a stroke of writing drawn across the line
        lines.append(seen)
    assert abs(plumb_k(lines, size) - k) < 0.002
    assert plumb_k(lines[: MIN_PLUMB_LINES - 1], size) is None


@pytest.mark.parametrize("filled", [False, True])
def test_a_layout_from_a_bent_phone_photo_puts_the_far_boxes_where_they_are(filled, tmp_path):
    """Photo 0 of seed 1 on the pad. Blank: the garden measures the lens (before, the scoring
    row, 80 mm below the garden's centre, lay 3.4 mm low). Filled: the drawings hide it from the
    garden's crossings, and the page's printed lines measure it (before, the scoring row lay
    3.2 mm off, and the layout found 13 of 20 sheets of `bench layout`)."""
    pad = load_layout("pad")
    photo = synth_photo(0, 1, "phone", layout_name="pad", markers="none") if filled else blank_photo(0, 1, "phone", "pad")
    discovered = discover_layout(_gray(photo, tmp_path))
    assert abs(discovered.lens_k - photo.truth["camera"]["distortion"]) < 0.004  # the lens: -0.037 and 0.038
    found = expand_layout(discovered.document)
    scale = pad.region("garden").w / found.region("garden").w
    for category in ("lantern", "total"):
        true, seen = pad.region(f"score_{category}"), found.region(f"score_{category}")
        offset = (np.array([seen.x - found.region("garden").x, seen.y - found.region("garden").y]) * scale
                  - [true.x - pad.region("garden").x, true.y - pad.region("garden").y])
        assert np.abs(offset).max() < 1.0, category
