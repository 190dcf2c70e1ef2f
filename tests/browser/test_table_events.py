"""What the table shows when the dice decide: the R chooser, a Rollie! and a crash."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import get_game
from tests.browser.conftest import NewPage
from tests.browser.helpers import ROLL, SECURE, my_seat, table_url
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(60)]


def roll_once(game: Any, state: Any) -> tuple[Any, Any]:
    """Roll for the First player; (the dice, the state after every event)."""
    command = game.commands.load({"type": "roll"}, seat=state.first_player)
    events = game.decide(state, command)
    for event in events:
        state = game.evolve(state, event)
    return events[0].dice, state


def secure_all(game: Any, state: Any) -> Any:
    for seat in sorted(game.awaiting(state)):
        for event in game.decide(state, game.commands.load({"type": "secure"}, seat=seat)):
            state = game.evolve(state, event)
    return state


def seed_for_r_then_rollie() -> tuple[int, int]:
    """A seed whose first roll shows one R and whose second roll is a double of a bill
    value f (not R): take f with the chooser, then the Rollie! crashes that Bet.

    Dice depend only on the seed and the number of rolls, so the decisions made in
    between (here: everyone secures) do not change the second roll."""
    game = get_game("rollie")
    for seed in range(1, 10_000):
        state = game.create(game.setup(2, {}, seed))
        first, state = roll_once(game, state)
        if first.count("R") != 1:
            continue
        second, _ = roll_once(game, secure_all(game, state))
        if second[0] == second[1] and second[0] != "R":
            return seed, int(second[0])
    raise AssertionError("no seed found")


async def test_r_chooser_rollie_banner_and_crash(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """An R opens the chooser; the next double shows a Rollie! banner naming who crashed."""
    seed, face = seed_for_r_then_rollie()
    room = (
        await live_server.create_room(
            "rollie", 2, options={"seed": seed}, room={"clock": 0, "bots": 1, "bot_delay": 0.2}
        )
    )["room"]
    ana = await new_page("Ana")
    await ana.goto(table_url(live_server.url, room))
    seat = await my_seat(ana)

    # first roll (Ana's or the bot's): one die shows R
    roll = ana.get_by_test_id("roll-button")
    r_die = ana.locator(".die.takeable[data-face=R]")
    await ana.locator("[data-testid=roll-button], .die.takeable[data-face=R]").first.wait_for()
    if await roll.count():
        await roll.click()
    await r_die.click()
    chooser = ana.get_by_test_id("r-chooser")
    await chooser.wait_for()
    assert await chooser.locator("button.bill-button:not([disabled])").count() == 5
    await ana.get_by_test_id(f"choose-{face}").click()
    await chooser.wait_for(state="detached")
    bill_class = "v" + str(face).replace("-", "m")  # the colour class of that value
    await ana.locator(f"[data-testid=bet-{seat}] .bill.{bill_class}").wait_for()

    # second roll: a double of the value Ana holds; if Ana rolls, she clicks
    # (the banner hides itself after a few seconds but keeps its kind and text, so these
    # waits look for it attached, not visible: no race with its timer)
    await ana.locator(
        "[data-testid=roll-button], [data-testid=banner][data-kind=rollie]"
    ).first.wait_for(state="attached")
    if await roll.count():
        await roll.click()
    banner = ana.locator("[data-testid=banner][data-kind=rollie]")
    await banner.wait_for(state="attached")
    text = await banner.text_content() or ""
    assert "Rollie!" in text and "Ana" in text
    log = await ana.get_by_test_id("event-log").inner_text()
    assert "Rollie!" in log and "Ana" in log
    # the Bet went back to the Bank
    bet = await ana.evaluate(f"window.rollhouse.view.game.seats[{seat}].bet")
    assert not any(bet.values())


async def test_keyboard_plays_roll_secure_and_take(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """R rolls, a digit takes the value at that place, S secures."""
    room = (
        await live_server.create_room(
            "rollie", 2, options={"seed": seed_for_r_then_rollie()[0]},
            room={"clock": 0, "bots": 1, "bot_delay": 0.2},
        )
    )["room"]  # fmt: skip
    ana = await new_page("Ana")
    await ana.goto(table_url(live_server.url, room))
    seat = await my_seat(ana)
    log = ana.get_by_test_id("event-log")
    # first roll shows an R: any value can be taken, so "1" takes the first value (-5)
    await ana.locator("[data-testid=roll-button], .die.takeable[data-face=R]").first.wait_for()
    if await ana.get_by_test_id("roll-button").count():
        await ana.get_by_test_id("key-hint").wait_for()
        await ana.keyboard.press("r")
        await log.get_by_text("Ana rolled").wait_for()
    await ana.locator(".die.takeable[data-face=R]").wait_for()
    await ana.keyboard.press("1")
    await log.get_by_text("Ana took a \u22125.").wait_for()
    bet = await ana.evaluate(f"window.rollhouse.view.game.seats[{seat}].bet")
    assert bet["-5"] == 1
    # the next time Ana decides, "s" secures (rolling with "r" when the dice are hers)
    for _ in range(10):
        await ana.locator(f"{ROLL}, {SECURE}").first.wait_for()
        if await ana.locator(SECURE).count():
            await ana.keyboard.press("s")
            break
        await ana.keyboard.press("r")
        await ana.wait_for_function("window.rollhouse.pending.size === 0")
    await log.get_by_text("Ana secured").wait_for()
