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
    # 5 rounds: the client all but surely acts twice before the end, so its socket drops
    # (with 2, a bot rolling doubles twice could leave it one answer: seen once)
    room = await live_server.create_room(
        "rollie", 2, options={"rounds": 5}, room={"bots": 1, "bot_delay": 0, "clock": 0}
    )
    page = await new_page(None)
    await page.route("**/sdk-under-test/*", serve_sdk)
    await page.goto(live_server.url + "/rules/rollie.md")
    result = await page.evaluate(PLAY, [room["room"], encoding])
    print(f"js sdk in chromium ({encoding}): {result}")
    assert result["status"] == "finished" and result["dropped"] and result["reconnects"] >= 1
    assert result["node"] is False


PEOPLE = """async ([encoding]) => {
  const sdk = await import('/sdk-under-test/index.js');
  const base = location.origin;
  const url = sdk.wsUrl(base);
  const ann = await sdk.createGuest(base, 'Ann');
  const bruno = await sdk.createGuest(base, 'Bruno');
  const made = await sdk.createRoom(base, 'rollie', 2,
    {room: {visibility: 'private', clock: 0}, session: ann.session});
  const out = {host: made.host === ann.player.id, invite: typeof made.invite};
  // a stranger without the code: the room does not exist, over HTTP and on the socket
  try { await sdk.getRoom(base, made.room); out.http = 'seen'; } catch (e) { out.http = e.code; }
  const eve = new sdk.Client(url, made.room, {encoding, name: 'Eve'});
  try { await eve.connect(); out.ws = 'seen'; } catch (e) { out.ws = e.code; }
  eve.close();
  const a = await new sdk.Client(url, made.room, {encoding, session: ann.session}).connect();
  const b = await new sdk.Client(url, made.room,
    {encoding, session: bruno.session, invite: made.invite}).connect();
  out.players = [a.player === ann.player.id, b.player === bruno.player.id, a.seat, b.seat];
  const seq = await b.act({type: 'chat', text: 'boa sorte!'});
  await a.waitSeq(seq);
  out.chat = a.view.chat.players.map((l) => [l.name, l.text]);
  try { await b.act({type: 'lock'}); } catch (e) { out.notHost = [e.code, e instanceof sdk.ActRejected]; }
  const rooms = await sdk.myRooms(base, bruno.session);
  out.mine = rooms.rooms.map((r) => r.room).includes(made.room);
  out.v2 = a.v2 && b.v2;
  a.close(); b.close();
  return out;
}"""


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
async def test_the_sdk_speaks_v2_with_a_real_server(
    live_server: LiveServer, new_page: NewPage, encoding: str
) -> None:
    """Guests, a private room with its invite code, a stranger refused (room/not_found),
    welcome.player, chat as an act, a host's act refused for a non-host, my rooms."""
    page = await new_page(None)
    await page.route("**/sdk-under-test/*", serve_sdk)
    await page.goto(live_server.url + "/rules/rollie.md")
    out = await page.evaluate(PEOPLE, [encoding])
    assert out == {
        "host": True,
        "invite": "string",
        "http": "room/not_found",
        "ws": "room/not_found",
        "players": [True, True, 0, 1],
        "chat": [["Bruno", "boa sorte!"]],
        "notHost": ["room/not_host", True],
        "mine": True,
        "v2": True,
    }
