"""How well a sheet's drawings tell their kinds apart: the share of drawings whose most alike other
drawing on their sheet is the same kind, by HOG, by the drawing network and by both (as
groups.drawing_similarity adds them). Training's validation, and ``sheetscan bench drawings``."""

from __future__ import annotations

import numpy as np

from sheetscan.reading.read import CLASSES as CELL_CLASSES


def sheet_kinds(labels: np.ndarray) -> np.ndarray:
    """Decoration class indices as kinds: a tree with its Spring/Summer mark is the same drawing."""
    return np.where(labels == CELL_CLASSES["decoration"].index("tree_late"), CELL_CLASSES["decoration"].index("tree"), labels)


def nearest_same_kind(similarity_of, patches: np.ndarray, kinds: np.ndarray, sheets: np.ndarray) -> float:
    """The share of drawings whose most alike other drawing on their sheet (by
    ``similarity_of(patches) -> (n, n)``) is the same kind."""
    right = seen = 0
    for sheet in np.unique(sheets):
        own = np.flatnonzero(sheets == sheet)
        if len(own) < 2:
            continue
        similarity = similarity_of(patches[own])
        np.fill_diagonal(similarity, -np.inf)
        right += int((kinds[own][similarity.argmax(axis=1)] == kinds[own]).sum())
        seen += len(own)
    return right / max(seen, 1)


def alike_shares(samples, net) -> dict[str, float]:
    """nearest_same_kind of the decorated cells of ``samples`` (dataset.collect's, kind
    "drawings") by HOG alone, by the drawing network ``net`` alone and by both."""
    from sheetscan.reading.groups import drawing_features, drawing_similarity

    decorated = samples.labels["drawing"] > 0
    patches, kinds = samples.patches["drawing"][decorated], sheet_kinds(samples.labels["drawing"][decorated])
    sheets = samples.sheet_ids["drawing"][decorated]
    return {"hog": nearest_same_kind(lambda p: drawing_features(p) @ drawing_features(p).T, patches, kinds, sheets),
            "network": nearest_same_kind(lambda p: drawing_similarity(np.zeros((len(p), 1)), net.logits(p)),
                                         patches, kinds, sheets),
            "both": nearest_same_kind(lambda p: drawing_similarity(drawing_features(p), net.logits(p)), patches, kinds, sheets)}


def bench_drawings(count: int, seed: int, level: str, held_out_styles: bool, jobs: int,
                   fresh_styles: bool = False, sheets_per_photo: int = 1, unseen_styles: bool = False) -> dict:
    """alike_shares of the sheets of ``count`` fresh photos of ``sheets_per_photo`` sheets
    (``held_out_styles``: drawn by hands held out of training; ``fresh_styles``, ``unseen_styles``:
    by the fresh or the unseen ones), with the drawing network the reader loads."""
    from sheetscan.lab.dataset import collect_parallel
    from sheetscan.reading.read import load_drawing_network

    samples = collect_parallel(seed, count, (level,), "drawings", jobs=jobs, held_out_styles=held_out_styles,
                               fresh_styles=fresh_styles, sheets_per_photo=(sheets_per_photo,), unseen_styles=unseen_styles)
    decorated = samples.labels["drawing"] > 0
    return {"photos": count, "level": level, "seed": seed, "held_out_styles": held_out_styles,
            "fresh_styles": fresh_styles, "unseen_styles": unseen_styles, "sheets_per_photo": sheets_per_photo,
            "sheets": samples.sheets, "drawings": int(decorated.sum()), **alike_shares(samples, load_drawing_network())}
