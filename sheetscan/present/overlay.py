"""Pictures for people: the judge's audit picture of each sheet, and its name box.

All functions take a grey image and return a new BGR image; nothing is drawn in place.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from sheetscan.design.layout import Layout, Region
from sheetscan.game.audit import Finding
from sheetscan.game.garden import Garden, SheetRecord, turn_text
from sheetscan.game.score import Score
from sheetscan.reading.pictures import FONT, GOOD, draw_cells, region_box, save_picture
from sheetscan.reading.read import GardenReading

FINDING = (0, 120, 255)
READING = (160, 60, 0)
LINE_PX = 22  # height of a line of the findings list under the audit picture
PANEL_CHARS = 110  # characters of a finding's sentence that fit across the sheet


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
        x, y, w, h = region_box(layout.region(name))
        cv2.putText(image, text, (x + 2, y + h + 14), FONT, 0.45, READING, 1, cv2.LINE_AA)
    for number, finding in enumerate(findings, start=1):
        for region in finding_regions(finding, layout):
            x, y, w, h = region_box(region)
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
            save_picture(path, draw(sheet))
            written.append(path)
    return written


def write_audit_pictures(result, folder: Path, inputs: set[Path]) -> list[Path]:
    """The judge's picture of each sheet of a photo (see draw_audit), as ``*-sheet<N>-audit.png``."""
    def draw(sheet) -> np.ndarray:
        record = sheet.decoded.record
        return draw_audit(sheet.canonical, record.garden, sheet.reading, sheet.score,
                          box_texts(record, sheet.score), sheet.decoded.findings, sheet.layout)

    return _write_sheet_pictures(result, folder, inputs, "audit", draw)


def name_box(sheet) -> np.ndarray:
    """A read sheet's name box, cut from its rectified image: whose sheet it is."""
    x, y, w, h = region_box(sheet.layout.region("name"))
    return sheet.canonical[y : y + h, x : x + w]


def write_name_crops(result, folder: Path, inputs: set[Path]) -> list[Path]:
    """Each sheet's name box, to tell whose it is, as ``*-sheet<N>-name.png``."""
    return _write_sheet_pictures(result, folder, inputs, "name", name_box)
