"""Batches: many photos (files or folders), read in parallel, results in the order given.

One photo's failure is its own result (see pipeline.PhotoResult); it never stops the rest.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import queue
import signal
import sys
from collections import deque
from functools import partial
from pathlib import Path
from typing import Callable, Iterable, Iterator, TypeVar

import cv2

from sheetscan.errors import SheetscanError
from sheetscan.design.layout import Layout
from sheetscan.reading.lifeline import exit_with_parent
from sheetscan.reading.pipeline import PhotoResult, read_photo
from sheetscan.game.rules import RuleSet

T = TypeVar("T")
PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".heic", ".heif", ".tif", ".tiff", ".bmp", ".webp"}
# Each worker runs single-threaded: two processes on two cores beat two threads fighting in each.
SINGLE_THREAD_ENVIRONMENT = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
WORKER_POLL_SECONDS = 0.2  # how often a wait for a worker's photo checks that the workers live


def expand_inputs(paths: Iterable[Path]) -> list[Path]:
    """The photos to read: files as given, folders as the photos directly inside them, sorted;
    a folder holding none as itself (its read then says so, one line like any photo's)."""
    photos = []
    for path in paths:
        if path.is_dir():
            inside = sorted(p for p in path.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES and p.is_file())
            photos += inside or [path]
        else:
            photos.append(path)
    return photos


def default_jobs() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def read_photos(paths: list[Path], rules: RuleSet = RuleSet(), jobs: int = 1,
                debug_folder: Path | None = None, keep_images: bool = True,
                layout: Layout | None = None) -> Iterator[PhotoResult]:
    """Read ``paths`` with ``jobs`` cores, yielding each photo's result in the given order
    (without the sheets' rectified images unless ``keep_images``: they are most of what a
    worker sends back, and of what a long batch holds).

    A job is one core. This process is one of them, reading on one OpenCV thread while
    ``jobs - 1`` worker processes read too; each takes the next photo nobody has taken. A
    lone photo is read here, its jobs' cores serving as OpenCV's threads.
    """
    read = partial(read_photo, rules=rules, debug_folder=debug_folder, keep_images=keep_images, layout=layout)
    threads = cv2.getNumThreads()
    cv2.setNumThreads(jobs if len(paths) == 1 else 1)
    try:
        if jobs <= 1 or len(paths) <= 1:
            yield from map(read, paths)
        else:
            yield from read_with_workers(paths, read, min(jobs, len(paths)) - 1)
    finally:
        cv2.setNumThreads(threads)


def read_with_workers(paths: list[Path], read: Callable[[Path], T], workers: int) -> Iterator[T]:
    """``read(path)`` of each path in order, done by this process and ``workers`` others."""
    with WorkerProcesses(paths, read, workers) as pool:
        for outcome in in_order_sharing_work(len(paths), pool.claim, lambda index: read(paths[index]), pool.next_result):
            if isinstance(outcome, BaseException):
                raise outcome  # not a photo's error (those are results) but the installation's: a missing model
            yield outcome


def in_order_sharing_work(count: int, claim: Callable[[], int | None], work_here: Callable[[int], T],
                          next_result: Callable[[bool], tuple[int, T] | None]) -> Iterator[T]:
    """The outcomes of items ``0 .. count - 1`` in order. This thread ``claim``s items and does
    them (``work_here``) while others claim and do the rest, handing them over by
    ``next_result(wait)`` as ``(index, outcome)`` (None when ``wait`` is false and none is
    ready). No core waits while an item is left, and none holds more than the item it does."""
    done: dict[int, T] = {}
    for index in range(count):
        while index not in done:
            handed = next_result(False)
            if handed is None:
                mine = claim()
                handed = (mine, work_here(mine)) if mine is not None else next_result(True)
            done[handed[0]] = handed[1]
        yield done.pop(index)


class WorkerProcesses:
    """Processes that ``read`` ``paths``. Each claims the next unclaimed index from a shared
    counter (as this process does, by ``claim``) and sends back ``(index, result or exception)``
    (``next_result``). A worker that dies (killed, out of memory) hands back the photo it was
    reading as an error, and the others go on."""

    def __init__(self, paths: list[Path], read: Callable[[Path], object], workers: int):
        # "fork" starts a worker in milliseconds with this process's imports (and its models,
        # once loaded); "spawn", where fork is unsafe, imports afresh, single-threaded by the
        # environment it starts with
        context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
        self.paths = paths
        self.next_index = context.Value("q", 0)
        self.claimed_by = context.Array("q", len(paths))  # worker number, or 0 for this process
        self.results = context.Queue()
        self.processes = [context.Process(target=_work, daemon=True,
                                          args=(number, paths, read, self.next_index, self.claimed_by, self.results,
                                                os.getpid()))
                          for number in range(1, workers + 1)]
        self.ready: deque[tuple[int, object]] = deque()  # handed over, not yet returned by next_result
        self.received: set[int] = set()
        self.dead: set[int] = set()

    def __enter__(self) -> WorkerProcesses:
        saved = {name: os.environ.get(name) for name in SINGLE_THREAD_ENVIRONMENT}
        os.environ.update(SINGLE_THREAD_ENVIRONMENT)
        try:
            for process in self.processes:
                process.start()
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        return self

    def __exit__(self, *exc_info) -> None:
        for process in self.processes:
            if process.is_alive():
                process.terminate()  # stopped early: an error, or the caller stopped reading
            process.join()
        self.results.close()

    def claim(self) -> int | None:
        return _claim(self.next_index, self.claimed_by, len(self.paths), owner=0)

    def next_result(self, wait: bool) -> tuple[int, object] | None:
        while not self.ready:
            try:
                self._receive(self.results.get(timeout=WORKER_POLL_SECONDS) if wait else self.results.get_nowait())
            except queue.Empty:
                self._count_the_dead()
                if not wait:
                    break
        return self.ready.popleft() if self.ready else None

    def _receive(self, handed: tuple[int, object]) -> None:
        self.received.add(handed[0])
        self.ready.append(handed)

    def _count_the_dead(self) -> None:
        """Hand back, as errors, the photos of workers that died before sending them."""
        for number, process in enumerate(self.processes, start=1):
            if number in self.dead or process.exitcode in (None, 0):
                continue
            self.dead.add(number)
            while True:  # what it sent before it died
                try:
                    self._receive(self.results.get_nowait())
                except queue.Empty:
                    break
            for index, owner in enumerate(self.claimed_by):
                if owner == number and index not in self.received:
                    self._receive((index, PhotoResult(str(self.paths[index]), error=SheetscanError(
                        f"{self.paths[index]}: its reader stopped (exit code {process.exitcode}); read it alone to see why"))))


def _claim(next_index, claimed_by, count: int, owner: int) -> int | None:
    """The next unclaimed index, marked as ``owner``'s; None when all are claimed."""
    with next_index.get_lock():
        index = next_index.value
        if index >= count:
            return None
        next_index.value = index + 1
        claimed_by[index] = owner
        return index


def _work(number: int, paths: list[Path], read: Callable[[Path], object], next_index, claimed_by, results,
          parent: int) -> None:
    """A worker's life: claim, read, send, until no photo is left."""
    exit_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle: it stops us
    cv2.setNumThreads(1)
    while (index := _claim(next_index, claimed_by, len(paths), owner=number)) is not None:
        try:
            outcome = read(paths[index])
        except Exception as error:  # raised again in the main process
            outcome = error if _picklable(error) else SheetscanError(f"{paths[index]}: {type(error).__name__}: {error}")
        results.put((index, outcome))


def _picklable(error: Exception) -> bool:
    try:
        pickle.dumps(error)
    except Exception:  # pickling can fail in any way the error's class allows
        return False
    return True
