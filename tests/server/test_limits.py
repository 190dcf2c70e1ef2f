"""Every limit of a public node, one test each, against a real ``rollhouse serve`` process."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import signal
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets

from clients.sdk import Client
from tests.support.redis_server import start_redis
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(90)
JSON = "rollhouse.v1.json"


@contextlib.contextmanager
def node(tmp_path: Path, store: str = "memory://", **env: object) -> Iterator[ServerProcess]:
    settings = {f"ROLLHOUSE_{k.upper()}": str(v) for k, v in env.items()}
    server = ServerProcess(store, tmp_path, env=settings)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def create(server: ServerProcess, **body: object) -> httpx.Response:
    payload = {"game": "rollie", "seats": 2, "room": {"clock": 0}, **body}
    return httpx.post(server.url + "/api/rooms", json=payload, timeout=10)


def error_code(reply: httpx.Response) -> str:
    return str(reply.json()["error"]["code"])


def test_request_bodies_are_capped(tmp_path: Path) -> None:
    """A body over max_body_bytes is 413 http/too_large, declared or streamed; nothing made."""
    with node(tmp_path, max_body_bytes=1024) as server:
        big = json.dumps({"game": "rollie", "seats": 2, "options": {"x": "a" * 5000}})
        reply = httpx.post(server.url + "/api/rooms", content=big, timeout=10)
        assert (reply.status_code, error_code(reply)) == (413, "http/too_large")

        def chunks() -> Iterator[bytes]:
            yield b'{"game": "rollie", "seats": 2, "options": {"x": "'
            for _ in range(10):
                yield b"a" * 500
            yield b'"}}'

        streamed = httpx.post(server.url + "/api/rooms", content=chunks(), timeout=10)
        assert (streamed.status_code, error_code(streamed)) == (413, "http/too_large")
        assert httpx.get(server.url + "/api/rooms", timeout=10).json()["rooms"] == []
        metrics = httpx.get(server.url + "/metrics").text
        assert 'rollhouse_limit_refusals_total{limit="body"} 2' in metrics


def test_room_creations_per_address_are_limited(tmp_path: Path) -> None:
    """Past creations_per_minute one address gets 429 http/rate_limited with Retry-After."""
    with node(tmp_path, creations_per_minute=3) as server:
        assert [create(server).status_code for _ in range(3)] == [201] * 3
        reply = create(server)
        assert (reply.status_code, error_code(reply)) == (429, "http/rate_limited")
        assert 1 <= int(reply.headers["retry-after"]) <= 60
        metrics = httpx.get(server.url + "/metrics").text
        assert 'rollhouse_limit_refusals_total{limit="creations_per_address"} 1' in metrics


def test_live_rooms_per_node_are_limited(tmp_path: Path) -> None:
    """Past max_rooms live rooms a creation is 429 room/too_many_rooms."""
    with node(tmp_path, max_rooms=2) as server:
        assert [create(server).status_code for _ in range(2)] == [201, 201]
        reply = create(server)
        assert (reply.status_code, error_code(reply)) == (429, "room/too_many_rooms")


def test_idempotency_key_returns_the_same_room(tmp_path: Path) -> None:
    """The same Idempotency-Key twice makes one room; a fresh key makes another."""
    with node(tmp_path) as server:
        body = {"game": "rollie", "seats": 2}
        post = lambda key: httpx.post(  # noqa: E731
            server.url + "/api/rooms", json=body, headers={"Idempotency-Key": key}, timeout=10
        )
        first, again, other = post("k-1"), post("k-1"), post("k-2")
        assert first.json()["room"] == again.json()["room"] != other.json()["room"]
        assert len(httpx.get(server.url + "/api/rooms").json()["rooms"]) == 2


def test_malformed_bodies_are_400_never_500(tmp_path: Path) -> None:
    """Deep nesting, huge ints, a huge seed, non-objects: 400 with a JSON error."""
    with node(tmp_path) as server:
        bodies = [
            "[" * 20_000 + "]" * 20_000,  # under the body cap, far past any parser's depth
            '{"game": "rollie", "seats": 2, "options": {"seed": ' + str(2**70) + "}}",
            '{"game": "rollie", "seats": 2, "options": {"seed": -1}}',
            '{"game": "rollie", "seats": 2, "options": ' + '{"a":' * 40 + "1" + "}" * 41,
            "[1, 2]",
            "not json",
        ]
        for body in bodies:
            reply = httpx.post(server.url + "/api/rooms", content=body, timeout=10)
            assert reply.status_code == 400, body[:60]
            assert error_code(reply) in {"http/bad_json", "room/bad_options"}
        missing = httpx.get(server.url + "/api/nothing", timeout=10)
        assert (missing.status_code, error_code(missing)) == (404, "http/not_found")


async def test_connections_per_address_are_limited(tmp_path: Path) -> None:
    """Past connections_per_address the handshake is 429; a trusted proxy's clients count apart."""
    with node(tmp_path, connections_per_address=3, trusted_proxies="127.0.0.1") as server:
        held = [await websockets.connect(server.ws_url) for _ in range(3)]
        with pytest.raises(websockets.exceptions.InvalidStatus) as info:
            await websockets.connect(server.ws_url)
        assert info.value.response.status_code == 429
        assert json.loads(info.value.response.body)["error"]["code"] == "room/too_many_connections"
        forwarded = await websockets.connect(
            server.ws_url, additional_headers={"X-Forwarded-For": "203.0.113.7"}
        )
        await held.pop().close()
        await asyncio.sleep(0.3)
        held.append(await websockets.connect(server.ws_url))
        for ws in [*held, forwarded]:
            await ws.close()


async def test_a_socket_that_never_says_hello_is_closed(tmp_path: Path) -> None:
    """No hello within hello_timeout_seconds: a fatal room/hello_timeout, close 4000."""
    with node(tmp_path, hello_timeout_seconds=0.5) as server:
        async with websockets.connect(server.ws_url, subprotocols=[JSON]) as ws:  # type: ignore[list-item]
            started = time.monotonic()
            reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert (reply["code"], reply["fatal"]) == ("room/hello_timeout", True)
            with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4000
            assert time.monotonic() - started < 3


async def test_resync_requests_are_limited(tmp_path: Path) -> None:
    """Resyncs past their rate get room/rate_limited errors instead of snapshots."""
    with node(tmp_path, resyncs_per_second=1, resync_burst=3, refusals_burst=100) as server:
        room = create(server).json()["room"]
        async with websockets.connect(server.ws_url, subprotocols=[JSON]) as ws:  # type: ignore[list-item]
            await ws.send(json.dumps({"type": "hello", "room": room, "role": "spectator"}))
            for _ in range(10):
                await ws.send(json.dumps({"type": "resync"}))
            kinds: list[str] = []
            with contextlib.suppress(TimeoutError):
                while len(kinds) < 12:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                    kinds.append(message.get("code") or message["type"])
        assert 3 <= kinds.count("snapshot") <= 4
        assert kinds.count("room/rate_limited") >= 6


async def test_refusals_are_limited_then_the_socket_closes(tmp_path: Path) -> None:
    """A client that keeps sending bad frames is closed with room/rate_limited."""
    # the bucket refills at the message rate: at 1/s a busy machine's slow handling of
    # the 20 frames (once spread over more than the 0.5 s that 30/s refills 15 in) cannot
    # earn them back
    with node(tmp_path, refusals_burst=5, rate=1) as server:
        async with websockets.connect(server.ws_url, subprotocols=[JSON]) as ws:  # type: ignore[list-item]
            for _ in range(20):
                with contextlib.suppress(websockets.exceptions.ConnectionClosed):
                    await ws.send("not json")
            replies = []
            with contextlib.suppress(websockets.exceptions.ConnectionClosed, TimeoutError):
                while True:
                    replies.append(json.loads(await asyncio.wait_for(ws.recv(), 5)))
        assert sum(1 for r in replies if r["code"] == "protocol/malformed") <= 6
        assert replies[-1]["code"] == "room/rate_limited" and replies[-1]["fatal"]


def _raw_handshake(port: int) -> socket.socket:
    """A websocket opened by hand on a socket with a tiny receive buffer, never read after."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Sec-WebSocket-Protocol: {JSON}\r\n\r\n"
    )
    sock.sendall(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert b" 101 " in head.split(b"\r\n")[0]
    return sock


def _text_frame(payload: str) -> bytes:
    data = payload.encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
    length = len(data)
    header = (
        struct.pack("!BB", 0x81, 0x80 | length)
        if length < 126
        else struct.pack("!BBH", 0x81, 0x80 | 126, length)
    )
    return header + mask + masked


def test_a_slow_consumer_is_cut_off(tmp_path: Path) -> None:
    """A client that reads nothing while the server has frames for it: once the socket's
    buffers are full, frames wait in its outbox (here of one frame); when that overflows
    the client is dropped (close 4000 room/slow_consumer if the socket can still take the
    frame, which here it cannot) and its TCP connection ends although it reads nothing:
    it does not linger. Here the frames are whole Roll Builder views it asks for."""
    limits = {"resyncs_per_second": 500, "resync_burst": 500, "rate": 500}
    with node(tmp_path, outbox_limit=1, **limits) as server:
        room = create(server, game="roll-builder", seats=1).json()["room"]
        sock = _raw_handshake(server.port)
        sock.sendall(_text_frame(json.dumps({"type": "hello", "room": room, "role": "spectator"})))
        with contextlib.suppress(OSError):  # the server may cut us off while we still send
            for _ in range(300):  # each asks for a whole view (about 18 KiB)
                sock.sendall(_text_frame(json.dumps({"type": "resync"})))
        time.sleep(2.5)  # this client has read nothing
        sock.settimeout(5)
        ended = False
        try:
            while sock.recv(1 << 20):
                pass
            ended = True  # the server closed it
        except ConnectionResetError:
            ended = True  # the server cut it
        except TimeoutError:
            pass  # it lingers: the failure below
        sock.close()
        assert ended, "the slow client's connection was still open"
        metrics = httpx.get(server.url + "/metrics").text
        assert 'rollhouse_connections_dropped_total{reason="slow_consumer"} 1' in metrics


def test_readiness_follows_the_store(tmp_path: Path) -> None:
    """/api/health/ready is 503 while Redis is stopped, /live stays 200; the room list
    answers a typed 503; both recover when Redis does."""
    url, stop = start_redis(tmp_path / "redis")
    with node(tmp_path, store=url + "?socket_timeout=1") as server:
        assert httpx.get(server.url + "/api/health/ready", timeout=10).status_code == 200
        pid = _redis_pid(url)
        os.kill(pid, signal.SIGSTOP)
        try:
            ready = httpx.get(server.url + "/api/health/ready", timeout=10)
            assert ready.status_code == 503 and ready.json()["ok"] is False
            assert httpx.get(server.url + "/api/health", timeout=10).status_code == 503
            assert httpx.get(server.url + "/api/health/live", timeout=10).status_code == 200
            listed = httpx.get(server.url + "/api/rooms", timeout=10)
            assert (listed.status_code, error_code(listed)) == (503, "room/unavailable")
        finally:
            os.kill(pid, signal.SIGCONT)
        for _ in range(50):
            if httpx.get(server.url + "/api/health/ready", timeout=10).status_code == 200:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("readiness did not recover")
    stop()


def _redis_pid(url: str) -> int:
    import redis

    client = redis.Redis.from_url(url)
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


async def test_a_spectator_with_a_seat_token_is_refused(tmp_path: Path) -> None:
    """A spectator hello carrying a seat token: fatal room/bad_seat_token."""
    with node(tmp_path) as server:
        room = create(server).json()["room"]
        player = await Client(server.ws_url, room, name="ann", reconnect=False).connect()
        async with websockets.connect(server.ws_url, subprotocols=[JSON]) as ws:  # type: ignore[list-item]
            hello = {
                "type": "hello",
                "room": room,
                "role": "spectator",
                "seat_token": player.seat_token,
            }
            await ws.send(json.dumps(hello))
            reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert (reply["code"], reply["fatal"]) == ("room/bad_seat_token", True)
        await player.close()


async def test_the_sdk_reads_a_refused_handshake(tmp_path: Path) -> None:
    """A 429 at the handshake reaches the SDK as a retryable refusal naming its code."""
    with node(tmp_path, connections_per_address=1) as server:
        room = create(server).json()["room"]
        async with websockets.connect(server.ws_url):
            with pytest.raises(ConnectionRefusedError, match="room/too_many_connections"):
                await Client(server.ws_url, room, reconnect=False).connect()
