"""Roll Player's market names every button after its card, and says why a card cannot
be bought instead of hiding the Buy button.

Ana buys a card on each of her market turns (her own short clock plays the rest of her
game) against a bot, so her gold runs short; an observer in the page records every Buy
button and every "why not" note the market shows until the first note appears.
"""

from __future__ import annotations

import contextlib

import pytest
from playwright.async_api import Error as PlaywrightError

from tests.browser.conftest import NewPage
from tests.browser.helpers import FINAL, table_url
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

WATCH_MARKET = """() => {
  window.__buy = new Set(); window.__why = new Set();
  new MutationObserver(() => {
    for (const b of document.querySelectorAll('[data-testid^=buy-]')) __buy.add(b.getAttribute('aria-label'));
    for (const w of document.querySelectorAll('[data-testid^=why-]')) __why.add(w.textContent);
  }).observe(document.body, {subtree: true, childList: true});
}"""


async def test_market_buttons_name_their_card_and_refusals_say_why(
    live_server: LiveServer, new_page: NewPage
) -> None:
    """Each Buy button reads "<card>: Buy · n gold"; a card out of reach shows its reason."""
    room = (
        await live_server.create_room(
            "roll-player", 2, room={"clock": 0.8, "bots": 1, "bot_delay": 0}
        )
    )["room"]
    page = await new_page("Ana")
    await page.goto(table_url(live_server.url, room))
    await page.wait_for_function("!!window.rollhouse")
    await page.evaluate(WATCH_MARKET)
    # Ana buys a card on every market turn she can (her clock plays the rest), until her gold
    # runs short of a card's price and the market says so
    for _ in range(100):
        await page.wait_for_function(
            "document.querySelector('[data-testid^=buy-]') || __why.size > 0"
            f" || document.querySelector('{FINAL}')",
            timeout=60000,
        )
        if await page.evaluate(f"__why.size > 0 || !!document.querySelector('{FINAL}')"):
            break
        with contextlib.suppress(PlaywrightError):  # her clock ran out first: next turn
            await page.locator("[data-testid^=buy-]").last.click(timeout=1000)
        await page.wait_for_function("rollhouse.pending.size === 0")
    buys = await page.evaluate("[...__buy]")
    whys = await page.evaluate("[...__why]")
    assert buys, "the market never offered Ana a card"
    # "Climb: Buy · 3 gold", never a bare "Buy · 3 gold"
    assert all(label.split(":")[0] and "Buy" in label.split(":", 1)[1] for label in buys)
    assert not any(label.startswith("Buy") for label in buys)
    assert whys, "no card out of reach ever said why"
    assert all(w.endswith(".") for w in whys)
