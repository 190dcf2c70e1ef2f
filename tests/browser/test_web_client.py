"""The web client in a real browser: a whole game, a reload mid-round, the language switch."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests.browser.conftest import NewPage
from tests.browser.helpers import FINAL, my_seat, play_one, play_to_the_end, table_url
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(90)]

SPECTATOR_WATCH = """() => {
  window.__actions_seen = 0;
  const sel = '[data-testid=roll-button], [data-testid=secure-button], [data-testid=r-chooser], .die.takeable';
  new MutationObserver(() => { if (document.querySelector(sel)) window.__actions_seen += 1; })
    .observe(document.body, {subtree: true, childList: true, attributes: true});
}"""


async def room_info(server: LiveServer, room: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        reply = await http.get(f"/api/rooms/{room}")
        reply.raise_for_status()
        return reply.json()  # type: ignore[no-any-return]


async def test_two_browser_players_and_a_bot_play_rollie_to_the_end(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """Two browser players and a hosted bot finish a game; the spectator's scores match."""
    room = (  # three rounds: each seat is First player once, so both players act
        await live_server.create_room(
            "rollie", 3, options={"rounds": 3}, room={"clock": 15, "bots": 1, "bot_delay": 0.1}
        )
    )["room"]
    watcher = await new_page("Watcher")
    await watcher.goto(table_url(live_server.url, room, watch=True))
    await watcher.wait_for_selector("[data-testid=connection-status][data-state=connected]")
    await watcher.evaluate(SPECTATOR_WATCH)

    players = [await new_page(name) for name in ("Ana", "Bruno")]
    for page in players:
        await page.goto(table_url(live_server.url, room))
    moves: list[list[str]] = [[], []]
    await asyncio.gather(*(play_to_the_end(p, m) for p, m in zip(players, moves, strict=True)))

    await watcher.wait_for_selector(FINAL, timeout=15000)
    tables = [await p.locator(FINAL).inner_text() for p in [*players, watcher]]
    assert tables[0] == tables[1] == tables[2]
    assert "Ana" in tables[2] and "Bruno" in tables[2] and "bot 1" in tables[2]
    # the page's totals are the server's result
    info = await room_info(live_server, room)
    assert info["status"] == "finished"
    for seat, score in enumerate(info["result"]["scores"]):
        total = await watcher.get_by_test_id(f"final-row-{seat}").get_attribute("data-total")
        assert total == str(score)
    # both browser players really played, and the spectator never saw an action control
    assert all({"roll", "take", "secure"} & set(m) for m in moves)
    assert await watcher.evaluate("window.__actions_seen") == 0
    assert "spectator" in (await watcher.get_by_test_id("role").inner_text())
    # a spectator's command is refused, and the refusal is shown in plain words
    code = await watcher.evaluate("rollhouse.send({type: 'roll'}).then(() => 'ack', e => e.code)")
    assert code == "room/read_only"
    await watcher.get_by_text("Spectators cannot play.").wait_for()


async def test_a_player_reloads_mid_round_and_keeps_the_seat(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """Reloading the page resumes the same seat with a correct mirror, and play goes on."""
    room = (
        await live_server.create_room(
            "rollie", 3, room={"clock": 0, "bots": 1, "bot_delay": 0.1}
        )  # all 7 rounds: Ana must still be mid-game after her first take
    )["room"]
    ana, bruno = await new_page("Ana"), await new_page("Bruno")
    watcher = await new_page("Watcher")
    for page in (ana, bruno):
        await page.goto(table_url(live_server.url, room))
    await watcher.goto(table_url(live_server.url, room, watch=True))
    seat = await my_seat(ana)
    bruno_seat = await my_seat(bruno)
    token = await ana.evaluate(f"localStorage.getItem('rollhouse.seat.{room}')")
    assert token

    # play until Ana holds a bill in her Bet (mid-round), Bruno securing when asked
    async def bruno_plays() -> None:
        while True:
            move = await play_one(bruno, bruno_seat)
            if move == "over":
                return
            await bruno.wait_for_function("window.rollhouse.pending.size === 0")

    bruno_task = asyncio.create_task(bruno_plays())
    try:
        for _ in range(100):
            move = await play_one(ana, seat)
            assert move != "over", "the game ended before Ana took a bill"
            await ana.wait_for_function("window.rollhouse.pending.size === 0")
            if move == "take":
                break
        else:
            raise AssertionError("Ana never took a bill")

        await ana.reload()
        await ana.wait_for_selector("[data-testid=connection-status][data-state=connected]")
        assert await my_seat(ana) == seat
        assert await ana.evaluate(f"localStorage.getItem('rollhouse.seat.{room}')") == token
        assert f"seat {seat + 1}" in await ana.get_by_test_id("role").inner_text()
        # the reloaded mirror equals the spectator's at the same sequence number
        await ana.wait_for_function(
            "s => window.rollhouse.view && window.rollhouse.seq >= s",
            arg=await watcher.evaluate("window.rollhouse.seq"),
        )
        seq = await ana.evaluate("window.rollhouse.seq")
        await watcher.wait_for_function("s => window.rollhouse.seq >= s", arg=seq)
        both = await asyncio.gather(
            ana.evaluate("[window.rollhouse.seq, window.rollhouse.view.game]"),
            watcher.evaluate("[window.rollhouse.seq, window.rollhouse.view.game]"),
        )
        if both[0][0] == both[1][0]:
            assert both[0][1] == both[1][1]
        info = await room_info(live_server, room)
        assert info["taken"] == 3 and info["players_connected"] == 2

        # and Ana carries on from the same seat: her next move reaches the spectator
        count_ana = (
            "() => [...document.querySelectorAll('[data-testid=event-log] li')]"
            ".filter(li => /^Ana (rolled|took|secured)/.test(li.textContent)).length"
        )
        before = await watcher.evaluate(count_ana)
        for _ in range(20):
            move = await play_one(ana, seat)
            await ana.wait_for_function("window.rollhouse.pending.size === 0")
            if move in ("roll", "take", "secure"):
                break
        else:
            raise AssertionError("Ana found nothing to do after the reload")
        await watcher.wait_for_function(f"({count_ana})() > {before}", timeout=10000)
    finally:
        bruno_task.cancel()
        await asyncio.gather(bruno_task, return_exceptions=True)


async def test_the_portuguese_switch_translates_lobby_table_and_rules(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """PT switches every visible string (remembered on reload); pt-BR browsers start in PT."""
    room = (await live_server.create_room("rollie", 2, room={"clock": 0, "bots": 1}))["room"]
    lobby = await new_page("Ana")
    await lobby.goto(live_server.url + "/")
    await lobby.get_by_test_id(f"room-{room}").wait_for()
    assert await lobby.get_by_test_id("lobby-title").text_content() == "Game rooms"
    await lobby.get_by_test_id("lang-pt").click()
    assert await lobby.get_by_test_id("lobby-title").text_content() == "Mesas de jogo"
    assert await lobby.get_by_test_id("create-submit").inner_text() == "Criar e entrar"
    assert await lobby.get_by_test_id(f"watch-{room}").inner_text() == "Assistir"
    await lobby.get_by_label("Rodadas").wait_for()
    await lobby.reload()
    await lobby.get_by_test_id(f"room-{room}").wait_for()
    assert await lobby.get_by_test_id("lobby-title").text_content() == "Mesas de jogo"
    assert await lobby.evaluate("document.documentElement.lang") == "pt-BR"

    # the table, still in Portuguese, then back to English
    await lobby.get_by_test_id(f"join-{room}").click()
    await lobby.wait_for_selector("[data-testid=connection-status][data-state=connected]")
    seat = await my_seat(lobby)
    assert await lobby.get_by_test_id("connection-status").inner_text() == "Conectado"
    assert "Você joga no lugar" in await lobby.get_by_test_id("role").inner_text()
    assert "APOSTA" in (await lobby.get_by_test_id(f"seat-{seat}").inner_text()).upper()
    await lobby.get_by_test_id("rules-button").click()
    rules = lobby.get_by_test_id("rules-body")
    await rules.get_by_text("Um turno").wait_for()
    assert "A turn" not in await rules.inner_text()
    await lobby.get_by_test_id("lang-en").click()
    await rules.get_by_text("A turn").wait_for()
    await lobby.get_by_test_id("rules-close").click()
    assert await lobby.get_by_test_id("connection-status").inner_text() == "Connected"
    assert "BET" in (await lobby.get_by_test_id(f"seat-{seat}").inner_text()).upper()
    assert "You play seat" in await lobby.get_by_test_id("role").inner_text()

    # a browser set to Portuguese starts in Portuguese
    fresh = await new_page(None, lang="", locale="pt-BR")
    await fresh.goto(live_server.url + "/")
    assert await fresh.get_by_test_id("lobby-title").text_content() == "Mesas de jogo"


async def test_the_lobby_form_creates_a_room_and_seats_its_creator(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """Create-and-join opens the new table as a player, with the labelled choices made."""
    page = await new_page("Ana")
    await page.goto(live_server.url + "/")
    # options are labelled choices, never raw keys
    rounds = page.get_by_label("Rounds")
    assert await rounds.evaluate("e => e.tagName") == "SELECT"
    assert "7 rounds (full game)" in await rounds.inner_text()
    await rounds.select_option("1")
    await page.get_by_test_id("create-seats").select_option("3")
    # the creator always keeps a seat: at most seats - 1 bots are offered
    bots = await page.get_by_test_id("create-bots").evaluate(
        "e => [...e.options].map(o => Number(o.value))"
    )
    assert bots == [0, 1, 2]
    await page.get_by_test_id("create-bots").select_option("2")
    await page.get_by_test_id("create-takeover").select_option("30")
    await page.get_by_test_id("create-submit").click()
    await page.wait_for_url("**/table.html?room=*")
    await page.wait_for_selector("[data-testid=connection-status][data-state=connected]")
    room = page.url.split("room=")[1]
    info = await room_info(live_server, room)
    assert (info["seats"], info["taken"], info["bots"]) == (3, 3, 2)
    assert info["options"] == {"rounds": 1}
    assert info["takeover_after"] == 30
    assert "You play seat" in await page.get_by_test_id("role").inner_text()


async def test_the_lobby_explains_a_refused_room_in_the_players_language(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """A refused option is told by its code, in Portuguese, naming the field by its label."""
    page = await new_page("Ana", lang="pt-BR")
    await page.goto(live_server.url + "/")
    await page.get_by_label("Rodadas").wait_for()
    # a value the form does not offer (as an older page might send)
    await page.get_by_label("Rodadas").evaluate(
        "e => { const o = document.createElement('option'); o.value = '9'; e.append(o); e.value = '9'; }"
    )
    await page.get_by_test_id("create-submit").click()
    error = page.get_by_test_id("create-error")
    await error.wait_for()
    text = await error.inner_text()
    assert "O servidor não aceita" in text and "Rodadas" in text
    assert "rounds" not in text and "[" not in text
