"""The Python SDK: an asyncio client for Rollhouse rooms.

    async with Client(ws_url, room_id, name="ann") as table:
        await table.wait_for(lambda view: ...)           # the mirror of your view
        seq = await table.send({"type": "roll"})          # resolves on ack
        try:
            await table.send({"type": "take", "value": 5})
        except CommandRejected as exc:                    # typed: exc.code == "rollie/pile_empty"
            ...

The client keeps a local mirror of the viewer's view current from patches (asking
for a snapshot when it sees a gap) and reconnects by itself when the connection
drops: exponential backoff with jitter, the seat token kept, the last applied
sequence sent so the server replays only what was missed, and commands still
waiting for an answer re-sent with their original ids (the server answers a
repeated id with the first result and appends nothing).

HTTP helpers :func:`create_room` and :func:`list_rooms` talk to the REST side.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import websockets
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from protocol.codec import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL, Codec, codec_for
from protocol.patch import apply

log = logging.getLogger("rollhouse.sdk")

FINAL_CODES = {"room/not_found", "room/full", "room/bad_seat_token", "room/origin_forbidden"}
"""Fatal errors that reconnecting cannot cure."""


class ClientError(Exception):
    """Base of the SDK's errors; ``code`` is the wire code."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details = details or {}


class CommandRejected(ClientError):
    """The room refused a command (nothing changed); ``code`` says why."""


class ConnectionLost(ClientError):
    """The client gave up (a final error, or closed)."""


class Client:
    """One seat (or a spectator) at one room, kept connected."""

    def __init__(
        self,
        url: str,
        room: str,
        *,
        role: str = "player",
        name: str | None = None,
        seat_token: str | None = None,
        encoding: str = "msgpack",
        reconnect: bool = True,
        backoff: tuple[float, float] = (0.05, 3.0),
        max_retries: int = 50,
    ) -> None:
        self.url = url
        self.room = room
        self.role = role
        self.name = name
        self.seat_token = seat_token
        self.codec: Codec = codec_for(
            MSGPACK_SUBPROTOCOL if encoding == "msgpack" else JSON_SUBPROTOCOL
        )
        self.reconnect = reconnect
        self.backoff = backoff
        self.max_retries = max_retries
        self.seat: int | None = None
        self.game: str | None = None
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.presence: dict[str, Any] | None = None
        self.events: list[tuple[int, list[str]]] = []
        self.reconnects = 0
        self.clock_offset = 0.0
        """Server time minus local time, from the last welcome or pong."""
        self.on_change: Callable[[Client], None] | None = None
        self._pending: dict[str, tuple[dict[str, Any], asyncio.Future[int]]] = {}
        self._ids = itertools.count(1)
        self._prefix = uuid.uuid4().hex[:8]
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Condition()
        self._welcomed: asyncio.Event = asyncio.Event()
        self._closed = False
        self._failure: ClientError | None = None

    # -- lifecycle -------------------------------------------------------------------

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def connect(self, timeout: float = 10.0) -> Client:
        """Open the connection and wait for the welcome."""
        await self._open()
        self._reader = asyncio.create_task(self._run())
        await asyncio.wait_for(self._welcomed.wait(), timeout)
        if self._failure is not None:
            raise self._failure
        return self

    async def close(self) -> None:
        self._closed = True
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        self._fail_pending(ConnectionLost("client/closed", "the client was closed"))

    async def drop(self) -> None:
        """Close the socket abruptly, as a network failure would (for tests and demos)."""
        if self._ws is not None:
            self._ws.transport.abort() if hasattr(self._ws, "transport") else await self._ws.close()

    async def _open(self) -> None:
        self._ws = await websockets.connect(
            self.url,
            subprotocols=[Subprotocol(self.codec.name)],
            max_size=1 << 20,
            compression=None,
        )
        self._welcomed.clear()
        hello: dict[str, Any] = {"type": "hello", "room": self.room, "role": self.role}
        if self.name:
            hello["name"] = self.name
        if self.seat_token:
            hello["seat_token"] = self.seat_token
        if self.view is not None:
            hello["last_seq"] = self.seq
        await self._ws.send(self.codec.encode_data(hello))

    async def _run(self) -> None:
        attempt = 0
        while not self._closed:
            try:
                async for frame in self._ws:
                    self._handle(self.codec.decode_data(frame))
                    attempt = 0
            except ConnectionClosed:
                pass
            if self._closed or self._failure is not None or not self.reconnect:
                break
            attempt += 1
            if attempt > self.max_retries:
                self._failure = ConnectionLost("client/gave_up", "could not reconnect")
                break
            low, high = self.backoff
            await asyncio.sleep(min(high, low * 2 ** min(attempt, 10)) * random.uniform(0.5, 1.0))
            with contextlib.suppress(OSError, ConnectionClosed, asyncio.TimeoutError):
                await self._open()
                self.reconnects += 1
                for cmd_id, (command, _) in list(self._pending.items()):
                    await self._ws.send(
                        self.codec.encode_data(
                            {"type": "command", "id": cmd_id, "command": command}
                        )
                    )
        self._welcomed.set()
        self._fail_pending(self._failure or ConnectionLost("client/closed", "connection closed"))
        await self._notify()

    # -- messages --------------------------------------------------------------------

    def _handle(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "welcome":
            self.seat, self.game = msg["seat"], msg["game"]
            self.clock_offset = float(msg.get("server_time") or time.time()) - time.time()
            self.seat_token = msg.get("seat_token") or self.seat_token
            if msg["view"] is not None:
                self.view, self.seq = msg["view"], msg["seq"]
            self._welcomed.set()
        elif kind == "snapshot":
            self.view, self.seq = msg["view"], msg["seq"]
        elif kind == "patch":
            self._patch(msg)
        elif kind == "ack":
            self._resolve(msg["id"], result=msg["seq"])
        elif kind == "reject":
            self._resolve(
                msg["id"], error=CommandRejected(msg["code"], msg["message"], msg.get("details"))
            )
        elif kind == "presence":
            self.presence = msg
        elif kind == "error":
            self._error(msg)
        elif kind == "pong":
            self.clock_offset = float(msg.get("server_time") or time.time()) - time.time()
        asyncio.get_running_loop().create_task(self._notify())

    def _patch(self, msg: dict[str, Any]) -> None:
        if self.view is None or msg["from"] != self.seq:
            if msg["to"] > self.seq:
                asyncio.get_running_loop().create_task(self.resync())
            return
        self.view = apply(self.view, msg["ops"])
        self.seq = msg["to"]
        self.events.append((msg["to"], list(msg["events"])))

    def _error(self, msg: dict[str, Any]) -> None:
        if not msg.get("fatal"):
            log.warning("server error %s: %s", msg["code"], msg["message"])
            return
        if msg["code"] in FINAL_CODES or msg["code"] == "room/replaced":
            self._failure = ConnectionLost(msg["code"], msg["message"])
            self._welcomed.set()

    def _resolve(
        self, cmd_id: str, result: int | None = None, error: ClientError | None = None
    ) -> None:
        entry = self._pending.pop(cmd_id, None)
        if entry is None or entry[1].done():
            return
        if error is not None:
            entry[1].set_exception(error)
        else:
            entry[1].set_result(result)  # type: ignore[arg-type]

    def _fail_pending(self, error: ClientError) -> None:
        for _, future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        self._pending.clear()

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()
        if self.on_change is not None:
            self.on_change(self)

    # -- API ---------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Whether the socket is open and welcomed (False while reconnecting)."""
        state = getattr(getattr(self._ws, "state", None), "name", None)
        return self._failure is None and state == "OPEN" and self._welcomed.is_set()

    @property
    def failure(self) -> ClientError | None:
        """Why the client gave up, once it has (a final error, or closed)."""
        return self._failure

    def server_now(self) -> float:
        """The server's clock as estimated from the last welcome or pong (for countdowns)."""
        return time.time() + self.clock_offset

    def next_id(self) -> str:
        return f"{self._prefix}-{next(self._ids)}"

    async def send(self, command: dict[str, Any], cmd_id: str | None = None) -> int:
        """Send a game command; returns the seq of its last event, or raises CommandRejected."""
        if self._failure is not None:
            raise self._failure
        cmd_id = cmd_id or self.next_id()
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending[cmd_id] = (command, future)
        with contextlib.suppress(ConnectionClosed):  # re-sent after the reconnect
            await self._ws.send(
                self.codec.encode_data({"type": "command", "id": cmd_id, "command": command})
            )
        return await future

    async def resync(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self._ws.send(self.codec.encode_data({"type": "resync"}))

    async def ping(self) -> None:
        await self._ws.send(self.codec.encode_data({"type": "ping", "nonce": 1}))

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], Any], timeout: float | None = 10.0
    ) -> dict[str, Any]:
        """Wait until ``predicate(view)`` holds; returns the view (``timeout=None``: no bound)."""

        async def check() -> dict[str, Any]:
            async with self._changed:
                while True:
                    if self._failure is not None:
                        raise self._failure
                    if self.view is not None and predicate(self.view):
                        return self.view
                    await self._changed.wait()

        return await asyncio.wait_for(check(), timeout)

    async def wait_seq(self, seq: int, timeout: float = 10.0) -> dict[str, Any]:
        """Wait until the mirror has reached ``seq``."""
        return await self.wait_for(lambda _: self.seq >= seq, timeout)


async def create_room(
    base_url: str,
    game: str,
    seats: int,
    options: dict[str, Any] | None = None,
    room: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """POST /api/rooms; returns the new room's info (``["room"]`` is its id)."""
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        reply = await http.post(
            "/api/rooms",
            json={"game": game, "seats": seats, "options": options or {}, "room": room or {}},
        )
        if reply.status_code >= 400:
            error = reply.json().get("error", {})
            raise ClientError(error.get("code", "http/error"), error.get("message", reply.text))
        return reply.json()  # type: ignore[no-any-return]


async def list_rooms(base_url: str) -> list[dict[str, Any]]:
    """GET /api/rooms."""
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        reply = await http.get("/api/rooms")
        reply.raise_for_status()
        return reply.json()["rooms"]  # type: ignore[no-any-return]


def http_url(ws_url: str) -> str:
    """``ws://host:port/ws`` -> ``http://host:port``."""
    base = ws_url.replace("wss://", "https://", 1).replace("ws://", "http://", 1)
    return base[: -len("/ws")] if base.endswith("/ws") else base.rstrip("/")


def ws_url(base_url: str) -> str:
    """``http://host:port`` -> ``ws://host:port/ws``."""
    base = base_url.rstrip("/").replace("https://", "wss://", 1).replace("http://", "ws://", 1)
    return base if base.endswith("/ws") else base + "/ws"


Runner = Callable[[Client], Awaitable[None]]
