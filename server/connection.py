"""One websocket connection: decode and check frames, rate-limit, hand work to the room.

The connection owns a bounded outbox drained by its own writer task; the room only
ever calls :meth:`Connection.send_frame`, which never waits. When the outbox is
full the client is too slow: it is dropped with ``room/slow_consumer`` and resumes
on reconnect. Commands go into the room's mailbox without waiting for the result,
so a client may pipeline; they are processed in arrival order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from protocol import errors as codes
from protocol.codec import SUBPROTOCOLS, Codec, ProtocolError, codec_for
from protocol.messages import Command, Error, Hello, Ping, Pong, Reject, Resync, ServerMessage
from server.config import origin_allowed
from server.core_io import PeerId
from server.errors import RoomRefusal
from server.room import Room
from server.services import Services

log = logging.getLogger("rollhouse.connection")

CLOSE_APP_ERROR = 4000
"""Close code for a fatal error; the reason is the error code (``room/replaced``...)."""
_CLOSE = object()


class TokenBucket:
    """``rate`` messages a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Connection:
    """The server side of one socket; implements the room's ``Peer``."""

    def __init__(self, ws: WebSocket, codec: Codec, services: Services) -> None:
        self.ws = ws
        self.codec = codec
        self.codec_name = codec.name
        self.services = services
        self.seat: int | None = None
        self.role: str | None = None
        """``player`` or ``spectator`` once welcomed."""
        self.room: Room | None = None
        self.pid: PeerId | None = None
        self.gone = False
        """The socket is closed (the room may still be finishing this peer's hello)."""
        self.outbox: asyncio.Queue[Any] = asyncio.Queue(maxsize=services.settings.outbox_limit)
        self.bucket = TokenBucket(services.settings.rate_per_second, services.settings.rate_burst)
        self.closing = False

    # -- Peer --------------------------------------------------------------------------

    def encode(self, message: ServerMessage) -> bytes | str:
        return self.codec.encode(message)

    def send_frame(self, frame: bytes | str) -> None:
        if self.closing:
            return
        try:
            self.outbox.put_nowait(frame)
        except asyncio.QueueFull:
            self.closing = True
            self.services.metrics.dropped.inc(reason="slow_consumer")
            log.info("dropping slow client (seat %s)", self.seat)
            asyncio.get_running_loop().create_task(self._close_now("room/slow_consumer"))

    def close_with(self, code: str, message: str) -> None:
        if self.closing:
            return
        self.send_frame(self.encode(Error(code, message, None, True)))
        self.closing = True
        with contextlib.suppress(asyncio.QueueFull):
            self.outbox.put_nowait((_CLOSE, code))

    # -- I/O ---------------------------------------------------------------------------

    async def _close_now(self, reason: str) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(CLOSE_APP_ERROR, reason)

    async def writer(self) -> None:
        while True:
            frame = await self.outbox.get()
            if isinstance(frame, tuple) and frame and frame[0] is _CLOSE:
                await self._close_now(frame[1])
                return
            if isinstance(frame, bytes):
                await self.ws.send_bytes(frame)
            else:
                await self.ws.send_text(frame)

    def reply_error(self, code: str, message: str, field: str | None = None) -> None:
        self.services.metrics.protocol_errors.inc(code=code)
        self.send_frame(self.encode(Error(code, message, field, False)))

    async def serve(self) -> None:
        """Read frames until the client leaves."""
        while not self.closing:
            raw = await self.ws.receive()
            if raw["type"] == "websocket.disconnect":
                return
            frame = raw.get("bytes") if raw.get("bytes") is not None else raw.get("text")
            if frame is None:
                continue
            try:
                message = self.codec.decode_client(frame)
            except ProtocolError as exc:
                self.reply_error(exc.code, exc.message, exc.field)
                continue
            if not self.bucket.allow():
                self._refuse(message, "room/rate_limited", "too many messages; slow down")
                continue
            await self.dispatch(message)

    def _refuse(self, message: Any, code: str, text: str) -> None:
        if isinstance(message, Command):
            self.services.metrics.rejections.inc(code=code)
            self.send_frame(self.encode(Reject(message.id, code, text)))
        else:
            self.reply_error(code, text)

    async def dispatch(self, message: Any) -> None:
        if isinstance(message, Ping):
            self.send_frame(self.encode(Pong(message.nonce, time.time())))
        elif isinstance(message, Hello):
            await self.hello(message)
        elif self.room is None or self.pid is None:
            self._refuse(message, codes.HELLO_REQUIRED, "send hello first")
        elif isinstance(message, Command):
            self.room.command(self.pid, message.id, message.command)
        elif isinstance(message, Resync):
            self.room.resync(self.pid)
        else:
            self.reply_error(
                codes.UNKNOWN_TYPE, f"{type(message).__name__} is not a client message"
            )

    async def hello(self, hello: Hello) -> None:
        if self.room is not None:
            self.reply_error(codes.ALREADY_JOINED, "this connection has joined a room already")
            return
        try:
            room = await self.services.rooms.get(hello.room)
        except RoomRefusal as exc:
            self.close_with(exc.code, exc.message)
            return
        self.seat = None
        self.room = room
        self.pid = room.join(self, hello)

    async def leave(self) -> None:
        self.gone = True
        if self.room is not None and self.pid is not None:
            self.room.leave(self.pid)


async def websocket_endpoint(ws: WebSocket) -> None:
    """``/ws``: negotiate the codec, check the Origin, then serve the connection."""
    services: Services = ws.app.state.services
    offered = ws.scope.get("subprotocols") or []
    chosen = next((p for p in SUBPROTOCOLS if p in offered), None)
    codec = codec_for(chosen)
    await ws.accept(subprotocol=chosen)
    conn = Connection(ws, codec, services)
    writer = asyncio.create_task(conn.writer())
    services.connections.add(conn)
    try:
        if not origin_allowed(
            ws.headers.get("origin"), ws.headers.get("host"), services.settings.allowed_origins
        ):
            conn.close_with(codes.ORIGIN_FORBIDDEN, "this page's origin may not connect")
        else:
            await conn.serve()
    except WebSocketDisconnect:
        pass
    finally:
        services.connections.discard(conn)
        await conn.leave()
        if conn.closing:
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(writer), 2.0)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer
