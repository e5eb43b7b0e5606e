"""``sheetscan layout ...``: a sheet design's layout made from a photo of it, with a picture of
what was found, to check it before reading with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from sheetscan.errors import ExitCode, SheetscanError
from sheetscan.files import write_atomically
from sheetscan.names import HELP_MARKUP

layout_app = typer.Typer(help="Make a layout for a printed sheet design from a photo of it.", no_args_is_help=True,
                         rich_markup_mode=HELP_MARKUP)
KIND_COLOURS = {"garden": (0, 160, 220), "turn": (200, 90, 0), "score": (40, 150, 40), "pond_icon": (180, 0, 180),
                "name": (0, 0, 220), "leaf": (0, 120, 255)}  # BGR


def draw_discovered(found) -> "object":
    """The upright page with every region found outlined in its kind's colour."""
    import cv2

    from sheetscan.reading.printed import PAGE_PX_PER_MM

    image = cv2.cvtColor(found.page, cv2.COLOR_GRAY2BGR)
    for kind, boxes in found.drawn.items():
        for box in boxes:
            corners = [(int(round(x * PAGE_PX_PER_MM)), int(round(y * PAGE_PX_PER_MM)))
                       for x, y in ((box.x, box.y), (box.x + box.w, box.y + box.h))]
            cv2.rectangle(image, corners[0], corners[1], KIND_COLOURS[kind], 3, cv2.LINE_AA)
    return image


@layout_app.command("from-photo")
def from_photo_command(
    photo: Path = typer.Argument(..., help="A photo of one sheet of the design, blank or filled (blank is surer)."),
    out: Path = typer.Option(..., "--out", help="The layout file to write (JSON)."),
    picture: Optional[Path] = typer.Option(None, "--picture", help="Where to draw what was found (PNG; default: "
                                           "beside --out, named after it)."),
    cell_mm: float = typer.Option(20.0, "--cell-mm", min=5.0, max=60.0, help="A garden cell's side, which sets the "
                                  "layout's millimetres (reading depends only on proportions)."),
    name: str = typer.Option("a sheet design found in a photo", "--name", help="The layout's name."),
) -> None:
    """Find a printed sheet's garden grid, turn boxes and their sub-boxes, bonsai leaves, pond
    icons and scoring boxes in one photo of it; write its layout, to read with --layout FILE.

    Example: sheetscan layout from-photo blank-pad.jpg --out my-pad.json
    """
    from sheetscan.design.layout import LayoutError
    from sheetscan.reading.discover import discover_layout
    from sheetscan.reading.photo import load_photo
    from sheetscan.reading.pictures import save_picture

    picture = picture or out.with_suffix(".png")
    if out.resolve() == photo.resolve() or picture.resolve() == photo.resolve():
        _fail(f"{out}: would overwrite the photo; name another file")
    try:
        found = discover_layout(load_photo(photo).gray, cell_mm, name)
    except LayoutError as error:
        _fail(f"{photo}: the boxes found do not make a usable layout ({error})", ExitCode.unreadable)
    except SheetscanError as error:
        _fail(f"{photo}: {error.problem if hasattr(error, 'problem') else error.message}", error.exit_code)
    try:
        save_picture(picture, draw_discovered(found))
        if not found.missing:
            write_atomically(out, lambda path: path.write_text(json.dumps(found.document, indent=1) + "\n"))
    except OSError as error:
        _fail(f"{error.filename or out}: cannot write there ({error.strerror or error})")
    if found.missing:
        _fail(f"{photo}: could not find {'; '.join(found.missing)} (see {picture}); no layout written",
              ExitCode.unreadable)
    lens = f"; a lens bend of k = {found.lens_k:+.3f} straightened first" if found.lens_k else ""
    typer.echo(f"wrote {out} (page {found.document['page_mm'][0]:g} x {found.document['page_mm'][1]:g} mm{lens}) and {picture}")


def _fail(message: str, code: ExitCode = ExitCode.bad_input) -> None:
    typer.echo(f"sheetscan: {message}", err=True)
    raise typer.Exit(int(code))
