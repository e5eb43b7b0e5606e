"""Batches: many photos (files or folders), read in parallel, results in the order given.

One photo's failure is its own result (see pipeline.PhotoResult); it never stops the rest.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Iterable, Iterator

import cv2

from .pipeline import PhotoResult, read_photo
from .rules import RuleSet

PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".heic", ".heif", ".tif", ".tiff", ".bmp", ".webp"}
# Each worker runs single-threaded: two processes on two cores beat two threads fighting in each.
SINGLE_THREAD_ENVIRONMENT = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def expand_inputs(paths: Iterable[Path]) -> list[Path]:
    """The photos to read: files as given, folders as the photos directly inside them, sorted."""
    photos = []
    for path in paths:
        if path.is_dir():
            photos += sorted(p for p in path.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES and p.is_file())
        else:
            photos.append(path)
    return photos


def default_jobs() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _start_worker() -> None:
    cv2.setNumThreads(1)


def read_photos(paths: list[Path], rules: RuleSet = RuleSet(), jobs: int = 1,
                debug_folder: Path | None = None, keep_images: bool = True) -> Iterator[PhotoResult]:
    """Read ``paths`` with ``jobs`` processes, yielding each photo's result in the given order
    (without the sheets' rectified images unless ``keep_images``: they are most of what a
    worker sends back, and of what a long batch holds).

    A job is one core: a single job reads in this process on one thread; a lone photo is read
    here too, its jobs' cores serving as OpenCV's threads.
    """
    if jobs <= 1 or len(paths) <= 1:
        threads = cv2.getNumThreads()
        cv2.setNumThreads(max(jobs, 1))
        try:
            for path in paths:
                yield read_photo(path, rules, debug_folder, keep_images)
        finally:
            cv2.setNumThreads(threads)
        return
    saved = {name: os.environ.get(name) for name in SINGLE_THREAD_ENVIRONMENT}
    os.environ.update(SINGLE_THREAD_ENVIRONMENT)  # read by the fresh ("spawn") workers as they start
    try:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(jobs, len(paths)), mp_context=context, initializer=_start_worker) as pool:
            yield from pool.map(read_photo, paths, [rules] * len(paths), [debug_folder] * len(paths),
                                [keep_images] * len(paths))
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
