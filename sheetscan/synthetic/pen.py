"""A player's hand: pen, neatness and handwriting, drawing into an ink coverage mask.

Coverage masks are float32 arrays of shape (height, width), 0 (no ink) to 1 (full ink); the
sheet is inked once at the end, so overlapping strokes do not darken twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from sheetscan.synthetic.digits import another_sample, digits_mask
from sheetscan.synthetic.glyphs import Stroke

# Handwriting faces from Debian's font packages (.ci/setup installs them). The reader's
# training may hold some out; the list is data, and missing files are skipped.
HANDWRITING_FONTS = (
    "truetype/humor-sans/Humor-Sans.ttf",
    "opentype/comic-neue/ComicNeue-Regular.otf",
    "opentype/comic-neue/ComicNeue-Light.otf",
    "truetype/fifthhorseman/dkg.ttf",
    "truetype/breip/Breip.ttf",
    "truetype/rufscript/Rufscript010.ttf",
    "truetype/sjfonts/Delphine.ttf",
    "truetype/sjfonts/SteveHand.ttf",
    "truetype/kristi/Kristi.ttf",
    "opentype/dancingscript/DancingScript-Regular.otf",
    "opentype/kaushanscript/KaushanScript-Regular.otf",
    "truetype/tomsontalks/TomsonTalks.ttf",
    "opentype/bwht/BecauseWeLearn-Regular.otf",
    "opentype/bwht/BecauseWeOrganize-Regular.otf",
    "opentype/bwht/BecauseWeMentor-Regular.otf",
    "opentype/bwht/BecauseWeConnect-Regular.otf",
    "opentype/bwht/BecauseWeBuild-Regular.otf",
    "opentype/bwht/BecauseWeCreate-Regular.otf",
    "truetype/cabinsketch/CabinSketch-Regular.ttf",
    "truetype/dejavu/DejaVuSans.ttf",
)
FONT_ROOT = Path("/usr/share/fonts")
FONT_RENDER_PX = 96  # digits are drawn at this size, then scaled into their box

# Pens: BGR ink colour, opacity, stroke width in mm, and grain (pencil texture strength).
PENS = {
    "pencil": {"color": (70, 70, 75), "opacity": (0.55, 0.8), "width_mm": (0.35, 0.6), "grain": 0.45},
    "ballpoint": {"color": (120, 40, 20), "opacity": (0.8, 0.95), "width_mm": (0.3, 0.5), "grain": 0.1},
    "gel": {"color": (25, 25, 25), "opacity": (0.85, 0.97), "width_mm": (0.35, 0.55), "grain": 0.05},
    "felt": {"color": (30, 30, 35), "opacity": (0.9, 1.0), "width_mm": (0.7, 1.1), "grain": 0.0},
}
# Neatness: glyph size (fraction of the cell), the largest offset from the cell centre,
# rotation (degrees), point jitter and low-frequency wobble (fractions of the glyph).
NEATNESS = {
    "neat": {"size": (0.8, 1.0), "offset": 0.05, "rotation": 6, "jitter": 0.006, "wobble": 0.015},
    "normal": {"size": (0.7, 1.05), "offset": 0.08, "rotation": 12, "jitter": 0.01, "wobble": 0.03},
    "sloppy": {"size": (0.6, 1.1), "offset": 0.11, "rotation": 20, "jitter": 0.016, "wobble": 0.05},
}


def available_fonts() -> tuple[str, ...]:
    """The handwriting fonts present on this machine, as paths below FONT_ROOT."""
    return tuple(name for name in HANDWRITING_FONTS if (FONT_ROOT / name).exists())


@dataclass(frozen=True)
class HandStyle:
    """How one player draws: pen, neatness, handwriting font, ink, and stroke width."""

    pen: str
    neatness: str
    font: str
    color: tuple[int, int, int]
    opacity: float
    width_mm: float
    # Numbers in real handwriting: one sample of each digit (digits.py); None writes them in the font
    writer: tuple[int, ...] | None = None
    digit_source_px: int | None = None  # the writer's digits from a coarse source (digits.coarse_digit)
    writer_varies: bool = False  # each number in a new sample of each digit (digits.another_sample)

    @property
    def name(self) -> str:
        return f"{self.pen}-{self.neatness}"

    def to_dict(self) -> dict:
        return {"pen": self.pen, "neatness": self.neatness, "font": Path(self.font).stem,
                "opacity": round(self.opacity, 3), "width_mm": round(self.width_mm, 3),
                "digits": "font" if self.writer is None else list(self.writer),
                **({} if self.digit_source_px is None else {"digit_source_px": self.digit_source_px}),
                **({"writer_varies": True} if self.writer_varies else {})}


def random_style(rng: np.random.Generator, fonts: tuple[str, ...] | None = None) -> HandStyle:
    """A player's style drawn from ``rng`` (fonts: the faces to choose from)."""
    fonts = fonts or available_fonts()
    if not fonts:
        raise RuntimeError("no handwriting font found; run .ci/setup to install them")
    pen = str(rng.choice(sorted(PENS)))
    spec = PENS[pen]
    tint = rng.integers(-15, 16, 3)
    color = tuple(int(np.clip(c + t, 0, 255)) for c, t in zip(spec["color"], tint, strict=True))
    return HandStyle(
        pen=pen,
        neatness=str(rng.choice(list(NEATNESS))),
        font=str(rng.choice(fonts)),
        color=color,
        opacity=float(rng.uniform(*spec["opacity"])),
        width_mm=float(rng.uniform(*spec["width_mm"])),
    )


def resample(stroke: Stroke, step: float) -> Stroke:
    """Points along ``stroke`` every ``step`` units (so wobble bends long lines too)."""
    lengths = np.hypot(*np.diff(stroke, axis=0).T)
    total = lengths.sum()
    if total == 0:
        return stroke
    where = np.concatenate([[0], np.cumsum(lengths)])
    samples = np.linspace(0, total, max(2, int(total / step) + 1))
    return np.stack([np.interp(samples, where, stroke[:, 0]), np.interp(samples, where, stroke[:, 1])], axis=1)


def hand_strokes(strokes: list[Stroke], rng: np.random.Generator, neatness: str) -> list[Stroke]:
    """Unit-box strokes as a hand draws them: placed, turned, wobbled and jittered."""
    spec = NEATNESS[neatness]
    size = rng.uniform(*spec["size"])
    angle = np.radians(rng.uniform(-spec["rotation"], spec["rotation"]))
    aspect = rng.uniform(0.88, 1.12)
    shear = rng.uniform(-0.12, 0.12)
    offset = rng.uniform(-spec["offset"], spec["offset"], 2)
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    shape = rotation @ np.array([[aspect, shear], [0, 1 / aspect]]) * size
    phase = rng.uniform(0, 2 * np.pi, 4)
    result = []
    for stroke in strokes:
        points = resample(stroke, 0.04) - 0.5
        wobble = spec["wobble"] * np.stack(
            [np.sin(3 * points[:, 1] + phase[0]) + np.sin(5 * points[:, 0] + phase[1]),
             np.sin(3 * points[:, 0] + phase[2]) + np.sin(5 * points[:, 1] + phase[3])], axis=1)
        points = points + wobble + rng.normal(0, spec["jitter"], points.shape)
        result.append(points @ shape.T + 0.5 + offset)
    return result


def ink_strokes(coverage: np.ndarray, strokes: list[Stroke], box: tuple[float, float, float, float],
                width_px: float, *, strength: float = 1.0) -> None:
    """Add unit-box strokes, mapped into ``box`` = (x, y, w, h) pixels, to ``coverage``."""
    x, y, w, h = box
    points = [s * (w, h) + (x, y) for s in strokes]
    margin = width_px + 2
    every = np.concatenate(points)
    x0, y0 = np.maximum(np.floor(every.min(axis=0) - margin).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(every.max(axis=0) + margin).astype(int), (coverage.shape[1], coverage.shape[0]))
    if x1 <= x0 or y1 <= y0:
        return
    shift = 4  # sub-pixel precision bits for cv2 drawing
    polylines = [np.round((p - (x0, y0)) * (1 << shift)).astype(np.int32).reshape(-1, 1, 2) for p in points]
    roi = coverage[y0:y1, x0:x1]
    layer = np.zeros_like(roi)
    cv2.polylines(layer, polylines, False, strength, max(1, round(width_px)), cv2.LINE_AA, shift)
    np.maximum(roi, layer, out=roi)


@lru_cache(maxsize=64)
def _font(path: str) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_ROOT / path), FONT_RENDER_PX)


def text_mask(text: str, font: str, width_mm: float) -> np.ndarray:
    """``text`` in the handwriting ``font``: a float32 mask cropped to the ink, 0-1."""
    face = _font(font)
    left, top, right, bottom = face.getbbox(text)
    image = Image.new("L", (right - left + 8, bottom - top + 8), 0)
    stroke = max(0, round(width_mm * 2) - 1)  # heavier pens thicken the face's strokes
    ImageDraw.Draw(image).text((4 - left, 4 - top), text, fill=255, font=face, stroke_width=stroke, stroke_fill=255)
    mask = np.asarray(image, np.float32) / 255
    rows, cols = np.nonzero(mask > 0.05)
    if rows.size == 0:
        return mask
    return mask[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1]


def ink_text(coverage: np.ndarray, text: str, style: HandStyle, box: tuple[float, float, float, float],
             rng: np.random.Generator, *, height_frac: tuple[float, float] = (0.6, 0.85)) -> None:
    """Write ``text`` by hand into ``box`` = (x, y, w, h) pixels of ``coverage``."""
    x, y, w, h = box
    number = text.lstrip("-").isdigit()
    if number and style.writer:
        writer = another_sample(style.writer, rng) if style.writer_varies else style.writer
        mask = digits_mask(text, writer, style.digit_source_px)
    else:
        mask = text_mask(text, style.font, style.width_mm)
    spec = NEATNESS[style.neatness]
    angle = rng.uniform(-spec["rotation"], spec["rotation"]) * 0.5
    target_h = h * rng.uniform(*height_frac)
    scale = min(target_h / mask.shape[0], 0.92 * w / mask.shape[1])
    out_w, out_h = max(1, round(mask.shape[1] * scale)), max(1, round(mask.shape[0] * scale))
    cx = x + w / 2 + rng.uniform(-1, 1) * max(0, w - out_w) * 0.3
    cy = y + h / 2 + rng.uniform(-1, 1) * max(0, h - out_h) * 0.3
    matrix = cv2.getRotationMatrix2D((mask.shape[1] / 2, mask.shape[0] / 2), angle, scale)
    matrix[:, 2] += (cx - mask.shape[1] / 2, cy - mask.shape[0] / 2)
    x0, y0 = int(max(0, cx - out_w)), int(max(0, cy - out_h))
    x1, y1 = int(min(coverage.shape[1], cx + out_w)), int(min(coverage.shape[0], cy + out_h))
    matrix[:, 2] -= (x0, y0)
    patch = cv2.warpAffine(mask, matrix, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    np.maximum(coverage[y0:y1, x0:x1], patch, out=coverage[y0:y1, x0:x1])


def apply_ink(image: np.ndarray, coverage: np.ndarray, style: HandStyle, rng: np.random.Generator) -> np.ndarray:
    """The sheet with ``coverage`` inked in the style's pen (pencil gets a paper grain)."""
    grain = PENS[style.pen]["grain"]
    alpha = coverage * np.float32(style.opacity)
    if grain:
        small = rng.uniform(1 - grain, 1, (coverage.shape[0] // 2 + 1, coverage.shape[1] // 2 + 1)).astype(np.float32)
        alpha *= cv2.resize(small, (coverage.shape[1], coverage.shape[0]), interpolation=cv2.INTER_NEAREST)
    ink = np.empty_like(image)
    ink[:] = style.color
    return cv2.blendLinear(image, ink, 1 - alpha, alpha)
