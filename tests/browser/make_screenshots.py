"""Write docs/screenshots/{lobby,table,final}.png and the phone-sized *-phone.png.

    .venv/bin/python -m tests.browser.make_screenshots [--lang pt-BR]

(In Portuguese the same names end in ``-pt``: ``lobby-pt.png``, ``table-phone-pt.png``.)

Starts the app in this process (in-memory store), fills a few rooms, plays a Rollie
table with two browser players and two hosted bots until it is mid-game (round 2 or
later, Ana deciding with a Bet), then photographs the lobby, Ana's table and a
finished game's scores; then, at 390x844 with touch, the lobby, that table, a Roll
Player and a Roll Builder table against a bot, and a finished game.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT
from tests.browser.helpers import table_url
from tests.support.server import LiveServer, serve

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


PHONE = {"width": 390, "height": 844}
SUFFIX = {"lang": ""}  # "-pt" for Portuguese: docs/screenshots/*-pt.png beside the English


def shot(name: str) -> str:
    return str(OUT / f"{name}{SUFFIX['lang']}.png")


async def page_for(browser: Any, name: str | None, lang: str, phone: bool = False) -> Any:
    if phone:
        context = await browser.new_context(
            viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
        )
    else:
        context = await browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    script = f"localStorage.setItem('rollhouse.lang', {lang!r});"
    if name:
        script += f"localStorage.setItem('rollhouse.name', {name!r});"
    await context.add_init_script(script)
    return await context.new_page()


def ready(view: dict[str, Any], seat: int) -> bool:
    """Mid-game and worth a picture: Ana decides on a roll, holding a Bet, someone banked."""
    g = view["game"]
    return (
        g["round"] >= 2
        and g["phase"] == "deciding"
        and seat in g["awaiting"]
        and g["seats"][seat]["bet_total"] != 0
        and any(s["wallet_total"] for s in g["seats"])
        and "R" not in (g["dice"] or [])
    )


async def act(page: Any, seat: int, greed: int) -> None:
    """Roll when asked; take while the Bet is worth less than ``greed``, else secure."""
    view = await page.evaluate("window.rollhouse && window.rollhouse.view")
    if not view or await page.evaluate("window.rollhouse.pending.size"):
        return
    legal = view.get("you", {}).get("legal", [])
    if not legal:
        return
    takes = sorted((c["value"] for c in legal if c["type"] == "take"), reverse=True)
    if any(c["type"] == "roll" for c in legal):
        command: dict[str, Any] = {"type": "roll"}
    elif takes and view["game"]["seats"][seat]["bet_total"] < greed:
        command = {"type": "take", "value": takes[0]}
    else:
        command = {"type": "secure"}
    await page.evaluate("c => window.rollhouse.send(c).catch(() => null)", command)


async def finished_room(server: LiveServer) -> str:
    room = (
        await server.create_room(
            "rollie", 3, options={"rounds": 2}, room={"clock": 5, "bots": 3, "bot_delay": 0.02}
        )
    )["room"]
    for _ in range(500):
        if server.services.rooms.live[room].model.is_over:
            return str(room)
        await asyncio.sleep(0.02)
    raise RuntimeError("the bots did not finish")


async def main(lang: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    async with serve() as server, async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        done = await finished_room(server)
        await server.create_room("rollie", 4, room={"clock": 30, "bots": 1})
        room = (
            await server.create_room(
                "rollie", 4, options={"seed": 7}, room={"clock": 30, "bots": 2, "bot_delay": 0.4}
            )
        )["room"]
        ana = await page_for(browser, "Ana", lang)
        bruno = await page_for(browser, "Bruno", lang)
        await ana.goto(table_url(server.url, room))
        await bruno.goto(table_url(server.url, room))
        watcher = await page_for(browser, None, lang)
        await watcher.goto(table_url(server.url, room, watch=True))
        seats = [await p.evaluate("window.rollhouse.seat") for p in (ana, bruno) if p is not None]
        for _ in range(3000):
            view = await ana.evaluate("window.rollhouse.view")
            if view and ready(view, seats[0]):
                break
            await act(ana, seats[0], 14)
            await act(bruno, seats[1], 6)
            await asyncio.sleep(0.05)
        else:
            raise RuntimeError("never reached a good mid-game moment")
        await ana.wait_for_selector("[data-testid=banner]", state="hidden", timeout=10000)
        await ana.screenshot(path=shot("table"))

        lobby = await page_for(browser, "Ana", lang)
        await lobby.goto(server.url + "/")
        await lobby.get_by_test_id("filter-all").click()
        await lobby.get_by_test_id(f"room-{room}").wait_for()
        await lobby.screenshot(path=shot("lobby"))

        final = await page_for(browser, None, lang)
        await final.goto(table_url(server.url, done, watch=True))
        await final.get_by_test_id("final-scores").wait_for()
        await final.screenshot(path=shot("final"))
        await phone_shots(browser, server, lang, room, done)
        await browser.close()
    print(f"wrote {OUT}/lobby.png, table.png, final.png and *-phone.png")


async def phone_shots(browser: Any, server: LiveServer, lang: str, room: str, done: str) -> None:
    """The same pages on a phone, and a Roll Player and a Roll Builder turn."""
    lobby = await page_for(browser, "Ana", lang, phone=True)
    await lobby.goto(server.url + "/")
    await lobby.get_by_test_id("play-bot-rollie").wait_for()
    await lobby.wait_for_timeout(300)
    await lobby.screenshot(path=shot("lobby-phone"))
    watch = await page_for(browser, None, lang, phone=True)
    await watch.goto(table_url(server.url, room, watch=True))
    await watch.wait_for_selector("[data-testid=game-root][aria-busy=false]")
    await watch.wait_for_selector("[data-testid=banner]", state="hidden", timeout=10000)
    await watch.screenshot(path=shot("table-phone"))
    await watch.goto(table_url(server.url, done, watch=True))
    await watch.get_by_test_id("final-scores").wait_for()
    await watch.screenshot(path=shot("final-phone"))
    for game in ("rollie", "roll-player", "roll-builder"):
        made = await server.create_room(game, 2, room={"clock": 0, "bots": 1, "bot_delay": 0.2})
        ana = await page_for(browser, "Ana", lang, phone=True)
        await ana.goto(table_url(server.url, made["room"]))
        await ana.wait_for_function(
            "window.rollhouse && rollhouse.view && rollhouse.view.you"
            " && rollhouse.view.you.legal.length > 0",
            timeout=20000,
        )
        await ana.wait_for_timeout(400)
        if game == "roll-builder":
            await ana.evaluate("document.querySelector('.rb-dice-panel').scrollIntoView()")
        await ana.screenshot(path=shot(f"{game}-phone"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="en", choices=["en", "pt-BR"])
    chosen = parser.parse_args().lang
    SUFFIX["lang"] = "-pt" if chosen == "pt-BR" else ""
    asyncio.run(main(chosen))
