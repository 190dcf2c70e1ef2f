"""Issue 24, content that agrees with itself: the lobby's Roll Builder event targets are
the ones the table plays (before issue 24 the lobby offered "Festival of Lights (target
99)" and the table said 109); Rollie's Priority is a choice list, and a room made with
"turn order" plays it; a game's duration on its card is the one its rules page gives."""

from __future__ import annotations

import re

import httpx
import pytest

from engine.roll_builder.content import EVENTS
from tests.browser.conftest import NewPage
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


async def test_the_lobby_offers_the_targets_the_table_plays(
    live_server: LiveServer, new_page: NewPage
) -> None:
    page = await new_page("Ana")
    await page.goto(live_server.url + "/")
    await page.get_by_test_id("create-game").select_option("roll-builder")
    select = page.get_by_test_id("option-event")
    await select.wait_for()
    offered: dict[str, int] = {}
    for value, label in await select.evaluate(
        "el => [...el.options].map(o => [o.value, o.textContent])"
    ):
        found = re.search(r"\(target (\d+)\)", label)
        if found:
            offered[value] = int(found.group(1))
    assert offered == {event_id: event.target for event_id, event in EVENTS.items()}
    # and the table says the same: a solo game against Festival of Lights
    room = await live_server.create_room(
        "roll-builder", 1, options={"event": "festival"}, room={"clock": 0}
    )
    table = await new_page("Ana")
    await table.goto(f"{live_server.url}/table.html?room={room['room']}")
    await table.wait_for_function(
        "window.rollhouse && window.rollhouse.view && window.rollhouse.view.game"
    )
    assert await table.evaluate("window.rollhouse.view.game.event.target") == offered["festival"]


async def test_rollie_priority_is_a_choice(live_server: LiveServer, new_page: NewPage) -> None:
    page = await new_page("Ana")
    await page.goto(live_server.url + "/")
    await page.get_by_test_id("create-game").select_option("rollie")
    priority = page.get_by_test_id("option-priority")
    await priority.wait_for(state="attached")
    assert await priority.evaluate("el => el.tagName") == "SELECT"
    assert await priority.evaluate("el => [...el.options].map(o => o.value)") == ["arrival", "turn"]


@pytest.mark.parametrize("lang", ["en", "pt-BR"])
async def test_a_game_card_gives_the_duration_of_its_rules(
    live_server: LiveServer, new_page: NewPage, lang: str
) -> None:
    page = await new_page("Ana", lang=lang)
    await page.goto(live_server.url + "/")
    for game in ("rollie", "roll-player", "roll-builder"):
        card = await page.get_by_test_id(f"game-{game}").inner_text()
        minutes = re.search(r"(\d+(?:\u2013\d+)?) min", card)
        assert minutes, card
        async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as http:
            rules = (await http.get(f"/rules/{game}.md")).text
        assert f"{minutes.group(1)} min" in rules, (game, minutes.group(1))
