"""The lab's benches of what must never break sheetscan: hostile inputs, fuzzing, work killed
midway, and the table page under load (``sheetscan bench robustness|fuzz|serve``)."""

from __future__ import annotations

import sys

import typer

from sheetscan.lab.commands import FiguresAsJson, LevelOption, print_figures


def register(bench_app: typer.Typer) -> None:
    """Add these benches to ``sheetscan bench``."""
    bench_app.command("robustness")(bench_robustness_command)
    bench_app.command("fuzz")(bench_fuzz_command)
    bench_app.command("serve")(bench_serve_command)


def bench_robustness_command(
    seed: int = typer.Option(0, "--seed", help="Seed of the corpus and of the moments work is killed."),
    gardens: int = typer.Option(120, "--gardens", min=0, help="Reshaped garden files."),
    layouts: int = typer.Option(60, "--layouts", min=0, help="Reshaped layout files."),
    kills: int = typer.Option(10, "--kills", min=0, help="Times each file-writing command, and the table page's "
                              "server mid-upload, is killed (SIGKILL)."),
    as_json: FiguresAsJson = False,
) -> None:
    """Make the hostile-input corpus (damaged, huge and odd images, odd paths, reshaped garden
    and layout files) and run every input: exit codes against the documented ones, no
    traceback, no damaged photo read as a sheet, the whole batch read. Then kill the commands
    that write files, and the page's server, midway: no file half-written, no upload lost.

    Example: sheetscan bench robustness --kills 10
    """
    import tempfile
    from pathlib import Path

    from sheetscan.lab.hostile import make_corpus, run_corpus
    from sheetscan.lab.kills import kill_server, kill_writers

    with tempfile.TemporaryDirectory(prefix="sheetscan-hostile-") as folder:
        cases = make_corpus(Path(folder), seed, gardens, layouts)
        with typer.progressbar(length=len(cases), label="hostile inputs", file=sys.stderr) as bar:
            f = run_corpus(cases, say=lambda _: bar.update(1))
    with typer.progressbar(length=4 * kills, label="killed midway", file=sys.stderr) as bar:
        f["killed_writers"] = kill_writers(kills, seed, say=lambda _: bar.update(1))
        f["killed_server"] = kill_server(kills, seed, say=lambda _: bar.update(1))
    lines = [f"{f['inputs']} hostile inputs: {len(f['wrong_exit_codes'])} with a wrong exit code, "
             f"{len(f['tracebacks'])} tracebacks, {f['damaged_read_as_sheet']} damaged photos read as a sheet; "
             f"slowest {f['slowest_seconds']} s ({f['slowest']}); peak memory {f['peak_memory_mb']} MB",
             f"  as one `score --json` batch: {f['batch_lines']} lines for {f['batch_inputs']} inputs, exit "
             f"{f['batch_exit']}, {f['batch_tracebacks']} tracebacks"]
    lines += [f"  {line}" for line in f["wrong_exit_codes"] + f["tracebacks"]]
    lines += [f"  `{name}` killed {w['kills']} times: {w['files_found']} files found, {len(w['half_written'])} "
              f"half-written, {w['temporaries_left']} temporaries left" for name, w in f["killed_writers"].items()]
    server = f["killed_server"]
    lines.append(f"  the page's server killed {server['kills']} times mid-upload: {server['uploads_accepted']} photos "
                 f"accepted, {server['uploads_lost']} lost, {server['accepted_left_unread']} left unread")
    print_figures(f, as_json, "\n".join(lines))


def bench_fuzz_command(
    seconds: float = typer.Option(60.0, "--seconds", min=1.0, help="Time for each parser."),
    seed: int = typer.Option(0, "--seed", help="Seed of the examples."),
    as_json: FiguresAsJson = False,
) -> None:
    """Fuzz the photo opener, the garden-file parser and the layout parser with hypothesis
    (a test dependency) for a set time each: inputs tried and crashes found.

    Example: sheetscan bench fuzz --seconds 60
    """
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        typer.echo("sheetscan: fuzzing needs hypothesis (pip install '.[test]')", err=True)
        raise typer.Exit(5) from None
    from sheetscan.lab.fuzz import fuzz_parsers

    f = fuzz_parsers(seconds, seed)
    lines = []
    for target in ("photo_opener", "garden_parser", "layout_parser"):
        found = f[target]
        lines.append(f"{target.replace('_', ' ')}: {found['inputs_tried']} inputs in {seconds:g} s, "
                     f"{len(found['crashes'])} crashes")
        lines += [f"  {crash}" for crash in found["crashes"]]
    print_figures(f, as_json, "\n".join(lines))


def bench_serve_command(
    n: int = typer.Option(6, "--n", min=1, max=60, help="Photos sent at once, one per player."),
    seed: int = typer.Option(1, "--seed", help="Seed of the photos."),
    level: LevelOption = "phone",
    jobs: int = typer.Option(2, "--jobs", min=1, help="Worker processes, for the page and the command line alike."),
    clients: int = typer.Option(4, "--clients", min=0, help="Phones asking for the page while it reads."),
    rounds: int = typer.Option(1, "--rounds", min=1, help="Times the photos are sent, each to a new game."),
    as_json: FiguresAsJson = False,
) -> None:
    """N photos sent at once to the table page while phones ask for it, then corrections; against
    `sheetscan score` on the same cores. Peak memory of the server with its workers, by round.

    Example: sheetscan bench serve --n 50 --jobs 2 --clients 50 --rounds 2
    """
    from sheetscan.lab.serving import bench_serve

    f = bench_serve(n, seed, level.value, jobs, clients, rounds=rounds)
    print_figures(f, as_json, f"{f['photos_read']} of {f['photos_sent']} read; by the page in {f['page_seconds']} s (round 1), "
                   f"by the command line in {f['command_line_seconds']} s; pages p95 {f['page_response_p95_ms']} ms "
                   f"({f['page_requests_failed']} of {f['page_requests_while_reading']} unanswered) while "
                   f"reading; a correction to the standings: median {f['correction_to_standings_ms_median']} ms; memory at "
                   f"most {f['server_and_workers_peak_mb_by_round']} MB by round (idle {f['server_and_workers_idle_mb']} MB)")
