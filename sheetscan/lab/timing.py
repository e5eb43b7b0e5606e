"""A 12-MP read timed against cv2.imread of the same JPEG, on one core, in the same run.

One photo's sheet can be slow or quick to decode (a hand no network saw is decoded with its
drawings labelled together, and some sheets take many tries), so several photos are timed: the
first photo's ratio is the figure the benches have always given, the median and the slowest
of TIMED_PHOTOS say how typical it is.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import cv2
import numpy as np

from sheetscan.design.layout import Layout
from sheetscan.lab.peak import peak_memory_kib
from sheetscan.synthetic.synth import synth_photo

TIMED_PHOTOS = 5


def _timed(path: Path, layout: Layout, repeats: int) -> tuple[float, float]:
    """Median seconds of ``repeats`` reads of ``path`` and of as many imreads, taken in turn."""
    from sheetscan.reading.pipeline import read_photo

    reads, decodes = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        cv2.imread(str(path))
        decodes.append(time.perf_counter() - start)
        start = time.perf_counter()
        read_photo(path, layout=layout)
        reads.append(time.perf_counter() - start)
    return float(np.median(reads)), float(np.median(decodes))


def read_speed(folder: Path, seed: int, level: str, markers: str, layout_name: str, layout: Layout,
               held_out_styles: bool, writing: dict | None = None, repeats: int = 7) -> dict:
    """Median time to read a 12-megapixel JPEG on one core, against cv2.imread of it (photo 0 of
    run ``seed + 1``), the same ratio for TIMED_PHOTOS such photos (median and slowest), and the
    peak memory of a whole ``sheetscan score`` process on photo 0. Its sheets are drawn in the
    run's hands and ``writing``."""
    from sheetscan.reading.pipeline import read_photo

    paths = []
    for index in range(TIMED_PHOTOS):
        paths.append(folder / f"twelve-{index}.jpg")
        paths[-1].write_bytes(synth_photo(index, seed + 1, level, megapixels=12, markers=markers, layout_name=layout_name,
                                          held_out_styles=held_out_styles, **(writing or {})).jpeg)
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        read_photo(paths[0], layout=layout)  # load the model once, as a batch does
        timed = [_timed(path, layout, repeats if index == 0 else max(1, repeats // 2)) for index, path in enumerate(paths)]
    finally:
        cv2.setNumThreads(threads)
    layout_file = folder / "layout.json"
    layout_file.write_text(json.dumps(layout.document))
    # its memory counts whatever it finds (a layout made from a photo may miss this sheet: exit 3)
    peak_kib = peak_memory_kib(["score", "--json", "--layout", str(layout_file), str(paths[0])])
    (read, decode), ratios = timed[0], [read / decode for read, decode in timed]
    return {"read_seconds_12mp": round(read, 4), "decode_seconds_12mp": round(decode, 4),
            "read_to_decode_ratio": round(read / decode, 2), "peak_memory_mb": round(peak_kib / 1024),
            "read_to_decode_ratio_by_photo": [round(ratio, 2) for ratio in ratios],
            "read_to_decode_ratio_median": round(float(np.median(ratios)), 2),
            "read_to_decode_ratio_slowest": round(max(ratios), 2)}
