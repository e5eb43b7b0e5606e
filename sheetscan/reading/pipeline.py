"""The reading pipeline: photo -> sheets -> canonical images -> gardens -> scores.

Each stage is one call; ``Debug`` saves each stage's picture when ``--debug DIR`` is given.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np

from sheetscan.reading.boxes import BoxReading, box_models_for, load_box_models, read_boxes, without_written
from sheetscan.reading.decode import DecodedSheet, decode_sheet
from sheetscan.reading.labelling import sheet_remembered
from sheetscan.errors import (InputFileError, InternalError, Interrupted, ModelError, NoSheetError, SheetscanError,
                              UnreadableSheetError)
from sheetscan.design.layout import Layout, load_layout
from sheetscan.reading.locate import Located, SheetLocation, locate_sheets
from sheetscan.reading.pictures import draw_cells, draw_located, draw_water, save_picture
from sheetscan.reading.photo import Photo, load_photo
from sheetscan.reading.read import GardenReading, KnownDrawings, cell_models_for, load_cell_models, read_garden
from sheetscan.reading.register import registered_layout
from sheetscan.reading.verdict import Verdict, sheet_verdict
from sheetscan.reading.rectify import crop, rectify
from sheetscan.game.rules import RuleSet
from sheetscan.game.score import Score, points_bounds

DARK_PAPER = 60  # the paper's median grey below which a sheet is too dark to read
DARK_PHOTO = 35  # a photo this dark overall is reported as too dark, not as holding no sheet
BLURRED_PHOTO = 4.0  # variance of the Laplacian of a small copy below which a photo is blurred
QUALITY_LONG_SIDE = 800  # size of the small copy used for the quality checks
# A photo decoded at a reduced size (photo.py) is decoded again finer when a sheet in it has
# fewer pixels per mm than this: a table photo's sheets are small. Bench phone photos read well
# down to about 3 px/mm; the canonical image has 5.
MIN_SHEET_PX_PER_MM = 3.0
MIN_PHOTO_SIDE = 300  # pixels: an image smaller than this holds no readable sheet (1 px/mm on A4)


@dataclass(frozen=True)
class Debug:
    """Where to save each stage's picture (``--debug DIR``), named after the photo."""

    folder: Path | None
    stem: str

    def save(self, stage: str, draw: Callable[[], np.ndarray]) -> None:
        """Save the picture ``draw()`` makes, drawing it only when a folder was given."""
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            save_picture(self.folder / f"{self.stem}-{stage}.png", draw())


@dataclass(frozen=True)
class SheetResult:
    """One sheet of a photo: where it lay, what was read, the decoded record and its score."""

    location: SheetLocation
    corners: np.ndarray  # (4, 2) page corners in the photo's pixels
    canonical: np.ndarray | None  # the rectified sheet, (h, w) uint8; None if no picture was wanted
    reading: GardenReading  # the cell networks' view, before the decoder
    boxes: BoxReading
    decoded: DecodedSheet  # the record that best fits the readings and the rules, its score and findings
    verdict: Verdict  # sure, or the readings to check
    layout: Layout  # the sheet design it was read by

    @property
    def garden(self):
        return self.decoded.record.garden

    @property
    def score(self) -> Score:
        return self.decoded.score


@dataclass(frozen=True)
class PhotoResult:
    """A photo's sheets in reading order, or the error that stopped it."""

    path: str
    sheets: tuple[SheetResult, ...] = ()
    partial_sheets: int = 0  # sheets seen only in part (too few markers): reported, not read
    error: SheetscanError | None = None


def _explain_no_sheet(photo: Photo) -> SheetscanError:
    height, width = photo.gray.shape
    if max(height, width) * photo.scale < MIN_PHOTO_SIDE:
        return NoSheetError(f"no sheet found: the image is {width} x {height} pixels, too small to hold a readable sheet")
    factor = QUALITY_LONG_SIDE / max(photo.gray.shape)
    small = cv2.resize(photo.gray, None, fx=min(factor, 1.0), fy=min(factor, 1.0), interpolation=cv2.INTER_AREA)
    if np.median(small) < DARK_PHOTO:
        return UnreadableSheetError("too dark to find a sheet; take the photo in more light")
    if cv2.Laplacian(small, cv2.CV_64F).var() < BLURRED_PHOTO:
        return UnreadableSheetError("too blurred to find a sheet; hold the phone still and focus")
    return NoSheetError("no sheet found (no garden grid with the sheet's boxes around it, and no corner markers)")


def _reduction_for(photo: Photo, located: Located) -> int:
    """The least reduction (from the photo's) that gives every located sheet MIN_SHEET_PX_PER_MM,
    or full size (1) when none was located."""
    if not located.sheets:
        return 1
    smallest = min(sheet.px_per_mm for sheet in located.sheets)
    reduction = int(photo.scale)
    while reduction > 1 and smallest * photo.scale / reduction < MIN_SHEET_PX_PER_MM:
        reduction //= 2
    return reduction


def locate_photo(path: str | Path, layout: Layout) -> tuple[Photo, Located]:
    """The photo, decoded as finely as its sheets need, and its sheets located in it.

    A photo over 6 megapixels is decoded reduced (photo.py). Sheets found by their markers are
    carried over to a finer decode when small; sheets found by their grid (or none found) are
    looked for again in the finer decode, where a small sheet's thin lines show, and the decode
    that finds more is kept."""
    photo = load_photo(path)
    located = locate_sheets(photo.gray, layout)
    reduction = _reduction_for(photo, located)
    if reduction == photo.scale:
        return photo, located
    finer = load_photo(path, reduction)
    factor = photo.scale / finer.scale
    if located.sheets and all(sheet.found_by == "markers" for sheet in located.sheets):
        return finer, Located(tuple(sheet.scaled(factor) for sheet in located.sheets), located.partial)
    again = locate_sheets(finer.gray, layout)
    if len(again.sheets) >= len(located.sheets):
        return finer, again
    return finer, Located(tuple(sheet.scaled(factor) for sheet in located.sheets), located.partial)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused within it: a sheet's decode makes and drops
    hundreds of thousands of small records, freed as they go by their reference counts, and the
    collector's passes over them took 2-4% of a 12-MP read (any cycle left is collected after)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read_sheet(gray: np.ndarray, location: SheetLocation, layout: Layout, rules: RuleSet, scale: float,
               debug: Debug, number: int, keep_image: bool = True, sheet_learning: bool = True,
               known: KnownDrawings | None = None) -> SheetResult:
    canonical = rectify(gray, location, layout)
    debug.save(f"sheet{number}-1-rectified", lambda: canonical)
    paper = np.median(crop(canonical, layout.region("garden")))
    if paper < DARK_PAPER:
        raise UnreadableSheetError(f"sheet {number} is too dark to read (paper grey {paper:.0f}); use more light")
    reading = read_garden(canonical, layout, cell_models_for(location.px_per_mm), known=known)
    boxes_at = registered_layout(canonical, layout, location.px_per_mm)  # the boxes where printed, past the lens's bend
    boxes = read_boxes(canonical, boxes_at, box_models_for(location.px_per_mm), points_bounds(rules))
    with sheet_remembered(), collector_paused():  # the verdict's decode labels many of the decode's turn logs again
        decoded = decode_sheet(reading, boxes, rules, groups=sheet_learning)
        verdict = sheet_verdict(reading, boxes, decoded.record, decoded.score.breakdown, decoded.findings,
                                decoded_without_numbers=lambda: decode_sheet(reading, without_written(boxes), rules,
                                                                             groups=sheet_learning).record,
                                fitted=decoded.fitted, logs_fitted=decoded.logs_fitted, rules=rules)
    garden, garden_score = decoded.record.garden, decoded.score
    debug.save(f"sheet{number}-2-water", lambda: draw_water(canonical, garden, reading.water_probability, layout))
    debug.save(f"sheet{number}-3-cells", lambda: draw_cells(canonical, garden, reading, garden_score, layout))
    return SheetResult(location, location.page_corners(layout) * scale, canonical if keep_image else None, reading,
                       boxes, decoded, verdict, layout)


def read_photo(path: str | Path, rules: RuleSet = RuleSet(), debug_folder: Path | None = None,
               keep_images: bool = True, sheet_learning: bool = True, layout: Layout | None = None,
               known: KnownDrawings | None = None) -> PhotoResult:
    """Read and score every sheet of one photo; errors are returned in the result, not raised.
    Without ``keep_images`` the sheets' rectified images are dropped (1.5 MB a sheet); without
    ``sheet_learning`` the decoder does not read cells drawn alike together (for comparisons).
    ``layout`` is the sheets' design (the print-and-play sheet unless given); ``known``: the
    player's drawings a person labelled on an earlier sheet (a photo of one player's sheet)."""
    layout = layout or load_layout()
    debug = Debug(debug_folder, Path(path).stem)
    try:
        load_cell_models()  # a missing model is the installation's fault: raise it, do not blame the photo
        load_box_models()
        photo, located = locate_photo(path, layout)
        debug.save("0-located", lambda: draw_located(photo.gray, located, layout))
        if not located.sheets:
            raise _explain_no_sheet(photo)
        sheets = tuple(read_sheet(photo.gray, location, layout, rules, photo.scale, debug, number, keep_images,
                                  sheet_learning, known) for number, location in enumerate(located.sheets, start=1))
        return PhotoResult(str(path), sheets, located.partial)
    except InputFileError as error:  # its message names the file already
        return PhotoResult(str(path), error=error)
    except (NoSheetError, UnreadableSheetError) as error:
        return PhotoResult(str(path), error=type(error)(f"{path}: {error.message}"))
    except (ModelError, Interrupted):
        raise  # the installation's, or the user's Ctrl-C, not this photo's: they stop the batch
    except Exception as error:  # a bug met on this photo: said for it, and the batch goes on
        return PhotoResult(str(path), error=InternalError(f"{path}: internal error ({type(error).__name__}: {error}); "
                                                          "please report it with the photo"))
