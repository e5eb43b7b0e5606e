"""The layout-from-a-photo bench: how often one blank photo of a design gives a whole layout,
and how well sheets read with such layouts against the design's own."""

from __future__ import annotations

import tempfile
from pathlib import Path

from sheetscan.design.layout import LayoutError, expand_layout, load_layout
from sheetscan.errors import SheetscanError
from sheetscan.lab.bench import bench_read
from sheetscan.reading.discover import discover_layout
from sheetscan.reading.photo import load_photo
from sheetscan.synthetic.synth import blank_photo, synth_photo


def bench_layout(count: int, seed: int, level: str, layout_name: str, reads: int, layouts_read: int,
                 say=None, filled: bool = False) -> dict:
    """Discover the layout of ``count`` blank photos of ``layout_name`` (``filled``: of filled
    sheets, markers hidden); read ``reads`` filled photos (seed + 1) with each of the first
    ``layouts_read`` layouts found, and with the design's own."""
    complete, failures, found = 0, {}, []
    with tempfile.TemporaryDirectory(prefix="sheetscan-layout-") as folder:
        path = Path(folder) / "blank.jpg"
        for index in range(count):
            photo = synth_photo(index, seed, level, layout_name=layout_name, markers="none") if filled else \
                blank_photo(index, seed, level, layout_name)
            path.write_bytes(photo.jpeg)
            try:
                discovered = discover_layout(load_photo(path).gray)
                if discovered.missing:
                    reason = "missing " + "; ".join(discovered.missing)
                else:
                    found.append((index, expand_layout(discovered.document)))
                    complete += 1
                    reason = None
            except (LayoutError, SheetscanError) as error:
                reason = str(error) if isinstance(error, LayoutError) else error.message
            if reason:
                failures[reason] = failures.get(reason, 0) + 1
            if say:
                say(f"layout {index}")
    keys = ("sheets_found", "decoration_accuracy", "water_accuracy", "tree_dot_accuracy", "exact_total")
    # its figures are the readings' only: the reads are not timed
    own = bench_read(reads, seed + 1, level, layout_name=layout_name, markers="none", timed=False)
    readings = [(index, bench_read(reads, seed + 1, level, layout_name=layout_name, markers="none", read_layout=layout,
                                   timed=False))
                for index, layout in found[:layouts_read]]
    return {
        "blank_photos": count, "filled": filled, "level": level, "seed": seed, "layout": layout_name,
        "layouts_complete": complete / count, "failures": failures,
        "read_photos": reads, "with_own_layout": {key: own[key] for key in keys},
        "with_found_layouts": [{"photo": index, **{key: reading[key] for key in keys}} for index, reading in readings],
        "own_layout_name": load_layout(layout_name).name,
    }
