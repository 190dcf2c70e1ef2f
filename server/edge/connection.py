"""One websocket connection: decode and check frames, rate-limit, hand work to the room.

The handshake is checked before the upgrade: a browser Origin that is not allowed
gets HTTP 403 (``room/origin_forbidden``), an address past its connection limit HTTP
429 (``room/too_many_connections``); neither is upgraded.

On the server's own protocol every frame, the hello too, is handed to
:meth:`Connection.on_frame` as uvicorn parses it (:mod:`server.edge.frames`: no queue, no
task switch): a hello for a room this node runs joins there and then; one that must
wait (the room loading, or run by another node) is answered by a task, and the frames
after it wait for it, in order. On any other server frames come through ASGI.

The connection owns a bounded outbox drained by its own writer task (both made the
first time a frame has to wait, so an idle connection holds neither); the room only
ever calls :meth:`Connection.send_frames`, which never waits (the room hands over
all of one input's frames for a peer at once: a player's patch and its ack). Frames go
straight to the socket's transport, in one write, when nothing is queued before them
and the transport is below its high-water mark (:class:`server.edge.frames.DirectWrite`:
no task switch, no ASGI hops); otherwise they wait in the outbox, in order. When the
outbox is full the client is too slow: it gets close 4000 ``room/slow_consumer`` if
the socket can still take it, and its TCP connection is ended either way within a
second; it resumes on reconnect. Commands go into the room's mailbox without waiting for the
result, so a client may pipeline; they are processed in arrival order. The limits
(hello timeout, message and resync rates, refusals) are in :mod:`server.limits`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from starlette.responses import JSONResponse
from starlette.websockets import WebSocket, WebSocketDisconnect

from protocol import errors as codes
from protocol.codec import SUBPROTOCOLS, Codec, ProtocolError, codec_for
from protocol.messages import Command, Error, Hello, Ping, Pong, Reject, Resync, ServerMessage
from server.cluster.relay import RemoteRoom
from server.config import origin_allowed
from server.edge.frames import DirectWrite, protocol_of, take_frames
from server.errors import RoomRefusal
from server.limits import TokenBucket, client_address
from server.room.io import PeerId
from server.room.shell import Room
from server.services import Services

log = logging.getLogger("rollhouse.connection")

CLOSE_APP_ERROR = 4000
"""Close code for a fatal error; the reason is the error code (``room/replaced``...)."""
_CLOSE = object()
ABORT_AFTER = 1.0
"""Seconds a dropped connection gets to take its close frame before its TCP is cut."""


class Connection:
    """The server side of one socket; implements the room's ``Peer``."""

    __slots__ = ("_hello_task", "_hello_timer", "_outbox", "_waiting", "bucket", "closing", "codec",
                 "codec_name", "direct", "gone", "pid", "refusals", "resyncs", "role", "room", "seat",
                 "sending", "services", "writer_task", "ws")  # fmt: skip

    def __init__(self, ws: WebSocket, codec: Codec, services: Services) -> None:
        self.ws = ws
        self.codec = codec
        self.codec_name = codec.name
        self.services = services
        self.seat: int | None = None
        self.role: str | None = None
        """``player`` or ``spectator`` once welcomed."""
        self.room: Room | RemoteRoom | None = None
        """The room joined: run here, or (in a cluster) run by another node."""
        self.pid: PeerId | None = None
        self.gone = False
        """The socket is closed (the room may still be finishing this peer's hello)."""
        self._outbox: asyncio.Queue[Any] | None = None
        settings, now = services.settings, time.monotonic()
        self.bucket = TokenBucket(settings.rate_per_second, settings.rate_burst, now)
        self.resyncs = TokenBucket(settings.resyncs_per_second, settings.resync_burst, now)
        self.refusals = TokenBucket(settings.rate_per_second, settings.refusals_burst, now)
        self.closing = False
        self.writer_task: asyncio.Task[None] | None = None
        self.direct = DirectWrite.of(ws)
        self.sending = False
        """The writer task holds a frame it has not written yet."""
        self._hello_timer: asyncio.TimerHandle | None = None
        self._hello_task: asyncio.Task[None] | None = None
        """A hello that had to wait (its room loading, or another node's)."""
        self._waiting: list[bytes | str] | None = None
        """Frames that came while that hello was answered: handled after it, in order."""

    # -- Peer --------------------------------------------------------------------------

    def encode(self, message: ServerMessage) -> bytes | str:
        return self.codec.encode(message)

    def send_frame(self, frame: bytes | str) -> None:
        self.send_frames([frame])

    def send_frames(self, frames: list[bytes | str]) -> None:
        if self.closing or self.gone:
            return
        direct = self.direct
        idle = self._outbox is None or (self._outbox.empty() and not self.sending)
        if direct is not None and idle and direct.ready():
            try:
                direct.write(frames)
                return
            except Exception:  # the socket's state moved under us: the queue path decides
                log.debug("direct write failed; queueing", exc_info=True)
                self.direct = None
        for frame in frames:
            self._queue(frame)

    def _queue(self, frame: bytes | str) -> None:
        if self.closing:
            return
        try:
            self.outbox.put_nowait(frame)
        except asyncio.QueueFull:
            self.closing = True
            self.services.metrics.dropped.inc(reason="slow_consumer")
            log.info("dropping slow client (seat %s)", self.seat)
            if self.writer_task is not None:
                self.writer_task.cancel()  # it waits on a socket that does not drain
            asyncio.get_running_loop().create_task(self._close_now(codes.SLOW_CONSUMER))

    @property
    def outbox(self) -> asyncio.Queue[Any]:
        """The frames waiting for the socket, drained by the writer task (started here)."""
        if self._outbox is None:
            self._outbox = asyncio.Queue(maxsize=self.services.settings.outbox_limit)
            self.writer_task = asyncio.get_running_loop().create_task(self.writer())
        return self._outbox

    def close_with(self, code: str, message: str) -> None:
        if self.closing:
            return
        self.send_frame(self.encode(Error(code, message, None, True)))
        self.closing = True
        with contextlib.suppress(asyncio.QueueFull):
            self.outbox.put_nowait((_CLOSE, code))

    # -- I/O ---------------------------------------------------------------------------

    async def _close_now(self, reason: str) -> None:
        """Close 4000 with ``reason`` if the socket takes it in time; end the TCP anyway."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(CLOSE_APP_ERROR, reason), ABORT_AFTER)
        asyncio.get_running_loop().call_later(ABORT_AFTER, self._abort)

    def _abort(self) -> None:
        """Cut the TCP connection (a peer that stops reading never lets a close finish)."""
        protocol = protocol_of(self.ws)
        transport = getattr(protocol, "transport", None)
        if transport is not None:
            transport.abort()

    async def writer(self) -> None:
        while True:
            frame = await self.outbox.get()
            if isinstance(frame, tuple) and frame and frame[0] is _CLOSE:
                await self._close_now(frame[1])
                return
            self.sending = True
            try:
                if isinstance(frame, bytes):
                    await self.ws.send_bytes(frame)
                else:
                    await self.ws.send_text(frame)
            except Exception as exc:  # the socket went away under the frame: nothing to send to
                log.debug("writer stops: %s", type(exc).__name__)
                self.closing = True
                return
            finally:
                self.sending = False

    def reply_error(self, code: str, message: str, field: str | None = None) -> None:
        self.services.metrics.protocol_errors.inc(code=code)
        self.send_frame(self.encode(Error(code, message, field, False)))

    async def serve(self) -> None:
        """Read frames until the client leaves (``hello`` due within the hello timeout).

        On the server's own protocol (:class:`server.edge.frames.FrameProtocol`) every frame
        comes to :meth:`on_frame` as uvicorn parses it, the hello too, and this only
        waits for the disconnect; on any other server frames come through ASGI here."""
        timeout = self.services.settings.hello_timeout_seconds
        if take_frames(self.ws, self.on_frame):
            loop = asyncio.get_running_loop()
            self._hello_timer = loop.call_later(timeout, self._no_hello, timeout)
            try:
                while (await self.ws.receive())["type"] != "websocket.disconnect":
                    pass  # frames come to on_frame; nothing else but the disconnect is queued
            finally:
                self._stop_hello_timer()
            return
        while not self.closing:
            try:  # once in a room, no wait_for: its frame would stay on every idle socket
                receive = self.ws.receive()
                joined = self.room is not None
                raw = await (receive if joined else asyncio.wait_for(receive, timeout))
            except TimeoutError:
                self._no_hello(timeout)
                return
            if raw["type"] == "websocket.disconnect":
                return
            frame = raw.get("bytes") if raw.get("bytes") is not None else raw.get("text")
            if frame is None:
                continue
            message = self._read(frame)
            if message is None:
                continue
            if isinstance(message, Hello):
                await self.hello(message)
            else:
                self.dispatch(message)

    def on_frame(self, frame: bytes | str) -> None:
        """One frame, as the protocol parsed it (never waits): a hello for a room this
        node has loaded joins at once; one that must wait (a room to load, or run by
        another node) holds the frames after it until it is answered."""
        if self.closing:
            return  # as a closing connection stops reading
        if self._waiting is not None:
            self._waiting.append(frame)
            return
        message = self._read(frame)
        if message is None:
            return
        if not isinstance(message, Hello):
            self.dispatch(message)
        elif self.room is not None:
            self.reply_error(codes.ALREADY_JOINED, "this connection has joined a room already")
        elif self._admissible(message):
            self._stop_hello_timer()
            room = self._live(message.room)
            if room is not None:
                self._enter(room, message)
                return
            self._waiting = []
            self._hello_task = asyncio.get_running_loop().create_task(self._hello_then(message))

    async def _hello_then(self, hello: Hello) -> None:
        try:
            await self._open(hello)
        finally:
            self._hello_task = None
            waiting, self._waiting = self._waiting or [], None
            for frame in waiting:
                self.on_frame(frame)

    def _no_hello(self, timeout: float) -> None:
        if self.room is None and self._waiting is None and not self.closing:
            self.services.metrics.refused.inc(limit="hello_timeout")
            self.close_with(codes.HELLO_TIMEOUT, f"no hello within {timeout:g} s")

    def _stop_hello_timer(self) -> None:
        if self._hello_timer is not None:
            self._hello_timer.cancel()
            self._hello_timer = None

    def _read(self, frame: bytes | str) -> Any:
        """The message in ``frame``, or None when it was refused (malformed, over the rate)."""
        try:
            message = self.codec.decode_client(frame)
        except ProtocolError as exc:
            if self._may_refuse():
                self.reply_error(exc.code, exc.message, exc.field)
            return None
        if not self.bucket.allow(time.monotonic()):
            self.services.metrics.refused.inc(limit="messages")
            self._refuse(message, codes.RATE_LIMITED, "too many messages; slow down")
            return None
        return message

    def _may_refuse(self) -> bool:
        """Refusals are limited too: a client that keeps earning them is closed."""
        if self.refusals.allow(time.monotonic()):
            return True
        self.services.metrics.refused.inc(limit="refusals")
        self.close_with(codes.RATE_LIMITED, "too many refused messages; closing")
        return False

    def _refuse(self, message: Any, code: str, text: str, field: str | None = None) -> None:
        if not self._may_refuse():
            return
        if isinstance(message, Command):
            self.services.metrics.rejections.inc(code=code)
            self.send_frame(self.encode(Reject(message.id, code, text)))
        else:
            self.reply_error(code, text, field)

    def dispatch(self, message: Any) -> None:
        """Answer or pass on any message but a ``hello`` (:meth:`hello`)."""
        if isinstance(message, Ping):
            self.send_frame(self.encode(Pong(message.nonce, time.time())))
        elif self.room is None or self.pid is None:
            self._refuse(message, codes.HELLO_REQUIRED, "send hello first")
        elif isinstance(message, Command):
            self.room.command(self.pid, message.id, message.command)
        elif isinstance(message, Resync):
            if self.resyncs.allow(time.monotonic()):
                self.room.resync(self.pid)
            else:
                self.services.metrics.refused.inc(limit="resyncs")
                text = "too many resync requests; ask again in a second"
                self._refuse(message, codes.RATE_LIMITED, text, field="resync")
        else:
            self.reply_error(
                codes.UNKNOWN_TYPE, f"{type(message).__name__} is not a client message"
            )

    async def hello(self, hello: Hello) -> None:
        """Join the room ``hello`` names, loading it (or finding its node) if need be."""
        if self.room is not None:
            self.reply_error(codes.ALREADY_JOINED, "this connection has joined a room already")
            return
        if self._admissible(hello):
            await self._open(hello)

    async def _open(self, hello: Hello) -> None:
        """Join the room of an admissible ``hello`` once it is found (or loaded)."""
        cluster = self.services.cluster
        try:
            room: Room | RemoteRoom = await (
                cluster.open(hello.room) if cluster else self.services.rooms.get(hello.room)
            )
        except RoomRefusal as exc:
            self.close_with(exc.code, exc.message)
            return
        self._enter(room, hello)

    def _admissible(self, hello: Hello) -> bool:
        """False (and the connection closing) for a hello no room could take."""
        if hello.role == "spectator" and hello.seat_token is not None:
            self.close_with(
                codes.BAD_SEAT_TOKEN, "a spectator holds no seat token; join as a player"
            )
            return False
        return True

    def _live(self, room_id: str) -> Room | None:
        """The room, if this node runs it now and a join needs no wait (see Rooms.get)."""
        cluster = self.services.cluster
        if cluster is not None and cluster.draining:
            return None
        room = self.services.rooms.live.get(room_id)
        return None if room is None or room.broken else room

    def _enter(self, room: Room | RemoteRoom, hello: Hello) -> None:
        self.seat = None
        self.room = room
        self.pid = room.join(self, hello)

    async def leave(self) -> None:
        """The socket is gone: leave the room (once a hello under way is answered)."""
        self.gone = True
        task = self._hello_task
        if task is not None and not task.done():
            with contextlib.suppress(Exception):
                await task
        if self.room is not None and self.pid is not None:
            self.room.leave(self.pid)


def shed_handshake(ws: WebSocket) -> None:
    """Let go of what the accepted handshake left on the socket: the request and response
    with their headers (uvicorn's protocol keeps both for the socket's life), the scope's
    header list and Starlette's parsed copy. Everything that reads headers has run by
    now; an idle connection is about 7 KiB lighter (docs/benchmarks.md). The attributes
    are uvicorn's and websockets' own: tests/server/test_handshake.py fails when they
    move."""
    protocol = protocol_of(ws)
    if getattr(protocol, "handshake_complete", False):
        for name in ("request", "response"):
            message = getattr(protocol, name, None)
            if message is not None:
                # websockets' parser keeps the request alive too (a local of its frame)
                with contextlib.suppress(AttributeError, TypeError):
                    message.headers.clear()
                setattr(protocol, name, None)
    ws.scope["headers"] = []
    ws.__dict__.pop("_headers", None)


def refuse_handshake(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


async def websocket_endpoint(ws: WebSocket) -> None:
    """``/ws``: check the Origin and the address's connections, negotiate the codec, serve."""
    services: Services = ws.app.state.services
    settings = services.settings
    if not origin_allowed(
        ws.headers.get("origin"), ws.headers.get("host"), settings.allowed_origins,
        settings.host, settings.port,
    ):  # fmt: skip
        services.metrics.refused.inc(limit="origin")
        await ws.send_denial_response(
            refuse_handshake(codes.ORIGIN_FORBIDDEN, "this page's origin may not connect", 403)
        )
        return
    peer = ws.client.host if ws.client else None
    address = client_address(peer, ws.headers, settings.trusted_proxies)
    if not services.addresses.enter(address):
        services.metrics.refused.inc(limit="connections_per_address")
        message = f"at most {settings.connections_per_address} connections per address"
        await ws.send_denial_response(refuse_handshake(codes.TOO_MANY_CONNECTIONS, message, 429))
        return
    try:
        await _serve(ws, services)
    finally:
        services.addresses.leave(address)


async def _serve(ws: WebSocket, services: Services) -> None:
    offered = ws.scope.get("subprotocols") or []
    chosen = next((p for p in SUBPROTOCOLS if p in offered), None)
    codec = codec_for(chosen)
    await ws.accept(subprotocol=chosen)
    shed_handshake(ws)
    conn = Connection(ws, codec, services)
    services.connections.add(conn)
    try:
        await conn.serve()
    except WebSocketDisconnect:
        pass
    finally:
        services.connections.discard(conn)
        await conn.leave()
        writer = conn.writer_task
        if writer is not None:
            if conn.closing:
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                    await asyncio.wait_for(asyncio.shield(writer), 2.0)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer
