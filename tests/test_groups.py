"""Per-sheet learning: drawings that look alike are grouped, and a group may take another kind."""

from dataclasses import replace

import numpy as np
import pytest
from readings import box_reading, garden_reading

from sheetscan.game.audit import audit
from sheetscan.game.rules import Decoration
from sheetscan.game.score import score
from sheetscan.game.simulate import play_game
from sheetscan.reading.decode import decode_sheet
from sheetscan.reading.groups import SAME_DRAWING, alike_groups, drawing_features
from sheetscan.synthetic.archetypes import ARCHETYPES
from sheetscan.synthetic.pen import hand_strokes, ink_strokes


def drawn(strokes, seed: int, size: int = 48) -> np.ndarray:
    """One hand's copy of ``strokes`` in a patch with the cell's margin, as the reader sees it."""
    patch = np.zeros((size, size), np.float32)
    rng = np.random.default_rng(seed)
    ink_strokes(patch, hand_strokes(strokes, rng, "normal"), (6, 6, size - 12, size - 12), 1.6)
    return patch


def test_copies_of_one_drawing_look_alike_and_other_drawings_do_not():
    stick = ARCHETYPES[Decoration.TREE][3].draw(np.random.default_rng(0))
    ladder = ARCHETYPES[Decoration.BRIDGE][2].draw(np.random.default_rng(0))
    features = drawing_features(np.stack([drawn(stick, s) for s in range(3)] + [drawn(ladder, s) for s in range(3, 5)]))
    similarity = features @ features.T
    assert similarity[:3, 3:].max() < SAME_DRAWING  # two drawings never look alike
    groups = [sorted(group) for group in alike_groups(features)]
    assert [0, 1, 2] in groups  # the copies of one group by their mean likeness (average linkage)
    assert all(set(group) <= {0, 1, 2} or set(group) <= {3, 4} for group in groups)  # and none mixes the two


def test_an_empty_patch_has_no_features_and_stands_alone():
    features = drawing_features(np.zeros((2, 48, 48), np.float32))
    assert not features.any() and alike_groups(features) == [[0], [1]]


def test_a_group_misread_with_confidence_takes_the_kind_the_turn_log_gives():
    record = play_game(11, mistake_rate=0.0).record
    kind, cells = max(((d, [c for c, x in record.garden.decorated_cells() if x is d and c not in record.garden.tree_late])
                       for d in Decoration if d is not Decoration.TREE), key=lambda item: len(item[1]))
    other = next(d for d in (Decoration.MOSS, Decoration.ROCK, Decoration.LANTERN) if d is not kind)
    # an unfamiliar drawing, read as another kind past a single move's reach (MAX_MOVE_COST): at
    # 0.995 each cell, changed alone, now sets a turn left unplaced right, which pays
    doubts = {cell: {other.category: 0.99999, kind.category: 0.00001} for cell in cells}
    reading = garden_reading(record, doubts)
    assert all(reading.garden.decoration(cell) is other for cell in cells) and len(cells) >= 3
    alone = decode_sheet(reading, box_reading(record), groups=True)
    assert alone.record.garden != record.garden  # no group: each cell is too sure to change alone
    grouped = decode_sheet(replace(reading, groups=(tuple(cells),)), box_reading(record), groups=True)
    assert grouped.record.garden == record.garden
    assert list(grouped.findings) == audit(record, score(record.garden))
    assert any("drawn alike, taken as " + kind.category in change for change in grouped.changes)
    assert decode_sheet(replace(reading, groups=(tuple(cells),)), box_reading(record), groups=False).record.garden != record.garden


@pytest.mark.parametrize("styles", ["--held-out-styles", "--fresh-styles", "--unseen-styles"])
def test_bench_drawings_says_how_often_a_drawings_most_alike_neighbour_is_its_kind(runner, styles):
    import json

    from cli import app

    result = runner.invoke(app, ["bench", "drawings", "--n", "2", "--seed", "5", "--level", "scan", styles,
                                 "--jobs", "1", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    member = styles.removeprefix("--").replace("-", "_")
    assert figures["sheets"] == 2 and figures[member] and figures["drawings"] >= 2 * 10
    assert figures["held_out_styles"] + figures["fresh_styles"] + figures["unseen_styles"] == 1  # one set of hands, as asked
    # on two clean scans a hand's drawings are mostly nearest their own kind, by either measure
    assert 0.6 <= figures["hog"] <= 1 and 0.6 <= figures["network"] <= 1 and 0.6 <= figures["both"] <= 1


def test_bench_drawings_reads_a_table_photos_sheets_each_apart(runner):
    import json

    from cli import app

    result = runner.invoke(app, ["bench", "drawings", "--n", "1", "--seed", "5", "--level", "scan",
                                 "--sheets-per-photo", "3", "--held-out-styles", "--jobs", "1", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["sheets_per_photo"] == 3 and figures["sheets"] == 3 and figures["drawings"] >= 3 * 10
    assert 0.5 <= figures["both"] <= 1
