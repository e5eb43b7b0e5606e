"""The command line, driven in-process: exit codes, messages, text and JSON output."""

import json
import re

import pytest
import typer.main

from cli import app
from sheetscan.game.rules import CATEGORIES

from conftest import GOLDEN_PATHS

FINAL_EXAMPLE = next(p for p in GOLDEN_PATHS if "rulebook-final" in p.name)


def test_rescore_text_shows_breakdown_grid_and_audit(runner):
    result = runner.invoke(app, ["rescore", str(FINAL_EXAMPLE)])
    assert result.exit_code == 0
    assert "  total      49" in result.output
    assert "~=+5" in result.output  # a valid bridge in water, credited its step
    assert "no findings" in result.output
    assert "matches the file's 'expected'" in result.output


def test_rescore_json_one_line_per_file_in_input_order(runner):
    paths = [str(p) for p in GOLDEN_PATHS]
    result = runner.invoke(app, ["rescore", "--json", *paths])
    assert result.exit_code == 0
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == paths
    for line, path in zip(lines, GOLDEN_PATHS, strict=True):
        assert list(line["score"]) == list(CATEGORIES)
        assert line["score"] == json.loads(path.read_text())["expected"]
        assert len(line["cells"]) == 6 and all(len(row) == 6 for row in line["cells"])
        assert line["audit"] == [] and line["error"] is None


def test_a_bad_file_fails_alone_with_exit_code_2(runner, write_json, tmp_path):
    bad = write_json("bad.json", {"cells": ["......"] * 5})
    missing = tmp_path / "missing.json"
    paths = [str(GOLDEN_PATHS[0]), str(bad), str(missing), str(GOLDEN_PATHS[1])]
    result = runner.invoke(app, ["rescore", "--json", *paths])
    assert result.exit_code == 2
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == paths
    assert lines[0]["error"] is None and lines[3]["error"] is None
    assert "must be a list of 6 strings" in lines[1]["error"]
    assert "no such file" in lines[2]["error"]
    assert f"sheetscan: {bad}: 'cells' must be a list of 6 strings" in result.stderr
    assert "Traceback" not in result.output


def test_rule_option_changes_the_score_and_unknown_rule_is_refused(runner, write_json):
    lone = write_json("lone.json", {"cells": ["L....."] + ["......"] * 5})
    default = runner.invoke(app, ["rescore", "--json", str(lone)])
    paired = runner.invoke(app, ["rescore", "--json", "--rule", "lantern_needs_pair", str(lone)])
    assert json.loads(default.stdout)["score"]["lantern"] == 3
    assert json.loads(paired.stdout)["score"]["lantern"] == 0
    unknown = runner.invoke(app, ["rescore", "--rule", "nope", str(lone)])
    assert unknown.exit_code == 2
    assert "unknown rule option 'nope'" in unknown.stderr


def test_findings_and_written_differences_are_reported(runner, write_json):
    document = {
        "cells": ["......"] * 6,
        "water": ["~.....", ".~...."] + ["......"] * 4,
        "written": {"pond": 6, "total": -20},
    }
    path = write_json("dispute.json", document)
    line = json.loads(runner.invoke(app, ["rescore", "--json", str(path)]).stdout)
    assert {f["kind"] for f in line["audit"]} == {"ponds_touch", "written_differs"}
    differs = [f["boxes"] for f in line["audit"] if f["kind"] == "written_differs"]
    assert differs == [["written total"]]


def command_paths(typer_app, prefix=()):
    """The word paths of every command and group of the app (``()`` is the app itself)."""
    group = typer.main.get_command(typer_app)
    stack = [(prefix, group)]
    while stack:
        path, command = stack.pop()
        yield path
        for name, sub in getattr(command, "commands", {}).items():
            stack.append((path + (name,), sub))


@pytest.mark.parametrize("path", list(command_paths(app)), ids=lambda p: " ".join(p) or "sheetscan")
def test_every_command_has_help_with_an_example_of_itself(runner, path):
    result = runner.invoke(app, [*path, "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())  # lines rewrapped to the terminal
    group = typer.main.get_command(app)
    for name in path:
        group = group.commands[name]
    if hasattr(group, "commands"):  # a group lists its commands
        assert all(f" {name} " in text for name in group.commands)
    else:  # a command shows how to call it
        assert re.search(r"Examples?: sheetscan " + re.escape(" ".join(path)) + r"\b", text)


@pytest.mark.parametrize("path", [(), ("bench",)], ids=["sheetscan", "bench"])
def test_each_command_is_described_in_lines_filled_to_the_terminal(runner, path):
    # a docstring's line breaks are not the terminal's: each description flows as one paragraph
    output = runner.invoke(app, [*path, "--help"], terminal_width=80, env={"COLUMNS": "80"}).output
    lines = output.splitlines()
    panel = lines[next(i for i, line in enumerate(lines) if "─ Commands ─" in line) + 1:]
    rows = [line.removeprefix("│").removesuffix("│").rstrip()
            for line in panel[:next(i for i, line in enumerate(panel) if line.startswith("╰"))]]
    start = len(rows[0]) - len(rows[0].split(maxsplit=1)[1])  # where the descriptions begin
    width = max(len(row) for row in rows) - start
    texts = [(row[:start].strip(), row[start:]) for row in rows]
    for (name, text), (next_name, next_text) in zip(texts, texts[1:]):
        if not next_name:  # the same description goes on: its next word did not fit here
            assert len(text) + 1 + len(next_text.split()[0]) > width - 2, (text, next_text)
