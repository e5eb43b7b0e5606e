"""Opening photos as phones make them: JPEG, PNG, HEIC; EXIF orientation honoured.

Large photos are decoded at a reduced scale straight from the JPEG (libjpeg's DCT scaling):
a sheet needs about 5 px per mm, which a 12-megapixel photo gives at half size.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from sheetscan.errors import InputFileError

# Decode at 1/2 above this many pixels, at 1/4 above four times as many.
REDUCE_ABOVE_PIXELS = 6e6
MAX_PHOTO_PIXELS = 250e6  # larger than any phone's photo (200 MP): a larger image is refused unread
JPEG_START, JPEG_SCAN, JPEG_END = b"\xff\xd8", b"\xff\xda", b"\xff\xd9"
Image.MAX_IMAGE_PIXELS = None  # the size is checked here, with a message naming the file
# What libjpeg says (to the process's stderr, past Python) of a JPEG whose data is damaged
DAMAGED_JPEG_SAYS = ("Corrupt JPEG data", "Premature end of JPEG file", "Invalid JPEG file structure")
HEIC_SUFFIXES = (".heic", ".heif")


@dataclass(frozen=True)
class Photo:
    """A decoded photo, grey, and the factor from its pixels to the original's."""

    gray: np.ndarray  # (height, width) uint8
    scale: float  # original pixels per pixel of ``gray``


def _check_size(path: Path, image: Image.Image) -> int:
    """The pixels an opened (not yet decoded) image claims; InputFileError for one too large to
    decode (a decompression bomb is a few kilobytes on disk)."""
    width, height = image.size
    if width * height > MAX_PHOTO_PIXELS:
        raise InputFileError(str(path), f"too large to read ({width} x {height} pixels; at most "
                                        f"{MAX_PHOTO_PIXELS / 1e6:.0f} megapixels)")
    return width * height


def _reduction(path: Path) -> int:
    """How much to shrink the photo while decoding it, from its header (see _check_size)."""
    try:
        with Image.open(path) as image:
            pixels = _check_size(path, image)
    except (UnidentifiedImageError, OSError):
        return 1
    return 4 if pixels > 4 * REDUCE_ABOVE_PIXELS else 2 if pixels > REDUCE_ABOVE_PIXELS else 1


def _check_jpeg_whole(path: Path) -> None:
    """InputFileError for a JPEG cut short: its image data must end with the end marker (which
    entropy-coded data never holds; an EXIF thumbnail's comes before the image's scan)."""
    with path.open("rb") as file:
        data = file.read()
    if data.startswith(JPEG_START) and data.rfind(JPEG_END) < data.rfind(JPEG_SCAN):
        raise InputFileError(str(path), "a damaged JPEG (the file is cut short); copy the photo again")


REDUCED_FLAGS = {1: cv2.IMREAD_GRAYSCALE, 2: cv2.IMREAD_REDUCED_GRAYSCALE_2, 4: cv2.IMREAD_REDUCED_GRAYSCALE_4}


def _open_with_pillow(path: Path) -> np.ndarray:
    if path.suffix.lower() in HEIC_SUFFIXES:
        try:
            from pillow_heif import register_heif_opener
        except ImportError:
            raise InputFileError(str(path), "HEIC needs the pillow-heif package (pip install pillow-heif)") from None
        register_heif_opener()
    try:
        with Image.open(path) as image:
            _check_size(path, image)  # a HEIC's size is known only here
            return np.asarray(ImageOps.exif_transpose(image).convert("L"))
    except (UnidentifiedImageError, OSError, ValueError):
        raise InputFileError(str(path), "not an image (or a damaged one)") from None


def _quietly(decode):
    """``decode()`` and what C libraries wrote to the process's stderr meanwhile (libjpeg's
    warnings), which is kept from the user's terminal: (its result, the text)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            result = decode()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        capture.seek(0)
        return result, capture.read().decode(errors="replace")


def load_photo(path: str | Path, reduction: int | None = None) -> Photo:
    """Decode a photo in grey, a JPEG at 1/``reduction`` of its size (1, 2 or 4; default: by
    its size); raise InputFileError naming the file when it cannot be."""
    path = Path(path)
    if not path.exists():
        raise InputFileError(str(path), "no such file")
    if path.is_dir():
        raise InputFileError(str(path), "a folder holding no photo (JPEG, PNG, HEIC, TIFF, BMP, WebP)")
    try:
        with path.open("rb"):
            pass
    except OSError as error:  # no permission; a socket or a device in a photo's place
        raise InputFileError(str(path), f"cannot be read ({error.strerror or error})") from None
    if path.suffix.lower() not in HEIC_SUFFIXES:
        factor = reduction or _reduction(path)
        _check_jpeg_whole(path)
        gray, said = _quietly(lambda: cv2.imread(str(path), REDUCED_FLAGS[factor]))  # applies EXIF orientation
        damage = [line for line in said.splitlines() if line.startswith(DAMAGED_JPEG_SAYS)]
        if damage:
            raise InputFileError(str(path), f"a damaged JPEG ({damage[0].strip()}); copy the photo again")
        if gray is not None:
            return Photo(gray, float(factor))
    return Photo(_open_with_pillow(path), 1.0)
