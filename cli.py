"""The sheetscan command line: parses arguments, calls the package, maps errors to exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from sheetscan import bench, report
from sheetscan.errors import ExitCode, SheetscanError
from sheetscan.rescore import RescoreResult, rescore_file
from sheetscan.rules import RuleSet

app = typer.Typer(
    help="Read a photo of a Jardín Japonés sheet, score it by the rules, and audit it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(help="Benchmarks that print the project's measured figures.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")

RULE_HELP = "Switch a rule option on (repeatable): " + ", ".join(RuleSet.option_names()) + "."


def _fail(message: str, code: ExitCode = ExitCode.bad_input) -> None:
    typer.echo(f"sheetscan: {message}", err=True)
    raise typer.Exit(int(code))


def _rules(names: Optional[List[str]]) -> RuleSet:
    try:
        return RuleSet.from_names(names or [])
    except SheetscanError as error:
        _fail(error.message, error.exit_code)


def _rescore_json(result: RescoreResult) -> dict:
    if result.error:
        return {"file": result.path, "error": result.error}
    return {
        "file": result.path,
        "name": result.name,
        **report.score_to_dict(result.score),
        "ponds": [sorted(map(list, pond)) for pond in result.score.ponds],
        "audit": [finding.to_dict() for finding in result.findings],
        "expected_matches": None if result.expected is None else result.expected == result.score.breakdown,
        "error": None,
    }


def _rescore_text(result: RescoreResult) -> str:
    title = f"== {result.path}" + (f" ({result.name})" if result.name else "")
    lines = [title, report.breakdown_text(result.score.breakdown, result.record.written), ""]
    lines += [report.grid_text(result.record.garden, result.score), "", "Audit:"]
    lines.append(report.findings_text(list(result.findings)))
    if result.expected is not None:
        verdict = "matches" if result.expected == result.score.breakdown else "DIFFERS from"
        lines.append(f"  the score {verdict} the file's 'expected' breakdown")
    return "\n".join(lines) + "\n"


@app.command()
def rescore(
    gardens: List[Path] = typer.Argument(..., help="Garden files in the golden-case JSON form."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per file, one per line."),
    rule: Optional[List[str]] = typer.Option(None, "--rule", help=RULE_HELP),
) -> None:
    """Score and audit garden files (the form of the golden cases).

    Example: sheetscan rescore tests/golden/08-rulebook-final-example.json
    """
    rules = _rules(rule)
    failed = False
    for path in gardens:
        result = rescore_file(path, rules)
        if result.error:
            failed = True
            typer.echo(f"sheetscan: {result.error}", err=True)
        if as_json:
            typer.echo(json.dumps(_rescore_json(result), separators=(",", ":")))
        elif not result.error:
            typer.echo(_rescore_text(result))
    if failed:
        raise typer.Exit(int(ExitCode.bad_input))


@bench_app.command("rescore")
def bench_rescore_command(
    n: int = typer.Option(1000, "--n", min=1, help="Number of garden files."),
    seed: int = typer.Option(0, "--seed", help="Seed of the first simulated game."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
) -> None:
    """Time `sheetscan rescore --json` on N garden files in one call, against a reference
    (Python start-up plus reading the same JSON files) timed in the same run.

    Example: sheetscan bench rescore --n 1000
    """
    figures = bench.bench_rescore(n, seed)
    if as_json:
        typer.echo(json.dumps(figures))
        return
    typer.echo(
        f"rescore of {figures['files']} garden files: {figures['rescore_seconds']:.3f} s "
        f"({figures['files_per_second']} files/s); reference (start Python, read the JSON): "
        f"{figures['reference_seconds']:.3f} s; ratio {figures['ratio']:.2f}"
    )


def main() -> None:
    """Entry point: run the app, turning any sheetscan error into its exit code."""
    try:
        app()
    except SheetscanError as error:
        _fail(error.message, error.exit_code)


if __name__ == "__main__":
    main()
