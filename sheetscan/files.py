"""Files written whole or not at all: each to a temporary name beside it, then renamed, so a
crash, a full disk or a Ctrl-C never leaves half a file where a whole one is expected."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable


def write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """``write(temporary)``, then the temporary file renamed to ``path`` (the temporary is
    removed if ``write`` fails); ``write`` keeps ``path``'s suffix, which image writers use."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.partial{path.suffix}")
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
