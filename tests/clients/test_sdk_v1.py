"""Issue 21's promise to version 1 clients: the SDK of main before players came
(pinned unchanged in tests/support/sdk_v1) plays a public room to the end on today's
server, on ``rollhouse.v1.*``, while a version 2 player at the same table chats (act
records move the room's seq under the v1 client's feet)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from clients.sdk import Account, Client, CommandRejected
from tests.support import sdk_v1
from tests.support.server import LiveServer


async def play_to_the_end(client: Any) -> dict[str, Any]:
    """Send the first legal command whenever there is one, until the game is over."""
    while True:
        view = await client.wait_for(
            lambda v: v["room"]["status"] == "finished" or bool(v["you"]["legal"]), timeout=30
        )
        if view["room"]["status"] == "finished":
            return dict(view)
        with contextlib.suppress(sdk_v1.CommandRejected, CommandRejected):  # a race: look again
            await client.send(view["you"]["legal"][0])


async def test_the_pinned_v1_sdk_plays_a_public_room_to_the_end(live_server: LiveServer) -> None:
    """Two pinned v1 clients (msgpack and JSON) and a v2 player who chats finish a
    three-seat Rollie game; the v1 sockets speak version 1 and see the chat as a view key."""
    room = (await live_server.create_room("rollie", 3, options={"rounds": 2}))["room"]
    old = [
        await sdk_v1.Client(live_server.ws_url, room, name="v1-msgpack").connect(),
        await sdk_v1.Client(live_server.ws_url, room, name="v1-json", encoding="json").connect(),
    ]
    ann = Account(live_server.url, keep=False)
    await ann.guest("Ann")
    new = await ann.join(room)
    assert isinstance(new, Client)
    codecs = {c.seat: c.codec_name for c in live_server.services.connections if not c.closing}
    assert codecs == {
        old[0].seat: "rollhouse.v1.msgpack",
        old[1].seat: "rollhouse.v1.json",
        new.seat: "rollhouse.v2.msgpack",
    }
    said = await new.chat("good luck, old timers")
    games = [asyncio.create_task(play_to_the_end(c)) for c in (*old, new)]
    finals = await asyncio.wait_for(asyncio.gather(*games), 90)
    assert [f["room"]["status"] for f in finals] == ["finished"] * 3
    assert finals[0]["game"] == finals[1]["game"] == finals[2]["game"]
    for client in old:
        assert client.seq >= said
        assert [line["text"] for line in client.view["chat"]["players"]] == [
            "good luck, old timers"
        ]
        assert client.view["room"]["visibility"] == "public"
        await client.close()
    await new.close()
