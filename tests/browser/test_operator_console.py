"""The operator console in a real browser (issue 27's proof): without the token every
console route is 401 and the page shows nothing; with it, an operator closes a room and
bans an address; the room's players see the reason; the banned address is refused at
the websocket handshake; the audit log shows both."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
import websockets

from server.api.operator import routes
from server.config import Settings
from tests.browser.conftest import NewPage
from tests.browser.helpers import table_url
from tests.support.server import LiveServer, serve

pytestmark = [pytest.mark.browser, pytest.mark.timeout(90)]

TOKEN = "browser-operator-token-0123456789abcdefgh"
BANNED = "203.0.113.50"
REASON = "closed for the browser test"


@pytest_asyncio.fixture(loop_scope="module")
async def console_server() -> AsyncIterator[LiveServer]:
    """A server with the console on, behind a proxy on 127.0.0.1 (so the handshake check
    can speak for another address with X-Forwarded-For)."""
    settings = Settings(store_url="memory://", operator_token=TOKEN, trusted_proxies=("127.0.0.1",),
                        operator_wrong_tokens_per_minute=30)  # fmt: skip
    async with serve(settings) as server:
        yield server


async def test_an_operator_closes_a_room_and_bans_an_address(
    console_server: LiveServer, new_page: NewPage
) -> None:
    """The proof of the console, end to end in chromium (and a notice on the way)."""
    url = console_server.url
    room = (await console_server.create_room("rollie", 2))["room"]
    players = [await new_page(name) for name in ("Ana", "Bruno")]
    for page in players:
        await page.goto(table_url(url, room))
        await page.wait_for_selector("[data-testid=connection-status][data-state=connected]")

    ops = await new_page()
    # without the token: every route 401, the page shows nothing of the service
    for route in routes():
        path = re.sub(r"\{\w+\}", room, route.path)
        for method in sorted((route.methods or set()) - {"HEAD"}):
            reply = await ops.request.fetch(url + path, method=method, data="{}")
            assert reply.status == 401, (method, path)
            assert (await reply.json())["error"]["code"] == "operator/unauthorized"
    await ops.goto(url + "/operator.html")
    await ops.get_by_test_id("token-form").wait_for()
    assert await ops.get_by_test_id("console").is_hidden()
    await ops.get_by_test_id("token").fill("not-the-token")
    await ops.get_by_test_id("open-console").click()
    await ops.get_by_text("The token was refused.").wait_for()
    assert await ops.get_by_test_id("console").is_hidden()
    assert await ops.locator("[data-testid=rooms] tbody tr").count() == 0
    assert room not in await ops.locator("body").inner_text()

    # with it: the room, its two players; close it with a reason
    await ops.get_by_test_id("token").fill(TOKEN)
    await ops.get_by_test_id("operator-name").fill("Olga")
    await ops.get_by_test_id("open-console").click()
    await ops.get_by_test_id(f"open-{room}").click()
    detail = ops.get_by_test_id("room-detail")
    await detail.get_by_text("Ana").first.wait_for()
    assert await ops.locator("[data-testid=detail-connections] tbody tr").count() == 2
    await ops.get_by_test_id("notice-text").fill("maintenance at 10:00 UTC")
    await ops.get_by_test_id("send-notice").click()
    for page in players:  # a notice is a banner; the game goes on
        banner = page.get_by_test_id("server-notice")
        await banner.get_by_text("maintenance at 10:00 UTC").wait_for(timeout=10000)
        assert await page.get_by_test_id("fatal-message").is_hidden()
    await ops.get_by_text("Notice sent to 2 connections.").wait_for()
    await ops.get_by_test_id("close-reason").fill(REASON)
    await ops.get_by_test_id("close-room").click()
    for page in players:  # the players see why
        fatal = page.get_by_test_id("fatal-message")
        await fatal.get_by_text(REASON).wait_for(timeout=10000)
        assert "An operator closed this room." in await fatal.inner_text()
    await ops.locator(f"[data-testid=rooms] tr[data-room={room}]").get_by_text("closed").wait_for()

    # ban an address; its handshake is refused with server/banned
    await ops.get_by_test_id("ban-value").fill(BANNED)
    await ops.get_by_test_id("ban-minutes").fill("30")
    await ops.get_by_test_id("ban-reason").fill("abusive client")
    await ops.get_by_test_id("ban").click()
    await ops.locator("[data-testid=bans] tbody").get_by_text(BANNED).wait_for()
    other = (await console_server.create_room("rollie", 2))["room"]
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with websockets.connect(
            console_server.ws_url, additional_headers={"X-Forwarded-For": BANNED}
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "room": other, "role": "player"}))
    assert refused.value.response.status_code == 403
    error = json.loads(refused.value.response.body)["error"]
    assert error["code"] == "server/banned" and "abusive client" in error["message"]
    async with websockets.connect(console_server.ws_url) as ws:  # other addresses go on
        await ws.send(json.dumps({"type": "hello", "room": other, "role": "player", "name": "x"}))
        assert json.loads(await ws.recv())["type"] == "welcome"

    # the audit log shows both, with who and from where
    audit = ops.get_by_test_id("audit")
    await audit.locator("tr[data-action=ban]").wait_for()
    close_row = await audit.locator("tr[data-action=close]").inner_text()
    ban_row = await audit.locator("tr[data-action=ban]").inner_text()
    assert "Olga" in close_row and room in close_row and REASON in close_row
    assert "Olga" in ban_row and BANNED in ban_row and "127.0.0.1" in ban_row
    assert await audit.locator("tr[data-action=notice]").count() == 1
    await ops.screenshot(path="/tmp/operator-console.png", full_page=True)


async def test_the_console_has_no_serious_accessibility_violation(
    console_server: LiveServer, new_page: NewPage
) -> None:
    """axe-core over the token form, then the console with a room opened: nothing
    serious or critical (as tests/browser/test_accessibility.py asks of the other pages)."""
    from tests.browser.test_accessibility import BLOCKING, audit, require_axe

    require_axe()
    room = (await console_server.create_room("rollie", 2))["room"]
    page = await new_page()
    await page.goto(console_server.url + "/operator.html")
    await page.get_by_test_id("token-form").wait_for()
    found: dict[str, list[dict[str, object]]] = {}
    await audit(page, "operator token form", found)
    await page.get_by_test_id("token").fill(TOKEN)
    await page.get_by_test_id("open-console").click()
    await page.get_by_test_id(f"open-{room}").click()
    await page.get_by_test_id("room-detail").wait_for()
    await audit(page, "operator console", found)
    bad = [(where, v["id"], v["nodes"]) for where, vs in found.items() for v in vs
           if v["impact"] in BLOCKING]  # fmt: skip
    assert bad == []
