"""The replay page: a finished game of each game played to the end, scrubbed back, and the
board checked against the public view at that seq; a live room's replay follows it."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests.browser.conftest import NewPage
from tests.support.server import LiveServer

GAMES = [("rollie", 2, {"rounds": 1}), ("roll-player", 2, {}), ("roll-builder", 1, {})]
pytestmark = pytest.mark.timeout(180)


async def finished_room(server: LiveServer, game: str, seats: int, options: dict[str, Any]) -> str:
    info = await server.create_room(
        game, seats, options=options, room={"clock": 0, "bots": seats, "bot_delay": 0}
    )
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        for _ in range(600):
            if (await http.get(f"/api/rooms/{info['room']}")).json()["status"] == "finished":
                return str(info["room"])
            await asyncio.sleep(0.1)
    raise AssertionError(f"{game} did not finish")


async def view_at(server: LiveServer, room: str, seq: int) -> Any:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        return (await http.get(f"/api/rooms/{room}/view", params={"at": seq})).json()["view"]


@pytest.mark.parametrize(("game", "seats", "options"), GAMES, ids=[g for g, _, _ in GAMES])
async def test_a_finished_game_replays_to_the_end_and_back(
    live_server: LiveServer, new_page: NewPage, game: str, seats: int, options: dict[str, Any]
) -> None:
    """Play at the fastest speed to the end, scrub back, step; the board is the view at that seq."""
    room = await finished_room(live_server, game, seats, options)
    page = await new_page("Ana")
    await page.goto(f"{live_server.url}/replay.html?room={room}")
    await page.wait_for_function("window.rollhouseReplay && window.rollhouseReplay.count > 2")
    verified = page.locator("[data-testid=replay-verified]")
    await verified.wait_for(state="visible")
    assert await verified.get_attribute("data-ok") == "true"
    await page.locator("[data-testid=replay-start]").click()
    assert await page.evaluate("window.rollhouseReplay.index") == 0
    await page.select_option("[data-testid=replay-speed]", "16")
    await page.locator("[data-testid=replay-play]").click()
    count = await page.evaluate("window.rollhouseReplay.count")
    await page.wait_for_function(
        f"window.rollhouseReplay.index === {count - 1} && !window.rollhouseReplay.playing",
        timeout=count * 200 + 10_000,
    )
    last = await page.evaluate("window.rollhouseReplay.seq")
    assert await page.evaluate("window.rollhouseReplay.view") == await view_at(
        live_server, room, last
    )
    middle = count // 2
    await page.locator("[data-testid=replay-scrub]").evaluate(
        "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', {bubbles: true})); }",
        middle,
    )
    await page.locator("[data-testid=replay-back]").click()
    state = await page.evaluate("window.rollhouseReplay")
    assert state["index"] == middle - 1
    assert state["view"] == await view_at(live_server, room, state["seq"])
    root = page.locator("[data-testid=game-root]")
    assert await root.get_attribute("data-seq") == str(state["seq"])
    assert (await root.inner_text()).strip()
    current = page.locator("[data-testid=replay-timeline] li.current")
    assert await current.get_attribute("data-seq") == str(state["seq"])


async def test_the_replay_speaks_portuguese_and_follows_a_live_room(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """A spectator of a live room scrubs back, the timeline grows as the game goes on, and
    "Voltar ao vivo" leads back to the live table."""
    info = await live_server.create_room(
        "rollie", 2, options={"rounds": 3}, room={"clock": 0, "bots": 2, "bot_delay": 0.4}
    )
    page = await new_page("Ana", lang="pt-BR")
    await page.goto(f"{live_server.url}/replay.html?room={info['room']}")
    await page.wait_for_function("window.rollhouseReplay && window.rollhouseReplay.count > 1")
    live = page.locator("[data-testid=replay-live]")
    assert await live.inner_text() == "Voltar ao vivo"
    assert "Reproduzir" in await page.locator("[data-testid=replay-play]").inner_text()
    first = await page.evaluate("window.rollhouseReplay.count")
    await page.locator("[data-testid=replay-start]").click()
    await page.wait_for_function(f"window.rollhouseReplay.count > {first}", timeout=20_000)
    assert await page.evaluate("window.rollhouseReplay.index") == 0  # it stays where the user is
    await live.click()
    await page.wait_for_url("**/table.html?room=*&watch=1")


async def test_the_lobby_and_the_final_screen_lead_to_the_replay(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """A finished room has "Watch the replay" in the lobby; its final screen says the dice
    verified and links to the replay."""
    room = await finished_room(live_server, "rollie", 2, {"rounds": 1})
    page = await new_page("Ana")
    await page.goto(f"{live_server.url}/table.html?room={room}&watch=1")
    badge = page.locator("[data-testid=dice-verified]")
    await badge.wait_for(state="visible")
    assert await badge.get_attribute("data-ok") == "true"
    assert "Fair dice" in await badge.inner_text()
    # plain words, and what they mean one click away
    await badge.get_by_test_id("fairness-link").click()
    body = page.get_by_test_id("rules-body")
    await body.locator("ol").wait_for()
    assert "seed" in await body.inner_text()
    await page.keyboard.press("Escape")
    await page.locator("[data-testid=watch-replay]").click()
    await page.wait_for_url(f"**/replay.html?room={room}")
    await page.wait_for_function("window.rollhouseReplay && window.rollhouseReplay.count > 2")
    await page.goto(f"{live_server.url}/?filter=finished")
    link = page.locator(f"[data-testid=replay-{room}]")
    if not await link.count():  # the lobby's filters: show the finished rooms
        finished = page.locator("[data-testid=filter-finished]")
        if await finished.count():
            await finished.click()
    await link.wait_for(state="visible")
    assert await link.get_attribute("href") == f"replay.html?room={room}"
