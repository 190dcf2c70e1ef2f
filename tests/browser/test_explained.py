"""Refusals explained where the player looks, and a name for every control.

Rollie: a value not on the dice says so; the R chooser takes the focus and Escape closes
it. Roll Builder: a click on a space that is not highlighted says why; Done with an
unused die asks once more; every road side has its own name. Seat cards are named.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import NewPage
from tests.browser.helpers import table_url
from tests.browser.test_table_events import seed_for_r_then_rollie
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(90)]

NOTICE = "[data-testid=reject-message]:not([hidden])"
CLEAR_NOTICE = (
    "{ const b = document.querySelector('[data-testid=reject-message]');"
    " b.hidden = true; b.textContent = ''; }"
)


async def rollie_table(
    server: LiveServer, new_page: NewPage, options: dict[str, object] | None = None
) -> tuple[str, object, int]:
    room_settings = {"clock": 0, "bots": 1, "bot_delay": 0.3}
    room = (await server.create_room("rollie", 2, options=options or {}, room=room_settings))[
        "room"
    ]
    page = await new_page("Ana")
    await page.goto(table_url(server.url, room))
    await page.wait_for_function("window.rollhouse && rollhouse.seat !== null")
    return room, page, int(await page.evaluate("rollhouse.seat"))


async def test_rollie_explains_a_key_for_a_value_not_on_the_dice(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """Pressing a value the dice do not show tells the player so, in the notice.

    The bot plays at the same time, so the bills can change between reading the view and the
    key press; a press the page answers with "you cannot take a bill now" is then tried again,
    and the game is moved on with commands a stale view may have made illegal.
    """
    _, page, _ = await rollie_table(live_server, new_page)
    notice = page.locator(NOTICE)
    for _ in range(60):
        # wait for a decision with at least one value NOT on the dice
        await page.wait_for_function(
            "rollhouse.view.you && rollhouse.view.you.legal.some(c => c.type === 'take')"
            " || rollhouse.view.you && rollhouse.view.you.legal.some(c => c.type === 'roll')",
            timeout=20000,
        )
        legal, values = await page.evaluate(
            "[rollhouse.view.you.legal, rollhouse.view.game.values]"
        )
        takes = {c["value"] for c in legal if c["type"] == "take"}
        missing = [i for i, v in enumerate(values) if v not in takes]
        if any(c["type"] == "roll" for c in legal) or not missing:
            # move the game on; a command the bot made stale is refused, which is fine here
            step = "roll" if any(c["type"] == "roll" for c in legal) else "secure"
            await page.evaluate(f"rollhouse.send({{type: '{step}'}}).catch(() => null)")
            await page.wait_for_function("rollhouse.pending.size === 0")
            continue
        await page.evaluate(CLEAR_NOTICE)
        await page.keyboard.press(str(missing[0] + 1))  # its handler writes the notice at once
        said = await notice.inner_text() if await notice.is_visible() else ""
        if "is not on the dice" in said:
            return
        # the bills moved on before the key arrived: the page said so, or nothing (busy)
        assert said in ("", "You cannot take a bill now."), said
    raise AssertionError("never had a value missing from the dice")


async def test_the_r_chooser_takes_focus_and_escape_closes_it(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """Opening the R chooser moves the focus into it; Escape closes it and refocuses R."""
    seed, _ = seed_for_r_then_rollie()  # the first roll shows one R
    _, page, _ = await rollie_table(live_server, new_page, {"seed": seed})
    # make an R takeable in the page's own mirror (the chooser is page-side UI)
    await page.wait_for_function("rollhouse.view.you && rollhouse.view.game")
    for _ in range(200):
        legal = await page.evaluate("rollhouse.view.you.legal")
        dice = await page.evaluate("rollhouse.view.game.dice || []")
        if "R" in dice and any(c["type"] == "take" for c in legal):
            break
        if any(c["type"] == "roll" for c in legal):
            await page.evaluate("rollhouse.send({type: 'roll'}).catch(() => null)")
        elif any(c["type"] == "secure" for c in legal):
            await page.evaluate("rollhouse.send({type: 'secure'}).catch(() => null)")
        await page.wait_for_timeout(150)
    else:
        raise AssertionError("no R came up to choose with (the seed's first roll has one)")
    r = dice.index("R")
    await page.get_by_test_id(f"die-{r}").click()
    await page.get_by_test_id("r-chooser").wait_for()
    focused = await page.evaluate("document.activeElement.dataset.testid")
    assert focused.startswith("choose-")
    await page.keyboard.press("Escape")
    await page.get_by_test_id("r-chooser").wait_for(state="detached")
    assert await page.evaluate("document.activeElement.dataset.testid") == f"die-{r}"


async def test_seat_cards_and_buttons_have_names(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """Seat cards are named after who sits there; the turn prompt is announced."""
    _, page, seat = await rollie_table(live_server, new_page)
    card = page.get_by_role("article", name="Ana (you)")
    await card.wait_for()
    assert await card.get_attribute("data-testid") == f"seat-{seat}"
    await page.get_by_role("article", name="bot 1 (bot)").wait_for()
    announce = page.get_by_test_id("announce")
    assert await announce.get_attribute("aria-live") == "polite"
    # the announcement is the prompt (read together: a bot's move may change both between
    # two reads from here)
    await page.wait_for_function(
        "(() => { const a = document.querySelector('[data-testid=announce]').textContent;"
        " return a.length > 0 && a === document.querySelector('[data-testid=game-root] [data-testid=prompt]').textContent; })()",
        timeout=10000,
    )


async def test_roll_builder_explains_clicks_that_do_nothing(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """A space not highlighted says why; Done with unused dice asks again; sides differ."""
    # no event: Exodus would give bonus roads on turn 1, and another explanation
    room = (
        await live_server.create_room(
            "roll-builder", 1, options={"event": "none"}, room={"clock": 0}
        )
    )["room"]
    page = await new_page("Ana")
    await page.goto(table_url(live_server.url, room))
    await page.get_by_test_id("done-button").wait_for()
    # a plain space, not highlighted: the notice says what to do first
    space = page.locator(".rb-hex:not(.legal)").first
    await space.click()
    notice = page.locator(NOTICE)
    await notice.wait_for()
    assert "First choose what a die does" in await notice.inner_text()
    # Done with both dice unused: a warning first, the turn goes on
    turn = await page.evaluate("rollhouse.view.game.turn")
    await page.get_by_test_id("done-button").click()
    await page.get_by_text("Both dice are still unused").wait_for()
    assert await page.evaluate("rollhouse.view.game.turn") == turn
    # roads: every legal side has its own accessible name
    await page.locator("[data-testid^=use-0-road]:not([disabled])").first.click()
    await page.locator(".rb-edge.legal").first.wait_for()
    names = await page.evaluate(
        "[...document.querySelectorAll('.rb-edge.legal')].map(e => e.getAttribute('aria-label'))"
    )
    assert len(names) > 3 and len(set(names)) == len(names)
    assert all("between" in n for n in names)
