"""Garden files: the golden form round-trips; malformed files name the file and the problem."""

import json
import os
import subprocess
import sys

import pytest

from sheetscan.errors import InputFileError
from sheetscan.game.gardenfile import load_record, record_from_dict, record_to_dict
from sheetscan.game.simulate import play_game

from conftest import GOLDEN_PATHS

GOOD = {"cells": ["......"] * 6, "water": ["......"] * 6, "tree_late": []}


def test_a_record_round_trips_through_the_file_form():
    record = play_game(3).record
    assert record_from_dict(json.loads(json.dumps(record_to_dict(record)))) == record


_PICKLE_A_RECORD = """
import pickle, sys
from sheetscan.game.simulate import play_game
record = play_game(3).record
hash(record.garden), [hash(turn) for turn in record.turns]  # cached on the objects
sys.stdout.buffer.write(pickle.dumps(record))
"""
_LOOK_IT_UP = """
import pickle, sys
from sheetscan.game.simulate import play_game
sent, fresh = pickle.loads(sys.stdin.buffer.read()), play_game(3).record
print(sent.garden in {fresh.garden: 1}, all(turn in set(fresh.turns) for turn in sent.turns))
"""


def test_a_garden_sent_to_another_process_hashes_as_that_process_does():
    """Gardens and turns keep their hash once worked out; a batch's workers get them pickled,
    and a str's hash differs from process to process, so the cached hash must not travel."""
    def run(code, seed, given=None):
        return subprocess.run([sys.executable, "-c", code], input=given, capture_output=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout
    assert run(_LOOK_IT_UP, "2", run(_PICKLE_A_RECORD, "1")).split() == [b"True", b"True"]


def test_golden_files_load():
    for path in GOLDEN_PATHS:
        record, document = load_record(path)
        assert document["name"]
        assert record.turns is None


@pytest.mark.parametrize(
    "document, problem",
    [
        ({**GOOD, "cells": ["......"] * 5}, "'cells' must be a list of 6 strings"),
        ({**GOOD, "cells": ["....."] + ["......"] * 5}, "row 1 must be a string of 6"),
        ({**GOOD, "cells": ["..X..."] + ["......"] * 5}, "unknown letter 'X'"),
        ({**GOOD, "water": ["..#..."] + ["......"] * 5}, "unknown letter '#'"),
        ({**GOOD, "tree_late": [[0, 0]]}, "holds no tree"),
        ({**GOOD, "tree_late": [[0, 9]]}, "0-based integers"),
        ({**GOOD, "turns": [{"kind": "skip"}] * 11}, "list of 12 turn boxes"),
        ({**GOOD, "turns": [{"kind": "draw", "dice": [1, 7], "location": 2}] + [{"kind": "skip"}] * 11}, "1 to 6"),
        ({**GOOD, "turns": [{"kind": "fly"}] * 12}, "draw, prune or skip"),
        ({**GOOD, "bonsai_pruned": 4}, "from 0 to 3"),
        ({**GOOD, "ponds_marked": [True]}, "4 booleans"),
        ({**GOOD, "written": {"score": 3}}, "unknown key 'score'"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_malformed_documents_say_what_is_wrong(write_json, document, problem):
    path = write_json("bad.json", document)
    with pytest.raises(InputFileError) as error:
        load_record(path)
    assert str(path) in error.value.message and problem in error.value.message


def test_missing_and_non_json_files(tmp_path):
    with pytest.raises(InputFileError, match="no such file"):
        load_record(tmp_path / "absent.json")
    not_json = tmp_path / "photo.json"
    not_json.write_bytes(b"\xff\xd8\xff\xe0 JFIF")
    with pytest.raises(InputFileError, match="photo.json"):
        load_record(not_json)
