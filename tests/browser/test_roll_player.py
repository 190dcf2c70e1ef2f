"""Roll Player in a real browser: a whole game against a hosted bot, a spectator, Portuguese.

Run as a module to rewrite docs/screenshots/roll-player.png (a table mid-game):
``.venv/bin/python -m tests.browser.test_roll_player``.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import NewPage
from tests.browser.helpers import FINAL, my_seat, table_url
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

ROOT = "[data-testid=game-root]"
SEND = f"{ROOT} .rp-send:not([disabled])"
STEP = f"{ROOT} .rp-step:not([disabled])"
ANYTHING = f"{SEND}, {STEP}, {FINAL}"
SKILL = f"{ROOT} .rp-aux[data-testid^=use-]:not([disabled])"
CONTROLS = ".rp-send, .rp-step, .rp-aux, .rp-opt, [data-testid=rp-actions], [data-testid=all-moves]"
SPECTATOR_WATCH = """sel => {
  window.__controls_seen = 0;
  new MutationObserver(() => { if (document.querySelector(sel)) window.__controls_seen += 1; })
    .observe(document.body, {subtree: true, childList: true, attributes: true});
}"""
PORTUGUESE = ["Força", "Destreza", "Constituição", "Inteligência", "Sabedoria", "Carisma"]


async def room_info(server: LiveServer, room: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        reply = await http.get(f"/api/rooms/{room}")
        reply.raise_for_status()
        return reply.json()  # type: ignore[no-any-return]


async def play_one(page: Any, rnd: random.Random) -> str:
    """Wait for a control and click one: a command (mostly) or a step toward one.

    Returns the clicked control's test id, "over" at the final scoring, or "missed"
    when the table moved on between looking and clicking (a clock, the bot)."""
    await page.wait_for_selector(ANYTHING, timeout=30000)
    if await page.locator(FINAL).count():
        return "over"
    skills = page.locator(SKILL)
    if rnd.random() < 0.2 and await skills.count():
        # now and then a skill (or the class ability): its targets become the next sends
        try:
            testid = await skills.first.get_attribute("data-testid", timeout=2000)
            await skills.first.click(timeout=2000)
        except (PlaywrightTimeout, PlaywrightError):
            return "missed"
        return testid or "?"
    sends, steps = page.locator(SEND), page.locator(STEP)
    n, m = await sends.count(), await steps.count()
    target = sends.nth(rnd.randrange(n)) if n and (not m or rnd.random() < 0.7) else None
    if target is None and m:
        target = steps.nth(rnd.randrange(m))
    if target is None:
        return "missed"
    try:
        testid = await target.get_attribute("data-testid", timeout=2000)
        await target.click(timeout=2000)
    except (PlaywrightTimeout, PlaywrightError):
        return "missed"
    return testid or "?"


async def play_to_the_end(page: Any, clicks: list[str], seed: int = 7) -> None:
    """Click legal controls for this page's seat until the final scoring shows."""
    rnd = random.Random(seed)
    for _ in range(600):
        click = await play_one(page, rnd)
        clicks.append(click)
        if click == "over":
            return
        await page.wait_for_function("window.rollhouse.pending.size === 0", timeout=10000)
    raise AssertionError("the game did not end within 600 clicks")


async def test_a_browser_player_plays_roll_player_to_the_end_against_a_bot(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """One browser player and a hosted bot finish a game; the spectator sees the same scores."""
    room = (
        await live_server.create_room(
            "roll-player", 2, room={"bots": 1, "bot_delay": 0, "clock": 5}
        )
    )["room"]
    watcher = await new_page("Watcher")
    await watcher.goto(table_url(live_server.url, room, watch=True))
    await watcher.wait_for_selector("[data-testid=rp-status]", timeout=15000)
    await watcher.evaluate(SPECTATOR_WATCH, CONTROLS)

    ana = await new_page("Ana")
    await ana.goto(table_url(live_server.url, room))
    seat = await my_seat(ana)
    clicks: list[str] = []
    await play_to_the_end(ana, clicks)

    await watcher.wait_for_selector(FINAL, timeout=15000)
    tables = [await p.locator(FINAL).inner_text() for p in (ana, watcher)]
    assert tables[0] == tables[1]
    assert "ana" in tables[1].lower() and "bot 1" in tables[1].lower()
    for item in ("Strength goal", "Alignment", "Backstory", "Armor sets", "Traits", "Total"):
        assert item in tables[1]
    # the page's totals and winners are the server's result
    info = await room_info(live_server, room)
    assert info["status"] == "finished"
    for s, score in enumerate(info["result"]["scores"]):
        total = await watcher.get_by_test_id(f"final-total-{s}").get_attribute("data-total")
        assert total == str(score)
    winners = await watcher.get_by_test_id("winners").inner_text()
    assert all((("Ana" if w == seat else "bot 1") in winners) for w in info["result"]["winners"])
    # Ana made every kind of choice through the board, not the raw list
    for prefix in ("sheet-", "choose-", "place-confirm", "draft-row-", ("buy-", "discard-")):
        assert any(c.startswith(prefix) for c in clicks), (prefix, clicks)
    assert not any(c.startswith("legal-") for c in clicks)
    # the spectator never saw a control, and the sheets show 18 dice each
    assert await watcher.evaluate("window.__controls_seen") == 0
    assert await watcher.locator(f"{ROOT} .rp-send, {ROOT} .rp-step").count() == 0
    for s in (0, 1):
        dice = watcher.get_by_test_id(f"sheet-{s}").locator(".rp-spaces .rp-die:not(.empty)")
        assert await dice.count() == 18
    code = await watcher.evaluate(
        "rollhouse.send({type: 'skip_action'}).then(() => 'ack', e => e.code)"
    )
    assert code == "room/read_only"


async def test_the_portuguese_switch_shows_roll_player_terms(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """PT shows the rulebook's Portuguese terms on the board; EN brings English back."""
    room = (await live_server.create_room("roll-player", 2, room={"bots": 1, "clock": 0}))["room"]
    page = await new_page("Ana")
    await page.goto(table_url(live_server.url, room))
    seat = await my_seat(page)
    await page.get_by_test_id("rp-actions").wait_for(timeout=15000)
    board = page.get_by_test_id("game-root")
    assert "Strength" in await board.inner_text()
    await page.get_by_test_id("lang-pt").click()
    await page.wait_for_selector("[data-testid=game-root] .rp-board[data-lang=pt-BR]")
    text = await board.inner_text()
    for term in [*PORTUGUESE, "Ouro", "Mercado", "Iniciativa", "Jogador Inicial", "Tendência"]:
        assert term.lower() in text.lower(), term
    assert "strength" not in text.lower() and "market" not in text.lower()
    assert "sua jogada" in text.lower()
    # market cards carry Portuguese names too
    for name in await page.evaluate("window.rollhouse.view.game.market"):
        shown = await page.get_by_test_id(f"card-{name}").locator(".rp-card-name").inner_text()
        assert shown and shown != name, name
    # a choice made in Portuguese lands on the sheet in Portuguese
    await page.locator(SEND).first.click()
    await page.wait_for_function(
        "s => window.rollhouse.view.game.players[s].race !== ''", arg=seat, timeout=10000
    )
    race = await page.get_by_test_id(f"race-name-{seat}").inner_text()
    race_en = await page.evaluate(f"window.rollhouse.view.game.players[{seat}].race")
    names = {"Dragonkin": "Draconato", "Dwarf": "Anão", "Elf": "Elfo", "Human": "Humano"}
    assert race == names.get(race_en, race_en)
    await page.get_by_test_id("lang-en").click()
    await page.wait_for_selector("[data-testid=game-root] .rp-board[data-lang=en]")
    assert "Strength" in await board.inner_text()


# -- the screenshot ----------------------------------------------------------------------------


async def make_screenshot(path: Path) -> None:
    """Play a game in the browser until round 6's attribute action, then photograph it."""
    from playwright.async_api import async_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
    from tests.support.server import serve

    async with serve() as server, async_playwright() as pw:
        room = (
            await server.create_room("roll-player", 2, room={"bots": 1, "bot_delay": 0, "clock": 0})
        )["room"]
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = await browser.new_context(viewport={"width": 1366, "height": 900})
        await context.add_init_script(
            "localStorage.setItem('rollhouse.name', 'Ana');"
            "localStorage.setItem('rollhouse.lang', 'en');"
        )
        page = await context.new_page()
        await page.goto(table_url(server.url, room))
        rnd = random.Random(11)
        seat = await my_seat(page)
        for _ in range(400):
            state = await page.evaluate(
                "[rollhouse.view.game.round, rollhouse.view.game.phase, rollhouse.view.game.turn]"
            )
            if state[0] >= 6 and state[1] == "action" and state[2] == seat:
                break
            await play_one(page, rnd)
            await page.wait_for_function("window.rollhouse.pending.size === 0")
        await page.wait_for_timeout(400)
        await page.evaluate("document.querySelector('[data-testid=banner]').hidden = true")
        await page.screenshot(path=str(path), full_page=True)
        await browser.close()


if __name__ == "__main__":
    out = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "roll-player.png"
    asyncio.run(make_screenshot(out))
    print(f"wrote {out}")


async def test_starting_dice_go_to_the_rows_the_player_picks(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """The placement chooser sends any valid placement, not only the suggested ones."""
    room = (await live_server.create_room("roll-player", 2, room={"bots": 1, "clock": 0}))["room"]
    page = await new_page("Ana")
    await page.goto(table_url(live_server.url, room))
    seat = await my_seat(page)
    for testid in ("sheet-", "choose-"):
        button = page.locator(f"{ROOT} [data-testid^={testid}].rp-send:not([disabled])").first
        await button.click(timeout=15000)
        await page.wait_for_function("window.rollhouse.pending.size === 0", timeout=10000)
    await page.get_by_test_id("place-confirm").wait_for(timeout=15000)
    dice = await page.evaluate(f"window.rollhouse.view.game.starting[{seat}]")
    for i in range(3):
        await page.get_by_test_id(f"place-{i}-5").click()
    await page.get_by_test_id("place-0-4").click()
    assert await page.get_by_test_id("place-0-4").get_attribute("aria-pressed") == "true"
    await page.get_by_test_id("place-0-5").click()
    await page.get_by_test_id("place-confirm").click()
    await page.wait_for_function(
        "s => window.rollhouse.view.game.players[s].rows[5].length === 3", arg=seat, timeout=10000
    )
    rows = await page.evaluate(f"window.rollhouse.view.game.players[{seat}].rows")
    assert rows[5] == dice[:3]
    assert sum(len(r) for r in rows) == len(dice)
    sheet = page.get_by_test_id(f"row-{seat}-5")
    assert await sheet.locator(".rp-die:not(.empty)").count() == 3
