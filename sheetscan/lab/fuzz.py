"""Fuzzing the parsers that take outside input: the photo opener, the garden-file parser and the
layout parser, with hypothesis (a test dependency), for a set time each. A crash is any
exception other than the input error each documents; each one found is recorded (and belongs
in the hostile corpus, lab/hostile.py, once understood)."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Callable

from sheetscan.design.layout import LayoutError, expand_layout, load_layout
from sheetscan.errors import SheetscanError

CRASHES_KEPT = 20  # per target, in the report


def _strategies():
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True) | st.text(max_size=12)
    json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=8),
                                                                                                    inner, max_size=6),
                               max_leaves=30)
    rows = st.lists(st.text(alphabet=".LBTRM=~X", min_size=0, max_size=8), min_size=0, max_size=8)
    garden = st.fixed_dictionaries({}, optional={
        "cells": rows | json_values, "water": rows | json_values, "tree_late": st.lists(st.lists(st.integers(-2, 8),
                                                                                                   max_size=3)),
        "turns": json_values, "bonsai_pruned": json_values, "ponds_marked": json_values, "written": json_values,
        "expected": json_values, "name": json_values})
    layout_document = load_layout("pad").document

    def reshaped(changes: list[tuple[str, object]]) -> dict:
        document = json.loads(json.dumps(layout_document))
        for key, value in changes:
            document[key] = value
        return document

    layouts = st.lists(st.tuples(st.sampled_from(sorted(layout_document)), json_values), max_size=4).map(reshaped)
    return garden | json_values, layouts | json_values


def _photo_strategy():
    from hypothesis import strategies as st

    from sheetscan.synthetic.synth import synth_photo

    good = synth_photo(0, 0, "scan", megapixels=1).jpeg

    def flipped(edits: list[tuple[int, int]]) -> bytes:
        data = bytearray(good)
        for position, value in edits:
            data[position % len(data)] = value
        return bytes(data)

    return (st.binary(max_size=2048)
            | st.lists(st.tuples(st.integers(0, 10**7), st.integers(0, 255)), min_size=1, max_size=12).map(flipped)
            | st.integers(0, len(good)).map(lambda cut: good[:cut]))


def _fuzz(check: Callable[[object], None], strategy, seconds: float, seed: int) -> dict:
    """Run ``check`` on examples of ``strategy`` for ``seconds``; count the examples and keep
    the crashes (any exception ``check`` lets out)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed

    tried, crashes = 0, []

    def body(example) -> None:
        nonlocal tried
        tried += 1
        try:
            check(example)
        except Exception as error:  # what fuzzing is for
            if len(crashes) < CRASHES_KEPT:
                crashes.append(f"{type(error).__name__}: {error} <- {repr(example)[:120]}")

    deadline, round_number = time.monotonic() + seconds, 0
    while time.monotonic() < deadline:
        run = settings(max_examples=200, deadline=None, database=None, derandomize=False,
                       suppress_health_check=list(HealthCheck))(given(strategy)(body))
        hypothesis_seed(seed * 1000 + round_number)(run)()
        round_number += 1
    return {"inputs_tried": tried, "crashes": crashes}


def fuzz_parsers(seconds: float, seed: int = 0) -> dict:
    """Fuzz each parser for ``seconds``: inputs tried and crashes found, per parser."""
    from sheetscan.game.gardenfile import load_record
    from sheetscan.reading.photo import load_photo

    gardens, layouts = _strategies()
    with tempfile.TemporaryDirectory(prefix="sheetscan-fuzz-") as folder:
        photo, garden_file = Path(folder) / "photo.jpg", Path(folder) / "garden.json"

        def open_photo(data: bytes) -> None:
            photo.write_bytes(data)
            try:
                load_photo(photo)
            except SheetscanError:
                pass

        def parse_garden(document) -> None:
            garden_file.write_text(json.dumps(document))
            try:
                load_record(garden_file)
            except SheetscanError:
                pass

        def parse_layout(document) -> None:
            try:
                expand_layout(document)
            except LayoutError:
                pass

        return {"seconds_each": seconds, "seed": seed,
                "photo_opener": _fuzz(open_photo, _photo_strategy(), seconds, seed),
                "garden_parser": _fuzz(parse_garden, gardens, seconds, seed),
                "layout_parser": _fuzz(parse_layout, layouts, seconds, seed)}
