"""Pictures for people: markers found, water read, each cell's reading and points, the audit.

All functions take a grey image and return a new BGR image; nothing is drawn in place.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from sheetscan.game.audit import Finding
from sheetscan.game.garden import Garden, SheetRecord, turn_text
from sheetscan.design.layout import Layout, Region, load_layout
from sheetscan.reading.locate import Located
from sheetscan.reading.read import GardenReading, REVIEW_BELOW
from sheetscan.reading.rectify import CANONICAL_PX_PER_MM
from sheetscan.game.rules import GRID_SIZE
from sheetscan.game.score import Score

WATER_TINT = (255, 170, 60)  # BGR
GOOD = (40, 150, 40)
DOUBT = (0, 0, 230)
FINDING = (0, 120, 255)
READING = (160, 60, 0)
LINE_PX = 22  # height of a line of the findings list under the audit picture
PANEL_CHARS = 110  # characters of a finding's sentence that fit across the sheet
FONT = cv2.FONT_HERSHEY_SIMPLEX


def _region_box(region: Region) -> tuple[int, int, int, int]:
    s = CANONICAL_PX_PER_MM
    return int(region.x * s), int(region.y * s), int(region.w * s), int(region.h * s)


def draw_markers(gray: np.ndarray, located: Located, layout: Layout) -> np.ndarray:
    """The photo with each fitted sheet's outline and its number."""
    image = cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
    thickness = max(2, max(gray.shape) // 400)
    for number, sheet in enumerate(located.sheets, start=1):
        corners = sheet.page_corners(layout)
        cv2.polylines(image, [np.round(corners).astype(np.int32)], True, GOOD, thickness, cv2.LINE_AA)
        label = f"sheet {number}: markers {','.join(map(str, sheet.marker_ids))}, {sheet.alignment_error_px:.1f} px"
        origin = tuple(int(v) for v in corners[0])
        cv2.putText(image, label, origin, FONT, thickness / 2, GOOD, thickness, cv2.LINE_AA)
    return image


def draw_water(canonical: np.ndarray, garden: Garden, water_probability: np.ndarray, layout: Layout) -> np.ndarray:
    """The rectified sheet with ``garden``'s water cells tinted and each cell's water probability."""
    image = cv2.cvtColor(canonical, cv2.COLOR_GRAY2BGR)
    tint = image.copy()
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            x, y, w, h = _region_box(layout.cell(r, c))
            if garden.is_water((r, c)):
                cv2.rectangle(tint, (x, y), (x + w, y + h), WATER_TINT, -1)
            probability = water_probability[r, c]
            close = min(probability, 1 - probability) > 1 - REVIEW_BELOW
            cv2.putText(image, f"{probability:.2f}", (x + 4, y + h - 6), FONT, 0.45, DOUBT if close else GOOD, 1, cv2.LINE_AA)
    return cv2.addWeighted(tint, 0.35, image, 0.65, 0)


def draw_cells(canonical: np.ndarray, garden: Garden, reading: GardenReading, garden_score: Score,
               layout: Layout) -> np.ndarray:
    """The rectified sheet with each cell's decoded reading, confidence and points; doubts in red."""
    image = draw_water(canonical, garden, reading.water_probability, layout)
    confidence = reading.cell_confidence()
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            x, y, w, h = _region_box(layout.cell(r, c))
            decoration = garden.decoration((r, c))
            name = decoration.category if decoration else "empty"
            if (r, c) in garden.tree_late:
                name += "*"
            colour = GOOD if confidence[r, c] >= REVIEW_BELOW else DOUBT
            cv2.putText(image, name, (x + 4, y + 16), FONT, 0.45, colour, 1, cv2.LINE_AA)
            points = garden_score.cells[r][c].points
            cv2.putText(image, f"{points:+d}", (x + w - 30, y + 16), FONT, 0.5, colour, 2, cv2.LINE_AA)
            if confidence[r, c] < REVIEW_BELOW:
                cv2.rectangle(image, (x + 2, y + 2), (x + w - 2, y + h - 2), DOUBT, 2)
    return image


def finding_regions(finding: Finding, layout: Layout) -> list[Region]:
    """The sheet regions a finding names: its cells and its boxes (``turn 4``, ``written moss``...)."""
    regions = [layout.cell(r, c) for r, c in finding.cells]
    for box in finding.boxes:
        kind, _, which = box.rpartition(" ")
        if box == "bonsai":
            regions.append(layout.region("bonsai"))
        elif kind == "written":
            regions.append(layout.region(f"score_{which}"))
        elif kind in ("turn", "pond icon"):
            regions.append(layout.region(f"{kind.replace(' ', '_')}_{int(which) - 1}"))
    return regions


def draw_audit(canonical: np.ndarray, garden: Garden, reading: GardenReading, garden_score: Score,
               record_text: dict[str, str], findings: tuple[Finding, ...], layout: Layout) -> np.ndarray:
    """The judge's picture: each cell's reading and points, each box's reading (``record_text``:
    region name to text), and every finding numbered on the sheet and listed below it."""
    image = draw_cells(canonical, garden, reading, garden_score, layout)
    for name, text in record_text.items():
        x, y, w, h = _region_box(layout.region(name))
        cv2.putText(image, text, (x + 2, y + h + 14), FONT, 0.45, READING, 1, cv2.LINE_AA)
    for number, finding in enumerate(findings, start=1):
        for region in finding_regions(finding, layout):
            x, y, w, h = _region_box(region)
            cv2.rectangle(image, (x, y), (x + w, y + h), FINDING, 3)
            cv2.putText(image, str(number), (x + 3, y + h - 4), FONT, 0.7, FINDING, 2, cv2.LINE_AA)
    lines = [f"{number}. [{f.kind}] {f.sentence}" for number, f in enumerate(findings, start=1)] or ["no findings"]
    panel = np.full((LINE_PX * (len(lines) + 1), image.shape[1], 3), 255, np.uint8)
    for index, line in enumerate(lines, start=1):
        cv2.putText(panel, line[:PANEL_CHARS], (10, index * LINE_PX), FONT, 0.5, FINDING if findings else GOOD, 1, cv2.LINE_AA)
    return np.vstack([image, panel])


def box_texts(record: SheetRecord, garden_score: Score) -> dict[str, str]:
    """What each box was decoded as, keyed by its region: turns, marks, written vs the rules."""
    texts = {f"turn_{i}": turn_text(turn) for i, turn in enumerate(record.turns)}
    texts.update({f"leaf_{i}": "marked" for i in range(record.bonsai_pruned)})
    texts.update({f"pond_icon_{i}": "marked" for i, marked in enumerate(record.ponds_marked) if marked})
    texts.update({f"score_{category}": f"{value} | {garden_score.breakdown[category]}"
                  for category, value in record.written.items()})
    return texts


def _write_sheet_pictures(result, folder: Path, inputs: set[Path], suffix: str, draw) -> list[Path]:
    """Write ``folder/<photo>-sheet<N>-<suffix>.png`` = ``draw(sheet)`` for each sheet of a
    photo's result, never over one of the ``inputs``; return the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for number, sheet in enumerate(result.sheets, start=1):
        path = folder / f"{Path(result.path).stem}-sheet{number}-{suffix}.png"
        if path.resolve() not in inputs:
            cv2.imwrite(str(path), draw(sheet))
            written.append(path)
    return written


def write_audit_pictures(result, folder: Path, inputs: set[Path]) -> list[Path]:
    """The judge's picture of each sheet of a photo (see draw_audit), as ``*-sheet<N>-audit.png``."""
    layout = load_layout()

    def draw(sheet) -> np.ndarray:
        record = sheet.decoded.record
        return draw_audit(sheet.canonical, record.garden, sheet.reading, sheet.score,
                          box_texts(record, sheet.score), sheet.decoded.findings, layout)

    return _write_sheet_pictures(result, folder, inputs, "audit", draw)


def write_name_crops(result, folder: Path, inputs: set[Path]) -> list[Path]:
    """Each sheet's name box, to tell whose it is, as ``*-sheet<N>-name.png``."""
    x, y, w, h = _region_box(load_layout().region("name"))
    return _write_sheet_pictures(result, folder, inputs, "name", lambda sheet: sheet.canonical[y : y + h, x : x + w])
