"""The Python SDK against a real server: commands, typed rejections, mirrors, forced drops."""

from __future__ import annotations

import asyncio

import pytest

from clients.bots.play import play_seat
from clients.sdk import (
    Client,
    ClientError,
    CommandRejected,
    create_room,
    http_url,
    list_rooms,
    ws_url,
)
from tests.support.server import LiveServer


async def test_create_and_list_rooms(live_server: LiveServer) -> None:
    """create_room returns the room; list_rooms finds it; bad requests raise ClientError with the code."""
    room = await create_room(live_server.url, "rollie", 2)
    assert any(r["room"] == room["room"] for r in await list_rooms(live_server.url))
    with pytest.raises(ClientError) as info:
        await create_room(live_server.url, "rollie", 7)
    assert info.value.code == "room/bad_options"


def test_url_helpers() -> None:
    """ws_url and http_url convert between the HTTP base and the websocket endpoint."""
    assert ws_url("http://127.0.0.1:8000") == "ws://127.0.0.1:8000/ws"
    assert ws_url("https://h/") == "wss://h/ws"
    assert http_url("ws://127.0.0.1:8000/ws") == "http://127.0.0.1:8000"


async def test_rejections_are_typed(live_server: LiveServer) -> None:
    """A refused command raises CommandRejected carrying the game's code."""
    room = (await live_server.create_room("rollie", 2, room={"clock": 0}))["room"]
    a, b = [await Client(live_server.ws_url, room).connect() for _ in range(2)]
    view = await a.wait_for(lambda v: v["room"]["status"] == "playing")
    idle = b if view["game"]["first_player"] == a.seat else a
    with pytest.raises(CommandRejected) as info:
        await idle.send({"type": "roll"})
    assert info.value.code == "rollie/not_your_turn"
    await a.close()
    await b.close()


async def test_client_survives_the_server_closing_its_socket(live_server: LiveServer) -> None:
    """The server drops a player's socket twice mid-game; the SDK reconnects and the game finishes."""
    room = (await live_server.create_room("rollie", 3, room={"clock": 0}))["room"]
    players = [
        await Client(live_server.ws_url, room, backoff=(0.02, 0.2)).connect() for _ in range(3)
    ]
    victim = players[1]
    games = [
        asyncio.create_task(play_seat(p, "push", delay=0.005, seed=i))
        for i, p in enumerate(players)
    ]
    for drops, target in enumerate((12, 30)):
        await victim.wait_for(
            lambda _, t=target, d=drops: (
                victim.seq >= t and victim.reconnects == d and victim.connected
            ),
            timeout=30,
        )
        conns = [
            c for c in live_server.services.connections if c.seat == victim.seat and not c.closing
        ]
        assert len(conns) == 1
        conns[0].disconnect(1012, "restart")
    finals = await asyncio.wait_for(asyncio.gather(*games), 60)
    assert victim.reconnects >= 2
    assert all(f["room"]["status"] == "finished" for f in finals)
    assert finals[1]["game"] == finals[0]["game"]
    for p in players:
        await p.close()
