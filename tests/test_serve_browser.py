"""End to end in a real browser: Debian's chromium driven by Playwright, as a phone at the table.

Skipped, saying so, where no chromium is installed (.ci/setup installs it); nothing is downloaded.
"""

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed: apt-get install chromium")
SAMPLES = Path(__file__).parents[1] / "samples"
# The README's screenshots are this test's: SHEETSCAN_SCREENSHOTS=docs/images pytest tests/test_serve_browser.py
SCREENSHOTS = os.environ.get("SHEETSCAN_SCREENSHOTS")


@pytest.fixture(scope="module")
def page_url(tmp_path_factory):
    import uvicorn

    from sheetscan.serve.app import create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(tmp_path_factory.mktemp("table"), jobs=2), host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def test_a_table_sends_two_sheets_corrects_a_cell_and_exports_the_play(page_url, tmp_path):
    shots = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        phone = browser.new_context(**p.devices["Pixel 7"])
        page = phone.new_page()
        page.goto(page_url)
        page.fill("input[name=date]", "2026-11-30")
        page.fill("textarea[name=players]", "Ana\nBen")
        page.click("text=Start the game")
        page.wait_for_url("**/games/*")
        for player, photo in (("Ana", SAMPLES / "phone" / "0000.jpg"), ("Ben", SAMPLES / "scan" / "0000.jpg")):
            card = page.locator("form.send", has_text=player)
            with page.expect_file_chooser() as chooser:
                card.locator("label.button").click()
            chooser.value.set_files(str(photo))
        page.wait_for_function("document.querySelectorAll('#standings tbody tr').length === 2", timeout=120_000)
        page.screenshot(path=str(shots / "table-phone.jpg"), full_page=True, type="jpeg", quality=80)
        standings = page.locator("#standings tbody tr").all_inner_texts()
        assert {row.split("\t")[1] for row in standings} == {"Ana", "Ben"}
        ana_total = int(page.locator("#standings tbody tr", has_text="Ana").locator("td").nth(2).inner_text())

        page.locator("#sheets a").first.click()
        page.wait_for_url("**/sheets/*")
        total = int(page.inner_text("#total"))
        empty = page.evaluate("""() => { const s = JSON.parse(document.getElementById('state').textContent);
            for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) if (s.garden.cells[r][c] === '.') return [r, c, s.garden.water[r][c] === '~'];
            return null; }""")
        assert empty is not None
        row, col, water = empty
        page.locator(f"g.cell[data-row='{row}'][data-col='{col}']").click()
        page.select_option("#cell-editor select[name=decoration]", "R")
        page.click("#cell-save")
        page.wait_for_function(f"document.getElementById('total').textContent !== '{total}'")
        corrected = int(page.inner_text("#total"))
        assert corrected != total
        assert "corrected to rock" in page.inner_text("#corrections")
        page.screenshot(path=str(shots / "table-review.jpg"), type="jpeg", quality=80)

        game_url = page.locator("header a", has_text="Game").get_attribute("href")
        page.goto(page_url + game_url)
        page.wait_for_function("document.querySelectorAll('#standings tbody tr').length === 2")
        player_of_sheet = page.locator("#sheets tbody tr").first.locator("td").nth(2).inner_text()
        new_total = int(page.locator("#standings tbody tr", has_text=player_of_sheet).locator("td").nth(2).inner_text())
        assert new_total == corrected and (player_of_sheet != "Ana" or new_total != ana_total)
        play = page.request.get(page_url + game_url + "/bgstats.json").json()
        assert {p["name"] for p in play["players"]} == {"Ana", "Ben"} and play["game"]["name"] == "Jardín Japonés"
        page.goto(page_url + game_url + "/results")
        assert page.locator("#bgstats-link").get_attribute("href").startswith("https://app.bgstatsapp.com/createPlay.html?data=")
        browser.close()
