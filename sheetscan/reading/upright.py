"""Which way up a page found round a garden is: the way its printed words read (Tesseract), or,
where no word of the game reads any way (a blurred photo), the way that puts the garden's row
and column numbers left of it and above it."""

from __future__ import annotations

import unicodedata

import cv2
import numpy as np

from sheetscan.game.rules import GRID_SIZE, Season
from sheetscan.reading.printed import PAGE_PX_PER_MM, Box, line_contrast, printed_lines

MIN_OCR_CONFIDENCE = 40  # Tesseract's confidence (0-100) below which a word is not counted
PAGE_PIXELS_TO_MM = np.array([[1 / PAGE_PX_PER_MM, 0, 0.5 / PAGE_PX_PER_MM], [0, 1 / PAGE_PX_PER_MM, 0.5 / PAGE_PX_PER_MM],
                              [0, 0, 1]])  # the upright page's pixel centres to its millimetres
SEASON_WORDS = {  # printed season names, in the order of Season, in the languages the game is sold in
    Season.AUTUMN: ("AUTUMN", "FALL", "OTONO", "AUTOMNE", "HERBST", "AUTUNNO"),
    Season.WINTER: ("WINTER", "INVIERNO", "HIVER", "INVERNO"),
    Season.SPRING: ("SPRING", "PRIMAVERA", "PRINTEMPS", "FRUHLING"),
    Season.SUMMER: ("SUMMER", "VERANO", "ETE", "SOMMER", "ESTATE"),
}
GAME_WORDS = {"JARDIN", "JAPONES", "JAPANESE", "GARDEN", "NAME", "NOMBRE", "TOTAL", "LANTERN", "LANT", "BAMBOO",
              "BAMB", "TREE", "ROCK", "MOSS", "BRIDGE", "POND", "PEN", "LINTERNA", "BAMBU", "ARBOL", "ROCA", "MUSGO",
              "PUENTE", "ESTANQUE"} | {word for words in SEASON_WORDS.values() for word in words}
# The garden's numbers are looked for in a strip along each side, from past its outer line to
# this far out (of a cell: a number printed by the pad's rulebook picture lies within 0.4 of
# a cell, and a legend's text beside it further out)
NUMBER_STRIP = (0.1, 0.45)
NUMBER_SPAN = 0.25  # of a cell either side of its middle: where its number's ink lies
NUMBER_GAP = 0.1  # of a cell either side of a line between two cells: no number's ink there
MIN_NUMBER_INK = 0.02  # share of a number's span of the strip that its ink covers at least
GAP_INK = 0.25  # of the faintest number's ink: more beside a line between cells is ink between numbers
MAX_GAPS_INKED = 1  # such lines on a numbered side (a number's tail)


def plain_words(text: str) -> str:
    """Upper case without accents or punctuation (Otoño -> OTONO)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(ch for ch in plain.upper() if ch.isalpha())


def read_words(page: np.ndarray) -> list[tuple[str, Box]]:
    """The printed words Tesseract reads on ``page`` (at PAGE_PX_PER_MM), with their boxes in mm."""
    import pytesseract

    data = pytesseract.image_to_data(page, config="--psm 11", output_type=pytesseract.Output.DICT)
    words = []
    for text, confidence, left, top, width, height in zip(data["text"], data["conf"], data["left"], data["top"],
                                                          data["width"], data["height"], strict=True):
        word = plain_words(text)
        if len(word) >= 3 and float(confidence) >= MIN_OCR_CONFIDENCE:
            s = 1 / PAGE_PX_PER_MM
            words.append((word, Box(left * s, top * s, width * s, height * s)))
    return words


def upright_page(gray: np.ndarray, garden_to_photo: np.ndarray, bounds, turn: int) -> tuple[np.ndarray, np.ndarray]:
    """The page within ``bounds`` (x0, y0, x1, y1 in the garden's millimetres) turned ``turn``
    quarter turns: (upright millimetres to the garden's millimetres, the upright page drawn at
    PAGE_PX_PER_MM)."""
    x0, y0, x1, y1 = bounds
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    w, h = (x1 - x0, y1 - y0) if turn % 2 == 0 else (y1 - y0, x1 - x0)
    upright = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    to_garden = cv2.getPerspectiveTransform(upright, np.roll(corners, -turn, axis=0))
    size = (int(round(w * PAGE_PX_PER_MM)), int(round(h * PAGE_PX_PER_MM)))
    page = cv2.warpPerspective(gray, garden_to_photo @ to_garden @ PAGE_PIXELS_TO_MM, size,
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=255)
    return to_garden, page


def garden_on_page(to_garden: np.ndarray, garden_w: float, garden_h: float) -> Box:
    """The garden's box on an upright page whose millimetres ``to_garden`` maps to the garden's."""
    corners = cv2.perspectiveTransform(np.array([[[0, 0]], [[garden_w, garden_h]], [[0, garden_h]], [[garden_w, 0]]],
                                                np.float64), np.linalg.inv(to_garden)).reshape(-1, 2)
    return Box(*corners.min(axis=0), *(corners.max(axis=0) - corners.min(axis=0)))


def upright(gray: np.ndarray, garden_to_photo: np.ndarray, bounds,
            garden_size: tuple[float, float]) -> tuple[int | None, np.ndarray, np.ndarray, list]:
    """The page turned the way its printed words read: (its quarter turns, upright millimetres
    to the garden's, the upright page, its words). Where no word of the game reads any way, the
    way its garden's numbers stand (numbered_turn); the turns None where they tell nothing either
    (the page is then as the photo shows it)."""
    tried = []
    for turn in range(4):
        to_garden, page = upright_page(gray, garden_to_photo, bounds, turn)
        words = read_words(page)
        tried.append((sum(word in GAME_WORDS for word, _ in words), turn, to_garden, page, words))
    best = max(tried, key=lambda each: each[0])  # the first of equals: the page as the photo shows it
    if best[0]:
        return best[1:]
    numbered = [turn for _, turn, to_garden, page, _ in tried
                if numbered_sides(page, garden_on_page(to_garden, *garden_size)) == {"top", "left"}]
    if len(numbered) != 1:
        return None, *tried[0][2:]
    return tried[numbered[0]][1:]


def numbered_sides(page: np.ndarray, garden: Box) -> set[str]:
    """The sides of the ``garden`` (in the upright ``page``'s millimetres) along which a number
    stands beside every cell: ink in a strip beside each cell's middle, little beside the lines
    between cells (but MAX_GAPS_INKED)."""
    ink = printed_lines(line_contrast(page)) > 0
    cell = garden.w / GRID_SIZE
    near, far = (reach * cell for reach in NUMBER_STRIP)
    strips = {  # each side's strip, in page mm: (along from, along to, across from, across to, along x)
        "top": (garden.x, garden.y - far, garden.w, far - near, True),
        "bottom": (garden.x, garden.y + garden.h + near, garden.w, far - near, True),
        "left": (garden.x - far, garden.y, far - near, garden.h, False),
        "right": (garden.x + garden.w + near, garden.y, far - near, garden.h, False),
    }
    sides = set()
    for side, (x, y, w, h, along_x) in strips.items():
        x0, y0 = int(round(x * PAGE_PX_PER_MM)), int(round(y * PAGE_PX_PER_MM))
        x1, y1 = int(round((x + w) * PAGE_PX_PER_MM)), int(round((y + h) * PAGE_PX_PER_MM))
        if x0 < 0 or y0 < 0 or x1 > ink.shape[1] or y1 > ink.shape[0]:
            continue
        profile = ink[y0:y1, x0:x1].mean(axis=0 if along_x else 1)  # ink across the strip, along the side
        step = len(profile) / GRID_SIZE

        def inked(centre: float, half: float) -> float:
            return float(profile[int(round(centre - half)) : int(round(centre + half)) + 1].mean())

        faintest = min(inked((i + 0.5) * step, NUMBER_SPAN * step) for i in range(GRID_SIZE))
        gaps = sum(inked(i * step, NUMBER_GAP * step) > GAP_INK * faintest for i in range(1, GRID_SIZE))
        if faintest >= MIN_NUMBER_INK and gaps <= MAX_GAPS_INKED:
            sides.add(side)
    return sides
