"""The hands of the synthetic bench: many archetypes per decoration, held-out, fresh and unseen splits that hold."""

import itertools

import numpy as np
import pytest

from sheetscan.game.rules import Decoration
from sheetscan.synthetic.archetypes import ARCHETYPES, FRESH, HELD_OUT, TREE_MARKS, UNSEEN, choices
from sheetscan.synthetic.glyphs import ellipse, fill
from sheetscan.synthetic.glyphs import hatch_mask
from sheetscan.synthetic.handdraw import player_drawings
from sheetscan.synthetic.synth import synth_photo

EVERY = [archetype for archetypes in (*ARCHETYPES.values(), TREE_MARKS) for archetype in archetypes]


def test_each_decoration_has_at_least_eight_ways_and_every_name_is_unique():
    assert set(ARCHETYPES) == set(Decoration)
    assert all(len(archetypes) >= 8 for archetypes in ARCHETYPES.values()) and len(TREE_MARKS) >= 8
    assert len({archetype.name for archetype in EVERY}) == len(EVERY)


@pytest.mark.parametrize("archetype", EVERY, ids=lambda a: a.name)
def test_every_archetype_draws_strokes_in_its_box(archetype):
    for seed in range(3):
        strokes = archetype.draw(np.random.default_rng(seed))
        assert strokes and all(s.ndim == 2 and s.shape[1] == 2 and len(s) >= 2 for s in strokes)
        points = np.concatenate(strokes)
        assert points.min() >= -0.05 and points.max() <= 1.05


def test_the_held_out_split_leaves_each_thing_ways_on_both_sides():
    assert HELD_OUT <= {archetype.name for archetype in EVERY}
    for archetypes in (*ARCHETYPES.values(), TREE_MARKS):
        assert len(choices(archetypes, held_out=True)) >= 2 and len(choices(archetypes, held_out=False)) >= 6


def test_the_fresh_ways_are_two_a_thing_apart_from_the_held_out_and_from_training():
    assert FRESH <= {archetype.name for archetype in EVERY} and not FRESH & HELD_OUT
    for archetypes in (*ARCHETYPES.values(), TREE_MARKS):
        fresh = choices(archetypes, held_out=False, fresh=True)
        assert len(fresh) == 2 and all(a.name in FRESH for a in fresh)
        assert not {a.name for a in choices(archetypes, held_out=False) + choices(archetypes, held_out=True)} & FRESH


def test_the_unseen_ways_are_two_a_thing_apart_from_every_other_split():
    assert UNSEEN <= {archetype.name for archetype in EVERY} and not UNSEEN & (HELD_OUT | FRESH)
    for archetypes in (*ARCHETYPES.values(), TREE_MARKS):
        unseen = choices(archetypes, held_out=False, unseen=True)
        assert len(unseen) == 2 and all(a.name in UNSEEN for a in unseen)
        others = [choices(archetypes, held_out, fresh, fresh_trained)
                  for held_out, fresh, fresh_trained in itertools.product((False, True), repeat=3)]
        assert not {a.name for chosen in others for a in chosen} & UNSEEN


@pytest.mark.parametrize("held_out, fresh, unseen", [(False, False, False), (True, False, False), (False, True, False),
                                                     (False, False, True)])
def test_a_player_draws_from_one_side_of_the_split_only(held_out, fresh, unseen):
    for seed in range(20):
        names = player_drawings(np.random.default_rng(seed), held_out, fresh, unseen=unseen).names
        assert set(names) == {d.category for d in Decoration} | {"tree_mark"}
        assert all((name in HELD_OUT) == held_out and (name in FRESH) == fresh and (name in UNSEEN) == unseen
                   for name in names.values())


def test_a_plan_that_trains_on_the_fresh_ways_draws_them_beside_its_own_and_never_a_held_out_one():
    names = [name for seed in range(40)
             for name in player_drawings(np.random.default_rng(seed), fresh_trained=True).names.values()]
    assert set(names) & FRESH and set(names) - FRESH and not set(names) & HELD_OUT
    for archetypes in (*ARCHETYPES.values(), TREE_MARKS):
        assert set(choices(archetypes, held_out=False, fresh_trained=True)) == {
            *choices(archetypes, held_out=False), *choices(archetypes, held_out=False, fresh=True)}
    # the benches' hands stay as they were: a held-out or fresh hand draws the same either way
    assert player_drawings(np.random.default_rng(5), True, fresh_trained=True).names == player_drawings(
        np.random.default_rng(5), True).names
    # and a training photo made so draws them (synth_photo passes it on to the hand)
    photos = [synth_photo(index, 3, "scan", megapixels=1, fresh_trained=True) for index in range(4)]
    drawn = {name for photo in photos for sheet in photo.truth["sheets"] for name in sheet["drawings"].values()}
    assert drawn & FRESH and not drawn & HELD_OUT


def test_held_out_styles_reach_the_photo_and_its_truth():
    photo = synth_photo(0, 3, "scan", megapixels=2, held_out_styles=True)
    plain = synth_photo(0, 3, "scan", megapixels=2)
    assert all(set(sheet["drawings"].values()) <= HELD_OUT for sheet in photo.truth["sheets"])
    assert not any(set(sheet["drawings"].values()) & HELD_OUT for sheet in plain.truth["sheets"])
    assert photo.jpeg != plain.jpeg
    fresh = synth_photo(0, 3, "scan", megapixels=2, fresh_styles=True)
    assert all(set(sheet["drawings"].values()) <= FRESH for sheet in fresh.truth["sheets"])
    assert not any(set(sheet["drawings"].values()) & FRESH for sheet in photo.truth["sheets"] + plain.truth["sheets"])
    unseen = synth_photo(0, 3, "scan", megapixels=2, unseen_styles=True)
    assert all(set(sheet["drawings"].values()) <= UNSEEN for sheet in unseen.truth["sheets"])
    assert not any(set(sheet["drawings"].values()) & UNSEEN
                   for sheet in photo.truth["sheets"] + plain.truth["sheets"] + fresh.truth["sheets"])


def test_hatching_fills_a_shape_at_its_spacing_and_nowhere_else():
    mask = np.zeros((100, 100), np.uint8)
    mask[20:60, 30:70] = 1  # a 0.4 x 0.4 square of the unit box
    strokes = hatch_mask(mask, 100, 0.05, 0)
    assert len(strokes) == pytest.approx(0.4 / 0.05, abs=1)
    points = np.concatenate(strokes)
    assert points[:, 0].min() >= 0.29 and points[:, 0].max() <= 0.7 and points[:, 1].min() >= 0.19 and points[:, 1].max() <= 0.6
    dot = fill(ellipse(0.5, 0.5, 0.3, 0.3), 0.02, 30)
    assert np.hypot(*(np.concatenate(dot) - 0.5).T).max() <= 0.31


def test_real_digits_come_in_tens_of_writers_with_a_held_out_part():
    from sheetscan.synthetic.digits import HELD_OUT_FROM, digit_images, digits_mask, pick_writer

    images = digit_images()
    assert images.shape == (10, 500, 20, 20) and 0 <= images.min() and images.max() <= 1
    rng = np.random.default_rng(0)
    assert all(i < HELD_OUT_FROM for i in pick_writer(rng)) and all(i >= HELD_OUT_FROM for i in pick_writer(rng, True))
    writer = pick_writer(rng)
    one, minus_twelve = digits_mask("1", writer), digits_mask("-12", writer)
    assert minus_twelve.shape[1] > one.shape[1] + 10 and minus_twelve.max() > 0.9


@pytest.mark.parametrize("styles", ["held_out_styles", "fresh_styles", "unseen_styles"])
def test_held_out_fresh_and_unseen_styles_write_with_held_out_writers_only(styles):
    from sheetscan.synthetic.digits import HELD_OUT_FROM

    held = [s["style"]["digits"] for i in range(3) for s in synth_photo(i, 6, "scan", megapixels=2, **{styles: True}).truth["sheets"]]
    plain = [s["style"]["digits"] for i in range(6) for s in synth_photo(i, 6, "scan", megapixels=2).truth["sheets"]]
    assert all(isinstance(d, list) and min(d) >= HELD_OUT_FROM for d in held)
    assert all(d == "font" or max(d) < HELD_OUT_FROM for d in plain) and "font" in plain


def test_a_coarse_source_squares_a_digit_about_its_ink_and_thickens_and_blurs_it():
    from sheetscan.synthetic.digits import SOURCE_LEVELS, coarse_digit, digit_images

    seven = digit_images()[7, 3]
    coarse = coarse_digit(seven, 8)
    assert coarse.shape == seven.shape and coarse.max() == pytest.approx(1)
    ink = (seven > 0.5).sum()
    assert (coarse > 0.5).sum() > ink  # the ink spreads
    assert len(np.unique(np.round(coarse, 3))) > SOURCE_LEVELS  # enlarged back with grey between the levels
    # squared about its ink: centred, and as tall as the box
    rows, columns = np.nonzero(coarse > 0.1)
    assert rows.min() <= 1 and rows.max() >= seven.shape[0] - 2
    assert abs(np.average(columns, weights=coarse[rows, columns]) - (seven.shape[1] - 1) / 2) < 2
    assert np.allclose(coarse_digit(np.zeros_like(seven), 8), 0)


def test_coarse_digits_reach_every_real_writer_on_asking_and_none_unasked():
    from sheetscan.synthetic.digits import SOURCE_PX

    def sources(**options):
        return [s["style"].get("digit_source_px") for i in range(2)
                for s in synth_photo(i, 6, "scan", 3, megapixels=2, **options).truth["sheets"] if s["style"]["digits"] != "font"]

    held, asked = sources(held_out_styles=True), sources(held_out_styles=True, coarse_digits=True)
    assert len(held) == len(asked) == 6 and held == [None] * 6
    assert all(SOURCE_PX[0] <= px <= SOURCE_PX[1] for px in asked) and len(set(asked)) > 1
    trained, trained_asked = sources(), sources(coarse_digits=True)  # some of these players write in a font
    assert trained and set(trained) == {None} and len(trained_asked) == len(trained) and None not in trained_asked


def test_a_writer_who_varies_writes_from_their_own_samples_and_only_on_asking():
    from sheetscan.synthetic.digits import HELD_OUT_FROM, another_sample, pick_writer

    rng = np.random.default_rng(3)
    held, trained = pick_writer(rng, held_out=True), pick_writer(rng)
    assert min(another_sample(held, rng)) >= HELD_OUT_FROM and max(another_sample(trained, rng)) < HELD_OUT_FROM
    assert len({another_sample(held, rng) for _ in range(5)}) == 5

    def varies(**options):
        return [s["style"].get("writer_varies", False) for i in range(2)
                for s in synth_photo(i, 6, "scan", 3, megapixels=2, **options).truth["sheets"] if s["style"]["digits"] != "font"]

    assert varies(held_out_styles=True) == [False] * 6 and varies(held_out_styles=True, varied_digits=True) == [True] * 6
