"""A first visit and the end of a game: play against a bot in one click, the lobby's
filters and pages, the invite link, and what a finished table offers (rematch, new game).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests.browser.conftest import NewPage
from tests.browser.helpers import FINAL, table_url
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(150)]


async def room_info(server: LiveServer, room: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        reply = await http.get(f"/api/rooms/{room}")
        reply.raise_for_status()
        return reply.json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("game", ["rollie", "roll-player", "roll-builder"])
async def test_play_against_a_bot_now_seats_the_creator_in_one_click(
    live_server: LiveServer, new_page: NewPage, game: str
) -> None:
    """One click on a game card starts that game against a bot with the creator seated."""
    page = await new_page("Ana")
    await page.goto(live_server.url + "/")
    card = page.get_by_test_id(f"game-{game}")
    # the card says what the game is, how long it takes, and shows a picture
    assert len(await card.locator(".pitch").inner_text()) > 30
    assert "min" in await card.locator(".facts").inner_text()
    assert await card.locator("svg.emblem").count() == 1
    await page.get_by_test_id(f"play-bot-{game}").click()
    await page.wait_for_url("**/table.html?room=*")
    await page.wait_for_selector("[data-testid=connection-status][data-state=connected]")
    await page.wait_for_function(
        "window.rollhouse.view && rollhouse.view.room.status === 'playing'"
    )
    assert "You play seat" in await page.get_by_test_id("role").inner_text()
    info = await room_info(live_server, page.url.split("room=")[1])
    assert info["game"] == game
    assert (info["seats"], info["taken"], info["bots"]) == (2, 2, 1)
    # a newcomer is not rushed: no clock against a bot
    assert info["clock"] == 0


async def test_the_lobby_filters_and_pages_rooms(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """Open / playing / finished filters with counts; more than a page of rooms pages."""
    waiting = [
        (await live_server.create_room("rollie", 2, room={"clock": 0}))["room"] for _ in range(10)
    ]
    done = (
        await live_server.create_room(
            "rollie", 2, options={"rounds": 1}, room={"clock": 5, "bots": 2, "bot_delay": 0}
        )
    )["room"]
    for _ in range(500):
        if live_server.services.rooms.live[done].model.is_over:
            break
        await asyncio.sleep(0.02)
    page = await new_page("Ana")
    await page.goto(live_server.url + "/")
    rows = page.locator("[data-testid=rooms-body] tr")
    await page.get_by_test_id("filter-open").wait_for()
    assert await page.get_by_test_id("filter-now").get_attribute("aria-pressed") == "true"
    await page.get_by_test_id("filter-open").click()
    assert await page.get_by_test_id("filter-open").inner_text() == "Open (10)"
    await page.wait_for_function("document.querySelectorAll('[data-testid=rooms-body] tr').length")
    assert await rows.count() == 8
    assert await page.get_by_test_id(f"room-{done}").count() == 0
    assert await page.get_by_test_id("page-label").inner_text() == "Page 1 of 2"
    await page.get_by_test_id("page-next").click()
    assert await rows.count() == 2
    shown = {(await r.get_attribute("data-testid"))[5:] for r in await rows.all()}  # type: ignore[index]
    assert shown <= set(waiting)
    await page.get_by_test_id("filter-finished").click()
    await page.get_by_test_id(f"room-{done}").wait_for()
    assert await rows.count() == 1
    assert await page.get_by_test_id("rooms-pager").is_hidden()
    await page.get_by_test_id("filter-playing").click()
    assert await rows.count() == 0
    assert "No game is being played" in await page.get_by_test_id("rooms-empty").inner_text()


async def test_the_lobby_reads_every_page_of_the_room_list(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """GET /api/rooms is paged: the lobby follows ``next`` (here the pages are cut to one
    room each on the way, so it must read three pages to list three rooms)."""
    made = [
        (await live_server.create_room("rollie", 2, room={"clock": 0}))["room"] for _ in range(3)
    ]
    page = await new_page("Ana")
    asked: list[str] = []

    async def one_per_page(route: Any) -> None:
        url = route.request.url.replace("limit=250", "limit=1")
        asked.append(url)
        await route.continue_(url=url)

    await page.route("**/api/rooms?*", one_per_page)
    await page.goto(live_server.url + "/")
    for room in made:
        await page.get_by_test_id(f"room-{room}").wait_for()
    assert await page.get_by_test_id("filter-open").inner_text() == "Open (3)"
    assert [u.split("cursor=")[1].split("&")[0] for u in asked[:3]] == ["0", "1", "2"]


async def test_tab_reaches_the_new_room_form_before_the_room_list(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """Keyboard users meet the games and the new-room form before every room row."""
    for _ in range(5):
        await live_server.create_room("rollie", 2, room={"clock": 0})
    page = await new_page("Ana")
    await page.goto(live_server.url + "/")
    await page.locator("[data-testid=rooms-body] tr").first.wait_for()
    order = await page.evaluate(
        """() => [...document.querySelectorAll('a, button, input, select')]
          .filter(e => e.offsetParent !== null)
          .map(e => e.dataset.testid || e.id || e.tagName)"""
    )
    assert order.index("create-submit") < min(
        i for i, name in enumerate(order) if name.startswith(("join-", "watch-"))
    )


async def test_the_waiting_table_copies_its_invite_link(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """While seats are free, one button copies the table's address for a friend."""
    room = (await live_server.create_room("rollie", 3, room={"clock": 0, "bots": 1}))["room"]
    page = await new_page("Ana")
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await page.goto(table_url(live_server.url, room))
    await page.get_by_test_id("copy-invite").click()
    await page.get_by_text("Link copied!").wait_for()
    copied = await page.evaluate("navigator.clipboard.readText()")
    assert copied == f"{live_server.url}/table.html?room={room}"


async def finished_table(server: LiveServer, new_page: NewPage) -> tuple[str, Any]:
    """Ana alone with a bot in a one-round Rollie whose clock plays for her; at the end."""
    room = (
        await server.create_room(
            "rollie", 2, options={"rounds": 1}, room={"clock": 0.5, "bots": 1, "bot_delay": 0}
        )
    )["room"]
    page = await new_page("Ana")
    await page.goto(table_url(server.url, room))
    await page.wait_for_selector(FINAL, timeout=30000)
    return room, page


async def test_a_finished_table_offers_play_again_and_a_new_game(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """At the end: "New game" goes to the lobby; "Play again" asks for a rematch."""
    room, page = await finished_table(live_server, new_page)
    after = page.get_by_test_id("after-game")
    await after.wait_for()
    assert await page.get_by_test_id("new-game").get_attribute("href") == "/"
    await page.get_by_test_id("rematch").click()
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as http:
        probe = await http.post(f"/api/rooms/{room}/rematch")
    assert probe.status_code == 201, probe.text  # the same new room again
    await page.wait_for_url(f"**/table.html?room={probe.json()['room']}")
    await page.wait_for_selector("[data-testid=connection-status][data-state=connected]")
    info = await room_info(live_server, probe.json()["room"])
    assert (info["game"], info["seats"], info["bots"]) == ("rollie", 2, 1)
    assert info["options"] == {"rounds": 1}
    assert "You play seat" in await page.get_by_test_id("role").inner_text()


async def test_a_rematch_seats_the_same_players_in_a_new_room(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """When one player asks for a rematch, the other sees it and joins the same new room."""
    room = (
        await live_server.create_room(
            "rollie", 2, options={"rounds": 1}, room={"clock": 0.5, "bot_delay": 0}
        )
    )["room"]
    ana, bruno = await new_page("Ana"), await new_page("Bruno")
    for page in (ana, bruno):
        await page.goto(table_url(live_server.url, room))
    await ana.wait_for_selector(FINAL, timeout=60000)
    await bruno.wait_for_selector(FINAL, timeout=20000)
    await ana.get_by_test_id("rematch").click()
    assert not await ana.get_by_test_id("rematch-error").count()
    await ana.wait_for_url(lambda url: f"room={room}" not in url)
    new_room = ana.url.split("room=")[1]
    assert new_room != room
    join = bruno.get_by_test_id("rematch-join")
    await join.wait_for(timeout=20000)
    await join.click()
    await bruno.wait_for_url(f"**/table.html?room={new_room}")
    await bruno.wait_for_function(
        "window.rollhouse.view && rollhouse.view.room.status === 'playing'"
    )
    info = await room_info(live_server, new_room)
    assert info["taken"] == 2 and info["bots"] == 0
    names = await bruno.evaluate("rollhouse.view.room.seats.map(s => s.name)")
    assert sorted(names) == ["Ana", "Bruno"]
