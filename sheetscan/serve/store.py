"""The table page's storage: one SQLite file (WAL) and the photos as sent, under the data folder.

Nothing is kept only in memory: a photo is written and its row committed before the upload is
answered, and a photo left queued or half read when the server stopped is read again when it
starts (``unfinished``). Every correction keeps what was read, what a person said and a crop.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (id INTEGER PRIMARY KEY, date TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS players (id INTEGER PRIMARY KEY, game INTEGER NOT NULL REFERENCES games(id),
    name TEXT NOT NULL, position INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS photos (id INTEGER PRIMARY KEY, game INTEGER NOT NULL REFERENCES games(id),
    player INTEGER REFERENCES players(id), file TEXT NOT NULL, sent_as TEXT NOT NULL,
    status TEXT NOT NULL, error TEXT, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sheets (id INTEGER PRIMARY KEY, photo INTEGER NOT NULL REFERENCES photos(id),
    number INTEGER NOT NULL, player INTEGER REFERENCES players(id), read TEXT NOT NULL, record TEXT NOT NULL,
    image TEXT NOT NULL, name_crop TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS corrections (id INTEGER PRIMARY KEY, sheet INTEGER NOT NULL REFERENCES sheets(id),
    what TEXT NOT NULL, was TEXT NOT NULL, now TEXT NOT NULL, crop TEXT, created REAL NOT NULL);
"""
QUEUED, READING, READ, FAILED = "queued", "reading", "read", "failed"
MAX_REVIEWED = 3  # a player's corrected sheets whose drawings help read their next one


@dataclass(frozen=True)
class Sheet:
    """One sheet read from a photo: what the reader said, the record as corrected so far."""

    id: int
    photo: int
    number: int
    player: int | None
    read: dict  # the reader's JSON for the sheet (present.report.sheet_to_dict)
    record: dict  # the garden-file form of the record, corrections applied
    image: str  # the rectified sheet, a file under the data folder
    name_crop: str


class Store:
    """The games, players, photos, sheets and corrections of one data folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        (folder / "photos").mkdir(parents=True, exist_ok=True)
        (folder / "sheets").mkdir(parents=True, exist_ok=True)
        self.path = folder / "sheetscan.sqlite"
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)

    @contextmanager
    def _connect(self):
        db = sqlite3.connect(self.path, timeout=30)
        db.row_factory = sqlite3.Row
        try:
            with db:  # a transaction: committed on leaving, rolled back on an error
                yield db
        finally:
            db.close()

    # games and players
    def new_game(self, date: str, names: list[str]) -> int:
        with self._connect() as db:
            game = db.execute("INSERT INTO games (date, created) VALUES (?, ?)", (date, time.time())).lastrowid
            db.executemany("INSERT INTO players (game, name, position) VALUES (?, ?, ?)",
                           [(game, name, i) for i, name in enumerate(names)])
        return game

    def games(self) -> list[dict]:
        with self._connect() as db:
            return [dict(row) for row in db.execute("SELECT * FROM games ORDER BY created DESC")]

    def game(self, game: int) -> dict | None:
        with self._connect() as db:
            row = db.execute("SELECT * FROM games WHERE id = ?", (game,)).fetchone()
        return dict(row) if row else None

    def players(self, game: int) -> list[dict]:
        with self._connect() as db:
            return [dict(row) for row in db.execute("SELECT * FROM players WHERE game = ? ORDER BY position", (game,))]

    # photos
    def incoming(self) -> Path:
        """A fresh file name for a photo being received (add_photo moves it into place)."""
        return self.folder / "photos" / f".incoming-{uuid.uuid4().hex}"

    def add_photo(self, game: int, player: int | None, received: Path, sent_as: str, suffix: str) -> int:
        """Keep the photo ``received`` as sent (moved, not copied) and queue it for reading; its id."""
        with self._connect() as db:
            photo = db.execute("INSERT INTO photos (game, player, file, sent_as, status, created) VALUES (?, ?, '', ?, ?, ?)",
                               (game, player, sent_as, QUEUED, time.time())).lastrowid
            path = self.folder / "photos" / f"{photo}{suffix}"
            os.replace(received, path)
            db.execute("UPDATE photos SET file = ? WHERE id = ?", (str(path.relative_to(self.folder)), photo))
        return photo

    def photos(self, game: int) -> list[dict]:
        with self._connect() as db:
            return [dict(row) for row in db.execute("SELECT * FROM photos WHERE game = ? ORDER BY id", (game,))]

    def photo(self, photo: int) -> dict | None:
        with self._connect() as db:
            row = db.execute("SELECT * FROM photos WHERE id = ?", (photo,)).fetchone()
        return dict(row) if row else None

    def set_status(self, photo: int, status: str, error: str | None = None) -> None:
        with self._connect() as db:
            db.execute("UPDATE photos SET status = ?, error = ? WHERE id = ?", (status, error, photo))

    def unfinished(self) -> list[dict]:
        """Photos queued or being read when the server last stopped: to read again."""
        with self._connect() as db:
            return [dict(row) for row in db.execute("SELECT * FROM photos WHERE status IN (?, ?) ORDER BY id",
                                                    (QUEUED, READING))]

    # sheets
    def add_sheets(self, photo: int, sheets: list[dict]) -> None:
        """The sheets read from a photo (each: number, read, record, image, name_crop); a photo
        sent by a player gives that player its first sheet."""
        owner = self.photo(photo)["player"]
        with self._connect() as db:
            db.execute("DELETE FROM sheets WHERE photo = ?", (photo,))  # a photo read again replaces its sheets
            for sheet in sheets:
                db.execute("INSERT INTO sheets (photo, number, player, read, record, image, name_crop) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           (photo, sheet["number"], owner if sheet["number"] == 1 else None, json.dumps(sheet["read"]),
                            json.dumps(sheet["record"]), sheet["image"], sheet["name_crop"]))
            db.execute("UPDATE photos SET status = ?, error = NULL WHERE id = ?", (READ, photo))

    def sheets(self, game: int) -> list[Sheet]:
        with self._connect() as db:
            rows = db.execute("SELECT sheets.* FROM sheets JOIN photos ON sheets.photo = photos.id "
                              "WHERE photos.game = ? ORDER BY sheets.photo, sheets.number", (game,)).fetchall()
        return [_sheet(row) for row in rows]

    def sheet(self, sheet: int) -> Sheet | None:
        with self._connect() as db:
            row = db.execute("SELECT * FROM sheets WHERE id = ?", (sheet,)).fetchone()
        return _sheet(row) if row else None

    def game_of_sheet(self, sheet: int) -> int | None:
        with self._connect() as db:
            row = db.execute("SELECT photos.game FROM sheets JOIN photos ON sheets.photo = photos.id WHERE sheets.id = ?",
                             (sheet,)).fetchone()
        return row[0] if row else None

    def assign(self, sheet: int, player: int | None) -> None:
        with self._connect() as db:
            db.execute("UPDATE sheets SET player = ? WHERE id = ?", (player, sheet))

    def correct(self, sheet: int, what: str, was: str, now: str, record: dict, crop: str | None) -> None:
        """Keep a correction (what was read, what a person said, its crop) and the corrected record."""
        with self._connect() as db:
            db.execute("INSERT INTO corrections (sheet, what, was, now, crop, created) VALUES (?, ?, ?, ?, ?, ?)",
                       (sheet, what, was, now, crop, time.time()))
            db.execute("UPDATE sheets SET record = ? WHERE id = ?", (json.dumps(record), sheet))

    def reviewed_sheets(self, player: int | None) -> list[Sheet]:
        """The latest MAX_REVIEWED sheets, in any game, of players of ``player``'s name that a person
        corrected: their drawings, as corrected, are known drawings of that player."""
        if player is None:
            return []
        with self._connect() as db:
            rows = db.execute("SELECT sheets.* FROM sheets JOIN players ON sheets.player = players.id "
                              "WHERE players.name = (SELECT name FROM players WHERE id = ?) "
                              "AND EXISTS (SELECT 1 FROM corrections WHERE corrections.sheet = sheets.id) "
                              "ORDER BY sheets.id DESC LIMIT ?", (player, MAX_REVIEWED)).fetchall()
        return [_sheet(row) for row in rows]

    def corrections(self, sheet: int) -> list[dict]:
        with self._connect() as db:
            return [dict(row) for row in db.execute("SELECT * FROM corrections WHERE sheet = ? ORDER BY id", (sheet,))]


def _sheet(row: sqlite3.Row) -> Sheet:
    return Sheet(row["id"], row["photo"], row["number"], row["player"], json.loads(row["read"]), json.loads(row["record"]),
                 row["image"], row["name_crop"])
