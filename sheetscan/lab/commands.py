"""The lab's commands: ``sheetscan bench ...``, each printing figures measured in one run."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from sheetscan.names import CAMERA_LEVELS, DEFAULT_LAYOUT, HELP_MARKUP, LAYOUT_NAMES, MARKER_PRINTS

bench_app = typer.Typer(help="Benchmarks that print the project's measured figures.", no_args_is_help=True,
                        rich_markup_mode=HELP_MARKUP)
Level = Enum("Level", {name: name for name in CAMERA_LEVELS}, type=str)  # typer checks the choice
LevelOption = Annotated[Level, typer.Option("--level", help="Camera level.")]
FiguresAsJson = Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")]
HeldOutStyles = Annotated[bool, typer.Option("--held-out-styles", help="Draw every sheet with the drawing archetypes "
                                               "held out of training alone (synthetic/archetypes.py HELD_OUT): "
                                               "reading drawings the networks never saw.")]
CoarseDigits = Annotated[bool, typer.Option("--coarse-digits", help="Write every real writer's digits from a "
                                            "coarse source (synthetic/digits.py: 7-12 px a side, 16 grey levels), "
                                            "as digits scanned small or photographed blurred look.")]
VariedDigits = Annotated[bool, typer.Option("--varied-digits", help="Write every real writer's numbers each with new "
                                            "samples of the digits (synthetic/digits.py another_sample): a writer who "
                                            "does not copy themselves, or digits drawn one sample per box.")]
FreshStyles = Annotated[bool, typer.Option("--fresh-styles", help="Draw every sheet with the drawing archetypes "
                                           "invented after the decoder's tuning (synthetic/archetypes.py FRESH), "
                                           "which the drawing network now trains on too (the cell networks do not); "
                                           "digits by held-out writers.")]
UnseenStyles = Annotated[bool, typer.Option("--unseen-styles", help="Draw every sheet with the drawing archetypes "
                                            "invented on 2026-12-07 (synthetic/archetypes.py UNSEEN), out of all "
                                            "training and tuning: the estimate of a hand nobody here has seen; "
                                            "digits by held-out writers.")]
SheetLearning = Annotated[bool, typer.Option("--sheet-learning/--without-sheet-learning",
                                             help="Let the decoder read cells drawn alike together (per-sheet learning).")]
MarkerPrint = Enum("MarkerPrint", {name: name for name in MARKER_PRINTS}, type=str)
MarkersOption = Annotated[MarkerPrint, typer.Option("--markers", help="The sheets' corner markers: all printed, none "
                                                     "(a sheet without them, like the publisher's pad), or some "
                                                     "(1 to 3 of the 4 covered).")]
BenchLayout = Enum("BenchLayout", {name.replace("-", "_"): name for name in LAYOUT_NAMES}, type=str)
BenchLayoutOption = Annotated[BenchLayout, typer.Option("--layout", help="The sheet design drawn and read.")]
JobsOption = Annotated[Optional[int], typer.Option("--jobs", min=1, help="Photos read at once, one core each (default: the cores).")]
SheetsPerPhoto = Annotated[int, typer.Option("--sheets-per-photo", min=1, max=6, help="Sheets on each photo (a table photo holds several).")]


def print_figures(figures: dict, as_json: bool, sentence: str) -> None:
    """A benchmark's figures: JSON for programs, ``sentence`` for people."""
    typer.echo(json.dumps(figures) if as_json else sentence)


def _interval(bounds: list[float]) -> str:
    return f"95% interval {bounds[0]:.1%} to {bounds[1]:.1%}"


@bench_app.command("synth")
def bench_synth_command(
    n: int = typer.Option(5, "--n", min=1, help="Number of photos to time."),
    seed: int = typer.Option(0, "--seed", help="Seed of the run."),
    level: LevelOption = "phone",
    megapixels: float = typer.Option(12.0, "--megapixels", min=1.0, max=50.0, help="Photo size."),
    as_json: FiguresAsJson = False,
) -> None:
    """Time making one synthetic photo on one core, against decoding that JPEG (same run).

    Example: sheetscan bench synth --n 5 --megapixels 12
    """
    from sheetscan.lab import bench

    figures = bench.bench_synth(n, seed, level.value, megapixels)
    print_figures(figures, as_json,
        f"synth {level.value} at {megapixels:g} MP on one core: {figures['seconds_per_photo']:.3f} s per photo "
        f"(median of {n}); decoding the same JPEG: {figures['decode_seconds']:.3f} s; "
        f"ratio {figures['ratio']:.1f}")


def _sure_by_text(f: dict) -> str:
    """The sure sheets by what bore them out, each with its exact ones."""
    by = f["sheets_sure_by"]
    return "  sure by: " + ", ".join(f"{route} {n['sure']} ({n['exact']} exact)" for route, n in by.items())


def _writing(figures: dict) -> str:
    """How a run's players drew and wrote (beyond held-out styles), as its figures' heading says it."""
    said_as = (("fresh_styles", "fresh styles"), ("unseen_styles", "unseen styles"), ("coarse_digits", "coarse digits"),
               ("varied_digits", "varied digits"))
    return "".join(f", {said}" for member, said in said_as if figures[member])


@bench_app.command("read")
def bench_read_command(
    n: int = typer.Option(50, "--n", min=1, help="Number of fresh photos."),
    seed: int = typer.Option(1, "--seed", help="Seed of the run (training used 1000)."),
    level: LevelOption = "phone",
    sheets_per_photo: SheetsPerPhoto = 1,
    sheet_learning: SheetLearning = True,
    held_out_styles: HeldOutStyles = False,
    fresh_styles: FreshStyles = False,
    unseen_styles: UnseenStyles = False,
    coarse_digits: CoarseDigits = False,
    varied_digits: VariedDigits = False,
    markers: MarkersOption = "all",
    layout: BenchLayoutOption = DEFAULT_LAYOUT,
    read_layout: Optional[Path] = typer.Option(None, "--read-layout", help="Read with this layout file (one made by "
                                               "`layout from-photo`) instead of the design's own."),
    as_json: FiguresAsJson = False,
) -> None:
    """Read N fresh synthetic photos and compare with their truth: per-cell accuracy, exact
    totals, and the time to read a 12-megapixel JPEG against decoding it (same run).

    Example: sheetscan bench read --n 100 --seed 1 --level phone
    """
    from sheetscan.design.layout import LayoutError, layout_from
    from sheetscan.lab import bench

    try:
        reader_layout = layout_from(str(read_layout)) if read_layout else None
    except LayoutError as error:
        typer.echo(f"sheetscan: {error}", err=True)
        raise typer.Exit(2) from None

    with typer.progressbar(length=n, label=f"read {level.value}", file=sys.stderr) as bar:
        f = bench.bench_read(n, seed, level.value, sheets_per_photo, say=lambda i: bar.update(1),
                             held_out_styles=held_out_styles, sheet_learning=sheet_learning, markers=markers.value,
                             layout_name=layout.value, read_layout=reader_layout, coarse_digits=coarse_digits,
                             varied_digits=varied_digits, fresh_styles=fresh_styles,
                             unseen_styles=unseen_styles)
    pens = ", ".join(f"{pen} {share:.2%}" for pen, share in f["decoration_by_pen"].items())
    print_figures(f, as_json, "\n".join([
        f"{f['photos']} {f['level']} photos (seed {f['seed']}{', held-out styles' if f['held_out_styles'] else ''}"
        f"{_writing(f)}"
        f"{'' if f['sheet_learning'] else ', without sheet learning'}, markers {f['markers']}, {f['layout']}"
        f"{', read with ' + str(read_layout) if read_layout else ''}), "
        f"{f['sheets']} sheets, {f['sheets_found']:.1%} found",
        f"  decoration per cell {f['decoration_accuracy']:.2%} (by pen: {pens})",
        f"  water per cell      {f['water_accuracy']:.2%}",
        f"  tree dot            {f['tree_dot_accuracy']:.2%}",
        f"  exact total         {f['exact_total']:.1%} of sheets (the cells' first choices alone: "
        f"{f['exact_total_cells_only']:.1%})",
        f"  marked sure         {f['sheets_sure']:.1%} of sheets, {f['exact_total_when_sure']:.1%} of them exact "
        f"({f['wrong_totals_marked_sure']} wrong totals marked sure; "
        f"{f['turn_log_exact_when_sure']:.1%} with every turn box read right)",
        _sure_by_text(f),
        "  by drawing: " + ", ".join(f"{name} {share:.1%} of {seen}" for name, (share, seen) in f["by_archetype"].items()),
        f"  12-MP read {f['read_seconds_12mp']:.3f} s vs imread {f['decode_seconds_12mp']:.3f} s: "
        f"ratio {f['read_to_decode_ratio']:.2f} (of {len(f['read_to_decode_ratio_by_photo'])} photos: median "
        f"{f['read_to_decode_ratio_median']:.2f}, slowest {f['read_to_decode_ratio_slowest']:.2f}); "
        f"peak memory {f['peak_memory_mb']} MB",
    ]))


@bench_app.command("audit")
def bench_audit_command(
    n: int = typer.Option(100, "--n", min=1, help="Number of fresh photos."),
    seed: int = typer.Option(1, "--seed", help="Seed of the run (the box reader trained on 2000)."),
    level: LevelOption = "phone",
    mistake_rate: float = typer.Option(0.5, "--mistake-rate", min=0.0, max=1.0, help="Chance a player's written "
                                       "numbers hold a mistake (more gives more sheets to flag)."),
    sheet_learning: SheetLearning = True,
    held_out_styles: HeldOutStyles = False,
    fresh_styles: FreshStyles = False,
    unseen_styles: UnseenStyles = False,
    coarse_digits: CoarseDigits = False,
    varied_digits: VariedDigits = False,
    markers: MarkersOption = "all",
    layout: BenchLayoutOption = DEFAULT_LAYOUT,
    as_json: FiguresAsJson = False,
) -> None:
    """Audit N fresh synthetic photos against their truth: turn-box symbols, marks and written
    numbers read right (first choice and decoded), mistakes flagged and false differences.

    Example: sheetscan bench audit --n 150 --seed 1 --level phone
    """
    from sheetscan.lab import bench

    with typer.progressbar(length=n, label=f"audit {level.value}", file=sys.stderr) as bar:
        f = bench.bench_audit(n, seed, level.value, mistake_rate, say=lambda i: bar.update(1),
                              held_out_styles=held_out_styles, sheet_learning=sheet_learning, markers=markers.value,
                              layout_name=layout.value, coarse_digits=coarse_digits,
                              varied_digits=varied_digits, fresh_styles=fresh_styles,
                              unseen_styles=unseen_styles)
    print_figures(f, as_json, "\n".join([
        f"{f['photos']} {f['level']} photos (seed {f['seed']}{', held-out styles' if f['held_out_styles'] else ''}"
        f"{_writing(f)}, markers {f['markers']}, {f['layout']}), {f['sheets']} sheets read",
        f"  turn-box digits and X  {f['turn_symbols']:.2%} (first choice {f['turn_symbols_raw']:.2%})",
        f"  bonsai and pond marks  {f['marks']:.2%}",
        f"  written numbers        {f['written_numbers']:.2%} (first choice {f['written_numbers_raw']:.2%})",
        f"  written wrong: {f['sheets_written_wrong']} sheets, {f['wrong_flagged']:.1%} flagged with the right category",
        f"  written right: {f['sheets_written_right']} sheets, {f['false_difference']:.1%} with a false difference",
        f"  exact total {f['exact_total']:.1%}; marked sure {f['sheets_sure']:.1%} of sheets, "
        f"{f['exact_total_when_sure']:.1%} of them exact ({f['wrong_totals_marked_sure']} wrong totals marked sure; "
        f"{f['sheets_sure_written_wrong']} sheets written wrong among the sure)",
        _sure_by_text(f),
    ]))


@bench_app.command("table")
def bench_table_command(
    n: int = typer.Option(40, "--n", min=1, help="Number of fresh table photos."),
    sheets_per_photo: SheetsPerPhoto = 3,
    seed: int = typer.Option(1, "--seed", help="Seed of the run."),
    level: LevelOption = "phone",
    jobs: JobsOption = None,
    repeat: int = typer.Option(5, "--repeat", min=1, help="Reads of the photos with each job count, taken in turn; "
                               "the fastest counts (each round's own ratio is shown too)."),
    held_out_styles: HeldOutStyles = False,
    fresh_styles: FreshStyles = False,
    unseen_styles: UnseenStyles = False,
    coarse_digits: CoarseDigits = False,
    varied_digits: VariedDigits = False,
    markers: MarkersOption = "all",
    layout: BenchLayoutOption = DEFAULT_LAYOUT,
    as_json: FiguresAsJson = False,
) -> None:
    """Read N fresh table photos: sheets found (none invented), exact totals, right winners,
    and sheets per second with 1 job and with all cores (same photos, same run, the fastest
    of --repeat reads each).

    Example: sheetscan bench table --n 40 --sheets-per-photo 3
    """
    from sheetscan.lab import bench
    from sheetscan.reading.batch import default_jobs

    jobs = jobs or default_jobs()
    typer.echo(f"making {n} photos, then reading them with 1 job and with {jobs}, {repeat} times each...", err=True)
    f = bench.bench_table(n, seed, level.value, sheets_per_photo, jobs, repeats=repeat, held_out_styles=held_out_styles,
                          markers=markers.value, layout_name=layout.value, coarse_digits=coarse_digits,
                          varied_digits=varied_digits, fresh_styles=fresh_styles, unseen_styles=unseen_styles,
                          say=lambda label: typer.echo(f"  read with {label.replace('_', ' ')}", err=True))
    print_figures(f, as_json, "\n".join([
        f"{f['photos']} {f['level']} photos of {f['sheets_per_photo']} {f['layout']} sheets (seed {f['seed']}, markers "
        f"{f['markers']}): {f['sheets']} sheets",
        f"  found {f['sheets_found']:.1%}, invented {f['sheets_invented']}; exact total {f['exact_total']:.1%} "
        f"({_interval(f['exact_total_interval'])}); right winner {f['right_winner']:.1%} of tables "
        f"({_interval(f['right_winner_interval'])})",
        f"  {f['sheets_per_second_one_job']:.2f} sheets/s with 1 job, {f['sheets_per_second_all_jobs']:.2f} with "
        f"{f['jobs']}: x{f['speedup']:.2f} (by round: {', '.join(f'x{r:.2f}' for r in f['speedup_by_round'])}; "
        f"cores busy {f['cores_busy']:.0%} of the {f['jobs']}-job reads)",
    ]))


@bench_app.command("locate")
def bench_locate_command(
    n: int = typer.Option(50, "--n", min=1, help="Number of fresh photos for each way of printing the markers."),
    seed: int = typer.Option(1, "--seed", help="Seed of the run."),
    level: LevelOption = "phone",
    sheets_per_photo: SheetsPerPhoto = 1,
    negatives: int = typer.Option(100, "--negatives", min=0, help="Photos of no sheet of this game (tables, text, "
                                  "sudoku, calendars, graph paper, a bare 6x6 grid)."),
    layout: BenchLayoutOption = DEFAULT_LAYOUT,
    as_json: FiguresAsJson = False,
) -> None:
    """Locate the sheets of N fresh photos with all, none and some (1 to 3 of 4) of their
    markers printed (the same sheets each time), and count the sheets claimed on photos of no
    sheet of this game.

    Example: sheetscan bench locate --n 50 --level phone --negatives 100
    """
    from sheetscan.lab.locating import bench_locate

    total = n * (len(MARKER_PRINTS) if layout.value == DEFAULT_LAYOUT else 1) + negatives
    with typer.progressbar(length=total, label=f"locate {level.value}", file=sys.stderr) as bar:
        f = bench_locate(n, seed, level.value, sheets_per_photo, negatives, say=lambda _: bar.update(1),
                         layout_name=layout.value)
    lines = [f"{f['photos']} {f['level']} photos of {f['sheets_per_photo']} {f['layout']} sheet(s) (seed {f['seed']})"]
    for markers, m in f["by_markers"].items():
        lines.append(f"  markers {markers:<5} found {m['sheets_found']:.1%} of {m['sheets']} "
                     f"({_interval(m['sheets_found_interval'])}), invented {m['invented']}, by markers "
                     f"{m['found_by']['markers']} / grid {m['found_by']['grid']}; worst corner off by "
                     f"{m['corner_error_mm_median']} mm (median), {m['corner_error_mm_p95']} mm (95th percentile); "
                     f"locating {m['locate_seconds_median']:.3f} s")
    negative = f["negatives"]
    lines.append(f"  {negative['photos']} photos of no sheet of this game: {negative['sheets_claimed']} sheets claimed "
                 f"({', '.join(f'{k} {v}' for k, v in negative['claimed_by_kind'].items())})")
    print_figures(f, as_json, "\n".join(lines))


@bench_app.command("layout")
def bench_layout_command(
    n: int = typer.Option(12, "--n", min=1, help="Blank photos to make a layout from."),
    seed: int = typer.Option(1, "--seed", help="Seed of the blank photos (the filled ones use seed + 1)."),
    level: LevelOption = "phone",
    layout: BenchLayoutOption = DEFAULT_LAYOUT,
    reads: int = typer.Option(20, "--reads", min=1, help="Filled photos read with each layout."),
    layouts_read: int = typer.Option(2, "--layouts-read", min=0, help="Layouts found that are each used to read."),
    filled: bool = typer.Option(False, "--filled", help="Make the layouts from photos of filled sheets (markers hidden)."),
    as_json: FiguresAsJson = False,
) -> None:
    """Make layouts from N blank photos of a design (`layout from-photo`), then read fresh
    filled photos (markers hidden) with some of them and with the design's own layout.

    Example: sheetscan bench layout --n 12 --layout pad --reads 20
    """
    from sheetscan.lab.layouts import bench_layout

    with typer.progressbar(length=n, label=f"layouts {layout.value}", file=sys.stderr) as bar:
        f = bench_layout(n, seed, level.value, layout.value, reads, layouts_read, say=lambda _: bar.update(1),
                         filled=filled)

    def figures(reading: dict) -> str:
        return (f"found {reading['sheets_found']:.1%}, cells {reading['decoration_accuracy']:.2%}, water "
                f"{reading['water_accuracy']:.2%}, tree marks {reading['tree_dot_accuracy']:.2%}, exact totals "
                f"{reading['exact_total']:.1%}")

    lines = [f"{f['blank_photos']} {'filled' if f['filled'] else 'blank'} {f['level']} photos of the {f['layout']} sheet "
             f"(seed {f['seed']}): {f['layouts_complete']:.1%} gave a whole layout"]
    lines += [f"  {count} x {reason}" for reason, count in f["failures"].items()]
    lines.append(f"  {f['read_photos']} filled photos (seed {f['seed'] + 1}, no markers) read with the design's own "
                 f"layout: {figures(f['with_own_layout'])}")
    lines += [f"  ... with the layout found in photo {r['photo']}: {figures(r)}" for r in f["with_found_layouts"]]
    print_figures(f, as_json, "\n".join(lines))


@bench_app.command("learn")
def bench_learn_command(
    n: int = typer.Option(20, "--n", min=1, help="Players, each with two sheets in one hand."),
    seed: int = typer.Option(1, "--seed", help="Seed of the run."),
    level: LevelOption = "phone",
    held_out: bool = typer.Option(True, "--held-out-styles/--own-styles", help="The players' hands: held out or trained."),
    as_json: FiguresAsJson = False,
) -> None:
    """A player's second sheet read without and with their first sheet's review (its misread cells corrected).

    Example: sheetscan bench learn --n 40 --seed 1 --level phone
    """
    from sheetscan.lab.learning import bench_learn

    f = bench_learn(n, seed, level.value, held_out)
    print_figures(f, as_json, f"{f['players']} players: second sheet exact {f['second_sheet_exact_without_corrections']:.1%} "
                   f"without the first's review, {f['second_sheet_exact_with_corrections']:.1%} with (cells "
                   f"{f['second_sheet_cells_without']:.2%}, {f['second_sheet_cells_with']:.2%}); first sheet exact {f['first_sheet_exact']:.1%}")


@bench_app.command("drawings")
def bench_drawings_command(
    n: int = typer.Option(40, "--n", min=1, help="Photos."),
    seed: int = typer.Option(1, "--seed", help="Seed of the run."),
    level: LevelOption = "phone",
    sheets_per_photo: SheetsPerPhoto = 1,
    held_out_styles: HeldOutStyles = False,
    fresh_styles: FreshStyles = False,
    unseen_styles: UnseenStyles = False,
    jobs: JobsOption = None,
    as_json: FiguresAsJson = False,
) -> None:
    """How alike a sheet's drawings of one kind look: the share of drawings whose most alike other
    drawing on their sheet is the same kind, by HOG, by the drawing network and by both (what the
    sheet's joint labelling uses).

    Example: sheetscan bench drawings --n 40 --seed 1 --level phone --held-out-styles [--sheets-per-photo 3]
    """
    from sheetscan.lab.alike import bench_drawings
    from sheetscan.reading.batch import default_jobs

    f = bench_drawings(n, seed, level.value, held_out_styles, jobs or default_jobs(), fresh_styles, sheets_per_photo,
                       unseen_styles)
    print_figures(f, as_json, f"{f['drawings']} drawings on {f['sheets']} sheets: the most alike other drawing of its "
                  f"sheet is the same kind for {f['both']:.1%} (HOG alone {f['hog']:.1%}, the network alone {f['network']:.1%})")


@bench_app.command("games")
def bench_games_command(
    n: int = typer.Option(1000, "--n", min=1, help="Number of games."),
    seed: int = typer.Option(10000, "--seed", help="Seed of the first game."),
    as_json: FiguresAsJson = False,
) -> None:
    """Play N simulated games: the share that is legal with a truth equal to the scorer's,
    and the spread of their totals.

    Example: sheetscan bench games --n 1000
    """
    from sheetscan.lab import bench

    figures = bench.bench_games(n, seed)
    print_figures(figures, as_json,
        f"{figures['games']} games: {figures['legal_share']:.1%} legal with truth = scorer; totals "
        f"min {figures['min']}, 5% {figures['p5']:g}, median {figures['median']:g}, "
        f"95% {figures['p95']:g}, max {figures['max']}")


@bench_app.command("rescore")
def bench_rescore_command(
    n: int = typer.Option(1000, "--n", min=1, help="Number of garden files."),
    seed: int = typer.Option(0, "--seed", help="Seed of the first simulated game."),
    as_json: FiguresAsJson = False,
) -> None:
    """Time `sheetscan rescore --json` on N garden files in one call, against a reference
    (Python start-up plus reading the same JSON files) timed in the same run.

    Example: sheetscan bench rescore --n 1000
    """
    from sheetscan.lab import bench

    figures = bench.bench_rescore(n, seed)
    print_figures(figures, as_json,
        f"rescore of {figures['files']} garden files: {figures['rescore_seconds']:.3f} s "
        f"({figures['files_per_second']} files/s); reference (start Python, read the JSON): "
        f"{figures['reference_seconds']:.3f} s; ratio {figures['ratio']:.2f}")
