"""Batches: many photos (files or folders), read in parallel, results in the order given.

One photo's failure is its own result (see pipeline.PhotoResult); it never stops the rest.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from functools import partial
from typing import Callable, Iterable, Iterator, TypeVar

import cv2

from .pipeline import PhotoResult, read_photo
from .rules import RuleSet

T = TypeVar("T")
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
    """Read ``paths`` with ``jobs`` cores, yielding each photo's result in the given order
    (without the sheets' rectified images unless ``keep_images``: they are most of what a
    worker sends back, and of what a long batch holds).

    A job is one core. This process is one of them: it reads on one OpenCV thread, taking the
    first photo no worker has started, while ``jobs - 1`` worker processes take the rest. It
    is warm (imported, models loaded) while a worker takes a quarter second to start. A lone
    photo is read here, its jobs' cores serving as OpenCV's threads.
    """
    read = partial(read_photo, rules=rules, debug_folder=debug_folder, keep_images=keep_images)
    threads = cv2.getNumThreads()
    cv2.setNumThreads(jobs if len(paths) == 1 else 1)
    try:
        if jobs <= 1 or len(paths) <= 1:
            yield from map(read, paths)
        else:
            yield from _read_with_workers(paths, read, min(jobs, len(paths)) - 1)
    finally:
        cv2.setNumThreads(threads)


def _read_with_workers(paths: list[Path], read: Callable[[Path], PhotoResult], workers: int) -> Iterator[PhotoResult]:
    saved = {name: os.environ.get(name) for name in SINGLE_THREAD_ENVIRONMENT}
    os.environ.update(SINGLE_THREAD_ENVIRONMENT)  # read by the fresh ("spawn") workers as they start
    try:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker) as pool:
            futures = [pool.submit(read, path) for path in paths]
            yield from in_order_sharing_work(futures, lambda index: read(paths[index]))
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def in_order_sharing_work(futures: list[Future[T]], work_here: Callable[[int], T]) -> Iterator[T]:
    """The results of ``futures`` in order. While a worker has the next one, this thread does
    (``work_here(index)``) the first item no worker has started, which it takes from the pool
    by cancelling its future; so no core waits while work is left."""
    done_here: dict[int, T] = {}
    for index, future in enumerate(futures):
        while index not in done_here and not future.done():
            # cancel() fails once a worker has the item (a cancelled one stays cancellable: skip those done here)
            ahead = next((j for j in range(index, len(futures)) if j not in done_here and futures[j].cancel()), None)
            if ahead is None:
                break  # the workers have every item left: wait for this one
            done_here[ahead] = work_here(ahead)
        yield done_here.pop(index) if index in done_here else future.result()
