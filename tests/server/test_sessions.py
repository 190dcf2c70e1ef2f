"""Idempotent retries, restarts, clocks, seat replacement, slow clients, rate limits."""

from __future__ import annotations

import asyncio
import json
import types
from pathlib import Path
from typing import Any

import pytest
import websockets

from clients.sdk import Client, ConnectionLost
from server.config import Settings
from server.metrics import Metrics
from server.store.memory import MemoryStore
from tests.support.server import LiveServer, serve

JSON = "rollhouse.v1.json"


def sqlite_settings(tmp_path: Path, **extra: Any) -> Settings:
    return Settings(store_url=f"sqlite:///{tmp_path / 'log.db'}", **extra)


async def seated(server: LiveServer, seats: int = 2, **room: Any) -> tuple[str, list[Client]]:
    info = await server.create_room("rollie", seats, room={"clock": 0, **room})
    players = [
        await Client(server.ws_url, info["room"], name=f"p{i}").connect() for i in range(seats)
    ]
    await players[0].wait_for(lambda v: v["room"]["status"] == "playing")
    return info["room"], players


def roller_of(players: list[Client]) -> Client:
    view = players[0].view or {}
    return next(p for p in players if p.seat == view["game"]["first_player"])


async def test_repeated_command_id_returns_the_first_result(live_server: LiveServer) -> None:
    """The same command id twice: the same ack seq, and nothing appended the second time."""
    room, players = await seated(live_server)
    roller = roller_of(players)
    first = await roller.send({"type": "roll"}, cmd_id="same-id")
    live = live_server.services.rooms.live[room]
    seq = live.model.seq
    again = await roller.send({"type": "roll"}, cmd_id="same-id")
    assert again == first
    assert live.model.seq == seq
    for p in players:
        await p.close()


async def test_retry_after_restart_appends_nothing(tmp_path: Path) -> None:
    """A command id seen before a server restart still returns its first ack afterwards."""
    settings = sqlite_settings(tmp_path)
    async with serve(settings) as server:
        room, players = await seated(server)
        roller = roller_of(players)
        token, seat = roller.seat_token, roller.seat
        acked = await roller.send({"type": "roll"}, cmd_id="before-restart")
        for p in players:
            await p.close()
    async with serve(settings) as server:
        again = await Client(server.ws_url, room, seat_token=token).connect()
        assert again.seat == seat
        seq_before = again.seq
        assert await again.send({"type": "roll"}, cmd_id="before-restart") == acked
        assert server.services.rooms.live[room].model.seq == seq_before
        records = await server.services.store.read(room)
        assert sum(1 for r in records if r.data.get("cmd") == "before-restart") == 1
        await again.close()


async def test_clock_runs_out_into_the_timeout_command(live_server: LiveServer) -> None:
    """With a clock, an idle roller rolls automatically and idle deciders secure."""
    _room, players = await seated(live_server, clock=0.2)
    view = await players[0].wait_for(lambda v: bool(v["room"]["deadlines"]))
    assert set(view["room"]["deadlines"]) == {str(view["game"]["first_player"])}
    view = await players[0].wait_for(lambda v: v["game"]["round"] >= 2, timeout=20)
    assert view["room"]["status"] in ("playing", "finished")
    for p in players:
        await p.close()


async def test_deadlines_survive_a_restart(tmp_path: Path) -> None:
    """Deadlines come back from the log unchanged after a restart, and still fire."""
    settings = sqlite_settings(tmp_path)
    async with serve(settings) as server:
        room, players = await seated(server, clock=1.5)
        deadlines = (players[0].view or {})["room"]["deadlines"]
        assert deadlines
        for p in players:
            await p.close()
    async with serve(settings) as server:
        watcher = await Client(server.ws_url, room, role="spectator").connect()
        assert (watcher.view or {})["room"]["deadlines"] == deadlines
        await watcher.wait_for(lambda v: v["game"]["dice"] is not None, timeout=15)
        await watcher.close()


async def test_a_second_connection_replaces_the_first(live_server: LiveServer) -> None:
    """The same seat token from a new connection takes the seat; the old one gets room/replaced."""
    room, players = await seated(live_server)
    old = players[0]
    old.reconnect = False
    new = await Client(live_server.ws_url, room, seat_token=old.seat_token).connect()
    assert new.seat == old.seat
    with pytest.raises(ConnectionLost) as info:
        await old.wait_for(lambda _: False, timeout=5)
    assert info.value.code == "room/replaced"
    for c in (new, players[1]):
        await c.close()


async def test_rate_limit_answers_rate_limited() -> None:
    """Past the burst, messages get room/rate_limited (and the connection stays up)."""
    async with serve(Settings(store_url="memory://", rate_per_second=1, rate_burst=3)) as server:
        async with websockets.connect(server.ws_url, subprotocols=[JSON]) as ws:  # type: ignore[list-item]
            for i in range(8):
                await ws.send(json.dumps({"type": "ping", "nonce": i}))
            replies = [json.loads(await ws.recv()) for _ in range(8)]
        kinds = [r.get("code", r["type"]) for r in replies]
        assert kinds[:3] == ["pong"] * 3
        assert "room/rate_limited" in kinds


class StuckTransport(asyncio.Transport):
    """A socket whose peer never reads: the transport says it is full at once."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written.append(bytes(data))

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 5555) if name == "peername" else default

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True


UPGRADE = (
    b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nUpgrade: websocket\r\n"
    b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: rollhouse.v1.json\r\n\r\n"
)


async def test_a_slow_client_is_dropped_not_waited_for() -> None:
    """A full outbox drops the connection with room/slow_consumer; send_frame never blocks."""
    from server.edge.protocol import WebSocketEdge
    from server.services import Services

    metrics = Metrics()
    services = Services(Settings(outbox_limit=4), MemoryStore(), metrics, None)  # type: ignore[arg-type]
    config, state = (
        types.SimpleNamespace(ws_max_size=1 << 20),
        types.SimpleNamespace(connections=set()),
    )
    edge = WebSocketEdge(config, state, {"services": services})
    transport = StuckTransport()
    edge.connection_made(transport)
    edge.data_received(UPGRADE)
    assert transport.written[0].startswith(b"HTTP/1.1 101")
    (conn,) = services.connections
    edge.pause_writing()  # the socket's buffers are full from here on
    for i in range(10):
        conn.send_frame(f'{{"n": {i}}}')  # type: ignore[attr-defined]
    assert conn.closing
    close = transport.written[-1]
    assert close[0] == 0x88 and close[4:] == b"room/slow_consumer"  # close 4000 (0x0fa0)
    assert close[2:4] == (4000).to_bytes(2, "big")
    assert len(transport.written) == 2  # the handshake and the close: no frame waited on it
    assert 'reason="slow_consumer"' in metrics.render()
    edge.connection_lost(None)
    assert not services.connections and not services.addresses.open
