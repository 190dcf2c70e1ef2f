"""Phones and tablets: no page is wider than the screen, and touch screens get touch UI.

At 390x844 (a phone) and 768x1024 (a tablet), with touch: the lobby, the rules drawer,
each game's table mid-game (a player's own view, with its controls) and at the end
(the final scores) keep ``document.documentElement.scrollWidth`` within the viewport.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.browser.conftest import require_chromium
from tests.browser.helpers import FINAL, GAMES, finished_rooms, table_url
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(150)]

WIDTH = "document.documentElement.scrollWidth"
DICE_TO_MAP = """() => {
  const dice = document.querySelector('.rb-dice-panel').getBoundingClientRect();
  const map = document.querySelector('.rb-map-panel').getBoundingClientRect();
  return map.top - dice.bottom;
}"""


async def assert_fits(page: Any, width: int, what: str) -> None:
    scroll = await page.evaluate(WIDTH)
    assert scroll <= width, f"{what}: laid out {scroll} px wide on a {width} px screen"


@pytest.mark.parametrize("size", [(390, 844), (768, 1024)], ids=["phone", "tablet"])
async def test_no_page_is_wider_than_the_screen(
    live_server: LiveServer, browser: Any, size: tuple[int, int]
) -> None:
    """Lobby, rules drawer, each table mid-game and at the end fit the screen's width."""
    require_chromium()
    width, height = size
    done = await finished_rooms(live_server)
    context = await browser.new_context(
        viewport={"width": width, "height": height}, has_touch=True, is_mobile=True
    )
    await context.add_init_script("localStorage.setItem('rollhouse.name', 'Ana')")
    page = await context.new_page()
    try:
        await page.goto(live_server.url + "/")
        await page.get_by_test_id("play-bot-rollie").wait_for()
        await page.get_by_test_id(f"room-{done['rollie']}").count()
        await assert_fits(page, width, "lobby")
        await page.get_by_test_id("filter-finished").click()
        await page.get_by_test_id(f"room-{done['rollie']}").wait_for()
        await assert_fits(page, width, "lobby, finished rooms")
        await page.get_by_test_id("rules-roll-player").click()
        await page.get_by_test_id("rules-body").get_by_role("heading").first.wait_for()
        await assert_fits(page, width, "rules drawer")

        for game, seats, _ in GAMES:
            room = await live_server.create_room(
                game, seats, room={"clock": 0, "bots": seats - 1, "bot_delay": 0.2}
            )
            await page.goto(table_url(live_server.url, room["room"]))
            # mid-game: it is this player's turn, with the controls showing
            await page.wait_for_function(
                "window.rollhouse && rollhouse.view && rollhouse.view.you"
                " && rollhouse.view.you.legal.length > 0",
                timeout=20000,
            )
            await asyncio.sleep(0.3)
            await assert_fits(page, width, f"{game} mid-game")
            if game == "roll-builder":
                # the dice sit right above the map: no scrolling between them
                gap = await page.evaluate(DICE_TO_MAP)
                assert 0 <= gap < 40, f"the dice are {gap} px from the map"
            await page.goto(table_url(live_server.url, done[game], watch=True))
            await page.wait_for_selector(FINAL, timeout=10000)
            await assert_fits(page, width, f"{game} final scores")
            await page.goto(f"{live_server.url}/replay.html?room={done[game]}")
            await page.wait_for_function(
                "window.rollhouseReplay && window.rollhouseReplay.count > 1"
            )
            await assert_fits(page, width, f"{game} replay")
    finally:
        await context.close()


async def test_touch_screens_get_no_keyboard_hint(live_server: LiveServer, browser: Any) -> None:
    """Rollie's "R rolls, S secures" hint shows with a mouse, not on a touch phone."""
    require_chromium()
    hints = {}
    for touch in (False, True):
        room = await live_server.create_room(
            "rollie", 2, room={"clock": 0, "bots": 1, "bot_delay": 0.2}
        )
        context = await browser.new_context(
            viewport={"width": 390, "height": 844} if touch else {"width": 1366, "height": 860},
            has_touch=touch,
            is_mobile=touch,
        )
        page = await context.new_page()
        await page.goto(table_url(live_server.url, room["room"]))
        await page.wait_for_function(
            "window.rollhouse && rollhouse.view && rollhouse.view.you && rollhouse.view.you.legal"
            ".some(c => c.type === 'roll' || c.type === 'secure')",
            timeout=20000,
        )
        await page.locator(
            "[data-testid=roll-button], [data-testid=secure-button]"
        ).first.wait_for()
        hints[touch] = await page.get_by_test_id("key-hint").count()
        await context.close()
    assert hints == {False: 1, True: 0}
