"""Reading for the table page: every photo is read in a worker process, never in a request.

A photo is queued when it is sent; a worker reads it and writes its sheets' pictures; the
server then stores the sheets (``Reader``). A worker that dies leaves its photo failed with a
message and the rest read; photos left queued when the server stopped are read when it starts.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from sheetscan.design.layout import Layout
from sheetscan.reading.lifeline import exit_with_parent
from sheetscan.serve.store import FAILED, READING, Store


def read_for_page(folder: str, photo_id: int, file: str, layout: Layout,
                  reviewed: tuple[tuple[str, list[str]], ...] = ()) -> dict:
    """Read one photo of the data ``folder`` with the sheets' ``layout``: {"sheets": [...]} (each
    sheet's number, the reader's JSON, the record, and its pictures' files), or {"error": message}.
    ``reviewed``: the sender's sheets a person corrected, each its rectified picture's file and its
    cells as corrected; their drawings are known drawings of this player (issue 16, item 4)."""
    from sheetscan.game.gardenfile import record_to_dict
    from sheetscan.present.overlay import name_box
    from sheetscan.present.report import sheet_to_dict
    from sheetscan.reading.pictures import save_picture
    from sheetscan.reading.pipeline import read_photo

    result = read_photo(Path(folder) / file, layout=layout, known=_known(folder, layout, reviewed))
    if result.error:  # a photo with no sheet is one too (read_photo says why)
        return {"error": result.error.message.replace(str(Path(folder) / file), "the photo")}
    sheets = []
    for number, sheet in enumerate(result.sheets, start=1):
        image, name_crop = f"sheets/{photo_id}-{number}.png", f"sheets/{photo_id}-{number}-name.png"
        save_picture(Path(folder) / image, sheet.canonical)  # whole or not at all
        save_picture(Path(folder) / name_crop, name_box(sheet))
        sheets.append({"number": number, "read": sheet_to_dict(sheet), "record": record_to_dict(sheet.decoded.record),
                       "image": image, "name_crop": name_crop})
    return {"sheets": sheets}


def _known(folder: str, layout: Layout, reviewed: tuple[tuple[str, list[str]], ...]):
    """The drawings of the ``reviewed`` sheets, with their kinds as corrected; None without any."""
    import cv2
    import numpy as np

    from sheetscan.reading.read import KnownDrawings, known_drawings

    drawings = [known_drawings(picture, layout, cells) for image, cells in reviewed
                if (picture := cv2.imread(str(Path(folder) / image), cv2.IMREAD_GRAYSCALE)) is not None]
    if not drawings:
        return None
    return KnownDrawings(np.concatenate([d.patches for d in drawings]), np.concatenate([d.kinds for d in drawings]))


def warm_up() -> None:
    """Load the reader's networks in a fresh worker, so the first photo sent does not wait for them."""
    from sheetscan.reading.boxes import load_box_models
    from sheetscan.reading.read import load_cell_models, load_drawing_network

    load_cell_models()
    load_box_models()
    load_drawing_network()


class Reader:
    """A pool of worker processes reading the store's photos; results go into the store."""

    def __init__(self, store: Store, jobs: int, layout: Layout):
        self.store, self.jobs, self.layout = store, max(1, jobs), layout
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn, not fork: the server runs threads, and a forked copy of them may hold their locks
        pool = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("spawn"), initializer=exit_with_parent,
                                   initargs=(os.getpid(),))
        for _ in range(self.jobs):
            pool.submit(warm_up)  # every worker starts now, not when the first photos arrive
        return pool

    def submit(self, photo: dict) -> None:
        """Read ``photo`` (a store row) in a worker."""
        self.store.set_status(photo["id"], READING)
        reviewed = tuple((sheet.image, sheet.record["cells"]) for sheet in self.store.reviewed_sheets(photo["player"]))
        work = (read_for_page, str(self.store.folder), photo["id"], photo["file"], self.layout, reviewed)
        try:
            future = self._pool.submit(*work)
        except BrokenProcessPool:
            self._pool = self._new_pool()
            future = self._pool.submit(*work)
        future.add_done_callback(lambda done, photo_id=photo["id"]: self._store(photo_id, done))

    def _store(self, photo_id: int, done: Future) -> None:
        try:
            outcome = done.result()
        except BrokenProcessPool:
            self.store.set_status(photo_id, FAILED, "the reader stopped while reading this photo; send it again")
            return
        except Exception as error:  # a bug met on this photo: said for it, the others still read
            self.store.set_status(photo_id, FAILED, f"internal error ({type(error).__name__}: {error})")
            return
        if "error" in outcome:
            self.store.set_status(photo_id, FAILED, outcome["error"])
        else:
            self.store.add_sheets(photo_id, outcome["sheets"])

    def resume(self) -> int:
        """Queue again every photo left unread when the server last stopped; how many."""
        left = self.store.unfinished()
        for photo in left:
            self.submit(photo)
        return len(left)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
