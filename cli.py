"""The sheetscan command line: parses arguments, calls the package, maps errors to exit codes."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from sheetscan.present import report
from sheetscan.errors import ExitCode, Interrupted, SheetscanError
from sheetscan.files import write_atomically
from sheetscan.game.rescore import RescoreResult, rescore_file
from sheetscan.game.rules import RuleSet
from sheetscan.lab.commands import (FreshStyles, HeldOutStyles, JobsOption, LevelOption, MarkersOption, SheetsPerPhoto,
                                    UnseenStyles, bench_app)
from sheetscan.lab.stress_commands import register as register_stress_benches
from sheetscan.names import DEFAULT_LAYOUT, HELP_MARKUP, LAYOUT_NAMES, TRAINING_PLANS
from sheetscan.present.layout_command import layout_app
from sheetscan.serve.command import serve_command

# The vision stack (OpenCV and the rest) is imported inside the commands that use it, so that
# 'rescore' of a thousand garden files starts fast.

app = typer.Typer(help="Read a photo of a Jardín Japonés sheet, score it by the rules, and audit it.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=HELP_MARKUP)
register_stress_benches(bench_app)
app.add_typer(bench_app, name="bench")
app.add_typer(layout_app, name="layout")
app.command("serve")(serve_command)
SHOW_TRACEBACKS = False  # --verbose


@app.callback()
def _options(verbose: bool = typer.Option(False, "--verbose", help="On an unexpected error (a bug), show its "
                                          "traceback instead of one line.")) -> None:
    global SHOW_TRACEBACKS
    SHOW_TRACEBACKS = verbose

RULE_HELP = "Switch a rule option on (repeatable): " + ", ".join(RuleSet.option_names()) + "."
RuleOption = Annotated[Optional[List[str]], typer.Option("--rule", help=RULE_HELP)]
PhotosArgument = Annotated[List[Path], typer.Argument(help="Photos of sheets (JPEG, PNG, HEIC) or folders of them.")]
PhotoLinesOption = Annotated[bool, typer.Option("--json", help="One JSON object per photo, one per line.")]
LayoutOption = Annotated[str, typer.Option("--layout", help=f"The sheets' design: {' or '.join(LAYOUT_NAMES)}, or a "
                                           "layout file (JSON, in the form of sheetscan/design/data/pad.json).")]
LayoutName = Enum("LayoutName", {name.replace("-", "_"): name for name in LAYOUT_NAMES}, type=str)
LayoutNameOption = Annotated[LayoutName, typer.Option("--layout", help="The sheet design: the print-and-play sheet "
                                                      "(A4, corner markers), the publisher's pad (A5, no markers) or a "
                                                      "player's home-made sheet (A4 landscape, no markers).")]


def _fail(message: str, code: ExitCode = ExitCode.bad_input) -> None:
    typer.echo(f"sheetscan: {message}", err=True)
    raise typer.Exit(int(code))


def _rules(names: Optional[List[str]]) -> RuleSet:
    try:
        return RuleSet.from_names(names or [])
    except SheetscanError as error:
        _fail(error.message, error.exit_code)


def _layout(name_or_path: str):
    from sheetscan.design.layout import LayoutError, layout_from

    try:
        return layout_from(name_or_path)
    except LayoutError as error:
        _fail(str(error))


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
    rule: RuleOption = None,
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


def _read_batch(photos: List[Path], rules: RuleSet, jobs: Optional[int], debug: Optional[Path] = None,
                keep_images: bool = False, layout: str = DEFAULT_LAYOUT):
    """Each photo's result in the given order, with a progress bar on a terminal's stderr for a
    batch; the sheets' rectified images only if ``keep_images`` (for overlays)."""
    from sheetscan.reading.batch import default_jobs, expand_inputs, read_photos

    design = _layout(layout)
    paths = expand_inputs(photos)
    if not paths:
        _fail("no photos found in " + ", ".join(map(str, photos)))
    results = read_photos(paths, rules, jobs or default_jobs(), debug, keep_images, design)
    if len(paths) == 1 or not sys.stderr.isatty():  # a bar is for people watching, not for logs
        yield from results
        return
    with typer.progressbar(results, length=len(paths), label="reading", file=sys.stderr) as bar:
        yield from bar


def _output_folder(folder: Optional[Path]) -> Optional[Path]:
    """A folder to write pictures into, made if missing; refused with a one-line error if it cannot be."""
    if folder is None:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        _fail(f"{folder}: cannot write pictures there ({error.strerror or error})")
    return folder


def _report_error(result) -> ExitCode:
    """Say a photo's error on stderr, if it has one; its exit code (ok when none)."""
    if not result.error:
        return ExitCode.ok
    typer.echo(f"sheetscan: {result.error.message}", err=True)
    return result.error.exit_code


def _report_photos(results, as_json: bool, audit: bool, on_result=None) -> None:
    """Print each photo's result, and exit with the worst error's code."""
    worst = ExitCode.ok
    for result in results:
        worst = max(worst, _report_error(result))
        if on_result:
            on_result(result)
        if as_json:
            typer.echo(json.dumps(report.photo_to_dict(result), separators=(",", ":")))
        elif not result.error:
            typer.echo(report.photo_text(result, audit=audit))
    if worst:
        raise typer.Exit(int(worst))


@app.command("score")
def score_command(
    photos: PhotosArgument,
    as_json: PhotoLinesOption = False,
    debug: Optional[Path] = typer.Option(None, "--debug", help="Write a picture of each stage into this folder."),
    rule: RuleOption = None,
    jobs: JobsOption = None,
    layout: LayoutOption = DEFAULT_LAYOUT,
) -> None:
    """Read photos of filled sheets and score them by the rules.

    Every sheet of a photo is read, in reading order (left to right, top to bottom).

    Example: sheetscan score samples/phone/0000.jpg
    """
    _report_photos(_read_batch(photos, _rules(rule), jobs, _output_folder(debug), layout=layout), as_json, audit=False)


@app.command("audit")
def audit_command(
    photos: PhotosArgument,
    as_json: PhotoLinesOption = False,
    overlay: Optional[Path] = typer.Option(None, "--overlay", help="Write each sheet's annotated picture into this folder."),
    rule: RuleOption = None,
    jobs: JobsOption = None,
    layout: LayoutOption = DEFAULT_LAYOUT,
) -> None:
    """Audit photos of filled sheets: what the player wrote against what the rules give.

    For each sheet: the rules' breakdown beside the written numbers, every difference, rule
    violation and turn the garden cannot explain, the doubtful cells, and what the decoder changed.

    Example: sheetscan audit --overlay /tmp/audit samples/phone/0000.jpg
    """
    from sheetscan.present.overlay import write_audit_pictures

    inputs = {path.resolve() for path in photos}
    overlay = _output_folder(overlay)
    save = (lambda result: write_audit_pictures(result, overlay, inputs)) if overlay else None
    _report_photos(_read_batch(photos, _rules(rule), jobs, keep_images=bool(overlay), layout=layout), as_json, audit=True,
                   on_result=save)


@app.command("table")
def table_command(
    photos: PhotosArgument,
    names: Optional[str] = typer.Option(None, "--names", help="Players' names, comma-separated, in reading order "
                                        "(photo by photo; left to right, top to bottom)."),
    as_json: bool = typer.Option(False, "--json", help="The table as one JSON object."),
    csv_file: Optional[Path] = typer.Option(None, "--csv", help="Also write the table to this CSV file."),
    overlay: Optional[Path] = typer.Option(None, "--overlay", help="Write each sheet's audit picture and name-box "
                                           "crop into this folder, to see which sheet is whose."),
    rule: RuleOption = None,
    jobs: JobsOption = None,
    layout: LayoutOption = DEFAULT_LAYOUT,
) -> None:
    """Rank every sheet found in the photos: the table's result and its winner.

    By total, then more unpruned bonsai leaves, then shared; each with its breakdown and the
    audit's findings summarised. A lone sheet gets its solo rank.

    Example: sheetscan table --names Aiko,Ben,Chiara samples/table/0000.jpg
    """
    from sheetscan.game import table
    from sheetscan.present.overlay import write_audit_pictures, write_name_crops

    inputs = {path.resolve() for path in photos}
    overlay = _output_folder(overlay)
    if csv_file and (csv_file.is_dir() or csv_file.resolve() in inputs):
        _fail(f"{csv_file}: cannot write the table there (a folder, or one of the photos)")
    sheets, worst = [], ExitCode.ok
    for result in _read_batch(photos, _rules(rule), jobs, keep_images=bool(overlay), layout=layout):
        worst = max(worst, _report_error(result))
        if result.partial_sheets:
            typer.echo(f"sheetscan: {result.path}: {result.partial_sheets} sheet(s) seen only in part: not read", err=True)
        if overlay:
            write_audit_pictures(result, overlay, inputs)
            write_name_crops(result, overlay, inputs)
        sheets += [(result.path, number, sheet) for number, sheet in enumerate(result.sheets, start=1)]
    if not sheets:
        _fail("no sheet found in any photo", worst or ExitCode.no_sheet)
    given = [name.strip() for name in names.split(",")] if names else []
    if len(given) > len(sheets):
        typer.echo(f"sheetscan: {len(given)} names for {len(sheets)} sheets: the last ones are unused", err=True)
    labels = table.name_players([(Path(photo).name, number) for photo, number, _ in sheets], given)
    players = [table.Player(label, photo, number, sheet.score.breakdown, sheet.decoded.record.bonsai_pruned,
                            sheet.decoded.findings, sheet.verdict.label)
               for label, (photo, number, sheet) in zip(labels, sheets, strict=True)]
    standings = table.rank(players)
    if csv_file:
        try:
            write_atomically(csv_file, lambda path: path.write_text(table.table_csv(standings)))
        except OSError as error:
            _fail(f"{csv_file}: cannot write the table ({error.strerror or error})")
    typer.echo(json.dumps(table.table_to_dict(standings)) if as_json else table.table_text(standings))
    if worst:
        raise typer.Exit(int(worst))


Networks = Enum("Networks", {name.replace("-", "_"): name for name in TRAINING_PLANS}, type=str)  # typer checks the choice


@app.command()
def train(
    networks: Networks = typer.Option(Networks.cells, "--networks",
                                      help="cells: decoration and water; cells-tables: the same networks, trained with more "
                                           "table photos (the reader averages the two); boxes: turn boxes, marks, written numbers; "
                                           "boxes-tables: the same, with table photos too (averaged likewise); digits: each turn "
                                           "and number digit alone; drawings: how alike two drawings of one sheet are (joint labelling)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Where to write them (default: the file the reader loads)."),
    photos: Optional[int] = typer.Option(None, "--photos", min=10, help="Synthetic photos to train on (default: the plan's)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of the training photos (default: the plan's; benches use others)."),
    epochs: Optional[int] = typer.Option(None, "--epochs", min=1, help="Passes over the training samples, for every network (default: the plan's)."),
    held_out_pen: str = typer.Option("felt", "--held-out-pen", help="A pen kept out of training."),
    jobs: int = typer.Option(2, "--jobs", min=1, help="Processes rendering the photos."),
    compare_linear: bool = typer.Option(False, "--compare-linear", help="Cells: also fit HOG + softmax and compare."),
) -> None:
    """Rebuild a model file from scratch on synthetic photos (needs PyTorch, CPU is enough).

    Examples: sheetscan train --networks cells; sheetscan train --networks cells-tables; sheetscan train --networks boxes;
    sheetscan train --networks boxes-tables; sheetscan train --networks drawings; sheetscan train --networks digits
    """
    from sheetscan.lab.train import PLANS, train_models

    plan = PLANS[networks.value]
    train_models(networks.value, out or plan.out, photos=photos or plan.photos, seed=plan.seed if seed is None else seed,
                 epochs=epochs, held_out_pen=held_out_pen, jobs=jobs, compare_linear=compare_linear, say=typer.echo)


SHEET_FORMATS = (".pdf", ".png")


@app.command()
def sheet(
    out: Path = typer.Option(..., "--out", help="The file to write: .pdf or .png."),
    dpi: int = typer.Option(300, "--dpi", min=50, max=1200, help="Resolution of the drawing."),
    layout_json: Optional[Path] = typer.Option(
        None, "--layout-json", help="Also write the layout: every region in mm and in pixels at --dpi."
    ),
    layout: LayoutNameOption = DEFAULT_LAYOUT,
) -> None:
    """Write a blank sheet: the print-and-play sheet (A4, with ArUco markers at its corners),
    the publisher's pad as the rulebook describes it (A5, no markers), or a player's home-made
    sheet (A4 landscape, no markers; no network trained on it: the bench's unseen design).

    Example: sheetscan sheet --out sheet.pdf --layout-json layout.json
    """
    from sheetscan.design.layout import load_layout
    from sheetscan.synthetic.sheet import write_sheet

    if out.suffix.lower() not in SHEET_FORMATS:
        _fail(f"{out}: the sheet is written as PDF or PNG; name the file .pdf or .png")
    write_sheet(out, dpi, load_layout(layout.value))
    typer.echo(f"wrote {out} ({dpi} dpi)")
    if layout_json is not None:
        write_atomically(layout_json, lambda path: path.write_text(json.dumps(load_layout(layout.value).to_dict(dpi), indent=1)))
        typer.echo(f"wrote {layout_json}")


@app.command()
def synth(
    out: Path = typer.Option(..., "--out", help="Folder for NNNN.jpg and NNNN.json (made if missing)."),
    n: int = typer.Option(10, "--n", min=1, help="Number of photos."),
    seed: int = typer.Option(0, "--seed", help="Seed of the run; photo i depends only on (seed, i)."),
    level: LevelOption = "phone",
    sheets_per_photo: SheetsPerPhoto = 1,
    megapixels: Optional[float] = typer.Option(
        None, "--megapixels", min=1.0, max=50.0, help="Photo size (default: drawn from the level's range)."
    ),
    held_out_styles: HeldOutStyles = False,
    fresh_styles: FreshStyles = False,
    unseen_styles: UnseenStyles = False,
    markers: MarkersOption = "all",
    layout: LayoutNameOption = DEFAULT_LAYOUT,
    blank: bool = typer.Option(False, "--blank", help="Photograph blank sheets (one per photo), to make a layout from."),
) -> None:
    """Make synthetic photos of filled sheets with their ground truth: legal games, drawn by
    hand, photographed at the camera level.

    Example: sheetscan synth --n 20 --seed 7 --level phone --out bench/phone
    """
    level = level.value
    from sheetscan.synthetic.synth import write_synth

    out.mkdir(parents=True, exist_ok=True)
    with typer.progressbar(range(n), label=f"synth {level}", file=sys.stderr) as indices:
        for index in indices:
            write_synth(out, index, seed, level, sheets_per_photo, megapixels, held_out_styles, markers.value, layout.value,
                        blank, fresh_styles, unseen_styles)
    typer.echo(f"wrote {n} photos and their truth to {out}")


def _interrupt(signum, frame) -> None:
    # raised instead of KeyboardInterrupt, which click turns into "Aborted!" and exit 1
    raise Interrupted("interrupted; the photos read so far are printed above")


def main() -> None:
    """Entry point: run the app, turning any sheetscan error into its exit code (outside the
    app, typer.Exit is not caught: exit here); Ctrl-C stops it with exit 130."""
    import signal

    signal.signal(signal.SIGINT, _interrupt)
    try:
        app(prog_name="sheetscan")
    except SheetscanError as error:
        typer.echo(f"sheetscan: {error.message}", err=True)
        sys.exit(int(error.exit_code))
    except ImportError as error:  # a dependency missing from this installation
        typer.echo(f"sheetscan: a required package is missing ({error}); reinstall sheetscan", err=True)
        sys.exit(int(ExitCode.installation))
    except Exception as error:  # a bug: one line unless asked for more
        if SHOW_TRACEBACKS:
            raise
        typer.echo(f"sheetscan: internal error ({type(error).__name__}: {error}); run again with --verbose "
                   "for the details", err=True)
        sys.exit(int(ExitCode.internal_error))


if __name__ == "__main__":
    main()
