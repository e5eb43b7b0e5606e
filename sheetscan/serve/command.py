"""``sheetscan serve``: the table's page, for every phone at the table."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

from sheetscan.errors import ExitCode
from sheetscan.names import DEFAULT_LAYOUT, LAYOUT_NAMES

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def default_data_folder() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("sheetscan", appauthor=False)) / "table"


# glibc's mallopt parameter for the most memory arenas (malloc.h's M_ARENA_MAX)
GLIBC_ARENA_MAX_PARAMETER = -8
# The page's threads (one per request in flight) each got an arena of their own from glibc, and
# each kept what it had freed: the server's memory grew by 2-5 MB for every 50 photos and had not
# levelled off after 1,000 (`sheetscan bench serve --rounds 20`). With 2 arenas it levels off
# after the first 100 photos.
MALLOC_ARENAS = 2


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """Ask glibc for at most ``arenas`` memory arenas from now on; False where the C library is
    not glibc (then nothing changes)."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(GLIBC_ARENA_MAX_PARAMETER, arenas))
    except (OSError, AttributeError):
        return False


def _address_for_phones(host: str, port: int) -> str:
    """The address phones on the network reach: this machine's own address when serving all."""
    if host not in ("0.0.0.0", "::"):
        return host
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def serve_command(
    host: str = typer.Option("127.0.0.1", "--host", help="Where to listen: 127.0.0.1 (this machine only) or "
                             "0.0.0.0 (phones on the network, with a join token in the QR code's link)."),
    port: int = typer.Option(8720, "--port", min=1, max=65535, help="The port."),
    data: Optional[Path] = typer.Option(None, "--data", help="Where games, photos and corrections are kept "
                                        "(default: sheetscan's folder in your user data directory)."),
    jobs: int = typer.Option(max(1, (os.cpu_count() or 2) - 1), "--jobs", min=1, help="Worker processes reading photos."),
    bgg_id: Optional[int] = typer.Option(None, "--bgg-id", help="BoardGameGeek id of the game, sent to BG Stats."),
    layout: str = typer.Option(DEFAULT_LAYOUT, "--layout", help=f"The sheets' design: {' or '.join(LAYOUT_NAMES)}, "
                               "or a layout file made by `sheetscan layout from-photo`."),
) -> None:
    """Open the table's page: each player photographs their sheet with their own phone, the
    scores and the winner appear on one page, any reading can be corrected there, and the play
    goes to BG Stats.

    Example: sheetscan serve --host 0.0.0.0
    """
    import segno
    import uvicorn

    from sheetscan.design.layout import LayoutError, layout_from
    from sheetscan.serve.app import create_app, join_token

    try:
        sheet_layout = layout_from(layout)
    except LayoutError as error:
        typer.echo(f"sheetscan: {error}", err=True)
        raise typer.Exit(int(ExitCode.bad_input)) from None

    limit_malloc_arenas()  # before uvicorn starts its threads
    token = None if host in LOCAL_HOSTS else join_token()
    url = f"http://{_address_for_phones(host, port)}:{port}/" + (f"?token={token}" if token else "")
    folder = data or default_data_folder()
    app = create_app(folder, token=token, jobs=jobs, url=url, bgg_id=bgg_id, layout=sheet_layout)
    typer.echo(f"sheetscan's table page: {url}\n(data in {folder}; Ctrl-C stops it)")
    segno.make(url).terminal(compact=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
