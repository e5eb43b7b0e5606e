"""The sheet layout: every printed box in millimetres, loaded from package data and validated.

The layout file is compact (groups with steps); ``load_layout`` expands it into named regions
that the sheet renderer, the hand renderer and every reader use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from sheetscan.game.rules import CATEGORIES, GRID_SIZE, TURN_COUNT, TURNS_PER_SEASON, Season
from sheetscan.names import DEFAULT_LAYOUT, LAYOUT_NAMES

MM_PER_INCH = 25.4
TURN_PARTS = ("first", "second", "location")


class LayoutError(ValueError):
    """A layout file that does not describe a usable sheet."""


@dataclass(frozen=True)
class Region:
    """A rectangle of the sheet in millimetres from the page's top-left corner."""

    name: str
    kind: str  # marker, title, name, bonsai, leaf, turn, turn_part, cell, pond_icon, score, ...
    x: float
    y: float
    w: float
    h: float

    def px(self, dpi: float) -> tuple[int, int, int, int]:
        """(x, y, w, h) in whole pixels at ``dpi``."""
        s = dpi / MM_PER_INCH
        x0, y0 = round(self.x * s), round(self.y * s)
        return x0, y0, round((self.x + self.w) * s) - x0, round((self.y + self.h) * s) - y0

    @property
    def center(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2


@dataclass(frozen=True)
class Layout:
    """A sheet design: page size, marker dictionary and every named region."""

    name: str
    page_mm: tuple[float, float]
    marker_dictionary: str
    marker_ids: tuple[int, ...]  # in corner order: top-left, top-right, bottom-right, bottom-left
    title_text: str
    seasons: tuple[str, ...]
    regions: tuple[Region, ...]
    garden_border_mm: float = 0.0  # the width of the garden's outer line, centred half of it outside the cells
    garden_line_mm: float = 0.35  # the width of its inner lines
    document: dict = field(default_factory=dict, repr=False, compare=False)  # the compact form it was expanded from
    _by_name: dict[str, Region] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "_by_name", {region.name: region for region in self.regions})

    def region(self, name: str) -> Region:
        return self._by_name[name]

    def of_kind(self, kind: str) -> list[Region]:
        return [region for region in self.regions if region.kind == kind]

    def cell(self, row: int, col: int) -> Region:
        return self.region(f"cell_{row}_{col}")

    def turn_part(self, turn_index: int, part: str) -> Region:
        return self.region(f"turn_{turn_index}_{part}")

    def page_px(self, dpi: float) -> tuple[int, int]:
        """(width, height) of the page in pixels at ``dpi``."""
        s = dpi / MM_PER_INCH
        return round(self.page_mm[0] * s), round(self.page_mm[1] * s)

    def to_dict(self, dpi: float) -> dict:
        """Every region in millimetres and in pixels at ``dpi`` (the ``--layout-json`` form)."""
        width, height = self.page_px(dpi)
        return {
            "name": self.name,
            "page_mm": list(self.page_mm),
            "dpi": dpi,
            "page_px": [width, height],
            "marker_dictionary": self.marker_dictionary,
            "marker_ids": list(self.marker_ids),
            "regions": [
                {
                    "name": r.name,
                    "kind": r.kind,
                    "mm": [r.x, r.y, r.w, r.h],
                    "px": list(r.px(dpi)),
                }
                for r in self.regions
            ],
        }


def _box(item: dict, name: str, kind: str, dx: float = 0, dy: float = 0) -> Region:
    return Region(name, kind, item["x"] + dx, item["y"] + dy, item["w"], item["h"])


def expand_layout(document: dict[str, Any]) -> Layout:
    """Expand a compact layout document into regions; raise LayoutError when it is unusable."""
    try:
        regions = []
        markers = document.get("markers") or {"dictionary": "", "size_mm": 0, "corners": []}  # a pad has none
        size = markers["size_mm"]
        for corner in markers["corners"]:
            regions.append(Region(f"marker_{corner['id']}", "marker", corner["x"], corner["y"], size, size))
        regions.append(_box(document["title"], "title", "title"))
        regions.append(_box(document["name_box"], "name", "name"))
        bonsai = document["bonsai"]
        regions.append(_box(bonsai, "bonsai", "bonsai"))
        regions += [_box(leaf, f"leaf_{i}", "leaf") for i, leaf in enumerate(bonsai["leaves"])]
        turns = document["turns"]
        for index in range(TURN_COUNT):
            season, column = divmod(index, TURNS_PER_SEASON)
            x = turns["x"] + column * turns["step_x"]
            y = turns["y"] + season * turns["step_y"]
            if column == 0:
                label_w = turns["x"] - turns["label_x"] - 1
                regions.append(Region(f"season_{season}", "season", turns["label_x"], y, label_w, turns["box_h"]))
            regions.append(Region(f"turn_{index}", "turn", x, y, turns["box_w"], turns["box_h"]))
            for part in TURN_PARTS:
                regions.append(_box(turns["sub_boxes"][part], f"turn_{index}_{part}", "turn_part", x, y))
        garden = document["garden"]
        step = garden["cell_mm"]
        regions.append(Region("garden", "garden", garden["x"], garden["y"], step * GRID_SIZE, step * GRID_SIZE))
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                regions.append(Region(f"cell_{r}_{c}", "cell", garden["x"] + c * step, garden["y"] + r * step, step, step))
        icons = document["pond_icons"]
        for season in range(len(Season)):
            regions.append(_box(icons, f"pond_icon_{season}", "pond_icon", dx=season * icons.get("step_x", 0),
                                dy=season * icons.get("step_y", 0)))
        regions.append(_box(document["summary"], "summary", "summary"))
        scoring = document["scoring"]
        for i, category in enumerate(scoring["categories"]):
            dx = i * scoring["step_x"]
            regions.append(_box(scoring, f"score_{category}", "score", dx=dx))
            label = Region(f"score_label_{category}", "score_label", scoring["x"] + dx,
                           scoring["y"] - scoring["label_h"], scoring["w"], scoring["label_h"])
            regions.append(label)
        layout = Layout(
            name=document["name"],
            page_mm=(float(document["page_mm"][0]), float(document["page_mm"][1])),
            marker_dictionary=markers["dictionary"],
            marker_ids=tuple(corner["id"] for corner in markers["corners"]),
            title_text=document["title"]["text"],
            seasons=tuple(turns["seasons"]),
            regions=tuple(regions),
            garden_border_mm=float(garden.get("border_mm", 0.0)),
            garden_line_mm=float(garden.get("line_mm", 0.35)),
            document=document,
        )
        validate_layout(layout, scoring["categories"])  # a member of the wrong type fails here too
    except (KeyError, TypeError, IndexError, AttributeError, ValueError) as error:
        raise LayoutError(f"layout is missing or has a malformed member ({error})") from None
    return layout


def validate_layout(layout: Layout, categories: list[str]) -> None:
    """Check what every reader relies on; raise LayoutError naming the first problem."""
    if layout.marker_ids and len(set(layout.marker_ids)) != 4:
        raise LayoutError("layout needs 4 markers with distinct ids, or none")
    names = [region.name for region in layout.regions]
    if len(names) != len(set(names)):
        raise LayoutError("layout has two regions of the same name")
    width, height = layout.page_mm
    for region in layout.regions:
        if region.w <= 0 or region.h <= 0:
            raise LayoutError(f"region {region.name} has no area")
        if region.x < 0 or region.y < 0 or region.x + region.w > width or region.y + region.h > height:
            raise LayoutError(f"region {region.name} lies outside the page")
    if list(categories) != list(CATEGORIES):
        raise LayoutError(f"scoring categories must be {', '.join(CATEGORIES)}")
    if len(layout.of_kind("leaf")) != 3 or len(layout.seasons) != len(Season):
        raise LayoutError("layout needs 3 bonsai leaves and 4 seasons")
    ink_boxes = layout.of_kind("cell") + layout.of_kind("turn") + layout.of_kind("pond_icon") + layout.of_kind("score")
    for i, first in enumerate(ink_boxes):
        for second in ink_boxes[i + 1 :]:
            if _overlap(first, second):
                raise LayoutError(f"regions {first.name} and {second.name} overlap")
    for index, turn in enumerate(layout.of_kind("turn")):
        parts = [layout.turn_part(index, part) for part in TURN_PARTS]
        for part in parts:
            if not _holds_centre(turn, part):
                raise LayoutError(f"sub-box {part.name} lies outside {turn.name}")
            if any(other is not part and _holds_centre(other, part) for other in parts):
                raise LayoutError(f"sub-boxes of {turn.name} lie on one another ({part.name})")
    for marker in layout.of_kind("marker"):
        for box in ink_boxes:
            if _overlap(marker, box):
                raise LayoutError(f"marker {marker.name} overlaps {box.name}")


def _holds_centre(a: Region, b: Region) -> bool:
    """Whether ``b``'s centre lies inside ``a`` (boxes found by a line's either edge may overlap
    by its width, never by half a box)."""
    return a.x <= b.x + b.w / 2 <= a.x + a.w and a.y <= b.y + b.h / 2 <= a.y + a.h


def _overlap(a: Region, b: Region) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


@lru_cache(maxsize=None)
def load_layout(name: str = DEFAULT_LAYOUT) -> Layout:
    """One of the package's layouts (LAYOUT_NAMES): the print-and-play sheet by default."""
    if name not in LAYOUT_NAMES:
        raise LayoutError(f"no layout named {name!r}; the package has {', '.join(LAYOUT_NAMES)}")
    text = resources.files("sheetscan.design.data").joinpath(f"{name}.json").read_text()
    return expand_layout(json.loads(text))


def layout_from(name_or_path: str) -> Layout:
    """A layout by its package name, or read from a layout file (the ``layout from-photo`` form);
    LayoutError names the file and its problem."""
    if name_or_path in LAYOUT_NAMES:
        return load_layout(name_or_path)
    try:
        document = json.loads(Path(name_or_path).read_text())
    except OSError as error:
        raise LayoutError(f"{name_or_path}: cannot read the layout ({error.strerror or error})") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise LayoutError(f"{name_or_path}: not a layout file (not JSON: {error})") from None
    if not isinstance(document, dict):
        raise LayoutError(f"{name_or_path}: not a layout file (not a JSON object)")
    try:
        return expand_layout(document)
    except LayoutError as error:
        raise LayoutError(f"{name_or_path}: {error}") from None
