"""A corpus of hostile inputs, made by code (nothing binary is committed), each with the exit
code it must give: damaged, huge and odd images, odd paths, malformed garden files and layouts.
`sheetscan bench robustness` runs them all; the test suite runs a sample."""

from __future__ import annotations

import io
import json
import socket
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from sheetscan.errors import ExitCode
from sheetscan.synthetic.negatives import PAGE_KINDS, negative_photo
from sheetscan.synthetic.synth import synth_photo

TRUNCATIONS = 60  # cut points through a good photo
BIT_FLIPS = 30  # photos with a few bytes of their image data changed
GOLDEN = Path(__file__).parents[2] / "tests" / "golden" / "08-rulebook-final-example.json"


@dataclass(frozen=True)
class Case:
    """One hostile input: its path, which command reads it, the exit codes it may give (several
    where the input is legitimately readable or not, e.g. a bit flip), and what it is."""

    path: Path
    command: str  # "score" (a photo or path), "rescore" (a garden file), "layout" (a layout file)
    codes: tuple[int, ...]
    what: str


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` grey pixels, with one row of data."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00" * (width + 1))) + \
        chunk(b"IEND", b"")


def _jpeg_claiming(jpeg: bytes, width: int, height: int) -> bytes:
    """``jpeg`` with its frame header (SOF0/SOF2) claiming another size."""
    data = bytearray(jpeg)
    for marker in (b"\xff\xc0", b"\xff\xc2"):
        at = data.find(marker)
        if at > 0:
            data[at + 5 : at + 9] = struct.pack(">HH", height, width)
            break
    return bytes(data)


def _tiff_claiming(width: int, height: int) -> bytes:
    """A small grey TIFF whose first page's tags claim ``width`` x ``height`` (at most 65535)."""
    data = bytearray(_encode(Image.new("L", (8, 8), 200), "TIFF"))
    order = "<" if data[:2] == b"II" else ">"
    ifd = struct.unpack(order + "I", data[4:8])[0]
    for k in range(struct.unpack(order + "H", data[ifd : ifd + 2])[0]):
        at = ifd + 2 + 12 * k
        tag, kind = struct.unpack(order + "HH", data[at : at + 4])
        if tag in (256, 257):  # ImageWidth, ImageLength: a SHORT (3) sits left in the 4-byte field
            value = width if tag == 256 else height
            data[at + 8 : at + 12] = struct.pack(order + "HH", value, 0) if kind == 3 else struct.pack(order + "I", value)
    return bytes(data)


def _heic_claiming(width: int, height: int) -> bytes:
    """A small HEIC whose image size boxes (``ispe``) claim ``width`` x ``height``."""
    from pillow_heif import register_heif_opener

    register_heif_opener()
    data = bytearray(_encode(Image.new("RGB", (64, 64), (200, 200, 200)), "HEIF"))
    at = data.find(b"ispe")
    while at >= 0:
        data[at + 8 : at + 16] = struct.pack(">II", width, height)  # after the box's version and flags
        at = data.find(b"ispe", at + 4)
    return bytes(data)


def _encode(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def _images(folder: Path, seed: int) -> list[Case]:
    good = synth_photo(0, seed, "scan", megapixels=2).jpeg
    rng = np.random.default_rng([seed, 99])
    cases = []

    def add(name: str, data: bytes, codes: tuple[int, ...], what: str) -> None:
        path = folder / name
        path.write_bytes(data)
        cases.append(Case(path, "score", codes, what))

    bad, ok, none, unreadable = int(ExitCode.bad_input), int(ExitCode.ok), int(ExitCode.no_sheet), int(ExitCode.unreadable)
    for k, share in enumerate(np.linspace(0.005, 0.995, TRUNCATIONS)):
        add(f"cut-{k:02d}.jpg", good[: int(len(good) * share)], (bad,), f"a JPEG cut at {share:.1%}")
    scan_start = good.rfind(b"\xff\xda") + 20
    for k in range(BIT_FLIPS):
        data = bytearray(good)
        for at in rng.integers(scan_start, len(data) - 2, size=int(rng.integers(1, 8))):
            data[at] ^= 1 << int(rng.integers(8))
        # a flipped bit in the image data decodes to a picture with a smear: read or not, never a crash
        add(f"flip-{k:02d}.jpg", bytes(data), (ok, bad, none, unreadable), "a JPEG with bits flipped")
    add("empty.jpg", b"", (bad,), "zero bytes")
    add("text.jpg", b"shopping list\n", (bad,), "text named .jpg")
    add("one-pixel.png", _encode(Image.new("L", (1, 1), 200), "PNG"), (none,), "1 x 1 pixel")
    add("one-pixel.jpg", _encode(Image.new("L", (1, 1), 200), "JPEG"), (none,), "1 x 1 pixel JPEG")
    add("bomb.png", _png_header(30000, 30000), (bad,), "a PNG claiming 30000 x 30000")
    add("bomb.jpg", _jpeg_claiming(good, 60000, 60000), (bad,), "a JPEG claiming 60000 x 60000")
    add("bomb.tif", _tiff_claiming(60000, 60000), (bad,), "a TIFF claiming 60000 x 60000")
    add("bomb.heic", _heic_claiming(30000, 30000), (bad,), "a HEIC claiming 30000 x 30000")
    photo = Image.open(io.BytesIO(good))
    for name, data in (
            ("grey.png", _encode(photo.convert("L"), "PNG")),
            ("sixteen-bit.png", _encode(Image.fromarray(np.asarray(photo.convert("L")).astype(np.uint16) * 257), "PNG")),
            ("palette.png", _encode(photo.convert("P", palette=Image.Palette.ADAPTIVE), "PNG")),
            ("alpha.png", _encode(photo.convert("RGBA"), "PNG")),
            ("cmyk.jpg", _encode(photo.convert("CMYK"), "JPEG", quality=92)),
            ("progressive.jpg", _encode(photo, "JPEG", quality=92, progressive=True)),
            ("animated.gif", _encode(photo.convert("P"), "GIF", save_all=True,
                                     append_images=[Image.new("P", photo.size)], duration=100)),
            ("pages.tif", _encode(photo, "TIFF", save_all=True, append_images=[Image.new("RGB", photo.size)])),
            ("png-named.jpg", _encode(photo, "PNG")),
            ("name with spaces é.jpg", good)):
        add(name, data, (ok,), f"a good photo: {name}")
    for orientation in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = orientation
        # the pixels stored so that the orientation tag turns them upright again
        turned = photo.transpose({2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
                                  4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
                                  6: Image.Transpose.ROTATE_90, 7: Image.Transpose.TRANSVERSE,
                                  8: Image.Transpose.ROTATE_270}[orientation]) if orientation > 1 else photo
        add(f"exif-{orientation}.jpg", _encode(turned, "JPEG", quality=92, exif=exif), (ok,), f"EXIF orientation {orientation}")
    for index, kind in enumerate(PAGE_KINDS):
        # no sheet claimed; a blurred photo of something else may be called blurred instead
        add(f"other-{kind}.jpg", cv2.imencode(".jpg", negative_photo(index, seed, "phone")[1])[1].tobytes(),
            (none, unreadable), f"no sheet of this game: {kind}")
    return cases


def _paths(folder: Path) -> list[Case]:
    bad = (int(ExitCode.bad_input),)
    empty = folder / "empty folder"
    empty.mkdir()
    loop = folder / "loop.jpg"
    loop.symlink_to(loop)
    socket_file = folder / "socket.jpg"
    with socket.socket(socket.AF_UNIX) as listener:  # a file no one can open, root included
        listener.bind(str(socket_file))
    locked = folder / "locked.jpg"
    locked.write_bytes(b"\xff\xd8 a photo no one may read")
    locked.chmod(0)
    # root reads it all the same (then it is a damaged JPEG): the code is the same
    return [Case(folder / "absent.jpg", "score", bad, "a missing file"),
            Case(empty, "score", bad, "a folder holding no photo"),
            Case(loop, "score", bad, "a symlink loop"),
            Case(socket_file, "score", bad, "a socket named .jpg"),
            Case(locked, "score", bad, "a file without read permission")]


def _mutations(document: dict, rng: np.random.Generator, count: int) -> list[dict | list | str | int | None]:
    """``count`` wrong shapes of ``document``: members dropped, retyped, resized, nested wrongly."""
    odd_values = [None, 7, -1, 2.5, "x", "", [], {}, [[]], ["......"] * 3, ["XXXXXX"] * 6, [[1, 2]], True, "🌸" * 6]
    shapes: list = [None, [], "garden", 42, [document]]
    keys = list(document)
    while len(shapes) < count:
        mutated = json.loads(json.dumps(document))
        for _ in range(int(rng.integers(1, 4))):
            key = keys[int(rng.integers(len(keys)))]
            choice = rng.random()
            if choice < 0.3:
                mutated.pop(key, None)
            elif choice < 0.8 or not isinstance(mutated.get(key), (dict, list)):
                mutated[key] = odd_values[int(rng.integers(len(odd_values)))]
            elif isinstance(mutated[key], dict) and mutated[key]:
                inner = list(mutated[key])[int(rng.integers(len(mutated[key])))]
                mutated[key][inner] = odd_values[int(rng.integers(len(odd_values)))]
            else:
                mutated[key] = mutated[key][: int(rng.integers(len(mutated[key]) + 1))]
        shapes.append(mutated)
    return shapes


def _documents(folder: Path, seed: int, gardens: int, layouts: int) -> list[Case]:
    from sheetscan.design.layout import load_layout

    rng = np.random.default_rng([seed, 98])
    cases = []
    garden = json.loads(GOLDEN.read_text())
    for k, document in enumerate(_mutations(garden, rng, gardens)):
        path = folder / f"garden-{k:03d}.json"
        path.write_text(json.dumps(document))
        # a mutation may leave a valid garden (a dropped optional member): then it scores
        cases.append(Case(path, "rescore", (int(ExitCode.ok), int(ExitCode.bad_input)), "a garden file reshaped"))
    for k, document in enumerate(_mutations(load_layout("pad").document, rng, layouts)):
        path = folder / f"layout-{k:03d}.json"
        path.write_text(json.dumps(document))
        cases.append(Case(path, "layout", (int(ExitCode.ok), int(ExitCode.bad_input)), "a layout file reshaped"))
    broken = folder / "garden-broken.json"
    broken.write_text('{"cells": ["......"')
    cases.append(Case(broken, "rescore", (int(ExitCode.bad_input),), "a garden file cut short"))
    return cases


def make_corpus(folder: Path, seed: int = 0, gardens: int = 120, layouts: int = 60) -> list[Case]:
    """Write the corpus into ``folder``: at least 300 inputs with the defaults."""
    folder.mkdir(parents=True, exist_ok=True)
    return _images(folder, seed) + _paths(folder) + _documents(folder, seed, gardens, layouts)


def _outcome(case: Case) -> tuple[int, bool]:
    """(exit code, whether a sheet was read) of one case, run in this process as the command would."""
    if case.command == "score":
        from sheetscan.reading.pipeline import read_photo

        result = read_photo(case.path, keep_images=False)
        return (int(result.error.exit_code) if result.error else 0), bool(result.sheets)
    if case.command == "rescore":
        from sheetscan.game.rescore import rescore_file

        return (int(ExitCode.bad_input) if rescore_file(case.path).error else 0), False
    from sheetscan.design.layout import LayoutError, layout_from

    try:
        layout_from(str(case.path))
    except LayoutError:
        return int(ExitCode.bad_input), False
    return 0, False


def run_corpus(cases: list[Case], say=None) -> dict:
    """Run every case: its exit code against the documented ones, no exception escaping, the
    slowest case's seconds; then the photos and paths as one real `sheetscan score --json`
    batch: one line per input, no traceback, the worst code as its exit."""
    import resource
    import subprocess
    import sys
    import time

    wrong, tracebacks, damaged_read, slowest = [], [], 0, (0.0, "")
    for case in cases:
        start = time.perf_counter()
        try:
            code, read = _outcome(case)
        except Exception as error:  # a crash is what this corpus looks for
            tracebacks.append(f"{case.path.name}: {type(error).__name__}: {error}")
            code, read = -1, False
        seconds = time.perf_counter() - start
        slowest = max(slowest, (seconds, case.path.name))
        if code != -1 and code not in case.codes:
            wrong.append(f"{case.path.name} ({case.what}): exit {code}, expected {'/'.join(map(str, case.codes))}")
        damaged_read += read and case.codes == (int(ExitCode.bad_input),)
        if say:
            say(case.path.name)
    photos = [str(case.path) for case in cases if case.command == "score"]
    batch = subprocess.run([sys.executable, "-m", "cli", "score", "--json", "--jobs", "2", *photos],
                           capture_output=True, text=True, cwd=Path(__file__).parents[2])
    lines = batch.stdout.splitlines()
    return {
        "inputs": len(cases), "wrong_exit_codes": wrong, "tracebacks": tracebacks, "damaged_read_as_sheet": damaged_read,
        "slowest_seconds": round(slowest[0], 2), "slowest": slowest[1],
        "peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "batch_lines": len(lines), "batch_inputs": len(photos), "batch_exit": batch.returncode,
        "batch_tracebacks": batch.stderr.count("Traceback"),
    }
