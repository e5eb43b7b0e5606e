"""Shared fixtures: golden cases, samples and their truth, garden builders and the CLI runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sheetscan.game.gardenfile import garden_from_dict

GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN_PATHS = sorted(GOLDEN_DIR.glob("*.json"))
SAMPLES = Path(__file__).parents[1] / "samples"


def truth(photo: Path) -> dict:
    """The ground truth beside a bundled sample photo."""
    return json.loads(photo.with_suffix(".json").read_text())


def make_garden(cells, water=None, tree_late=()):
    """A Garden from golden-form rows (water defaults to all earth)."""
    document = {"cells": list(cells), "tree_late": [list(c) for c in tree_late]}
    if water is not None:
        document["water"] = list(water)
    return garden_from_dict(document)


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture
def write_json(tmp_path):
    """Write a JSON document to a file in the test's folder and return its path."""

    def write(name: str, document) -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(document))
        return path

    return write


def misread_cells(read: dict, true: dict) -> list[tuple[int, int]]:
    """Cells whose decoration, terrain or Spring/Summer mark differ between two gardens (golden form)."""
    late_read, late_true = {tuple(c) for c in read["tree_late"]}, {tuple(c) for c in true["tree_late"]}
    return [(r, c) for r in range(6) for c in range(6)
            if read["cells"][r][c] != true["cells"][r][c] or read["water"][r][c] != true["water"][r][c]
            or ((r, c) in late_read) != ((r, c) in late_true)]


def assert_read_or_flagged(sheet: dict, expected: dict, most_misread: int = 1) -> None:
    """A bundled sample is read right but for at most ``most_misread`` cells, and a sheet whose
    score is not the truth's is never called sure: its verdict names every misread cell."""
    misread = misread_cells(sheet["garden"], expected["garden"])
    assert len(misread) <= most_misread, misread
    if sheet["score"] != expected["score"]:
        assert sheet["verdict"] == "check"
        named = {item["what"] for item in sheet["check"]}
        assert all(f"cell ({r + 1},{c + 1})" in named for r, c in misread)
