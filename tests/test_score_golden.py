"""Every hand-checked golden garden scores exactly."""

import json

import pytest

from sheetscan.game.gardenfile import garden_from_dict
from sheetscan.game.score import score

from conftest import GOLDEN_PATHS


def test_golden_cases_are_present():
    assert len(GOLDEN_PATHS) >= 10


@pytest.mark.parametrize("path", GOLDEN_PATHS, ids=lambda p: p.stem)
def test_golden_case_scores_exactly(path):
    document = json.loads(path.read_text())
    result = score(garden_from_dict(document))
    assert result.breakdown == document["expected"]


@pytest.mark.parametrize("path", GOLDEN_PATHS, ids=lambda p: p.stem)
def test_cell_points_and_ponds_add_up_to_total(path):
    result = score(garden_from_dict(json.loads(path.read_text())))
    cell_sum = sum(sum(row) for row in result.cell_points())
    assert cell_sum + result.breakdown["pond"] == result.breakdown["total"]
