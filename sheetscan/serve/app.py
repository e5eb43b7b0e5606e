"""The table's page: a FastAPI app. Phones send photos; workers read them (work.py); anyone at
the table reviews and corrects each reading; the standings and the exports follow at once.

Plain HTML from Jinja2 templates and a little JavaScript (static/app.js): no build step and
nothing fetched from outside. With a join token, a request without it sees and changes nothing.
"""

from __future__ import annotations

import datetime
import secrets
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Optional

import segno
from fastapi import FastAPI, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel

from sheetscan.design.layout import Layout, load_layout
from sheetscan.game.rules import CATEGORIES
from sheetscan.reading.pictures import region_box
from sheetscan.reading.rectify import CANONICAL_PX_PER_MM
from sheetscan.serve import review
from sheetscan.serve.store import Store
from sheetscan.serve.work import Reader

HERE = Path(__file__).parent
MAX_PHOTO_BYTES = 60 * 1024 * 1024  # a 200-megapixel JPEG is about 40 MB
PHOTO_HEAD_BYTES = 16  # enough of a file to tell a photo by its signature
UPLOAD_PIECE_BYTES = 1024 * 1024
MAX_PLAYERS = 12
MAX_NAME = 40
TOKEN_COOKIE = "sheetscan_join"
# What a photo's first bytes say it is (the reader opens these; HEIC through pillow-heif)
PHOTO_SIGNATURES = {b"\xff\xd8\xff": ".jpg", b"\x89PNG\r\n\x1a\n": ".png", b"II*\x00": ".tif", b"MM\x00*": ".tif",
                    b"BM": ".bmp"}


def photo_suffix(data: bytes) -> str | None:
    """The file suffix of a photo by its first bytes, or None if it is no photo the reader opens."""
    for signature, suffix in PHOTO_SIGNATURES.items():
        if data.startswith(signature):
            return suffix
    if data[4:8] == b"ftyp" and data[8:12] in (b"heic", b"heix", b"mif1", b"msf1", b"heim", b"heis"):
        return ".heic"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ".webp"
    return None


class CellFix(BaseModel):
    row: int
    col: int
    decoration: str  # a golden-form letter: . L B T R M =
    water: bool
    late: bool = False


class NumberFix(BaseModel):
    category: str
    value: int


class TurnFix(BaseModel):
    index: int
    text: str  # as a player writes it: 2-3 / 6, 5 / 24, X


class PlayerPick(BaseModel):
    player: Optional[int]


def create_app(data: Path, *, token: str | None = None, jobs: int = 1, url: str = "", bgg_id: int | None = None,
               layout: Layout | None = None) -> FastAPI:
    """The page's app over the data folder ``data``; ``token``: the join token every request
    must carry (None on localhost); ``url``: the address shown in the QR code; ``layout``: the
    sheets' design (the print-and-play sheet unless given)."""
    layout = layout or load_layout()
    store = Store(data)
    reader = Reader(store, jobs, layout)
    templates = Jinja2Templates(directory=str(HERE / "templates"))  # autoescaped: names are shown as text

    @asynccontextmanager
    async def lifespan(_app):
        reader.resume()  # photos left unread when the server last stopped
        yield
        reader.close()

    app = FastAPI(title="sheetscan table", docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.store, app.state.reader, app.state.token = store, reader, token
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    cells = [[region_box(layout.cell(r, c)) for c in range(6)] for r in range(6)]
    page_size = tuple(round(side * CANONICAL_PX_PER_MM) for side in layout.page_mm)  # the rectified sheet's

    @app.middleware("http")
    async def join_token(request: Request, call_next):
        if token is None:
            return await call_next(request)
        given = request.query_params.get("token") or request.cookies.get(TOKEN_COOKIE)
        if not given or not secrets.compare_digest(given, token):
            return PlainTextResponse("This table's page needs its join link: scan the QR code shown where "
                                     "sheetscan serve runs.", status_code=403)
        response = await call_next(request)
        response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
        return response

    def page(request: Request, name: str, **context) -> HTMLResponse:
        return templates.TemplateResponse(request, name, {"qr": segno.make(url or str(request.base_url)).svg_inline(scale=3),
                                                          "join_url": url or str(request.base_url), **context})

    def game_or_404(game: int) -> dict:
        found = store.game(game)
        if not found:
            raise HTTPException(404, f"no game {game}")
        return found

    def sheet_or_404(sheet: int):
        found = store.sheet(sheet)
        if not found:
            raise HTTPException(404, f"no sheet {sheet}")
        return found

    @app.get("/", response_class=HTMLResponse)
    def index(request: Request):
        return page(request, "index.html", games=store.games(), today=datetime.date.today().isoformat())

    @app.post("/games")
    def new_game(date: str = Form(...), players: str = Form(...)):
        names = [name.strip()[:MAX_NAME] for name in players.replace(",", "\n").splitlines() if name.strip()]
        if not names or len(names) > MAX_PLAYERS:
            raise HTTPException(400, f"name 1 to {MAX_PLAYERS} players, one per line")
        try:
            datetime.date.fromisoformat(date)
        except ValueError:
            raise HTTPException(400, "the date must be YYYY-MM-DD") from None
        return RedirectResponse(f"/games/{store.new_game(date, names)}", status_code=303)

    @app.get("/games/{game}", response_class=HTMLResponse)
    def game_page(request: Request, game: int):
        return page(request, "game.html", game=game_or_404(game), players=store.players(game),
                    state=review.game_state(store, game))

    @app.get("/api/games/{game}")
    def game_json(game: int):
        game_or_404(game)
        return review.game_state(store, game)

    @app.post("/games/{game}/photos")
    async def send_photo(request: Request, game: int, photo: UploadFile = File(...), player: Optional[int] = Form(None)):
        game_or_404(game)
        if player is not None and player not in {p["id"] for p in store.players(game)}:
            raise HTTPException(400, f"no player {player} in this game")
        head = await photo.read(PHOTO_HEAD_BYTES)
        if not head:
            raise HTTPException(400, f"{photo.filename}: the file is empty")
        suffix = photo_suffix(head)
        if suffix is None:
            raise HTTPException(415, f"{photo.filename}: not a photo (JPEG, PNG, HEIC, WebP, TIFF or BMP)")
        incoming = store.incoming()
        try:
            with incoming.open("wb") as out:  # copied a piece at a time: a phone's upload never sits in memory whole
                out.write(head)
                size = len(head)
                while piece := await photo.read(UPLOAD_PIECE_BYTES):
                    size += len(piece)
                    if size > MAX_PHOTO_BYTES:
                        raise HTTPException(413, f"{photo.filename}: the photo is over {MAX_PHOTO_BYTES // 2**20} MB")
                    out.write(piece)
            photo_id = store.add_photo(game, player, incoming, (photo.filename or "photo")[:200], suffix)
        finally:
            incoming.unlink(missing_ok=True)
        reader.submit(store.photo(photo_id))
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse({"photo": photo_id, "status": "reading"}, status_code=202)
        return RedirectResponse(f"/games/{game}", status_code=303)

    @app.get("/sheets/{sheet}", response_class=HTMLResponse)
    def review_page(request: Request, sheet: int):
        found = sheet_or_404(sheet)
        game = store.game_of_sheet(sheet)
        return page(request, "review.html", sheet=found, game=store.game(game), players=store.players(game),
                    cells=cells, page=page_size, state=review.sheet_state(store, found), categories=CATEGORIES)

    @app.get("/api/sheets/{sheet}")
    def sheet_json(sheet: int):
        return review.sheet_state(store, sheet_or_404(sheet))

    def corrected(sheet: int, change) -> dict:
        found = sheet_or_404(sheet)
        try:
            change(found)
        except ValueError as error:
            raise HTTPException(400, str(error)) from None
        return {"sheet": review.sheet_state(store, store.sheet(sheet)),
                "game": review.game_state(store, store.game_of_sheet(sheet))}

    @app.post("/api/sheets/{sheet}/cell")
    def fix_cell(sheet: int, fix: CellFix):
        return corrected(sheet, lambda found: review.fix_cell(store, found, fix.row, fix.col, fix.decoration, fix.water,
                                                              fix.late, cells[fix.row][fix.col] if 0 <= fix.row < 6 and 0 <= fix.col < 6 else None))

    @app.post("/api/sheets/{sheet}/written")
    def fix_written(sheet: int, fix: NumberFix):
        return corrected(sheet, lambda found: review.fix_written(store, found, fix.category, fix.value))

    @app.post("/api/sheets/{sheet}/turn")
    def fix_turn(sheet: int, fix: TurnFix):
        return corrected(sheet, lambda found: review.fix_turn(store, found, fix.index, fix.text))

    @app.post("/api/sheets/{sheet}/player")
    def pick_player(sheet: int, pick: PlayerPick):
        game = store.game_of_sheet(sheet_or_404(sheet).id)
        if pick.player is not None and pick.player not in {p["id"] for p in store.players(game)}:
            raise HTTPException(400, f"no player {pick.player} in this game")
        store.assign(sheet, pick.player)
        return {"game": review.game_state(store, game)}

    @app.get("/files/{kind}/{name}")
    def data_file(kind: str, name: str):
        if kind != "sheets" or "/" in name or name.startswith("."):
            raise HTTPException(404, "no such file")
        path = store.folder / kind / name
        if not path.is_file():
            raise HTTPException(404, "no such file")
        return FileResponse(path)

    @app.get("/games/{game}/results", response_class=HTMLResponse)
    def results_page(request: Request, game: int):
        found = game_or_404(game)
        return page(request, "results.html", game=found, state=review.game_state(store, game),
                    bgstats_link=review.bgstats_link(review.bgstats_play(store, game, bgg_id)))

    @app.get("/games/{game}/export.csv")
    def export_csv(game: int):
        game_or_404(game)
        return Response(review.standings_csv(store, game), media_type="text/csv",
                        headers={"Content-Disposition": f'attachment; filename="sheetscan-game-{game}.csv"'})

    @app.get("/games/{game}/export.json")
    def export_json(game: int):
        game_or_404(game)
        return review.game_state(store, game)

    @app.get("/games/{game}/bgstats.json")
    def export_bgstats(game: int):
        game_or_404(game)
        return review.bgstats_play(store, game, bgg_id)

    return app


def join_token() -> str:
    """A fresh random join token for a page open to the network."""
    return secrets.token_urlsafe(12)
