"""Roll Builder in a real browser: a solo game clicked to the final scoring, the language switch,
the Convert button.

``python -m tests.browser.test_roll_builder`` rewrites docs/screenshots/roll-builder.png
(a Tidehaven city a few turns in, with roads to draw).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import NewPage
from tests.browser.helpers import FINAL, table_url
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(90)]

BOARD = "[data-testid=city-0]"
EDGE = ".rb-edge.legal"
SPACE = ".rb-hex.legal"
CHOICE = "[data-testid=space-chooser] button[data-testid^=choose-build], [data-testid=choose-mark]"
BOX = ".rb-box.legal:not([disabled])"
COST = ".rb-cost.legal:not([disabled])"
PAY_WITH = "[data-testid=pay-chooser] button"
DONE = "[data-testid=done-button]:not([disabled])"
ACTIONABLE = f"{FINAL}, {DONE}"
SETTLED = "window.rollhouse.pending.size === 0"


def use_die(die: int, action: str) -> str:
    return f"[data-testid=use-{die}-{action}]:not([disabled])"


async def click_first(page: Any, selector: str) -> bool:
    """Click the first element matching ``selector``; False when there is none."""
    found = page.locator(selector)
    if not await found.count():
        return False
    await found.first.click(timeout=3000)
    return True


async def play_step(page: Any) -> str:
    """One click of a simple strategy: roads first, then builds, marks, the wonder, the
    innovations, else the dice (die 0 for roads, die 1 for a building or the wonder),
    else Done. Returns what was clicked, or "over"."""
    await page.wait_for_selector(ACTIONABLE, timeout=15000)
    if await page.locator(FINAL).count():
        return "over"
    turn = int(await page.get_by_test_id("rb-turn").get_attribute("data-turn") or 0)
    second = "build" if turn % 2 else "wonder"
    choices = [
        ("choose", CHOICE),
        ("pay_with", PAY_WITH),
        ("road", EDGE),
        ("space", SPACE),
        ("box", BOX),
        ("cost", COST),
        ("die0", use_die(0, "road")),
        ("die1", use_die(1, second)),
        ("die1", use_die(1, "road")),
        ("done", DONE),
    ]
    first = await page.evaluate(
        "sels => sels.findIndex((s) => document.querySelector(s))", [sel for _, sel in choices]
    )
    if first >= 0:
        name, selector = choices[first]
        await page.locator(selector).first.click(timeout=3000)
        return name
    return "missed"


async def play_solo_to_the_end(page: Any) -> list[str]:
    """Click legal actions (and Done) turn after turn until the final scoring shows."""
    clicks: list[str] = []
    for _ in range(1500):
        try:
            move = await play_step(page)
        except (PlaywrightTimeout, PlaywrightError):
            move = "missed"  # the board was redrawn between looking and clicking
        clicks.append(move)
        if move == "over":
            return clicks
        await page.wait_for_function(SETTLED, timeout=10000)
    raise AssertionError("the game did not end within 1500 clicks")


@pytest.mark.timeout(240)  # 150 clicks: slow on a shared 2-core machine
async def test_a_solo_game_is_clicked_through_to_the_final_scoring(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """A solo Roll Builder game played by clicking the board reaches the score sheet."""
    room = (await live_server.create_room("roll-builder", 1, room={"clock": 0}))["room"]
    ana = await new_page("Ana")
    await ana.emulate_media(reduced_motion="reduce")  # no glowing targets: clicks settle at once
    await ana.goto(table_url(live_server.url, room))
    await ana.wait_for_selector(BOARD, timeout=15000)
    watcher = await new_page("Watcher")
    await watcher.goto(table_url(live_server.url, room, watch=True))
    await watcher.wait_for_selector(BOARD, timeout=15000)

    # the player sees the dice actions; the spectator sees the same city, read-only
    await ana.wait_for_selector(use_die(0, "road"), timeout=5000)
    assert await watcher.locator("[data-testid=done-button], .rb-edge.legal, .rb-use").count() == 0
    assert await watcher.locator(".rb-hex").count() == await ana.locator(".rb-hex").count() > 40

    clicks = await play_solo_to_the_end(ana)
    assert {"die0", "die1", "road", "done"} <= set(clicks)
    assert clicks.count("done") >= 15  # Done with an unused die asks twice

    # the score sheet matches the server's result, and says whether the city survived
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as http:
        info = (await http.get(f"/api/rooms/{room}")).json()
    assert info["status"] == "finished"
    score = info["result"]["scores"][0]
    assert await ana.get_by_test_id("final-row-0").get_attribute("data-total") == str(score)
    survival = ana.get_by_test_id("rb-survival")
    survived = info["result"]["winners"] == [0]  # solo: the city wins when it survives
    assert await survival.get_attribute("data-survived") == str(survived).lower()
    assert ("survived" if survived else "fell") in (await survival.inner_text())
    await watcher.wait_for_selector(FINAL, timeout=10000)
    assert await watcher.get_by_test_id("final-total-0").inner_text() == str(score)
    # every road the city drew is on the map
    roads = await ana.evaluate("window.rollhouse.view.game.players[0].map.roads.length")
    assert await ana.locator(".rb-road").count() == roads > 4


async def test_the_portuguese_switch_translates_the_board(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """The language switch turns the Roll Builder board's own strings into pt-BR and back."""
    room = (await live_server.create_room("roll-builder", 1, room={"clock": 0}))["room"]
    page = await new_page("Bia", lang="pt-BR")
    await page.goto(table_url(live_server.url, room))
    await page.wait_for_selector(DONE, timeout=15000)
    assert (await page.get_by_test_id("rb-turn").inner_text()).startswith("Turno 1 de 15")
    assert await page.get_by_test_id("done-button").inner_text() == "Pronto neste turno"
    assert "Estradas" in await page.get_by_test_id("use-0-road").inner_text()
    assert "Inovações" in await page.get_by_test_id("innovations-0").get_attribute("aria-label")

    await page.get_by_test_id("lang-en").click()
    await page.wait_for_function(
        "document.querySelector('[data-testid=rb-turn]').textContent.startsWith('Turn 1 of 15')"
    )
    assert await page.get_by_test_id("done-button").inner_text() == "Done for this turn"
    assert "Innovations" in await page.get_by_test_id("innovations-0").get_attribute("aria-label")
    await page.get_by_test_id("lang-pt").click()
    await page.wait_for_function(
        "document.querySelector('[data-testid=done-button]').textContent === 'Pronto neste turno'"
    )


async def test_a_player_views_the_bots_city_read_only_in_its_tab(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """With two seats, a tab shows the other city (its own sheet, no controls) and back."""
    room = (
        await live_server.create_room(
            "roll-builder",
            2,
            options={"city": ["tidehaven", "highcrag"]},
            room={"clock": 0, "bots": 1, "bot_delay": 0.05},
        )
    )["room"]
    page = await new_page("Ana")
    await page.goto(table_url(live_server.url, room))
    await page.wait_for_selector(use_die(0, "road"), timeout=15000)
    seat = int(await page.evaluate("window.rollhouse.seat"))
    other = 1 - seat
    cities = await page.evaluate("window.rollhouse.view.game.players.map((p) => p.city.name)")

    await page.get_by_test_id(f"city-tab-{other}").click()
    await page.wait_for_selector(f"[data-testid=map-{other}]", timeout=5000)
    assert cities[other] in await page.get_by_test_id(f"city-{other}").get_attribute("aria-label")
    assert (
        await page.locator(
            ".rb-use, .rb-edge.legal, .rb-hex.legal, [data-testid=done-button]"
        ).count()
        == 0
    )

    await page.get_by_test_id(f"city-tab-{seat}").click()
    await page.wait_for_selector(f"[data-testid=map-{seat}]", timeout=5000)
    await page.wait_for_selector(use_die(0, "road"), timeout=5000)
    assert cities[seat] in await page.get_by_test_id(f"city-{seat}").get_attribute("aria-label")


async def test_the_convert_button_puts_favor_on_its_track_mid_turn(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """With the Festival of Lights, turn 3's roll brings 2 favor: a Convert button offers to
    cross it off the track now; clicking it empties the pool onto the track, mid-turn."""
    room = (
        await live_server.create_room(
            "roll-builder", 1, options={"event": "festival"}, room={"clock": 0}
        )
    )["room"]
    page = await new_page("Ana")
    await page.emulate_media(reduced_motion="reduce")
    await page.goto(table_url(live_server.url, room))
    me = "window.rollhouse.view.game.players[0]"
    for _ in range(10):  # turns 1 and 2: Done (twice, with unused dice)
        await page.wait_for_selector(f"{DONE}, [data-testid=convert-favor]", timeout=15000)
        if await page.get_by_test_id("convert-favor").count():
            break
        await page.locator(DONE).click(timeout=3000)
        await page.wait_for_function(SETTLED, timeout=10000)
    button = page.get_by_test_id("convert-favor")
    assert await page.evaluate(f"{me}.pool.favor || 0") == 2
    assert await page.evaluate("window.rollhouse.view.game.turn") == 3
    assert await button.inner_text() == "Convert 2 favor now"
    assert "wonder box" in (await button.get_attribute("title") or "")
    crossed = await page.evaluate(f"{me}.tracks.favor.crossed")
    await button.click()
    await page.wait_for_function(SETTLED, timeout=10000)
    await page.wait_for_selector("[data-testid=convert-favor]", state="detached", timeout=5000)
    assert await page.evaluate(f"{me}.pool.favor || 0") == 0
    assert await page.evaluate(f"{me}.tracks.favor.crossed") == crossed + 2
    assert await page.evaluate("window.rollhouse.view.game.turn") == 3  # still the same turn
    await page.wait_for_selector(DONE, timeout=5000)


# -- the screenshot ---------------------------------------------------------------------------------


async def screenshot(path: Path) -> None:
    """A Tidehaven city five turns in, die 0 spent on roads: docs/screenshots/roll-builder.png."""
    from playwright.async_api import async_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT
    from tests.support.server import serve

    async with serve() as server, async_playwright() as pw:
        room = (await server.create_room("roll-builder", 1, room={"clock": 0}))["room"]
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = await browser.new_context(viewport=VIEWPORT)
        await context.add_init_script(
            "localStorage.setItem('rollhouse.lang', 'en'); localStorage.setItem('rollhouse.name', 'Ana');"
        )
        page = await context.new_page()
        await page.emulate_media(reduced_motion="reduce")
        await page.goto(table_url(server.url, room))
        await page.wait_for_selector(BOARD, timeout=15000)
        while int(await page.get_by_test_id("rb-turn").get_attribute("data-turn") or 0) < 6:
            await play_step(page)
            await page.wait_for_function(SETTLED, timeout=10000)
        await click_first(page, use_die(0, "road"))
        await page.wait_for_function(SETTLED, timeout=10000)
        await click_first(page, EDGE)
        await page.wait_for_function(SETTLED, timeout=10000)
        await page.wait_for_timeout(400)
        await page.screenshot(path=str(path), full_page=True, animations="disabled")
        await browser.close()


if __name__ == "__main__":
    out = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "roll-builder.png"
    asyncio.run(screenshot(out))
    print(out)
