"""The synthetic bench: legal games drawn by hand on the sheet and photographed, with truth.

Photo ``index`` of a run with ``seed`` depends on nothing else, so any photo can be remade
alone, byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from sheetscan.files import write_atomically
from sheetscan.synthetic.camera import LEVELS, photo_size, photograph
from sheetscan.synthetic.digits import pick_source_px, pick_writer
from sheetscan.game.gardenfile import garden_to_dict, turn_to_dict
from sheetscan.game.garden import SheetRecord, Turn, TurnKind
from sheetscan.synthetic.handdraw import CROSSED_OUT_CHANCE, draw_game, player_drawings
from sheetscan.design.layout import MM_PER_INCH, Layout, load_layout
from sheetscan.synthetic.pen import random_style
from sheetscan.game.rules import MAX_PRUNINGS
from sheetscan.synthetic.sheet import render_sheet
from sheetscan.game.simulate import play_game
from sheetscan.names import DEFAULT_LAYOUT, MARKER_PRINTS

DPI_CHOICES = (100, 150, 200, 250, 300)  # sheets are drawn at the nearest dpi above the photo's scale
TYPICAL_FILL = 0.85  # share of the photo's long side a sheet spans at most, about
PORTRAIT_CHANCE = 0.7  # of single-sheet photos
MISTAKE_RATE = 0.1  # chance a player's written scores hold a mistake
REAL_DIGITS_CHANCE = 0.5  # chance a player writes numbers in real handwriting (digits.py), not a font
# Scrambled sheets (training data for the box reader) fill their boxes at random, not by the
# game: every digit, turn kind and written number is then common, and strike-outs frequent.
SCRAMBLED_TURN_KINDS = {TurnKind.DRAW: 0.55, TurnKind.PRUNE: 0.3, TurnKind.SKIP: 0.15}
SCRAMBLED_NEGATIVE = 0.3  # share of written numbers with a minus sign
SCRAMBLED_CROSSED_OUT = 0.6  # chance a scrambled sheet has a struck-out number


@dataclass(frozen=True)
class SynthPhoto:
    """One synthetic photo: JPEG bytes and its ground truth (the ``NNNN.json`` form)."""

    jpeg: bytes
    truth: dict


@lru_cache(maxsize=4 * len(DPI_CHOICES))
def _blank(dpi: int, hidden_markers: frozenset[int] = frozenset(), layout_name: str = DEFAULT_LAYOUT) -> np.ndarray:
    image = render_sheet(dpi, load_layout(layout_name), hidden_markers=hidden_markers)
    image.setflags(write=False)
    return image


def hidden_markers(markers: str, rng: np.random.Generator, layout: Layout) -> frozenset[int]:
    """The markers left unprinted on a sheet whose markers are printed as ``markers``
    (MARKER_PRINTS): none, all, or one to three of the four at random (a layout without
    markers has none to hide)."""
    ids = layout.marker_ids
    if markers not in MARKER_PRINTS:
        raise ValueError(f"markers must be one of {', '.join(MARKER_PRINTS)}, not {markers!r}")
    if markers == "all" or not ids:
        return frozenset()
    if markers == "none":
        return frozenset(ids)
    count = int(rng.integers(1, len(ids)))
    return frozenset(int(i) for i in rng.choice(ids, count, replace=False))


def sheet_dpi(size: tuple[int, int], sheets: int, layout: Layout) -> int:
    """The drawing dpi that gives a sheet at least as many pixels as it covers in the photo."""
    page_h_mm = layout.page_mm[1]
    per_row = int(np.ceil(np.sqrt(sheets)))
    needed = TYPICAL_FILL * max(size) / per_row / (page_h_mm / MM_PER_INCH)
    return next((dpi for dpi in DPI_CHOICES if dpi >= needed), DPI_CHOICES[-1])


def scrambled_record(record: SheetRecord, rng: np.random.Generator) -> SheetRecord:
    """``record`` with its turn boxes, marks and written numbers filled at random (the garden kept)."""
    kinds = list(SCRAMBLED_TURN_KINDS)

    def die() -> int:
        return int(rng.integers(1, 7))

    turns = []
    for _ in range(len(record.turns)):
        kind = kinds[rng.choice(len(kinds), p=list(SCRAMBLED_TURN_KINDS.values()))]
        if kind is TurnKind.DRAW:
            turns.append(Turn(kind, (die(), die()), location=die()))
        elif kind is TurnKind.PRUNE:
            turns.append(Turn(kind, (die(),), cell=(die() - 1, die() - 1)))
        else:
            turns.append(Turn(kind))
    written = {}
    for category in record.written:
        magnitude = int(rng.integers(0, 10) if rng.random() < 0.5 else rng.integers(10, 100))
        written[category] = -magnitude if rng.random() < SCRAMBLED_NEGATIVE else magnitude
    return SheetRecord(record.garden, tuple(turns), int(rng.integers(0, MAX_PRUNINGS + 1)),
                       tuple(bool(m) for m in rng.random(len(record.ponds_marked)) < 0.5), written)


def synth_photo(index: int, seed: int, level: str, sheets_per_photo: int = 1,
                mistake_rate: float = MISTAKE_RATE, megapixels: float | None = None,
                scramble: bool = False, held_out_styles: bool = False, markers: str = "all",
                layout_name: str = DEFAULT_LAYOUT, player: int | None = None, coarse_digits: bool = False,
                varied_digits: bool = False, fresh_styles: bool = False, fresh_trained: bool = False,
                unseen_styles: bool = False) -> SynthPhoto:
    """Make photo ``index`` of the run ``seed``: play, draw and photograph its sheets.

    ``player``: the sheet is drawn and written by the hand of photo ``player``'s (first) sheet,
    its ways to draw and its digits, in another game: a player's next sheet.

    ``scramble`` fills the boxes at random (``scrambled_record``): training data only.
    ``held_out_styles`` draws every sheet with the archetypes held out of training alone;
    ``fresh_styles`` with the fresh ones alone (out of the cell networks' training and of tuning),
    ``unseen_styles`` with the unseen ones alone (out of all training and tuning), their digits
    written by held-out writers. ``fresh_trained``: its hands draw the fresh ways beside the others (a
    training plan that learns them: archetypes.choices).
    ``coarse_digits`` writes every real writer's digits from a coarse source (digits.py): a
    measure only, no training photo has them. ``varied_digits`` has every real writer write each
    number with a new sample of each digit (a writer who does not copy themselves, or an
    evaluation drawing a sample per box): a measure only.
    ``markers`` prints the corner markers as MARKER_PRINTS says; the games, hands and camera
    are the same whatever it is, so runs with and without markers compare sheet for sheet.
    ``layout_name`` is the sheet design drawn (LAYOUT_NAMES).
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    rng = np.random.default_rng([seed, index, sheets_per_photo])
    portrait = sheets_per_photo == 1 and rng.random() < PORTRAIT_CHANCE
    size = photo_size(rng, level, portrait, megapixels)
    layout = load_layout(layout_name)
    dpi = sheet_dpi(size, sheets_per_photo, layout)
    # Each concern draws from its own stream, so that a new way to draw moves neither the games
    # nor the camera (nor a scrambled record the games).
    scrambler = np.random.default_rng([seed, index, sheets_per_photo, 1])
    hands = np.random.default_rng([seed, index, sheets_per_photo, 2])
    camera = np.random.default_rng([seed, index, sheets_per_photo, 3])
    writers = np.random.default_rng([seed, index if player is None else player, sheets_per_photo, 4])
    players_hand = None if player is None else np.random.default_rng([seed, player, sheets_per_photo, 2])
    printer = np.random.default_rng([seed, index, sheets_per_photo, 5])
    drawn, games, records, styles, drawings, hidden_per_sheet = [], [], [], [], [], []
    for _ in range(sheets_per_photo):
        game = play_game(int(rng.integers(2**31)), mistake_rate=mistake_rate)
        record = scrambled_record(game.record, scrambler) if scramble else game.record
        style = random_style(rng)
        unseen = held_out_styles or fresh_styles or unseen_styles
        if unseen or writers.random() < REAL_DIGITS_CHANCE:  # held out: always a writer never trained on
            style = replace(style, writer=pick_writer(writers, unseen))
            if coarse_digits:
                style = replace(style, digit_source_px=pick_source_px(writers))
            if varied_digits:
                style = replace(style, writer_varies=True)
        hand = player_drawings(players_hand or hands, held_out_styles, fresh_styles, fresh_trained, unseen_styles)
        hidden = hidden_markers(markers, printer, layout)
        hidden_per_sheet.append(sorted(hidden))
        drawn.append(draw_game(_blank(dpi, hidden, layout_name), record, layout, dpi, style, hand, hands,
                               crossed_out_chance=SCRAMBLED_CROSSED_OUT if scramble else CROSSED_OUT_CHANCE))
        games.append(game)
        records.append(record)
        styles.append(style)
        drawings.append(hand)
    photo = photograph([d.image for d in drawn], level, size, camera)
    encoded, buffer = cv2.imencode(".jpg", photo.image, [cv2.IMWRITE_JPEG_QUALITY, photo.jpeg_quality])
    if not encoded:
        raise RuntimeError("OpenCV could not encode the photo as JPEG")
    sheets = []
    for game, record, style, hand, sheet, corners, hidden in zip(games, records, styles, drawings, drawn, photo.corners,
                                                                  hidden_per_sheet, strict=True):
        sheets.append({
            "garden": garden_to_dict(record.garden),
            "score": game.breakdown,
            "turns": [turn_to_dict(turn) for turn in record.turns],
            "bonsai_pruned": record.bonsai_pruned,
            "ponds_marked": list(record.ponds_marked),
            "written": dict(record.written),
            "corners": np.round(corners, 2).tolist(),
            "style": style.to_dict(),
            "drawings": hand.names,
            "name": sheet.name,
            "mark": sheet.mark,
            "distractors": list(sheet.distractors),
            "hidden_markers": hidden,
            "dpi": dpi,
            "skill": round(game.skill, 3),
        })
    truth = {"image": f"{index:04d}.jpg", "seed": seed, "index": index, "level": level, "layout": layout_name,
             "jpeg_quality": photo.jpeg_quality, "camera": photo.params, "sheets": sheets}
    return SynthPhoto(buffer.tobytes(), truth)


def blank_photo(index: int, seed: int, level: str, layout_name: str = DEFAULT_LAYOUT) -> SynthPhoto:
    """Photo ``index`` of the run ``seed``: one blank sheet of ``layout_name`` photographed at
    ``level`` (what `layout from-photo` learns a design from)."""
    rng = np.random.default_rng([seed, index, 7])
    size = photo_size(rng, level, portrait=bool(rng.random() < PORTRAIT_CHANCE))
    layout = load_layout(layout_name)
    photo = photograph([_blank(sheet_dpi(size, 1, layout), frozenset(), layout_name)], level, size, rng)
    encoded, buffer = cv2.imencode(".jpg", photo.image, [cv2.IMWRITE_JPEG_QUALITY, photo.jpeg_quality])
    if not encoded:
        raise RuntimeError("OpenCV could not encode the photo as JPEG")
    truth = {"image": f"{index:04d}.jpg", "seed": seed, "index": index, "level": level, "layout": layout_name,
             "blank": True, "camera": photo.params, "sheets": [{"corners": np.round(photo.corners[0], 2).tolist()}]}
    return SynthPhoto(buffer.tobytes(), truth)


def match_truth(truth_sheets: list[dict], read_corners: list[np.ndarray]) -> list[tuple[dict, int]]:
    """Pairs (truth sheet, index into ``read_corners``) whose page corners (photo pixels) agree
    within a tenth of the page's diagonal."""
    pairs = []
    for truth in truth_sheets:
        corners = np.array(truth["corners"])
        size = np.linalg.norm(corners[2] - corners[0])
        near = [i for i, read in enumerate(read_corners) if np.linalg.norm(read - corners, axis=1).mean() < 0.1 * size]
        if near:
            pairs.append((truth, near[0]))
    return pairs


def write_synth(out: Path, index: int, seed: int, level: str, sheets_per_photo: int = 1,
                megapixels: float | None = None, held_out_styles: bool = False, markers: str = "all",
                layout_name: str = DEFAULT_LAYOUT, blank: bool = False, fresh_styles: bool = False,
                unseen_styles: bool = False) -> Path:
    """Write ``out/NNNN.jpg`` and ``out/NNNN.json``; return the image path. ``blank``: one
    unfilled sheet (blank_photo)."""
    photo = blank_photo(index, seed, level, layout_name) if blank else synth_photo(
        index, seed, level, sheets_per_photo, megapixels=megapixels, held_out_styles=held_out_styles, markers=markers,
        layout_name=layout_name, fresh_styles=fresh_styles, unseen_styles=unseen_styles)
    image_path = out / photo.truth["image"]
    write_atomically(image_path, lambda temporary: temporary.write_bytes(photo.jpeg))
    write_atomically(out / f"{index:04d}.json", lambda temporary: temporary.write_text(json.dumps(photo.truth, indent=1)))
    return image_path
