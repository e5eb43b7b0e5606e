"""The blank print-and-play sheet, drawn from the layout.

Images are BGR uint8 arrays of shape (height, width, 3) at a given dpi.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from sheetscan.files import write_atomically
from sheetscan.synthetic.glyphs import GLYPHS, Stroke, bonsai_pot, pond_icon
from sheetscan.design.layout import MM_PER_INCH, Layout, Region, load_layout
from sheetscan.game.rules import CATEGORIES, GRID_SIZE, Decoration

PAPER = (250, 250, 250)
INK = (40, 40, 40)  # the printed lines and text
LIGHT_INK = (150, 150, 150)  # sub-box outlines, printed hints
FONT = cv2.FONT_HERSHEY_SIMPLEX
SUMMARY_TEXT = {
    Decoration.LANTERN: ("3: others 4+ away", "-1 in water"),
    Decoration.BAMBOO: ("2: next to bamboo", "-1 in water"),
    Decoration.TREE: ("1, spring/summer 2", "(dot) -1 in water"),
    Decoration.ROCK: ("1, in water 2", "0 by a rock"),
    Decoration.MOSS: ("1 per water side", "-1 in water"),
    Decoration.BRIDGE: ("1/4/9/15 in water", "-1 on earth"),
}
SCORE_LABELS = {"lantern": "LANT", "bamboo": "BAMB", "penalty": "PEN", "total": "TOTAL"}


def mm_to_px(value_mm: float, dpi: float) -> float:
    return value_mm * dpi / MM_PER_INCH


def draw_strokes(
    image: np.ndarray,
    strokes: list[Stroke],
    box: tuple[float, float, float, float],
    *,
    color: tuple[int, ...],
    thickness: int,
) -> None:
    """Draw unit-box strokes into ``box`` = (x, y, w, h) pixels of ``image``, antialiased."""
    x, y, w, h = box
    shift = 4  # sub-pixel precision bits for cv2 drawing
    scale = 1 << shift
    polylines = [
        np.round((stroke * (w, h) + (x, y)) * scale).astype(np.int32).reshape(-1, 1, 2) for stroke in strokes
    ]
    cv2.polylines(image, polylines, False, color, thickness, cv2.LINE_AA, shift)


def _text(image: np.ndarray, text: str, region: Region, dpi: float, *, height_frac: float = 0.7,
          color=INK, align: str = "center") -> None:
    """Printed text fitted into a region (height ``height_frac`` of it, shrunk to fit its width)."""
    x, y, w, h = region.px(dpi)
    target = h * height_frac
    (tw, th), _ = cv2.getTextSize(text, FONT, 1.0, 1)
    scale = min(target / th, 0.95 * w / tw)
    thickness = max(1, round(scale * 1.6))
    (tw, th), _ = cv2.getTextSize(text, FONT, scale, thickness)
    left = x + (w - tw) // 2 if align == "center" else x + round(0.03 * w)
    cv2.putText(image, text, (left, y + (h + th) // 2), FONT, scale, color, thickness, cv2.LINE_AA)


def _rect(image: np.ndarray, region: Region, dpi: float, color=INK, thickness: int = 1) -> None:
    x, y, w, h = region.px(dpi)
    cv2.rectangle(image, (x, y), (x + w, y + h), color, thickness, cv2.LINE_AA)


def _markers(image: np.ndarray, layout: Layout, dpi: float, hidden: frozenset[int]) -> None:
    if not layout.marker_ids:
        return
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.marker_dictionary))
    for marker_id in layout.marker_ids:
        if marker_id in hidden:
            continue
        x, y, w, h = layout.region(f"marker_{marker_id}").px(dpi)
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, w)
        image[y : y + w, x : x + w] = cv2.cvtColor(marker, cv2.COLOR_GRAY2BGR)


def _garden(image: np.ndarray, layout: Layout, dpi: float) -> None:
    garden = layout.region("garden")
    x, y, w, h = garden.px(dpi)
    line = max(1, round(mm_to_px(layout.garden_line_mm, dpi)))
    for i in range(1, GRID_SIZE):
        cx = layout.cell(0, i).px(dpi)[0]
        cy = layout.cell(i, 0).px(dpi)[1]
        cv2.line(image, (cx, y), (cx, y + h), INK, line, cv2.LINE_AA)
        cv2.line(image, (x, cy), (x + w, cy), INK, line, cv2.LINE_AA)
    border = max(2, round(mm_to_px(layout.garden_border_mm, dpi)))
    cv2.rectangle(image, (x - border // 2, y - border // 2), (x + w + border // 2, y + h + border // 2), INK, border)
    cell_mm = layout.cell(0, 0).w
    for i in range(GRID_SIZE):
        top = layout.cell(0, i)
        left = layout.cell(i, 0)
        _text(image, str(i + 1), Region("col", "label", top.x, top.y - 6.5, top.w, 5), dpi)
        _text(image, str(i + 1), Region("row", "label", left.x - 6.5, left.y, 5, cell_mm), dpi, height_frac=0.25)


def _turns(image: np.ndarray, layout: Layout, dpi: float) -> None:
    for season, label in enumerate(layout.seasons):
        _text(image, label, layout.region(f"season_{season}"), dpi, height_frac=0.4, align="left")
    for index in range(len(layout.of_kind("turn"))):
        _rect(image, layout.region(f"turn_{index}"), dpi, INK, max(1, round(mm_to_px(0.35, dpi))))
        first, second, location = (layout.turn_part(index, part) for part in ("first", "second", "location"))
        for part in (first, second, location):
            _rect(image, part, dpi, LIGHT_INK)
        gap = Region("slash", "label", second.x + second.w, second.y, location.x - second.x - second.w, second.h)
        _text(image, "/", gap, dpi, height_frac=0.6, color=LIGHT_INK)


def _bonsai(image: np.ndarray, layout: Layout, dpi: float) -> None:
    bonsai = layout.region("bonsai")
    thickness = max(1, round(mm_to_px(0.5, dpi)))
    draw_strokes(image, bonsai_pot(), bonsai.px(dpi), color=INK, thickness=thickness)
    for leaf in layout.of_kind("leaf"):
        x, y, w, h = leaf.px(dpi)
        cv2.ellipse(image, (x + w // 2, y + h // 2), (w // 2, h // 3), -30, 0, 360, INK, thickness, cv2.LINE_AA)
        cv2.line(image, (x + w // 4, y + 3 * h // 4), (x + 3 * w // 4, y + h // 4), LIGHT_INK, 1, cv2.LINE_AA)


def _pond_icons(image: np.ndarray, layout: Layout, dpi: float) -> None:
    thickness = max(1, round(mm_to_px(0.45, dpi)))
    for season, icon in enumerate(layout.of_kind("pond_icon")):
        _rect(image, icon, dpi, LIGHT_INK)
        draw_strokes(image, pond_icon(), icon.px(dpi), color=INK, thickness=thickness)
        label = Region("pond_season", "label", icon.x, icon.y + icon.h, icon.w, 4)
        _text(image, layout.seasons[season], label, dpi, height_frac=0.8, color=LIGHT_INK)


def _summary(image: np.ndarray, layout: Layout, dpi: float) -> None:
    summary = layout.region("summary")
    row_h = summary.h / len(Decoration)
    thickness = max(1, round(mm_to_px(0.4, dpi)))
    for i, decoration in enumerate(Decoration):
        top = summary.y + i * row_h
        glyph = Region("glyph", "label", summary.x, top + 1, row_h * 0.55, row_h * 0.55)
        draw_strokes(image, GLYPHS[decoration], glyph.px(dpi), color=INK, thickness=thickness)
        name = Region("name", "label", summary.x + row_h * 0.6, top + 3, summary.w - row_h * 0.6, 5)
        _text(image, decoration.category.upper(), name, dpi, height_frac=0.7, align="left")
        for k, line in enumerate(SUMMARY_TEXT[decoration]):
            rule = Region("rule", "label", summary.x, top + row_h * 0.6 + k * 3.2, summary.w, 3)
            _text(image, line, rule, dpi, height_frac=0.8, color=LIGHT_INK, align="left")


def _scoring(image: np.ndarray, layout: Layout, dpi: float) -> None:
    for category in CATEGORIES:
        box = layout.region(f"score_{category}")
        heavy = category == "total"
        _rect(image, box, dpi, INK, max(1, round(mm_to_px(0.8 if heavy else 0.35, dpi))))
        label = SCORE_LABELS.get(category, category.upper())
        _text(image, label, layout.region(f"score_label_{category}"), dpi, height_frac=0.7)


def render_sheet(dpi: float = 150, layout: Layout | None = None, hidden_markers: frozenset[int] = frozenset()) -> np.ndarray:
    """The blank sheet at ``dpi``: (height, width, 3) uint8 BGR; ``hidden_markers`` are left
    unprinted (a sheet without markers, or with some covered)."""
    layout = layout or load_layout()
    width, height = layout.page_px(dpi)
    image = np.full((height, width, 3), PAPER, np.uint8)
    _markers(image, layout, dpi, hidden_markers)
    _text(image, layout.title_text, layout.region("title"), dpi)
    name = layout.region("name")
    _rect(image, name, dpi)
    _text(image, "NAME", Region("name_label", "label", name.x - 14, name.y, 13, name.h), dpi, height_frac=0.45)
    _bonsai(image, layout, dpi)
    _turns(image, layout, dpi)
    _garden(image, layout, dpi)
    _pond_icons(image, layout, dpi)
    _summary(image, layout, dpi)
    _scoring(image, layout, dpi)
    return image


def write_sheet(path: Path, dpi: float = 300, layout: Layout | None = None) -> None:
    """Write the blank sheet of ``layout`` as PDF (by suffix) or PNG, at ``dpi``."""
    image = render_sheet(dpi, layout)
    rgb = Image.fromarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
    if path.suffix.lower() == ".pdf":
        write_atomically(path, lambda temporary: rgb.save(temporary, "PDF", resolution=dpi))
    else:
        write_atomically(path, lambda temporary: rgb.save(temporary, "PNG", dpi=(dpi, dpi)))
