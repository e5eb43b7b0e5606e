"""Photos with no sheet of this game: what the locator must not claim.

A bare table, a printed page of text, a sudoku, a month's calendar, graph paper, and a bare
6x6 grid with its numbers (another game's board, or this game's garden cut out alone: a grid
without the sheet's boxes around it is not a sheet). Each page is photographed by the same
camera as the bench's sheets.
"""

from __future__ import annotations

import cv2
import numpy as np

from sheetscan.synthetic.camera import LEVELS, photo_size, photograph
from sheetscan.synthetic.sheet import INK, PAPER

PAGE_KINDS = ("table", "text", "sudoku", "calendar", "graph_paper", "bare_grid")
PAGE_PX = (1240, 1754)  # an A4 page at 150 dpi
FONT = cv2.FONT_HERSHEY_SIMPLEX
WORDS = ("garden", "lantern", "season", "the", "of", "and", "rules", "pond", "moss", "score", "turn", "dice", "a",
         "player", "draws", "in", "each", "round", "points", "table", "bridge", "rock", "tree", "bamboo")


def _page() -> np.ndarray:
    return np.full((PAGE_PX[1], PAGE_PX[0], 3), PAPER, np.uint8)


def _grid(page: np.ndarray, left: int, top: int, cols: int, rows: int, cell: int, thick_every: int = 0,
          border: int = 6) -> None:
    for i in range(cols + 1):
        heavy = i in (0, cols) or (thick_every and i % thick_every == 0)
        x = left + i * cell
        cv2.line(page, (x, top), (x, top + rows * cell), INK, border if heavy else 2, cv2.LINE_AA)
    for j in range(rows + 1):
        heavy = j in (0, rows) or (thick_every and j % thick_every == 0)
        y = top + j * cell
        cv2.line(page, (left, y), (left + cols * cell, y), INK, border if heavy else 2, cv2.LINE_AA)


def _text_page(rng: np.random.Generator) -> np.ndarray:
    page = _page()
    for y in range(140, PAGE_PX[1] - 120, 46):
        line = " ".join(WORDS[i] for i in rng.integers(len(WORDS), size=9))
        cv2.putText(page, line, (110, y), FONT, 1.0, INK, 2, cv2.LINE_AA)
    return page


def _sudoku(rng: np.random.Generator) -> np.ndarray:
    page = _page()
    cell = 110
    left, top = (PAGE_PX[0] - 9 * cell) // 2, 300
    _grid(page, left, top, 9, 9, cell, thick_every=3)
    for r in range(9):
        for c in range(9):
            if rng.random() < 0.4:
                cv2.putText(page, str(rng.integers(1, 10)), (left + c * cell + 35, top + r * cell + 78), FONT, 2.0, INK,
                            4, cv2.LINE_AA)
    return page


def _calendar(rng: np.random.Generator) -> np.ndarray:
    page = _page()
    cell = 160
    left, top = (PAGE_PX[0] - 7 * cell) // 2, 420
    cv2.putText(page, "NOVEMBER", (left, 300), FONT, 3.0, INK, 6, cv2.LINE_AA)
    _grid(page, left, top, 7, 6, cell)
    start = int(rng.integers(7))
    for day in range(30):
        r, c = divmod(start + day, 7)
        if r < 6:
            cv2.putText(page, str(day + 1), (left + c * cell + 12, top + r * cell + 44), FONT, 1.3, INK, 3, cv2.LINE_AA)
    return page


def _graph_paper(rng: np.random.Generator) -> np.ndarray:
    page = _page()
    cell = int(rng.integers(40, 90))
    _grid(page, 60, 60, (PAGE_PX[0] - 120) // cell, (PAGE_PX[1] - 120) // cell, cell, thick_every=5, border=4)
    return page


def _bare_grid(rng: np.random.Generator) -> np.ndarray:
    page = _page()
    cell = int(rng.integers(120, 180))
    left, top = (PAGE_PX[0] - 6 * cell) // 2, (PAGE_PX[1] - 6 * cell) // 2
    _grid(page, left, top, 6, 6, cell, border=10)
    for i in range(6):
        cv2.putText(page, str(i + 1), (left + i * cell + cell // 2 - 12, top - 20), FONT, 1.4, INK, 3, cv2.LINE_AA)
        cv2.putText(page, str(i + 1), (left - 50, top + i * cell + cell // 2 + 15), FONT, 1.4, INK, 3, cv2.LINE_AA)
    return page


PAGES = {"text": _text_page, "sudoku": _sudoku, "calendar": _calendar, "graph_paper": _graph_paper,
         "bare_grid": _bare_grid}


def negative_photo(index: int, seed: int, level: str) -> tuple[str, np.ndarray]:
    """Photo ``index`` of the run ``seed``: (its kind, (h, w, 3) uint8 BGR), a page of no sheet
    of this game (none for a bare table) photographed at ``level``."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    rng = np.random.default_rng([seed, index, 6])
    kind = PAGE_KINDS[index % len(PAGE_KINDS)]
    size = photo_size(rng, level, portrait=bool(rng.random() < 0.5), megapixels=float(rng.uniform(2, 4)))
    pages = [] if kind == "table" else [PAGES[kind](rng)]
    return kind, photograph(pages, level, size, rng).image
