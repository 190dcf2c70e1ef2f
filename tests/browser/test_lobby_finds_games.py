"""Issue 24, a lobby that finds games: a spectator finds a game being played on the
default tab; rooms are named by their game and who sits there; a room still waiting
with nobody at it (a rematch nobody joined) leaves the list by itself and is said to
have expired; at 1366x800, in Portuguese, every Watch button is whole and the create
button is in view."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.room import views
from tests.browser.conftest import NewPage, require_chromium
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


async def test_a_spectator_finds_a_live_game_on_the_first_tab(
    live_server: LiveServer, new_page: NewPage
) -> None:
    live = await live_server.create_room(
        "roll-builder", 2, room={"clock": 0, "bots": 2, "bot_delay": 5}
    )
    page = await new_page("Zoe")
    await page.goto(live_server.url + "/")
    row = page.get_by_test_id(f"room-{live['room']}")
    await row.wait_for()
    assert "Roll Builder" in await row.inner_text()
    assert await page.get_by_test_id(f"room-people-{live['room']}").inner_text() == "bot 1, bot 2"
    await page.get_by_test_id(f"watch-{live['room']}").click()
    await page.wait_for_function("window.rollhouse && window.rollhouse.role === 'spectator'")


async def test_a_room_nobody_is_at_expires_and_leaves_the_list(
    live_server: LiveServer, new_page: NewPage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(views, "WAITING_EXPIRES", 1.0)
    stale = (await live_server.create_room("rollie", 2, room={"clock": 0, "bots": 1}))["room"]
    await asyncio.sleep(1.2)
    page = await new_page("Ana")
    await page.goto(live_server.url + "/")
    await page.get_by_test_id("rooms-expired").wait_for()
    assert "1 room expired" in await page.get_by_test_id("rooms-expired").inner_text()
    assert await page.get_by_test_id(f"room-{stale}").count() == 0
    await page.get_by_test_id("filter-open").click()
    assert await page.get_by_test_id(f"room-{stale}").count() == 0
    await page.get_by_test_id("filter-all").click()
    await page.get_by_test_id(f"room-{stale}").wait_for()
    # a fresh room (the usual ten minutes ahead of it) is listed as ever
    monkeypatch.setattr(views, "WAITING_EXPIRES", 600.0)
    fresh = (await live_server.create_room("rollie", 2, room={"clock": 0, "bots": 1}))["room"]
    await page.get_by_test_id("filter-now").click()
    await page.get_by_test_id(f"room-{fresh}").wait_for(timeout=8000)


async def test_nothing_is_cut_at_1366_in_portuguese(live_server: LiveServer, browser: Any) -> None:
    require_chromium()
    mine = (await live_server.create_room("rollie", 3, room={"clock": 0, "bots": 1}))["room"]
    for _ in range(3):
        await live_server.create_room(
            "roll-player", 2, room={"clock": 0, "bots": 2, "bot_delay": 5}
        )
    context = await browser.new_context(viewport={"width": 1366, "height": 800})
    await context.add_init_script(
        "localStorage.setItem('rollhouse.lang', 'pt-BR'); localStorage.setItem('rollhouse.name', 'Ana');"
        f"localStorage.setItem('rollhouse.seat.{mine}', 'x')"  # a Resume button too
    )
    page = await context.new_page()
    try:
        await page.goto(live_server.url + "/")
        await page.locator("[data-testid^=watch-]").first.wait_for()
        cut = await page.evaluate(
            """() => {
              const panel = document.querySelector('.rooms-panel').getBoundingClientRect();
              return [...document.querySelectorAll('[data-testid^=watch-], [data-testid^=resume-], [data-testid^=join-]')]
                .filter(a => a.getBoundingClientRect().right > panel.right + 0.5)
                .map(a => a.dataset.testid);
            }"""
        )
        assert cut == []
        submit = await page.get_by_test_id("create-submit").bounding_box()
        assert submit is not None and submit["y"] + submit["height"] <= 800
    finally:
        await context.close()
