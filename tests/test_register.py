"""Registering the boxes: each box the networks read placed where its printed outline lies on the
rectified sheet, the lens's bend that no homography follows taken out (register.py)."""

import cv2
import numpy as np
import pytest

from sheetscan.design.layout import load_layout
from sheetscan.reading.claim import box_offsets, outlined_regions
from sheetscan.reading.pipeline import read_photo
from sheetscan.reading.rectify import CANONICAL_PX_PER_MM, canonical_from_mm
from sheetscan.reading.register import FIELD_TOLERANCE_MM, LEAST_SHIFT_MM, offset_field, registered_layout
from sheetscan.synthetic.sheet import render_sheet
from sheetscan.synthetic.synth import synth_photo

CANONICAL_DPI = CANONICAL_PX_PER_MM * 25.4  # a sheet rendered at this dpi is a rectified sheet, pixel for pixel
PIXEL_MM = 1 / CANONICAL_PX_PER_MM + 1e-9  # a thick outline's middle is measured to within a pixel of it


def rectified_blank(layout_name):
    return cv2.cvtColor(render_sheet(CANONICAL_DPI, load_layout(layout_name)), cv2.COLOR_BGR2GRAY)


def moved(image, dx_mm, dy_mm):
    shift = np.float32([[1, 0, dx_mm * CANONICAL_PX_PER_MM], [0, 1, dy_mm * CANONICAL_PX_PER_MM]])
    return cv2.warpAffine(image, shift, image.shape[::-1], borderValue=255)


# The shifts put a box's side near another line: on the pad a turn box's neighbour 2 mm beyond
# it and its sub-boxes 1.5 mm inside; on the print-and-play sheet the next row's box 2 mm below.
@pytest.mark.parametrize("layout_name", ["pad", "print-and-play"])
@pytest.mark.parametrize("dx_mm, dy_mm", [(0.0, 0.0), (1.6, -1.2), (-1.4, 1.8), (2.0, 0.6)])
def test_every_outlined_box_is_found_where_it_was_moved(layout_name, dx_mm, dy_mm):
    layout = load_layout(layout_name)
    boxes = outlined_regions(layout)
    image = moved(rectified_blank(layout_name), dx_mm, dy_mm)
    found = box_offsets(image, canonical_from_mm(), boxes, CANONICAL_PX_PER_MM)
    assert np.abs(found - [dx_mm, dy_mm]).max() <= PIXEL_MM, {b.name: f for b, f in zip(boxes, found)}


def test_the_field_follows_a_bend_and_leaves_out_the_boxes_that_stray_from_it():
    rng = np.random.default_rng(5)
    size = (148.0, 210.0)
    centres = rng.uniform([5, 100], [140, 205], size=(24, 2))
    x, y = centres[:, 0] / size[0], centres[:, 1] / size[1]
    bend = np.stack([0.3 - 1.5 * x * y + 0.8 * y * y, -0.2 + 1.2 * y * y - 0.4 * x], axis=1)
    found = bend.copy()
    found[[2, 9, 17], 0] += [2.0, -2.1, 1.9]  # another line 2 mm away taken for a side
    found[np.argsort(np.abs(bend[:, 1] - np.median(bend[:, 1])))[:2], 1] = np.nan  # not found (amid those found)
    field = offset_field(centres, found, size)
    assert np.abs(field - bend).max() <= 0.05


def test_the_field_is_never_extrapolated_beyond_the_offsets_found():
    size = (148.0, 210.0)
    centres = np.array([[10.0, 150.0], [70.0, 150.0], [130.0, 150.0], [10.0, 200.0], [70.0, 200.0], [130.0, 200.0],
                        [70.0, 10.0]])
    found = np.array([[0.1, 0.0], [0.3, 0.1], [0.5, 0.2], [0.9, 1.0], [1.3, 1.1], [1.7, 1.2], [np.nan, np.nan]])
    field = offset_field(centres, found, size)
    assert np.nanmin(found, axis=0)[0] <= field[-1, 0] <= np.nanmax(found, axis=0)[0]
    assert np.nanmin(found, axis=0)[1] <= field[-1, 1] <= np.nanmax(found, axis=0)[1]


def lens_bend_mm(x, y):
    """A bend like a phone lens's on a page found by its garden: nothing down to the garden's foot,
    then growing to 1.3 mm up and 1.2 mm towards the middle at the score row (as on the pad's
    12-MP speed photo 1)."""
    grown = np.clip((y - 110.0) / 100.0, 0.0, None) ** 2
    return 1.7 * grown * (74.0 - x) / 74.0, -1.6 * grown


def bent(image):
    rows, columns = np.indices(image.shape, dtype=np.float32)
    dx, dy = lens_bend_mm((columns + 0.5) / CANONICAL_PX_PER_MM, (rows + 0.5) / CANONICAL_PX_PER_MM)
    return cv2.remap(image, columns - np.float32(dx * CANONICAL_PX_PER_MM), rows - np.float32(dy * CANONICAL_PX_PER_MM),
                     cv2.INTER_LINEAR, borderValue=255)


def test_the_boxes_of_a_bent_page_are_moved_to_their_outlines_and_the_rest_stay():
    layout = load_layout("pad")
    registered = registered_layout(bent(rectified_blank("pad")), layout, photo_px_per_mm=8.0)
    for region in layout.regions:
        shift = np.array([registered.region(region.name).x - region.x, registered.region(region.name).y - region.y])
        owner = layout.region(region.name.rsplit("_", 1)[0]) if region.kind == "turn_part" else region
        if region.kind in ("score", "turn", "turn_part"):
            # a box is measured to within a pixel, and one within LEAST_SHIFT_MM of its place stays
            assert np.abs(shift - lens_bend_mm(*owner.center)).max() <= PIXEL_MM + LEAST_SHIFT_MM, region.name
        elif region.kind in ("leaf", "pond_icon"):
            assert np.abs(shift - lens_bend_mm(*region.center)).max() <= FIELD_TOLERANCE_MM, region.name
        elif region.kind != "name":
            assert shift.tolist() == [0.0, 0.0], region.name


def test_a_sheet_found_by_its_grid_reads_the_numbers_at_the_foot_of_a_bent_page(tmp_path):
    """The pad at 12 MP held close: its score row lies 1.5 mm above and 1 to 1.7 mm beside where
    the grid's fit puts it, and read there its 0s and 6s read as 9s (4 of 9 numbers right)."""
    photo = synth_photo(1, 32, "phone", megapixels=12, layout_name="pad")
    path = tmp_path / "pad.jpg"
    path.write_bytes(photo.jpeg)
    sheet = read_photo(path, layout=load_layout("pad"), keep_images=False).sheets[0]
    written = photo.truth["sheets"][0]["written"]
    assert {category: candidates[0].value for category, candidates in sheet.boxes.written.items()} == written
