"""Issue 24, phones held in one hand (390x844, touch), in English and Portuguese:

- every control of every screen (the lobby, each game's table mid-game with its
  controls, the final scores, the replay) is at least 44x44 CSS px (before issue 24:
  Roll Builder's road sides 12x21, Roll Player's placements 33x20, EN/PT 36x29, the
  Lobby link 94x23);
- Rollie: your own seat (Bet, Wallet, clock) is on screen while you act, and "What
  happened" is one tap away;
- nothing breaks mid-word (before: "Constituti-on").
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.browser.conftest import require_chromium
from tests.browser.helpers import FINAL, table_url
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

PHONE = {"width": 390, "height": 844}
MIN = 44
# every control a finger may need, visible on screen (not a visually hidden one)
SMALL = """(min) => {
  const sel = 'a[href], button, input, select, summary, [role=button], [role=radio], [role=checkbox], [tabindex]:not([tabindex="-1"])';
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    if (el.closest('[hidden], .visually-hidden, [aria-hidden=true]')) continue;
    const style = getComputedStyle(el);
    // hidden, or not for fingers (Roll Builder's thin map sides: phones choose from a list)
    if (style.visibility === 'hidden' || style.display === 'none' || style.pointerEvents === 'none') continue;
    // a check box or radio is hit through its label: the label is the target
    const target = (el.type === 'checkbox' || el.type === 'radio') && el.closest('label') ? el.closest('label') : el;
    const r = target.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.width < min - 0.5 || r.height < min - 0.5) {
      const name = (el.dataset.testid || el.getAttribute('aria-label') || el.textContent || el.tagName).trim().slice(0, 30);
      out.push(`${el.tagName.toLowerCase()} ${name}: ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
  }
  return out;
}"""
BREAKS = """() => [...document.querySelectorAll('body *')].filter(el => {
  const s = getComputedStyle(el);
  return s.overflowWrap === 'anywhere' || s.wordBreak === 'break-all' || s.hyphens === 'auto';
}).map(el => el.className || el.tagName).slice(0, 5)"""


async def phone(browser: Any, lang: str) -> Any:
    context = await browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    await context.add_init_script(
        f"localStorage.setItem('rollhouse.name', 'Ana'); localStorage.setItem('rollhouse.lang', '{lang}')"
    )
    return context


async def my_turn(page: Any) -> None:
    await page.wait_for_function(
        "window.rollhouse && rollhouse.view && rollhouse.view.you"
        " && rollhouse.view.you.legal.length > 0",
        timeout=30000,
    )
    await asyncio.sleep(0.3)


async def finished(server: LiveServer, game: str, seats: int) -> str:
    body = {"clock": 0, "bots": seats, "bot_delay": 0}
    room = (await server.create_room(game, seats, room=body))["room"]
    for _ in range(1500):
        if server.services.rooms.live[room].model.is_over:
            return str(room)
        await asyncio.sleep(0.02)
    raise AssertionError("the bots did not finish")


@pytest.mark.parametrize("lang", ["en", "pt-BR"])
async def test_every_control_is_big_enough_for_a_finger(
    live_server: LiveServer, browser: Any, lang: str
) -> None:
    require_chromium()
    context = await phone(browser, lang)
    page = await context.new_page()
    small: dict[str, list[str]] = {}

    async def measure(what: str) -> None:
        found = await page.evaluate(SMALL, MIN)
        if found:
            small[what] = found

    try:
        await page.goto(live_server.url + "/")
        await page.get_by_test_id("play-bot-rollie").wait_for()
        await measure("lobby")
        await page.get_by_test_id("rules-rollie").click()
        await page.get_by_test_id("rules-body").locator("table").first.wait_for()
        await measure("rules drawer")
        await page.get_by_test_id("rules-close").click()
        for game, seats in (("rollie", 2), ("roll-player", 2), ("roll-builder", 2)):
            room = await live_server.create_room(
                game, seats, room={"clock": 60, "bots": seats - 1, "bot_delay": 0.2}
            )
            await page.goto(table_url(live_server.url, room["room"]))
            await my_turn(page)
            await measure(f"{game} table")
            if game == "rollie":  # the alerts menu, open
                await page.get_by_test_id("alerts-button").click()
                await measure("alerts menu")
                await page.get_by_test_id("alerts-button").click()
            if game == "roll-builder":
                # a die used for roads: the sides to draw on are buttons a finger can hit,
                # and what to do is said above the map
                road = page.locator("[data-testid$=-road]:not([disabled])").first
                assert await road.count(), "no die can be used for a road on turn 1"
                if await road.count():
                    await road.click()
                    await page.get_by_test_id("road-list").wait_for()
                    await measure(f"{game} roads")
                    await page.get_by_test_id("map-hint").wait_for()
                    above = await page.evaluate(
                        "() => { const hint = document.querySelector('[data-testid=map-hint]');"
                        " const map = hint.nextElementSibling;"
                        " return hint.getBoundingClientRect().bottom <= map.getBoundingClientRect().top; }"
                    )
                    assert above, "the instructions are not above the map"
                    # a side chosen from the list draws the road
                    roads = await page.evaluate(
                        "rollhouse.view.game.players[rollhouse.seat].map.roads.length"
                    )
                    await page.get_by_test_id("road-list").select_option(index=1)
                    await page.wait_for_function(
                        f"rollhouse.view.game.players[rollhouse.seat].map.roads.length > {roads}"
                    )
            assert await page.evaluate(BREAKS) == [], f"{game}: words may break mid-word"
            done = await finished(live_server, game, seats)
            await page.goto(table_url(live_server.url, done, watch=True))
            await page.wait_for_selector(FINAL, timeout=10000)
            await measure(f"{game} final")
            await page.goto(f"{live_server.url}/replay.html?room={done}")
            await page.wait_for_function(
                "window.rollhouseReplay && window.rollhouseReplay.count > 1"
            )
            await measure(f"{game} replay")
    finally:
        await context.close()
    assert not small, "\n".join(f"{k}: {v}" for k, v in small.items())


async def test_rollie_keeps_your_seat_on_screen_and_the_log_one_tap_away(
    live_server: LiveServer, browser: Any
) -> None:
    require_chromium()
    context = await phone(browser, "en")
    page = await context.new_page()
    try:
        room = await live_server.create_room(
            "rollie", 3, room={"clock": 30, "bots": 2, "bot_delay": 0.3}
        )
        await page.goto(table_url(live_server.url, room["room"]))
        await my_turn(page)
        seat = await page.evaluate("rollhouse.seat")
        mine = page.locator(".seat-card.mine")
        box = await mine.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (
            box
        )
        for what in ("bet", "wallet"):
            part = await page.get_by_test_id(f"{what}-{seat}").bounding_box()
            assert part is not None and 0 <= part["y"] <= PHONE["height"] - part["height"], what
        # what you can do is on screen too
        action = page.locator(
            "[data-testid=roll-button], [data-testid=secure-button], .die.takeable"
        ).first
        abox = await action.bounding_box()
        assert abox is not None and abox["y"] >= 0 and abox["y"] + abox["height"] <= PHONE["height"]
        # the log: one tap
        await page.get_by_test_id("log-toggle").click()
        log = page.get_by_test_id("event-log")
        await log.locator("li").first.wait_for()
        lbox = await log.bounding_box()
        assert lbox is not None and lbox["y"] < PHONE["height"] and lbox["height"] > 100
    finally:
        await context.close()
