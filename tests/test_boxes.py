"""The box readers' plumbing: heads, labels, candidates, patches and the scrambled training sheets."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from networks import random_net

from sheetscan.reading.boxes import (
    CANDIDATES,
    NUMBER_CANDIDATES,
    NUMBER_CLASSES,
    TURN_CLASSES,
    TURN_PATCH,
    SLIP_ALLOWANCE,
    PatchSpec,
    number_candidates,
    region_patches,
    shifted,
    steadied_heads,
    turn_patches,
    turn_candidates,
)
from sheetscan.lab.dataset import number_labels, turn_labels
from sheetscan.reading.lone_digits import (DIGIT_PATCH, NO_TENS_WHERE_TWO_SEEN, joined_number_heads, number_digit_patch,
                                           one_or_two_digits)
from sheetscan.reading.networks import head_classes, head_slices
from sheetscan.game.garden import Turn, TurnKind
from sheetscan.game.gardenfile import turn_to_dict
from sheetscan.design.layout import load_layout
from sheetscan.reading.rectify import CANONICAL_PX_PER_MM
from sheetscan.game.simulate import play_game
from sheetscan.synthetic.synth import scrambled_record


def one_hot(classes, labels) -> dict[str, np.ndarray]:
    heads = head_classes(classes)
    out = {}
    for (head, names), label in zip(heads.items(), labels, strict=True):
        p = np.full(len(names), 1e-4)
        if label >= 0:
            p[label] = 1.0
        out[head] = p / p.sum()
    return out


@pytest.mark.parametrize("value", [-14, -3, 0, 7, 10, 52, 99])
def test_a_written_number_survives_labels_and_candidates(value):
    [best, *_] = number_candidates(one_hot(NUMBER_CLASSES, number_labels(value)))
    assert best.value == value and best.probability > 0.99


def test_an_unsure_number_keeps_a_value_far_down_its_candidates():
    """A struck-out number leaves every digit in doubt: its right value may rank 40th."""
    heads = {head: np.linspace(2.0, 1.0, len(names)) for head, names in head_classes(NUMBER_CLASSES).items()}
    heads = {head: p / p.sum() for head, p in heads.items()}  # each head's first class likeliest, gently
    candidates = number_candidates(heads)
    assert len(candidates) == NUMBER_CANDIDATES
    assert [c.probability for c in candidates] == sorted((c.probability for c in candidates), reverse=True)
    values = [c.value for c in candidates]
    assert values[0] == 0 and 12 <= values.index(17) < NUMBER_CANDIDATES  # 41st: beyond the first 12


def test_a_numbers_probability_is_that_of_its_ways_to_be_written():
    rng = np.random.default_rng(3)
    heads = {head: rng.dirichlet(np.ones(len(names))).astype(np.float32)
             for head, names in head_classes(NUMBER_CLASSES).items()}  # sign +, -; tens none, 1-9
    (plus, minus), tens, units = heads["sign"], heads["tens"], heads["units"]
    candidates = number_candidates(heads)
    probability = {c.value: c.probability for c in candidates}
    assert probability[0] == pytest.approx(plus * tens[0] * units[0] + minus * tens[0] * units[0])  # "-0" is 0
    for value in [v for v in probability if v]:
        sign, digits = (minus if value < 0 else plus), divmod(abs(value), 10)
        assert probability[value] == pytest.approx(sign * tens[digits[0]] * units[digits[1]])
    assert len(probability) == len(candidates) == NUMBER_CANDIDATES
    assert [c.probability for c in candidates] == sorted(probability.values(), reverse=True)
    assert min(probability.values()) >= max(plus * tens[t] * units[u] for t in range(10) for u in range(10)
                                            if (t * 10 + u) not in probability and (t or u))


def test_three_digit_numbers_are_refused_for_training():
    with pytest.raises(ValueError, match="two digits"):
        number_labels(123)


@pytest.mark.parametrize("turn", [Turn(TurnKind.DRAW, (2, 5), location=6), Turn(TurnKind.PRUNE, (4,), cell=(0, 5)),
                                  Turn(TurnKind.SKIP)])
def test_a_turn_box_survives_labels_and_candidates(turn):
    candidates = turn_candidates(one_hot(TURN_CLASSES, turn_labels(turn_to_dict(turn))))
    assert candidates[0].value == turn
    assert [c.probability for c in candidates] == sorted((c.probability for c in candidates), reverse=True)


def test_a_digit_its_head_ranks_third_is_still_read_in_a_likely_turn():
    # an unseen writer's 2 read as 3 or 5 first: its true reading, likelier than most, is a candidate
    truth = Turn(TurnKind.DRAW, (2, 5), location=6)
    heads = one_hot(TURN_CLASSES, turn_labels(turn_to_dict(truth)))
    heads["first"] = np.array([0.02, 0.26, 0.38, 0.02, 0.30, 0.02])  # dice 1-6: the 2 third
    candidates = turn_candidates(heads)
    assert candidates[0].value == replace(truth, dice=(3, 5))
    taken = next(c for c in candidates if c.value == truth)
    assert taken.probability == pytest.approx(heads["kind"].max() * 0.26 * heads["second"].max() * heads["place"].max())
    assert len(candidates) == CANDIDATES


def _alone(turn: Turn, **read: list[float]) -> dict[str, np.ndarray]:
    """The digit network's view of each digit box of ``turn``: its own digit surely, or as ``read``."""
    digits = {"first": turn.dice[0], "second": turn.dice[1] if len(turn.dice) > 1 else 1,
              "place": turn.location or 1}
    alone = {head: np.where(np.arange(1, 7) == digit, 0.99, 0.002) for head, digit in digits.items()}
    return {**alone, **{head: np.array(p) for head, p in read.items()}}


def test_a_digit_read_alone_sets_right_the_turn_box_that_read_it_among_others():
    truth = Turn(TurnKind.DRAW, (2, 5), location=6)
    heads = one_hot(TURN_CLASSES, turn_labels(turn_to_dict(truth)))
    heads["first"] = np.array([0.01, 0.30, 0.64, 0.01, 0.03, 0.01])  # a 2 the turn network takes for a 3
    assert turn_candidates(heads)[0].value == replace(truth, dice=(3, 5))
    assert turn_candidates(heads, _alone(truth))[0].value == truth
    # the two readers' geometric mean: agreeing, the reading is as sure as each, not surer
    sure = one_hot(TURN_CLASSES, turn_labels(turn_to_dict(truth)))
    sure["first"] = np.array([0.02, 0.9, 0.02, 0.02, 0.02, 0.02])
    alone = {head: sure[head] for head in ("first", "second", "place")}
    assert turn_candidates(sure, alone)[0].probability == pytest.approx(turn_candidates(sure)[0].probability)
    assert turn_candidates(sure, alone)[0].probability < 0.91


def test_a_prunings_cell_is_read_by_the_turn_network_alone():
    # a pruning writes its cell as two digits in one box: no one-digit view of it is taken
    truth = Turn(TurnKind.PRUNE, (4,), cell=(0, 5))
    heads = one_hot(TURN_CLASSES, turn_labels(turn_to_dict(truth)))
    alone = _alone(truth, place=[0.002, 0.002, 0.99, 0.002, 0.002, 0.002])  # the location box read as a 3
    assert turn_candidates(heads, alone)[0].value == truth


def _sure_digit(digit: int) -> np.ndarray:
    """A written number's digit read alone: ``digit`` of 0 to 9, surely."""
    return np.where(np.arange(10) == digit, 0.99, 0.01 / 9)


def test_a_numbers_digits_read_alone_set_right_the_number_its_network_misread():
    heads = one_hot(NUMBER_CLASSES, number_labels(17))
    heads["units"] = np.array([0.01, 0.6, 0.01, 0.01, 0.01, 0.01, 0.01, 0.32, 0.01, 0.01])  # a 7 taken for a 1
    assert number_candidates(heads)[0].value == 11
    assert number_candidates(heads, {"tens": _sure_digit(1), "units": _sure_digit(7)})[0].value == 17
    assert number_candidates(heads, {"units": _sure_digit(7)})[0].value == 17  # a digit alone is enough
    # a tens read alone weighs the digits 1 to 9; whether there is a tens at all stays the network's
    unsure = one_hot(NUMBER_CLASSES, number_labels(7))
    unsure["tens"] = np.r_[0.7, np.full(9, 0.3 / 9)]
    tens = joined_number_heads(unsure, {"tens": _sure_digit(4)})["tens"]
    assert tens[0] == pytest.approx(0.7) and tens.sum() == pytest.approx(1) and tens.argmax() == 0
    assert tens[4] > 0.2 > 0.01 > tens[np.r_[1:4, 5:10]].max()  # of the tens there may be, most of it on the 4
    assert [c.value for c in number_candidates(unsure, {"tens": _sure_digit(4)})[:2]] == [7, 47]


def test_a_tens_the_network_took_for_none_seen_in_the_box_is_a_candidate_the_decoder_can_take():
    """A writer's 2 the number network never saw, in a total of 25: it reads 5, surely no tens;
    the box shows two digits, and read alone they are a 2 and a 5."""
    heads = one_hot(NUMBER_CLASSES, number_labels(5))
    heads["tens"] = np.r_[0.999, np.full(9, 0.001 / 9)]
    seen = {"tens": _sure_digit(2), "units": _sure_digit(5)}
    assert [c.value for c in number_candidates(heads)[:1]] == [5]
    probability = {c.value: c.probability for c in number_candidates(heads, two_seen=seen)}
    assert max(probability, key=probability.get) == 5  # the network's reading still leads
    # the ink's chance of no tens (NO_TENS_WHERE_TWO_SEEN) joined with the network's: about one in ten
    # for the two digits seen, where the network alone gave 25 about one in 10,000
    assert probability[25] > 0.05 and probability[25] > 10 * max(p for v, p in probability.items() if v not in (5, 25))
    one, _, _ = one_or_two_digits(heads, seen)
    assert one == pytest.approx(1 / (1 + np.sqrt(0.001 * (1 - NO_TENS_WHERE_TWO_SEEN) / (0.999 * NO_TENS_WHERE_TWO_SEEN))))
    # where the network reads a tens at all, the ink's two digits make it likelier still
    unsure = one_hot(NUMBER_CLASSES, number_labels(5))
    unsure["tens"] = np.r_[0.6, np.full(9, 0.4 / 9)]
    assert number_candidates(unsure, two_seen=seen)[0].value == 25


def test_one_digit_written_in_two_strokes_keeps_the_networks_reading_of_it():
    """A 4 whose strokes do not touch shows two digits in its box; read alone they are a 1 and a
    7. As one digit the number stays the network's 4: the strokes read alone weigh only the
    reading as two digits."""
    heads = one_hot(NUMBER_CLASSES, number_labels(4))
    heads["tens"] = np.r_[0.9999, np.full(9, 0.0001 / 9)]
    candidates = number_candidates(heads, two_seen={"tens": _sure_digit(1), "units": _sure_digit(7)})
    assert candidates[0].value == 4 and candidates[0].probability > 0.9
    assert {c.value for c in candidates[:3]} >= {14, 17}  # the two digits' reading, far behind


def test_a_numbers_digit_is_patched_centred_and_to_the_boxs_scale():
    one = np.zeros((36, 6), np.float32)
    one[2:34, 2:4] = 1.0
    patch = number_digit_patch(one)
    assert patch.shape == DIGIT_PATCH
    columns = np.flatnonzero(patch.max(axis=0) > 0.2)
    assert columns.min() >= 13 and columns.max() <= 18  # narrow and in the middle, not stretched to the width
    assert np.flatnonzero(patch.max(axis=1) > 0.2).size >= 26  # as tall as the box
    wide = np.ones((20, 40), np.float32)  # wider than the box is tall: fitted whole
    assert number_digit_patch(wide)[:, 0].max() > 0.9 and number_digit_patch(wide)[0].max() == 0


def test_multi_head_network_gives_a_distribution_per_head():
    rng = np.random.default_rng(0)
    shape = (16, 24)
    net = random_net(rng, shape, NUMBER_CLASSES)
    heads = net.head_probabilities(rng.random((5, *shape), dtype=np.float32))
    assert list(heads) == ["sign", "tens", "units"]
    for head, p in heads.items():
        assert p.shape == (5, len(head_classes(NUMBER_CLASSES)[head]))
        assert np.allclose(p.sum(axis=1), 1)
    assert head_slices(("a", "b")) == {"": slice(0, 2)}


def test_a_patch_moves_a_pixel_each_way_blank_where_nothing_moved_in():
    patches = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4) + 1
    assert shifted(patches, 1, 0)[1].tolist() == [[0] * 4, [13, 14, 15, 16], [17, 18, 19, 20]]
    assert shifted(patches, 0, -1)[0].tolist() == [[2, 3, 4, 0], [6, 7, 8, 0], [10, 11, 12, 0]]
    assert np.array_equal(shifted(shifted(patches, -1, 1), 1, -1)[:, 1:, :-1], patches[:, 1:, :-1])


class _LeftOrRight:
    """A network of one head that reads how much of a patch's ink lies in its left half."""

    classes = ("side:left", "side:right")

    def __init__(self):
        self.calls = 0

    def probabilities(self, patches):
        self.calls += 1
        left = patches[:, :, : patches.shape[2] // 2].sum(axis=(1, 2)) / patches.sum(axis=(1, 2))
        return np.stack([left, 1 - left], axis=1)


def test_only_an_unsure_reading_is_read_again_moved_a_pixel_each_way():
    patches = np.zeros((2, 4, 6), np.float32)
    patches[0, 1:3, 0:2] = 1  # all its ink on the left: sure
    patches[1, 1:3, [0, 4, 5]] = 1  # a third on the left: unsure, and moved, some ink falls off
    network = _LeftOrRight()
    heads = steadied_heads(network, patches, unsure_below=0.9)
    assert network.calls == 2 and heads["side"][0].tolist() == [1, 0]
    moved = [patches[1:]] + [shifted(patches[1:], *move) for move in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    expected = np.mean([network.probabilities(patch)[0] for patch in moved], axis=0)
    assert heads["side"][1] == pytest.approx(expected) and expected[0] != pytest.approx(1 / 3)
    sure = _LeftOrRight()
    assert steadied_heads(sure, patches[:1], unsure_below=0.9)["side"].tolist() == [[1, 0]] and sure.calls == 1


def test_region_patches_see_ink_where_the_region_is():
    layout = load_layout()
    page_w, page_h = (round(v * CANONICAL_PX_PER_MM) for v in layout.page_mm)
    canonical = np.full((page_h, page_w), 230, np.uint8)
    region = layout.region("score_moss")
    s = CANONICAL_PX_PER_MM
    canonical[int(region.y * s) + 10 : int((region.y + region.h) * s) - 10, int(region.x * s) + 10 : int(region.x * s) + 20] = 30
    ink, blank = region_patches(canonical, [region, layout.region("score_rock")], PatchSpec(0.5, (48, 56)))
    assert ink.shape == (48, 56) and ink.max() > 0.8 and blank.max() < 0.05


def _inked_sub_boxes(layout) -> np.ndarray:
    """A canonical sheet with a digit-like blot in the middle of each turn box's digit and
    location boxes, sized to the box's height as a written digit is."""
    s = CANONICAL_PX_PER_MM
    page_w, page_h = (round(v * s) for v in layout.page_mm)
    canonical = np.full((page_h, page_w), 230, np.uint8)
    for index in range(12):
        for part in ("first", "second", "location"):
            r = layout.turn_part(index, part)
            x, y, w, h = r.x + r.w / 2, r.y + r.h / 2, 0.45 * r.h, 0.7 * r.h
            canonical[round((y - h / 2) * s) : round((y + h / 2) * s), round((x - w / 2) * s) : round((x + w / 2) * s)] = 30
    return canonical


def test_another_designs_turn_boxes_are_read_where_the_trained_design_has_its_sub_boxes():
    # The pad's turn box is 34 x 10 mm with 7 x 7.6 mm digit boxes; the networks learnt the
    # print-and-play sheet's 33 x 14 mm with 8 x 10 mm. A digit in the pad's boxes must land where
    # the trained sheet's are, with the shape it has there: a plain resize of the box does
    # neither (overlap 0.55), aligning the sub-boxes' edges only the first (0.82; mapped: 0.93).
    trained, pad = load_layout(), load_layout("pad")
    expected = turn_patches(_inked_sub_boxes(trained), trained) > 0.5
    warped = turn_patches(_inked_sub_boxes(pad), pad) > 0.5
    resized = region_patches(_inked_sub_boxes(pad), [pad.region(f"turn_{i}") for i in range(12)], TURN_PATCH) > 0.5

    def overlap(a, b):
        return (a & b).sum() / (a | b).sum()

    assert overlap(warped, expected) > 0.9 > 0.75 > overlap(resized, expected)  # edges alone: 0.82, fails
    same = turn_patches(_inked_sub_boxes(trained), trained)
    assert np.array_equal(same, region_patches(_inked_sub_boxes(trained), [trained.region(f"turn_{i}") for i in range(12)],
                                               TURN_PATCH))  # the trained design itself: cut as it always was


@pytest.mark.parametrize("seed", range(3))
def test_scrambled_records_keep_the_garden_and_fill_every_box(seed):
    record = play_game(seed).record
    scrambled = scrambled_record(record, np.random.default_rng(seed))
    assert scrambled.garden == record.garden
    assert len(scrambled.turns) == len(record.turns) and set(scrambled.written) == set(record.written)
    assert all(1 <= d <= 6 for turn in scrambled.turns for d in turn.dice)
    assert all(-99 <= v <= 99 for v in scrambled.written.values())
    assert scrambled != record


def test_box_models_average_each_head_over_their_files():
    from sheetscan.reading.boxes import DEFAULT_BOX_MODEL_PATHS, PATCHES, load_box_models

    rng = np.random.default_rng(3)
    patches = rng.random((4, *PATCHES["number"].shape), dtype=np.float32)
    def heads(paths):  # as read_boxes reads them, no patch read again
        return steadied_heads(load_box_models(paths).number, patches, unsure_below=0.0)

    alone = [heads((path,)) for path in DEFAULT_BOX_MODEL_PATHS]
    pair = heads(DEFAULT_BOX_MODEL_PATHS)
    assert set(pair) == {"sign", "tens", "units"}
    assert not np.allclose(alone[0]["tens"], alone[1]["tens"])  # two different models
    for head, probabilities in pair.items():
        assert np.allclose(probabilities, (alone[0][head] + alone[1][head]) / 2, atol=1e-6)
        assert np.allclose(probabilities.sum(axis=1), 1, atol=1e-5)  # still a distribution per head


def test_a_missing_box_model_names_its_file_and_the_command_that_rebuilds_it(tmp_path):
    from sheetscan.reading.boxes import DEFAULT_BOX_MODEL_PATHS, load_box_models
    from sheetscan.errors import ModelError

    missing = tmp_path / "boxes_tables"
    with pytest.raises(ModelError, match=f"{missing}.*sheetscan train --networks boxes-tables"):
        load_box_models((DEFAULT_BOX_MODEL_PATHS[0], missing))


def test_a_missing_digit_model_names_its_file_and_the_command_that_rebuilds_it(tmp_path, monkeypatch):
    from sheetscan.reading import boxes
    from sheetscan.errors import ModelError

    monkeypatch.setattr(boxes, "DIGIT_MODEL_PATH", tmp_path / "digits")
    with pytest.raises(ModelError, match=f"{tmp_path / 'digits'}.*sheetscan train --networks digits"):
        boxes._loaded_box_models.__wrapped__(boxes.DEFAULT_BOX_MODEL_PATHS[:1])  # not the loaded models of other tests


def test_model_paths_come_from_the_variable_joined_by_the_path_separator(monkeypatch, tmp_path):
    import os

    from sheetscan.reading.networks import model_paths

    defaults = (tmp_path / "a",)
    monkeypatch.delenv("SHEETSCAN_TEST_MODEL", raising=False)
    assert model_paths("SHEETSCAN_TEST_MODEL", defaults) == defaults
    monkeypatch.setenv("SHEETSCAN_TEST_MODEL", os.pathsep.join(["x", "y"]))
    assert model_paths("SHEETSCAN_TEST_MODEL", defaults) == (Path("x"), Path("y"))


def test_only_a_small_sheet_gets_the_second_box_and_cell_models():
    from sheetscan.reading.boxes import DEFAULT_BOX_MODEL_PATHS, box_models_for
    from sheetscan.reading.networks import SMALL_SHEET_PX_PER_MM
    from sheetscan.reading.read import DEFAULT_MODEL_PATHS, cell_models_for

    small = box_models_for(SMALL_SHEET_PX_PER_MM - 0.1, DEFAULT_BOX_MODEL_PATHS)
    large = box_models_for(SMALL_SHEET_PX_PER_MM, DEFAULT_BOX_MODEL_PATHS)
    assert [len(e.nets) for e in (small.turn, small.mark, small.number)] == [2, 2, 2]
    assert [len(e.nets) for e in (large.turn, large.mark, large.number)] == [1, 1, 1]
    small_cells = cell_models_for(SMALL_SHEET_PX_PER_MM - 0.1, DEFAULT_MODEL_PATHS)
    large_cells = cell_models_for(SMALL_SHEET_PX_PER_MM, DEFAULT_MODEL_PATHS)
    assert [len(e.nets) for e in (small_cells.decoration, small_cells.water)] == [2, 2]
    assert [len(e.nets) for e in (large_cells.decoration, large_cells.water)] == [1, 1]
    # the same networks, loaded once
    assert large.turn.nets[0] is small.turn.nets[0] and large_cells.water.nets[0] is small_cells.water.nets[0]


def test_a_number_no_garden_can_give_is_read_as_one_it_can():
    """A struck-out 5 beside the 6 for the lanterns, read as 56: lanterns give at most 18."""
    heads = one_hot(NUMBER_CLASSES, number_labels(56))
    heads["tens"] = np.r_[0.05, np.full(9, 0.005)]  # the struck digit taken for a tens, surely
    heads["tens"][5] = 0.905
    assert number_candidates(heads)[0].value == 56
    [best, *_] = number_candidates(heads, bounds=(0, 18))
    assert best.value == 6 and best.probability > 0.9
    # within a player's miscount of the bounds a number stands (the player's own mistake)
    near = one_hot(NUMBER_CLASSES, number_labels(18 + SLIP_ALLOWANCE))
    assert number_candidates(near, bounds=(0, 18))[0].value == 18 + SLIP_ALLOWANCE
    assert number_candidates(near, bounds=(0, 17))[0].value != 18 + SLIP_ALLOWANCE
    # and where nothing read lies within them, the reading is left as it is
    nothing_near = {"sign": np.array([1.0, 0.0]), "tens": np.r_[0.0, np.full(9, 1 / 9)], "units": np.full(10, 0.1)}
    assert number_candidates(nothing_near, bounds=(0, 5)) == number_candidates(nothing_near)
