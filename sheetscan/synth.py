"""The synthetic bench: legal games drawn by hand on the sheet and photographed, with truth.

Photo ``index`` of a run with ``seed`` depends on nothing else, so any photo can be remade
alone, byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .camera import LEVELS, photo_size, photograph
from .gardenfile import garden_to_dict, turn_to_dict
from .handdraw import draw_game
from .layout import MM_PER_INCH, load_layout
from .pen import random_style
from .sheet import render_sheet
from .simulate import play_game

DPI_CHOICES = (100, 150, 200, 250, 300)  # sheets are drawn at the nearest dpi above the photo's scale
TYPICAL_FILL = 0.85  # share of the photo's long side a sheet spans at most, about
PORTRAIT_CHANCE = 0.7  # of single-sheet photos
MISTAKE_RATE = 0.1  # chance a player's written scores hold a mistake


@dataclass(frozen=True)
class SynthPhoto:
    """One synthetic photo: JPEG bytes and its ground truth (the ``NNNN.json`` form)."""

    jpeg: bytes
    truth: dict


@lru_cache(maxsize=len(DPI_CHOICES))
def _blank(dpi: int) -> np.ndarray:
    image = render_sheet(dpi)
    image.setflags(write=False)
    return image


def sheet_dpi(size: tuple[int, int], sheets: int) -> int:
    """The drawing dpi that gives a sheet at least as many pixels as it covers in the photo."""
    page_h_mm = load_layout().page_mm[1]
    per_row = int(np.ceil(np.sqrt(sheets)))
    needed = TYPICAL_FILL * max(size) / per_row / (page_h_mm / MM_PER_INCH)
    return next((dpi for dpi in DPI_CHOICES if dpi >= needed), DPI_CHOICES[-1])


def synth_photo(index: int, seed: int, level: str, sheets_per_photo: int = 1,
                mistake_rate: float = MISTAKE_RATE, megapixels: float | None = None) -> SynthPhoto:
    """Make photo ``index`` of the run ``seed``: play, draw and photograph its sheets."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    rng = np.random.default_rng([seed, index, sheets_per_photo])
    portrait = sheets_per_photo == 1 and rng.random() < PORTRAIT_CHANCE
    size = photo_size(rng, level, portrait, megapixels)
    dpi = sheet_dpi(size, sheets_per_photo)
    layout = load_layout()
    drawn, games, styles = [], [], []
    for _ in range(sheets_per_photo):
        game = play_game(int(rng.integers(2**31)), mistake_rate=mistake_rate)
        style = random_style(rng)
        drawn.append(draw_game(_blank(dpi), game.record, layout, dpi, style, rng))
        games.append(game)
        styles.append(style)
    photo = photograph([d.image for d in drawn], level, size, rng)
    encoded, buffer = cv2.imencode(".jpg", photo.image, [cv2.IMWRITE_JPEG_QUALITY, photo.jpeg_quality])
    if not encoded:
        raise RuntimeError("OpenCV could not encode the photo as JPEG")
    sheets = []
    for game, style, sheet, corners in zip(games, styles, drawn, photo.corners, strict=True):
        record = game.record
        sheets.append({
            "garden": garden_to_dict(record.garden),
            "score": game.breakdown,
            "turns": [turn_to_dict(turn) for turn in record.turns],
            "bonsai_pruned": record.bonsai_pruned,
            "ponds_marked": list(record.ponds_marked),
            "written": dict(record.written),
            "corners": np.round(corners, 2).tolist(),
            "style": style.to_dict(),
            "name": sheet.name,
            "mark": sheet.mark,
            "distractors": list(sheet.distractors),
            "dpi": dpi,
            "skill": round(game.skill, 3),
        })
    truth = {"image": f"{index:04d}.jpg", "seed": seed, "index": index, "level": level,
             "jpeg_quality": photo.jpeg_quality, "camera": photo.params, "sheets": sheets}
    return SynthPhoto(buffer.tobytes(), truth)


def write_synth(out: Path, index: int, seed: int, level: str, sheets_per_photo: int = 1,
                megapixels: float | None = None) -> Path:
    """Write ``out/NNNN.jpg`` and ``out/NNNN.json``; return the image path."""
    photo = synth_photo(index, seed, level, sheets_per_photo, megapixels=megapixels)
    image_path = out / photo.truth["image"]
    image_path.write_bytes(photo.jpeg)
    (out / f"{index:04d}.json").write_text(json.dumps(photo.truth, indent=1))
    return image_path
