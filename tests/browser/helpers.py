"""What the browser tests do at a table: find the next action, play it, read the board."""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

ROLL = "[data-testid=roll-button]:not([disabled])"
SECURE = "[data-testid=secure-button]:not([disabled])"
TAKE = ".die.takeable:not([disabled])"
FINAL = "[data-testid=final-scores]"
ACTIONABLE = f"{ROLL}, {SECURE}, {TAKE}, {FINAL}"


def table_url(base: str, room: str, watch: bool = False) -> str:
    return f"{base}/table.html?room={room}" + ("&watch=1" if watch else "")


async def my_seat(page: Any) -> int:
    """The seat this page plays, from the page's own mirror of the room."""
    await page.wait_for_function("window.rollhouse && window.rollhouse.seat !== null")
    return int(await page.evaluate("window.rollhouse.seat"))


async def bet_is_empty(page: Any, seat: int) -> bool:
    bet = await page.evaluate(f"window.rollhouse.view.game.seats[{seat}].bet")
    return not any(bet.values())


async def take_with_die(page: Any) -> bool:
    """Click a takeable die; an R opens the chooser and the first allowed value is picked."""
    die = page.locator(TAKE).first
    face = await die.get_attribute("data-face", timeout=2000)
    await die.click(timeout=2000)
    if face == "R":
        choice = page.locator("[data-testid=r-chooser] button.bill-button:not([disabled])").first
        await choice.click(timeout=2000)
    return True


async def play_one(page: Any, seat: int) -> str:
    """Wait for something to do and do it: roll; take once while the Bet is empty, else
    secure. Returns what was done ("roll", "take", "secure") or "over"."""
    await page.wait_for_selector(ACTIONABLE, timeout=30000)
    try:
        if await page.locator(FINAL).count():
            return "over"
        if await page.locator(ROLL).count():
            await page.locator(ROLL).click(timeout=2000)
            return "roll"
        if await page.locator(TAKE).count() and await bet_is_empty(page, seat):
            await take_with_die(page)
            return "take"
        if await page.locator(SECURE).count():
            await page.locator(SECURE).click(timeout=2000)
            return "secure"
    except (PlaywrightTimeout, PlaywrightError):
        # the clock or another player moved the game on between looking and clicking
        return "missed"
    return "missed"


async def play_to_the_end(page: Any, moves: list[str]) -> None:
    """Play this page's seat until the final scores show; record the moves made."""
    seat = await my_seat(page)
    for _ in range(400):
        move = await play_one(page, seat)
        moves.append(move)
        if move == "over":
            return
        if move != "missed":
            # the command is settled (ack or reject) when the buttons are enabled again
            await page.wait_for_function("window.rollhouse.pending.size === 0", timeout=10000)
    raise AssertionError("the game did not end within 400 moves")


GAMES = [("rollie", 3, {"rounds": 1}), ("roll-player", 2, {}), ("roll-builder", 2, {})]
"""One small room of each game, as the layout and accessibility tests play them."""


async def finished_rooms(server: Any) -> dict[str, str]:
    """One all-bot room per game of :data:`GAMES`, played to the end."""
    rooms = {}
    for game, seats, options in GAMES:
        body = {"clock": 5, "bots": seats, "bot_delay": 0}
        rooms[game] = (await server.create_room(game, seats, options=options, room=body))["room"]
    for _ in range(1500):
        if all(server.services.rooms.live[r].model.is_over for r in rooms.values()):
            return rooms
        await asyncio.sleep(0.02)
    raise AssertionError("the bots did not finish")
