"""A worker process's lifeline to the process it works for: it ends when that process does.

Kept apart from the reader, with nothing heavy to import: a worker started by "spawn" (the
table page's) unpickles its initializer before anything else, and a lifeline that came with the
reading stack (ONNX Runtime, OpenCV: seconds on a busy machine) left a worker still starting,
its server killed, to finish those imports first.
"""

from __future__ import annotations

import os
import threading
import time

PARENT_POLL_SECONDS = 0.5  # how often a worker checks that the process it works for lives


def exit_with_parent(parent: int) -> None:
    """In a worker process: end it when ``parent``, the process that started it, ends (or has
    already: a worker still starting may outlive it). A process killed outright (SIGKILL, out of
    memory) cannot stop its workers, and they would wait for it forever, each holding a reader's
    memory (``sheetscan bench robustness --kills`` found them)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
