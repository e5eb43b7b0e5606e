"""The locator's bench: sheets found with all, none or some of their markers printed, and
sheets claimed on photos of no sheet of this game."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from sheetscan.design.layout import Layout, load_layout
from sheetscan.lab.stats import wilson_interval
from sheetscan.names import DEFAULT_LAYOUT, MARKER_PRINTS
from sheetscan.reading.pipeline import locate_photo
from sheetscan.synthetic.negatives import PAGE_KINDS, negative_photo
from sheetscan.synthetic.synth import match_truth, synth_photo


def _located(path: Path, layout: Layout) -> tuple[list[np.ndarray], list[float], list[str], float]:
    """The page corners (photo pixels) and scales of the sheets located in ``path`` (as a read
    does: a finer decode where the sheets are small), how each was found, and the seconds it
    took, decoding included."""
    start = time.perf_counter()
    photo, located = locate_photo(path, layout)
    seconds = time.perf_counter() - start
    return ([s.page_corners(layout) * photo.scale for s in located.sheets],
            [s.px_per_mm * photo.scale for s in located.sheets], [s.found_by for s in located.sheets], seconds)


def bench_locate(count: int, seed: int, level: str, sheets_per_photo: int, negatives: int, say=None,
                 layout_name: str = DEFAULT_LAYOUT) -> dict:
    """Locate the sheets of ``count`` synthetic photos of ``layout_name`` with each way of
    printing the markers (the same sheets each time; a design without markers is tried once),
    and of ``negatives`` photos of no sheet of this game."""
    layout = load_layout(layout_name)
    figures: dict = {"photos": count, "level": level, "seed": seed, "sheets_per_photo": sheets_per_photo,
                     "layout": layout_name, "by_markers": {}}
    with tempfile.TemporaryDirectory(prefix="sheetscan-locate-") as folder:
        path = Path(folder) / "photo.jpg"
        for markers in MARKER_PRINTS if layout.marker_ids else ("none",):
            sheets = found = invented = 0
            errors, seconds, by = [], [], {"markers": 0, "grid": 0}
            for index in range(count):
                photo = synth_photo(index, seed, level, sheets_per_photo, markers=markers, layout_name=layout_name)
                path.write_bytes(photo.jpeg)
                corners, scales, found_by, took = _located(path, layout)
                pairs = match_truth(photo.truth["sheets"], corners)
                sheets += len(photo.truth["sheets"])
                found += len(pairs)
                invented += len(corners) - len(pairs)
                seconds.append(took)
                for truth, i in pairs:
                    errors.append(float(np.linalg.norm(corners[i] - np.array(truth["corners"]), axis=1).max() / scales[i]))
                    by[found_by[i]] += 1
                if say:
                    say(f"{markers} {index}")
            figures["by_markers"][markers] = {
                "sheets": sheets, "sheets_found": found / max(sheets, 1),
                "sheets_found_interval": [round(b, 4) for b in wilson_interval(found, sheets)],
                "invented": invented, "found_by": by,
                # the worst page corner's distance from the truth, in millimetres of the page
                "corner_error_mm_median": round(float(np.median(errors)), 2) if errors else None,
                "corner_error_mm_p95": round(float(np.percentile(errors, 95)), 2) if errors else None,
                "locate_seconds_median": round(float(np.median(seconds)), 4),
            }
        claimed = {kind: 0 for kind in PAGE_KINDS}
        for index in range(negatives):
            kind, image = negative_photo(index, seed, level)
            cv2.imwrite(str(path), image)
            claimed[kind] += len(_located(path, layout)[0])
            if say:
                say(f"negative {index}")
    figures["negatives"] = {"photos": negatives, "sheets_claimed": sum(claimed.values()), "claimed_by_kind": claimed}
    return figures
