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
