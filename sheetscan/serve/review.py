"""What the table page shows and changes: each sheet's record as corrected, its score and
findings, the standings with the rules' tie-break, and the exports (CSV, JSON, BG Stats).

A correction changes the stored record (the garden-file form) and keeps what was read, what a
person said and a crop of the box; everything shown is computed again from the record.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from functools import lru_cache

from sheetscan.game.audit import audit
from sheetscan.game.garden import Turn, TurnKind, turn_text
from sheetscan.game.gardenfile import record_from_dict, turn_to_dict
from sheetscan.game.rules import CATEGORIES, DECORATION_BY_LETTER, EMPTY_LETTER, WATER_LETTER
from sheetscan.game.score import score
from sheetscan.game.table import Player, rank, table_csv, table_to_dict
from sheetscan.serve.store import Sheet, Store

GAME_NAME = "Jardín Japonés"
BGSTATS_LINK = "https://app.bgstatsapp.com/createPlay.html?data="
_DRAW = re.compile(r"^\s*([1-6])\s*-\s*([1-6])\s*/\s*([1-6])\s*$")
_PRUNE = re.compile(r"^\s*([1-6])\s*/\s*([1-6])\s*([1-6])\s*$")


def turn_from_text(text: str) -> Turn:
    """A turn box as a player writes it (``2-3 / 6``, ``5 / 24``, ``X``): the inverse of turn_text."""
    if text.strip().upper() == "X":
        return Turn(TurnKind.SKIP)
    if match := _DRAW.match(text):
        first, second, location = (int(g) for g in match.groups())
        return Turn(TurnKind.DRAW, (first, second), location=location)
    if match := _PRUNE.match(text):
        die, row, col = (int(g) for g in match.groups())
        return Turn(TurnKind.PRUNE, (die,), cell=(row - 1, col - 1))
    raise ValueError(f"'{text}' is no turn box: write 2-3 / 6 (a draw), 5 / 24 (a pruning at row 2, column 4) or X")


def _scored(sheet: Sheet):
    """A sheet's record, score and findings; remembered, since every page of a game asks for all
    of them again while only a correction changes one."""
    return _scored_record(json.dumps(sheet.record, sort_keys=True))


@lru_cache(maxsize=1024)
def _scored_record(record_json: str):
    record = record_from_dict(json.loads(record_json))
    garden_score = score(record.garden)
    return record, garden_score, tuple(audit(record, garden_score))


def sheet_state(store: Store, sheet: Sheet) -> dict:
    """A sheet as the review shows it: the garden, points, findings, boxes, doubts, corrections."""
    record, garden_score, findings = _scored(sheet)
    corrections = store.corrections(sheet.id)
    return {
        "id": sheet.id, "player": sheet.player, "garden": {m: sheet.record[m] for m in ("cells", "water", "tree_late")},
        "cell_points": garden_score.cell_points(), "score": dict(garden_score.breakdown),
        "findings": [finding.to_dict() for finding in findings],
        "turns": [turn_text(turn) for turn in record.turns or ()], "written": dict(record.written or {}),
        "verdict": sheet.read["verdict"], "check": sheet.read["check"],
        "corrections": [{key: c[key] for key in ("what", "was", "now")} for c in corrections],
    }


def _players_of(store: Store, game: int, photos: list[dict] | None = None) -> tuple[list[Player], list[dict]]:
    """The game's players and sheets; ``photos``, the game's photos as read before (else read now)."""
    names = {p["id"]: p["name"] for p in store.players(game)}
    photos = {p["id"]: p for p in (store.photos(game) if photos is None else photos)}
    players, sheets = [], []
    for sheet in store.sheets(game):
        record, garden_score, findings = _scored(sheet)
        corrected = bool(store.corrections(sheet.id))
        sheets.append({"id": sheet.id, "photo": sheet.photo, "number": sheet.number, "player": sheet.player,
                       "player_name": names.get(sheet.player), "total": garden_score.breakdown["total"],
                       "verdict": sheet.read["verdict"], "corrected": corrected, "name_crop": f"/files/{sheet.name_crop}"})
        if sheet.player is not None:
            players.append(Player(names[sheet.player], photos[sheet.photo]["sent_as"], sheet.number,
                                  garden_score.breakdown, record.bonsai_pruned or 0, tuple(findings),
                                  "corrected" if corrected else sheet.read["verdict"]))
    return players, sheets


def game_state(store: Store, game: int) -> dict:
    """The game as the page shows it: its players, every photo's progress, every sheet, the standings."""
    # The photos before their sheets: a worker stores a photo's sheets and its status "read"
    # together, so a photo shown read has its sheets shown, whenever a worker finishes.
    photo_rows = store.photos(game)
    players, sheets = _players_of(store, game, photo_rows)
    photos = [{key: p[key] for key in ("id", "player", "sent_as", "status", "error")} for p in photo_rows]
    players_in_order = [{"id": p["id"], "name": p["name"]} for p in store.players(game)]
    return {"players": players_in_order, "photos": photos, "sheets": sheets,
            **(table_to_dict(rank(players)) if players else {"standings": [], "winners": [], "solo_rank": None})}


def standings_csv(store: Store, game: int) -> str:
    return table_csv(rank(_players_of(store, game)[0]))


def bgstats_play(store: Store, game: int, bgg_id: int | None = None) -> dict:
    """The play in BG Stats' import form (its 'createPlay' JSON): the game, its date, each
    player with score, rank and whether they won; the BoardGameGeek id only when given."""
    found = store.game(game)
    standings = rank(_players_of(store, game)[0])
    play = {
        "sourceName": "sheetscan", "sourcePlayId": f"sheetscan-game-{game}", "playDate": f"{found['date']} 00:00:00",
        "game": {"name": GAME_NAME, "highestWins": True, "noPoints": False, "sourceGameId": "jardin-japones",
                 **({"bggId": bgg_id} if bgg_id is not None else {})},
        "players": [{"name": s.player.name, "score": s.player.total, "winner": s.place == 1, "rank": s.place,
                     "sourcePlayerId": s.player.name} for s in standings],
    }
    return play


def bgstats_link(play: dict) -> str:
    """The link that opens BG Stats with the play filled in."""
    return BGSTATS_LINK + urllib.parse.quote(json.dumps(play, ensure_ascii=False, separators=(",", ":")))


def _save_crop(store: Store, sheet: Sheet, box: tuple[int, int, int, int] | None, label: str) -> str | None:
    """The box's pixels from the sheet's picture, kept beside the correction."""
    if box is None:
        return None
    import cv2

    from sheetscan.reading.pictures import save_picture

    image = cv2.imread(str(store.folder / sheet.image), cv2.IMREAD_GRAYSCALE)
    if image is None:
        return None
    x, y, w, h = box
    name = f"sheets/{sheet.id}-{label}-{len(store.corrections(sheet.id)) + 1}.png"
    save_picture(store.folder / name, image[y : y + h, x : x + w])
    return name


def fix_cell(store: Store, sheet: Sheet, row: int, col: int, letter: str, water: bool, late: bool,
             box: tuple[int, int, int, int] | None) -> None:
    """A person's reading of cell (row, col): its decoration letter, water or earth, a late tree."""
    if not (0 <= row < 6 and 0 <= col < 6):
        raise ValueError("rows and columns are 0 to 5")
    if letter != EMPTY_LETTER and letter not in DECORATION_BY_LETTER:
        raise ValueError(f"'{letter}' is no decoration: one of . L B T R M =")
    record = json.loads(json.dumps(sheet.record))
    late_cells = {tuple(cell) for cell in record.get("tree_late", [])}
    was = _cell_text(record, row, col, late_cells)
    cells = [list(r) for r in record["cells"]]
    waters = [list(r) for r in record["water"]]
    cells[row][col], waters[row][col] = letter, WATER_LETTER if water else EMPTY_LETTER
    late_cells.discard((row, col))
    if late and letter == "T":
        late_cells.add((row, col))
    record.update(cells=["".join(r) for r in cells], water=["".join(r) for r in waters],
                  tree_late=sorted([list(c) for c in late_cells]))
    now = _cell_text(record, row, col, late_cells)
    store.correct(sheet.id, f"cell ({row + 1},{col + 1})", was, now, record, _save_crop(store, sheet, box, f"cell{row}{col}"))


def _cell_text(record: dict, row: int, col: int, late_cells: set) -> str:
    letter = record["cells"][row][col]
    name = "empty" if letter == EMPTY_LETTER else DECORATION_BY_LETTER[letter].category
    late = " (Spring/Summer)" if (row, col) in late_cells else ""
    return f"{name}{late}, {'water' if record['water'][row][col] == WATER_LETTER else 'earth'}"


def fix_written(store: Store, sheet: Sheet, category: str, value: int) -> None:
    if category not in CATEGORIES:
        raise ValueError(f"'{category}' is no scoring category: one of {', '.join(CATEGORIES)}")
    if not -999 <= value <= 999:
        raise ValueError("a written number lies between -999 and 999")
    record = json.loads(json.dumps(sheet.record))
    written = record.setdefault("written", {})
    was = str(written.get(category, "nothing"))
    written[category] = value
    store.correct(sheet.id, f"written {category}", was, str(value), record, None)


def fix_turn(store: Store, sheet: Sheet, index: int, text: str) -> None:
    turns = sheet.record.get("turns")
    if not turns or not 0 <= index < len(turns):
        raise ValueError(f"no turn box {index + 1} on this sheet")
    turn = turn_from_text(text)
    record = json.loads(json.dumps(sheet.record))
    was = turn_text(record_from_dict(sheet.record).turns[index])
    record["turns"][index] = turn_to_dict(turn)
    store.correct(sheet.id, f"turn {index + 1}", was, turn_text(turn), record, None)
