"""Coming back to a table: the log survives a reload; a clock that ran out and a bot
playing for an absent player are told in the log and on the seat.

Timeouts and takeovers are told by the server's tags on their patches ("timeout" /
"takeover" first in ``events``, docs/protocol.md section 11).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.browser.conftest import NewPage
from tests.browser.helpers import FINAL, my_seat, play_one, table_url
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

LOG = "[...document.querySelectorAll('[data-testid=event-log] li')].map(li => li.textContent)"
TIMEOUT_TAG = """() => {
  new MutationObserver(() => {
    if (document.querySelector('[data-testid^=timeout-]')) window.__timeout_tag = true;
  }).observe(document.body, {subtree: true, childList: true});
}"""
EVENTS = "() => { window.__events = []; rollhouse.on('view', c => __events.push(c.events)); }"


async def test_a_reload_mid_game_restores_the_log(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """The lines the table told before a reload are there again after it, then new ones."""
    room = (
        await live_server.create_room("rollie", 2, room={"clock": 0, "bots": 1, "bot_delay": 0.1})
    )["room"]
    ana = await new_page("Ana")
    await ana.goto(table_url(live_server.url, room))
    seat = await my_seat(ana)
    for _ in range(40):
        await play_one(ana, seat)
        await ana.wait_for_function("window.rollhouse.pending.size === 0")
        if len(await ana.evaluate(LOG)) >= 4:
            break
    before = await ana.evaluate(LOG)
    assert len(before) >= 4
    await ana.reload()
    await ana.wait_for_selector("[data-testid=connection-status][data-state=connected]")
    # the log is read again from the room's history (story.js): wait until it is
    await ana.wait_for_function(
        "n => Number(document.querySelector('[data-testid=event-log]').dataset.count) >= n",
        arg=len(before),
    )
    after = await ana.evaluate(LOG)
    assert after[-len(before) :] == before
    # the restored log re-translates
    await ana.get_by_test_id("lang-pt").click()
    assert await ana.evaluate(LOG) != before


async def test_a_clock_timeout_is_announced_in_the_log_and_on_the_seat(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """A player who lets the clock run out reads who it was in the log; the seat says so."""
    room = (
        await live_server.create_room(
            # three rounds: Ana times out in each, so a listener that a busy machine
            # installs late (after her first timeout) still sees one
            "rollie",
            2,
            options={"rounds": 3},
            room={"clock": 0.6, "bots": 1, "bot_delay": 0.1},
        )
    )["room"]
    ana = await new_page("Ana")
    await ana.goto(table_url(live_server.url, room))
    await ana.wait_for_function("!!window.rollhouse")
    await ana.evaluate(EVENTS)
    await ana.evaluate(TIMEOUT_TAG)
    await ana.wait_for_selector(FINAL, timeout=60000)
    assert await ana.evaluate("__events.some(e => e[0] === 'timeout')"), "no timeout tag"
    log = await ana.evaluate(LOG)
    assert any("clock ran out" in line and "Ana" in line for line in log)
    assert await ana.evaluate("window.__timeout_tag") is True


async def test_a_takeover_is_announced_and_the_seat_shows_the_bot(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """When Ana leaves, the watchers read that a bot plays for her and see it on her seat."""
    room = (
        await live_server.create_room(
            "rollie",
            2,
            room={"clock": 1, "bots": 1, "bot_delay": 0.1, "takeover_after": 0.5},
        )
    )["room"]
    ana = await new_page("Ana")
    await ana.goto(table_url(live_server.url, room))
    seat = await my_seat(ana)
    watcher = await new_page("Watcher")
    await watcher.goto(table_url(live_server.url, room, watch=True))
    await watcher.wait_for_function("window.rollhouse && rollhouse.view")
    await watcher.evaluate(EVENTS)
    await ana.close()
    await watcher.get_by_test_id(f"away-{seat}").wait_for(timeout=10000)
    for _ in range(100):
        if await watcher.evaluate("__events.some(e => e[0] === 'takeover')"):
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("no takeover tag within 10 s of the seat going away")
    await watcher.get_by_test_id(f"takeover-{seat}").wait_for(timeout=5000)
    log: list[Any] = await watcher.evaluate(LOG)
    assert any("A bot played for Ana" in line for line in log)
