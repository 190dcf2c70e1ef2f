"""The JS SDK (clients/js/src) runs in a browser as is: no bundler, its ES modules served
from the page's origin, the browser's own WebSocket. Chromium plays a whole Rollie game
against a hosted bot with it, both encodings, dropping the socket once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import NewPage
from tests.support.server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(60)]

SRC = Path(__file__).resolve().parents[2] / "clients" / "js" / "src"

PLAY = """async ([room, encoding]) => {
  const sdk = await import('/sdk-under-test/index.js');
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  const me = await new sdk.Client(url, room, {name: 'browser', encoding}).connect();
  let answered = 0, dropped = false;
  for (;;) {
    const view = await me.waitFor((v) => v.room.status === 'finished' || v.you.legal.length > 0);
    if (view.room.status === 'finished') break;
    const answer = me.send(view.you.legal[view.you.legal.length - 1]);
    if (++answered === 2) { me.drop(); dropped = true; }
    try { await answer; } catch (e) { if (!(e instanceof sdk.CommandRejected)) throw e; }
  }
  const result = {status: me.view.room.status, seq: me.seq, reconnects: me.reconnects,
                  dropped, node: typeof process !== 'undefined'};
  me.close();
  return result;
}"""


async def serve_sdk(route: Any) -> None:
    """Answer /sdk-under-test/<file> with clients/js/src/<file>, as a static server would."""
    name = route.request.url.rsplit("/sdk-under-test/", 1)[1]
    path = SRC / name
    if path.parent != SRC or not path.is_file():
        await route.fulfill(status=404)
        return
    await route.fulfill(body=path.read_text(), content_type="text/javascript")


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
async def test_the_sdk_plays_rollie_in_chromium(
    live_server: LiveServer, new_page: NewPage, encoding: str
) -> None:
    """The game ends and the client came back from its dropped socket, in a browser."""
    room = await live_server.create_room(
        "rollie", 2, options={"rounds": 2}, room={"bots": 1, "bot_delay": 0, "clock": 0}
    )
    page = await new_page(None)
    await page.route("**/sdk-under-test/*", serve_sdk)
    await page.goto(live_server.url + "/rules/rollie.md")
    result = await page.evaluate(PLAY, [room["room"], encoding])
    print(f"js sdk in chromium ({encoding}): {result}")
    assert result["status"] == "finished" and result["dropped"] and result["reconnects"] >= 1
    assert result["node"] is False
