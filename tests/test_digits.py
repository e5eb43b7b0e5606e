"""One writer's digits read together: a digit the networks read as another everywhere is set right
by its unlikeness to the writer's real ones."""

import cv2
import numpy as np
import pytest

import sheetscan.reading.digits as digits
from sheetscan.reading.digits import (INKED, NUMBER_INSET, SAME_DIGIT, digit_groups, digit_vector, inked_threshold,
                                      number_digit_boxes, number_heads_read, read_together, sheet_digit_boxes, stray_groups,
                                      two_digits_seen)


def _written(digit: str, scale: float, shift: tuple[int, int], thickness: int = 2) -> np.ndarray:
    """A (30, 24) ink box (0 to 1) holding ``digit`` at ``scale``, moved by ``shift`` pixels."""
    box = np.zeros((30, 24), np.uint8)
    cv2.putText(box, digit, (4 + shift[0], 24 + shift[1]), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thickness)
    return box.astype(np.float32) / 255


def test_one_digit_written_larger_or_elsewhere_in_its_box_is_alike_and_another_digit_is_not():
    five = digit_vector(_written("5", 0.8, (0, 0)))
    assert float(five @ digit_vector(_written("5", 0.6, (3, -2)))) > SAME_DIGIT
    for other in "1234":
        assert float(five @ digit_vector(_written(other, 0.8, (0, 0)))) < SAME_DIGIT


def test_an_empty_box_has_no_digit():
    assert digit_vector(np.zeros((30, 24), np.float32)) is None


def _outlined(box: np.ndarray, outline_ink: float) -> np.ndarray:
    """``box`` with its printed outline (its one-pixel ring) at ``outline_ink``."""
    ring = np.zeros_like(box)
    ring[[0, -1], :] = ring[:, [0, -1]] = outline_ink
    return np.maximum(box, ring)


def test_a_light_pens_faint_copy_is_one_of_its_digits_and_a_printed_outline_is_none():
    """A pencil's digits reach 0.4 ink and one faint 5 only 0.27 (under INKED): on that sheet the
    faint 5 is still a digit, alike to the pencil's other 5, and an empty box's printed outline
    (0.18 ink) is still no digit."""
    pencil = {digit: _outlined(_written(digit, 0.8, (0, 0)) * 0.4, 0.18) for digit in "123456"}
    faint_five = _outlined(_written("5", 0.7, (2, 1)) * 0.27, 0.18)
    empty = _outlined(np.zeros((30, 24), np.float32), 0.18)
    inked = inked_threshold([*pencil.values(), faint_five, empty])
    assert inked < INKED
    assert digit_vector(faint_five) is None  # at a dark pen's threshold it was an empty box
    assert float(digit_vector(faint_five, inked) @ digit_vector(pencil["5"], inked)) > SAME_DIGIT
    assert digit_vector(empty, inked) is None


def test_a_dark_pens_threshold_is_the_dark_pens():
    boxes = [_outlined(_written(digit, 0.8, (0, 0)) * 0.9, 0.18) for digit in "123456"]
    assert inked_threshold(boxes) == INKED


def _one_writer(fives: int = 5, sixes: int = 5):
    """The networks read a writer's 5s as 6s (0.7 against 0.26) and the writer's 6s as 6s surely;
    the 5s are alike to each other and unlike the 6s."""
    probabilities = np.full((fives + sixes, 6), 0.01)
    probabilities[:fives, 5], probabilities[:fives, 4] = 0.7, 0.26
    probabilities[fives:, 5] = 0.95
    is_five = np.arange(fives + sixes) < fives
    likeness = np.where(is_five[:, None] == is_five[None, :], 0.95, 0.3)
    return probabilities, likeness, is_five


def test_a_digit_read_as_another_everywhere_is_read_right_together():
    probabilities, likeness, is_five = _one_writer()
    together = read_together(probabilities, likeness)
    assert (together.argmax(axis=1) == np.where(is_five, 4, 5)).all()
    assert np.allclose(together.sum(axis=1), 1)


def test_without_the_sheets_likeness_the_networks_reading_stands(monkeypatch):
    probabilities, likeness, _ = _one_writer()
    monkeypatch.setattr(digits, "DIGIT_WEIGHT", 0.0)
    assert (read_together(probabilities, likeness).argmax(axis=1) == probabilities.argmax(axis=1)).all()


@pytest.mark.parametrize("sixes", [2, 6])
def test_digits_read_surely_and_alike_keep_their_reading(sixes):
    probabilities, likeness, _ = _one_writer(fives=0, sixes=sixes)
    assert (read_together(probabilities, likeness).argmax(axis=1) == 5).all()


def test_a_writer_whose_4_is_much_like_their_1_keeps_their_4s(monkeypatch):
    """Their copies of one digit are alike at 0.99, a 4 and a 1 at 0.92; ten 1s read surely,
    three 4s read as 4 at 0.7: a threshold below 0.92 would make the 4s 1s."""
    fours, ones = 3, 10
    probabilities = np.full((fours + ones, 6), 0.005)
    probabilities[:fours, 3], probabilities[:fours, 0] = 0.7, 0.28
    probabilities[fours:, 0] = 0.97
    is_four = np.arange(fours + ones) < fours
    likeness = np.where(is_four[:, None] == is_four[None, :], 0.99, 0.92)
    assert (read_together(probabilities, likeness).argmax(axis=1) == np.where(is_four, 3, 0)).all()
    monkeypatch.setattr(digits, "COPY_MARGIN", 1.0)  # the threshold at its floor, SAME_DIGIT
    assert (read_together(probabilities, likeness).argmax(axis=1) == 0).all()


def test_a_writers_copies_of_each_digit_form_a_group_of_their_own():
    _, likeness, is_five = _one_writer()
    groups = digit_groups(likeness)
    assert len(set(groups[is_five])) == len(set(groups[~is_five])) == 1
    assert groups[is_five][0] != groups[~is_five][0]


def test_a_copy_written_less_alike_than_the_rest_strays_from_their_group():
    # four copies of one digit, four of another, one copy of the first written less alike (its own
    # group, most alike to the first's copies), and a digit alike to none
    digit = np.array([0, 0, 0, 0, 1, 1, 1, 1, 0, 2])
    likeness = np.where(digit[:, None] == digit[None, :], 0.98, 0.6)
    likeness[8, :8] = likeness[:8, 8] = np.where(digit[:8] == 0, SAME_DIGIT + 0.06, 0.7)
    likeness[9, :] = likeness[:, 9] = SAME_DIGIT - 0.1
    np.fill_diagonal(likeness, 1.0)
    groups = digit_groups(likeness)
    assert len(set(groups[:4])) == len(set(groups[4:8])) == 1 and groups[8] not in groups[:8]
    strays = stray_groups(groups, likeness)
    assert strays[8] == groups[0]
    assert (strays[:8] == -1).all() and strays[9] == -1  # in a group of its own kind, or alike to none


def _number(text: str) -> np.ndarray:
    """A (36, 60) ink box's inside holding the written number ``text``."""
    box = np.zeros((36, 60), np.uint8)
    cv2.putText(box, text, (2, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 255, 2)
    return box.astype(np.float32) / 255


def test_a_written_numbers_digits_are_found_left_to_right_and_its_minus_is_none():
    for text, digits in (("-16", "16"), ("7", "7"), ("38", "38"), ("-5", "5")):
        found = number_digit_boxes(_number(text), INKED)
        assert len(found) == len(digits)
        for box, digit in zip(found, digits, strict=True):  # each is the digit, alike to it written alone
            assert float(digit_vector(box) @ digit_vector(_number(digit))) > SAME_DIGIT
    assert number_digit_boxes(np.zeros((36, 60), np.float32), INKED) == []


def test_a_numbers_digits_are_cut_only_where_its_box_shows_as_many_as_are_read():
    texts = ("17", "7", "-16", "38")
    patches = np.array([np.pad(_number(text), NUMBER_INSET) for text in texts])
    skipped = np.zeros((12, 48, 104), np.float32), np.full(12, 2)  # every turn read as skipped
    read = [number_heads_read(has_tens) for has_tens in (True, False, True, False)]  # the last shows two digits
    turn_boxes, number_boxes, _, seen_as_two = sheet_digit_boxes(*skipped, ("draw", "prune", "skip"), 1.0, patches, read)
    assert turn_boxes == {} and list(seen_as_two) == [3]  # the 38 read as one digit
    expected = {(0, "tens"): "1", (0, "units"): "7", (1, "units"): "7", (2, "tens"): "1", (2, "units"): "6"}
    assert sorted(number_boxes) == sorted(expected)
    for slot, box in number_boxes.items():  # each the digit the number has there
        assert float(digit_vector(box) @ digit_vector(_number(expected[slot]))) > SAME_DIGIT


def test_a_number_read_as_one_digit_whose_box_shows_two_gives_the_two():
    """Its tens, taken for none, is read alone with its units (boxes.number_candidates); a
    number read as many digits as its box shows gives none here, nor does one read as two that
    shows one."""
    texts = ("38", "7", "25", "4")
    digits_seen = [number_digit_boxes(_number(text), INKED) for text in texts]
    read = [number_heads_read(has_tens) for has_tens in (False, False, True, True)]
    seen = two_digits_seen(digits_seen, read)
    assert list(seen) == [0]
    for box, digit in zip(seen[0], "38", strict=True):
        assert float(digit_vector(box) @ digit_vector(_number(digit))) > SAME_DIGIT
