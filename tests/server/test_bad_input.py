"""Bad input over a real socket: each case gets its own code and none changes the room."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest
import websockets

from clients.sdk import Client, CommandRejected
from tests.support.server import LiveServer

MSGPACK = "rollhouse.v1.msgpack"
JSON = "rollhouse.v1.json"


async def recv_json(ws: Any) -> dict[str, Any]:
    frame = await ws.recv()
    return json.loads(frame) if isinstance(frame, str) else msgpack.unpackb(frame)  # type: ignore[no-any-return]


async def recv_type(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of ``kind``, skipping presence and patches."""
    for _ in range(20):
        msg = await recv_json(ws)
        if msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind} message")


async def playing_room(server: LiveServer) -> tuple[str, list[Client]]:
    room = (await server.create_room("rollie", 2, room={"clock": 0}))["room"]
    players = [await Client(server.ws_url, room, name=n).connect() for n in "ab"]
    await players[0].wait_for(lambda v: v["room"]["status"] == "playing")
    return room, players


async def room_seq(server: LiveServer, room: str) -> int:
    return int(server.services.rooms.live[room].model.seq)


@pytest.mark.parametrize(
    ("subprotocol", "frame", "code"),
    [
        (MSGPACK, b"\xc1\xff\x00", "protocol/malformed"),
        (MSGPACK, msgpack.packb([1, 2]), "protocol/malformed"),
        (MSGPACK, "text on a binary codec", "protocol/malformed"),
        (JSON, "{not json", "protocol/malformed"),
        (JSON, json.dumps({"type": "dance"}), "protocol/unknown_type"),
        (JSON, json.dumps({"type": "ping", "nonce": "x"}), "protocol/bad_field"),
        (JSON, json.dumps({"type": "ping", "colour": 1}), "protocol/unknown_field"),
        (JSON, json.dumps({"type": "command", "id": "1"}), "protocol/missing_field"),
        (MSGPACK, b"\x00" * 70_000, "protocol/too_large"),
        (
            JSON,
            json.dumps({"type": "command", "id": "1", "command": {"type": "roll"}}),
            "room/hello_required",
        ),
    ],
)
async def test_bad_frames_get_their_code(
    live_server: LiveServer, subprotocol: str, frame: Any, code: str
) -> None:
    """Malformed, mistyped, oversized and unknown frames each get a typed, non-fatal answer."""
    room, players = await playing_room(live_server)
    before = await room_seq(live_server, room)
    async with websockets.connect(live_server.ws_url, subprotocols=[subprotocol]) as ws:  # type: ignore[list-item]
        await ws.send(frame)
        reply = await recv_json(ws)
        assert reply["code"] == code
        if reply["type"] == "error":
            assert reply["fatal"] is False
        await ws.send(
            json.dumps({"type": "ping", "nonce": 7})
            if subprotocol == JSON
            else msgpack.packb({"type": "ping", "nonce": 7})
        )
        assert (await recv_type(ws, "pong"))["nonce"] == 7  # the connection survives
    assert await room_seq(live_server, room) == before
    for p in players:
        await p.close()


async def test_game_rejections_change_nothing(live_server: LiveServer) -> None:
    """Unknown commands, bad fields, a server-set seat, out-of-turn play: typed codes, no append."""
    room, (a, b) = await playing_room(live_server)
    view = a.view or {}
    roller, other = (a, b) if view["game"]["first_player"] == a.seat else (b, a)
    before = await room_seq(live_server, room)
    cases = [
        ({"type": "dance"}, "command/unknown_type"),
        ({"type": "take", "value": "5"}, "command/bad_field"),
        ({"type": "take"}, "command/missing_field"),
        ({"type": "roll", "seat": roller.seat}, "command/unknown_field"),
        ({"type": "roll"}, "rollie/not_your_turn"),
        ({"type": "secure"}, "rollie/not_deciding_phase"),
    ]
    for command, code in cases:
        with pytest.raises(CommandRejected) as info:
            await other.send(command)
        assert info.value.code == code, command
    assert await room_seq(live_server, room) == before
    await roller.close()
    await other.close()


async def test_spectators_cannot_act(live_server: LiveServer) -> None:
    """A spectator's command is room/read_only and changes nothing."""
    room, players = await playing_room(live_server)
    watcher = await Client(live_server.ws_url, room, role="spectator").connect()
    before = await room_seq(live_server, room)
    with pytest.raises(CommandRejected) as info:
        await watcher.send({"type": "roll"})
    assert info.value.code == "room/read_only"
    assert await room_seq(live_server, room) == before
    for c in [*players, watcher]:
        await c.close()


async def test_commands_after_the_game_ended(live_server: LiveServer) -> None:
    """Once the game is over every command is game/over, and the log does not move."""
    room = await live_server.create_room(
        "rollie",
        2,
        options={"rounds": 1},
        room={"bots": 1, "bot_delay": 0, "clock": 0, "takeover_after": 0},
    )
    rid = room["room"]
    ann = await Client(live_server.ws_url, rid, name="ann", reconnect=False).connect()
    token = ann.seat_token
    await ann.close()  # a bot takes her seat over at once and the bots finish the game
    watcher = await Client(live_server.ws_url, rid, role="spectator").connect()
    await watcher.wait_for(lambda v: v["room"]["status"] == "finished", timeout=30)
    seq = await room_seq(live_server, rid)
    async with Client(live_server.ws_url, rid, seat_token=token) as back:
        with pytest.raises(CommandRejected) as info:
            await back.send({"type": "roll"}, cmd_id="late")
    assert info.value.code == "game/over"
    assert await room_seq(live_server, rid) == seq
    await watcher.close()


async def test_hello_errors_are_fatal_and_typed(live_server: LiveServer) -> None:
    """Unknown room, bad seat token, full room: a fatal error with its code, then a close."""
    room, players = await playing_room(live_server)
    cases = [
        ({"type": "hello", "room": "r-nothere", "role": "player"}, "room/not_found"),
        (
            {"type": "hello", "room": room, "role": "player", "seat_token": "forged"},
            "room/bad_seat_token",
        ),
        ({"type": "hello", "room": room, "role": "player"}, "room/full"),
    ]
    for hello, code in cases:
        async with websockets.connect(live_server.ws_url, subprotocols=[JSON]) as ws:  # type: ignore[list-item]
            await ws.send(json.dumps(hello))
            reply = await recv_json(ws)
            assert (reply["type"], reply["code"], reply["fatal"]) == ("error", code, True)
            with pytest.raises(websockets.ConnectionClosed):
                await recv_json(ws)
    for p in players:
        await p.close()


async def test_second_hello_is_refused(live_server: LiveServer) -> None:
    """A second hello on one connection is room/already_joined."""
    room, players = await playing_room(live_server)
    async with websockets.connect(live_server.ws_url, subprotocols=[JSON]) as ws:  # type: ignore[list-item]
        hello = json.dumps({"type": "hello", "room": room, "role": "spectator"})
        await ws.send(hello)
        await recv_type(ws, "welcome")
        await ws.send(hello)
        assert (await recv_type(ws, "error"))["code"] == "room/already_joined"
    for p in players:
        await p.close()


async def test_foreign_origin_is_refused(live_server: LiveServer) -> None:
    """A page from another origin, scheme or port, or a rebinding Host, gets HTTP 403 with
    room/origin_forbidden and no upgrade; programs (no Origin) and the server's own pages pass."""
    room, players = await playing_room(live_server)
    port = live_server.url.rsplit(":", 1)[1]
    foreign = [
        ("http://evil.example", None),
        (f"https://127.0.0.1:{port}", None),
        ("http://127.0.0.1:1", None),
        (f"http://evil.example:{port}", f"evil.example:{port}"),  # DNS rebinding
    ]
    for origin, host in foreign:
        url = f"ws://{host}/ws" if host else live_server.ws_url  # the socket goes to 127.0.0.1
        with pytest.raises(websockets.exceptions.InvalidStatus) as info:
            await websockets.connect(
                url,
                subprotocols=[JSON],  # type: ignore[list-item]
                origin=origin,  # type: ignore[arg-type]
                host="127.0.0.1",
                port=int(port),
            )
        response = info.value.response
        assert response.status_code == 403, origin
        assert json.loads(response.body)["error"]["code"] == "room/origin_forbidden"
    async with websockets.connect(
        live_server.ws_url,
        subprotocols=[JSON],  # type: ignore[list-item]
        origin=f"http://localhost:{port}",  # type: ignore[arg-type]
    ) as ws:
        await ws.send(json.dumps({"type": "hello", "room": room, "role": "spectator"}))
        assert (await recv_type(ws, "welcome"))["role"] == "spectator"
    async with websockets.connect(
        live_server.ws_url,
        subprotocols=[JSON],
        origin=live_server.url,  # type: ignore[list-item, arg-type]
    ) as ws:
        await ws.send(json.dumps({"type": "hello", "room": room, "role": "spectator"}))
        assert (await recv_type(ws, "welcome"))["role"] == "spectator"
    for p in players:
        await p.close()
