"""One websocket connection: decode and check frames, rate-limit, hand work to the room.

The socket is :class:`server.edge.protocol.WebSocketEdge`'s (our own protocol on the
``websockets`` library's sans-I/O layer); it has checked the handshake (Origin,
connections per address: :mod:`server.edge.handshake`) before this exists. Every
frame, the hello too, comes to :meth:`Connection.on_frame` as the protocol parses it
(no queue, no task switch): a hello for a room this node runs joins there and then;
one that must wait (the room loading, or run by another node) is answered by a task,
and the frames after it wait for it, in order.

Frames leave one way: the room calls :meth:`Connection.send_frames` (never waits; it
hands over all of one input's frames for a peer at once: a player's patch and its
ack), which the protocol writes to the socket in one call, or holds in its bounded
outbox while the socket is full (a client that lets it overflow is dropped with close
4000 ``room/slow_consumer``; it resumes on reconnect). Commands go into the room's
mailbox without waiting for the result, so a client may pipeline; they are processed
in arrival order. The limits (hello timeout, message and resync rates, refusals) are
in :mod:`server.limits`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from typing import Any, Protocol

import attrs

from protocol import errors as codes
from protocol.codec import Codec, ProtocolError
from protocol.messages import (
    Act,
    Command,
    Error,
    Hello,
    Ping,
    Pong,
    Reject,
    Resync,
    ServerMessage,
)
from protocol.text import clean_name
from server.errors import RoomRefusal
from server.limits import INVITE_GUESSES, TokenBucket
from server.people import address_key
from server.room.handle import RoomHandle
from server.room.io import PeerId
from server.services import Services

log = logging.getLogger("rollhouse.connection")

CLOSE_APP_ERROR = 4000
"""Close code for a fatal error; the reason is the error code (``room/replaced``...)."""

Frame = bytes | str


class Link(Protocol):
    """The socket under a connection (:class:`server.edge.protocol.WebSocketEdge`)."""

    def write(self, frames: Iterable[Frame]) -> None:
        """Send ``frames`` in order, in one write when the socket takes them."""

    def close(self, code: int, reason: str) -> None:
        """Start the closing handshake; the TCP connection ends soon whatever happens."""

    def keepalive(self) -> None:
        """Ping a silent socket; close one that did not answer the last ping."""


class Connection:
    """The server side of one socket; implements the room's ``Peer``."""

    __slots__ = ("_hello_task", "_hello_timer", "_waiting", "address", "bucket", "closing",
                 "codec", "codec_name", "gone", "guessing", "link", "pid", "player", "refusals",
                 "resyncs", "role", "room", "seat", "services")  # fmt: skip

    def __init__(self, link: Link, codec: Codec, services: Services, address: str = "") -> None:
        self.link = link
        self.address = address
        """The client's address (for the limits that count per address)."""
        self.guessing: str | None = None
        """The counter of wrong invite codes, while a hello with one is answered."""
        self.codec = codec
        self.codec_name = codec.name
        self.services = services
        self.seat: int | None = None
        self.role: str | None = None
        """``player`` or ``spectator`` once welcomed."""
        self.player: str | None = None
        """The player whose session the hello carried (None: none)."""
        self.room: RoomHandle | None = None
        """The room joined: run here, or (in a cluster) run by another node."""
        self.pid: PeerId | None = None
        self.gone = False
        """The socket is closed (the room may still be finishing this peer's hello)."""
        settings, now = services.settings, time.monotonic()
        self.bucket = TokenBucket(settings.rate_per_second, settings.rate_burst, now)
        self.resyncs = TokenBucket(settings.resyncs_per_second, settings.resync_burst, now)
        self.refusals = TokenBucket(settings.rate_per_second, settings.refusals_burst, now)
        self.closing = False
        self._hello_timer: asyncio.TimerHandle | None = None
        self._hello_task: asyncio.Task[None] | None = None
        """A hello that had to wait (its room loading, or another node's)."""
        self._waiting: list[Frame] | None = None
        """Frames that came while that hello was answered: handled after it, in order."""

    def start(self) -> None:
        """The socket is open: ``hello`` is due within the hello timeout."""
        timeout = self.services.settings.hello_timeout_seconds
        self._hello_timer = asyncio.get_running_loop().call_later(timeout, self._no_hello, timeout)

    # -- Peer --------------------------------------------------------------------------

    def encode(self, message: ServerMessage) -> Frame:
        return self.codec.encode(message)

    def send_frame(self, frame: Frame) -> None:
        self.send_frames([frame])

    def send_frames(self, frames: list[Frame]) -> None:
        if not self.closing and not self.gone:
            self.link.write(frames)

    def close_with(self, code: str, message: str) -> None:
        """A fatal error: send it, then close 4000 with the code as the reason (a hello
        with an invite code refused as room/not_found counts as a wrong code)."""
        if self.closing:
            return
        if code == codes.ROOM_NOT_FOUND and self.guessing is not None:
            work = self.services.people.hit(self.guessing, 60.0)
            task = asyncio.get_running_loop().create_task(work)
            self.services.tasks.add(task)
            task.add_done_callback(self.services.tasks.discard)
        self.send_frame(self.encode(Error(code, message, None, True)))
        self.closing = True
        self.link.close(CLOSE_APP_ERROR, code)

    def notify(self, text: str) -> None:
        """An operator's notice: a non-fatal ``server/notice`` error whose message is it."""
        self.send_frame(self.encode(Error(codes.NOTICE, text, None, False)))

    def disconnect(self, code: int = 1012, reason: str = "") -> None:
        """Close the socket without an error (the client reconnects and resumes)."""
        self.closing = True
        self.link.close(code, reason)

    def keepalive(self) -> None:
        self.link.keepalive()

    def reply_error(self, code: str, message: str, field: str | None = None) -> None:
        self.services.metrics.protocol_errors.inc(code=code)
        self.send_frame(self.encode(Error(code, message, field, False)))

    # -- frames in ---------------------------------------------------------------------

    def on_frame(self, frame: Frame) -> None:
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
        elif (message := self._admissible(message)) is not None:
            self._stop_hello_timer()
            fast = message.session is None and message.invite is None
            room = self._live(message.room) if fast else None
            if room is not None:
                self._enter(room, message, None)
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

    def _read(self, frame: Frame) -> Any:
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
        """Answer or pass on any message but a ``hello``."""
        if isinstance(message, Ping):
            self.send_frame(self.encode(Pong(message.nonce, time.time())))
        elif self.room is None or self.pid is None:
            self._refuse(message, codes.HELLO_REQUIRED, "send hello first")
        elif isinstance(message, Command):
            self.room.command(self.pid, message.id, message.command)
        elif isinstance(message, Act):
            self.room.act(self.pid, message.id, message.act)
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

    # -- rooms -------------------------------------------------------------------------

    async def _open(self, hello: Hello) -> None:
        """Join the room of an admissible ``hello`` once its session is checked and the
        room found (or loaded)."""
        services, cluster = self.services, self.services.cluster
        player = None
        if hello.invite is not None:  # wrong invite codes are bounded per address
            key = f"invite:{address_key(self.address)}"
            if await services.people.hit(key, 60.0, add=0) >= INVITE_GUESSES:
                services.metrics.refused.inc(limit="invite")
                self.close_with(codes.RATE_LIMITED, "too many invite codes tried; wait a minute")
                return
            self.guessing = key
        if hello.session is not None:
            found = await services.people.authenticate(hello.session, self.address)
            if found is None:
                text = "this session is not valid (expired or signed out); sign in again"
                self.close_with(codes.UNAUTHORIZED, text)
                return
            player = found.id
            why = services.operator.barred(None, player)
            if why is not None:
                self.close_with(codes.BANNED, why)
                return
            self.player = player
            if hello.name is None:
                hello = attrs.evolve(hello, name=found.name)
        try:
            room: RoomHandle = await (
                cluster.open(hello.room) if cluster else services.rooms.get(hello.room)
            )
        except RoomRefusal as exc:
            self.close_with(exc.code, exc.message)
            return
        if not self.gone:
            self._enter(room, hello, player)

    def _admissible(self, hello: Hello) -> Hello | None:
        """The hello with its name normalised, or None (and the connection closing) for
        a hello no room could take."""
        if hello.role == "spectator" and hello.seat_token is not None:
            self.close_with(
                codes.BAD_SEAT_TOKEN, "a spectator holds no seat token; join as a player"
            )
            return None
        if hello.name is not None:
            try:
                hello = attrs.evolve(hello, name=clean_name(hello.name))
            except ProtocolError as exc:
                self.close_with(exc.code, exc.message)
                return None
        return hello

    def _live(self, room_id: str) -> RoomHandle | None:
        """The room, if this node runs it now and a join needs no wait (see Rooms.get)."""
        cluster = self.services.cluster
        if cluster is not None and cluster.draining:
            return None
        room = self.services.rooms.live.get(room_id)
        return None if room is None or room.broken else room

    def _enter(self, room: RoomHandle, hello: Hello, player: str | None) -> None:
        self.seat = None
        self.room = room
        self.pid = room.join(self, hello, player)

    def lost(self) -> None:
        """The socket is gone: leave the room (once a hello under way is answered)."""
        self.gone = True
        self._stop_hello_timer()
        if self.room is not None and self.pid is not None:
            self.room.leave(self.pid)
