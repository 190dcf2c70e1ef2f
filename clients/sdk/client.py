"""The Python SDK: an asyncio client for Rollhouse rooms.

    async with Client(ws_url, room_id, name="ann") as table:
        await table.wait_for(lambda view: ...)           # the mirror of your view
        seq = await table.send({"type": "roll"})          # resolves on ack
        try:
            await table.send({"type": "take", "value": 5})
        except CommandRejected as exc:                    # typed: exc.code == "rollie/pile_empty"
            ...

Version 2 (the default, ``rollhouse.v2.*``) adds players: pass ``session_token`` (from
:class:`~clients.sdk.people.Account`) and a seat you take is yours again on any device,
without its seat token; ``invite`` opens a private room; :meth:`Client.act` and its
helpers (:meth:`~Client.chat`, :meth:`~Client.lock`, :meth:`~Client.remove`,
:meth:`~Client.fill`, :meth:`~Client.hand_host`...) are chat and the host's actions,
answered like commands (an ack's seq, or :class:`CommandRejected` with the code).
``version=1`` speaks ``rollhouse.v1.*`` exactly as before (no session, invite or act).

The client keeps a local mirror of the viewer's view current from patches (asking
for a snapshot when it sees a gap) and reconnects by itself when the connection drops:
exponential backoff with jitter, the seat token kept, the last applied sequence sent so
the server replays only what was missed (none while a resync is pending: then the
welcome brings a snapshot), and commands still waiting for an answer re-sent with their
original ids right after the hello (the server answers a repeated id with the first
result and appends nothing). The rules live in the sans-I/O
:class:`~clients.sdk.session.Session` (around :class:`~clients.sdk.mirror.Mirror`); this
module is the asyncio glue around it.

Every frame it sends is a :mod:`protocol.messages` value (Hello, Command, Resync,
Ping, and Act on version 2) encoded by the codec; every frame it reads is decoded by
``codec.decode_server`` into a typed message. The REST side is
:mod:`clients.sdk.http` (:func:`~clients.sdk.http.create_room`,
:func:`~clients.sdk.http.list_rooms`) and :class:`~clients.sdk.people.Account`
(players, tables and quick match).

Several nodes of one service: pass a list of URLs. Each reconnect attempt goes to
the next one (in turn), so a client moves on when its node dies, drains (``room/moved``:
followed at once and silently) or goes silent: the client pings every ``ping_every``
seconds and counts a node that sends nothing for three of those as dead.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast, get_args

import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException
from websockets.typing import Subprotocol

from clients.sdk.errors import ClientError, CommandRejected, ConnectionLost
from clients.sdk.mirror import (
    Acked,
    Action,
    Mirror,
    Rejected,
    RequestResync,
    ServerError,
    ViewChanged,
    Welcomed,
)
from clients.sdk.session import FINAL_CODES, Session
from protocol.codec import Codec, codec_for, to_wire
from protocol.errors import ProtocolError
from protocol.messages import ClientMessage, Ping, Pong, Resync, Role, ServerMessage, Welcome

log = logging.getLogger("rollhouse.sdk")

RESYNC_RETRY = 1.0
"""Seconds before asking again for a snapshot after a rate-limited resync (the server
allows about one resync a second)."""

__all__ = [
    "FINAL_CODES",
    "Client",
    "ClientError",
    "CommandRejected",
    "ConnectionLost",
    "Runner",
]


class Client:
    """One seat (or a spectator) at one room, kept connected.

    On version 2 a player without a seat token sends a random ``new_seat_token`` of its
    own in every hello until its welcome (docs/protocol.md 7): a hello whose welcome was
    lost with its connection finds its seat again. Pass ``new_seat_token`` to keep that
    token across clients (a program that gives up on one client and tries another for
    the same join); read it back as ``client.session.new_seat_token``."""

    def __init__(
        self,
        url: str | Sequence[str],
        room: str,
        *,
        role: str = "player",
        name: str | None = None,
        seat_token: str | None = None,
        encoding: str = "msgpack",
        reconnect: bool = True,
        backoff: tuple[float, float] = (0.05, 3.0),
        max_retries: int = 50,
        ping_every: float | None = 2.0,
        session_token: str | None = None,
        invite: str | None = None,
        version: int = 2,
        new_seat_token: str | None = None,
    ) -> None:
        if version not in (1, 2):
            raise ValueError(f"version must be 1 or 2, got {version!r}")
        if version == 1 and (session_token or invite):
            raise ValueError("sessions and invite codes need version 2")
        self.urls = [url] if isinstance(url, str) else list(url)
        self.url = self.urls[0]
        self.ping_every = ping_every
        self._moved = False
        self._heard = time.monotonic()
        self.room = room
        if role not in get_args(Role):
            raise ValueError(f"role must be one of {get_args(Role)}, got {role!r}")
        self.role = cast(Role, role)
        self.name = name
        self.session = Session(  # a bad name fails here
            room, self.role, name, seat_token, session_token=session_token, invite=invite,
            version=version, new_seat_token=new_seat_token,
        )  # fmt: skip
        """The mirror and the unanswered commands, kept by the sans-I/O session."""
        kind = "msgpack" if encoding == "msgpack" else "json"
        self.codec: Codec = codec_for(f"rollhouse.v{version}.{kind}")
        self.version = version
        self.reconnect = reconnect
        self.backoff = backoff
        self.max_retries = max_retries
        self.reconnects = 0
        self.clock_offset = 0.0
        """Server time minus local time, from the last welcome or pong."""
        self.on_change: Callable[[Client], None] | None = None
        self._pending: dict[str, asyncio.Future[int]] = {}
        """The futures of the session's unanswered commands, by id."""
        self._ids = itertools.count(1)
        self._prefix = uuid.uuid4().hex[:8]
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._waiters: list[asyncio.Future[None]] = []
        """Those waiting for the next change (woken in place: no task per message)."""
        self._welcomed: asyncio.Event = asyncio.Event()
        self._closed = False
        self._failure: ClientError | None = None

    # -- the mirror ------------------------------------------------------------------

    @property
    def mirror(self) -> Mirror:
        """The view, seq, seat and presence, kept by the sans-I/O mirror."""
        return self.session.mirror

    @property
    def view(self) -> dict[str, Any] | None:
        """The viewer's view at :attr:`seq` (None until the first welcome)."""
        return self.mirror.view

    @view.setter
    def view(self, view: dict[str, Any] | None) -> None:
        self.mirror.view = view

    @property
    def seq(self) -> int:
        """The sequence number of :attr:`view`."""
        return self.mirror.seq

    @seq.setter
    def seq(self, seq: int) -> None:
        self.mirror.seq = seq

    @property
    def seat(self) -> int | None:
        """The seat from the last welcome (None for a spectator)."""
        return self.mirror.seat

    @property
    def game(self) -> str | None:
        """The game from the last welcome."""
        return self.mirror.game

    @property
    def seat_token(self) -> str | None:
        """The seat's secret: the one given, or the last one a welcome carried."""
        return self.mirror.seat_token

    @property
    def player(self) -> str | None:
        """(Version 2) your player id, once a welcome answered a hello with your session."""
        return self.mirror.player

    @property
    def host(self) -> str | None:
        """(Version 2) the player id of the room's host (None without one, or no view yet)."""
        room = (self.view or {}).get("room") or {}
        host = room.get("host")
        return host if isinstance(host, str) else None

    @property
    def is_host(self) -> bool:
        """Whether you are the room's host."""
        return self.player is not None and self.player == self.host

    def chat_lines(self, channel: str = "players") -> list[dict[str, Any]]:
        """The chat lines of ``channel`` (``players`` or ``spectators``) in your view, oldest
        first: ``{"seq", "name", "seat", "player", "text", "at"}``. Text is text: show it as
        such, never as markup."""
        chat = (self.view or {}).get("chat") or {}
        return list(chat.get(channel) or [])

    @property
    def presence(self) -> dict[str, Any] | None:
        """The last presence message as plain wire data (None before the first)."""
        presence = self.mirror.presence
        return None if presence is None else to_wire(presence)

    @property
    def events(self) -> list[tuple[int, list[str]]]:
        """``(seq, event names)`` of every patch applied, oldest first."""
        return self.mirror.events

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

    def _next_url(self) -> None:
        """Move on to the next server URL (a no-op with one)."""
        self.url = self.urls[(self.urls.index(self.url) + 1) % len(self.urls)]

    async def _watch(self, ws: Any, every: float) -> None:
        """Ping; a node silent for three pings is dead: drop the socket to reconnect."""
        with contextlib.suppress(ConnectionClosed, asyncio.CancelledError):
            while True:
                await asyncio.sleep(every)
                if time.monotonic() - self._heard > 3 * every:
                    log.info("no answer from %s; moving on", self.url)
                    ws.transport.abort()
                    return
                await ws.send(self.codec.encode(Ping(nonce=0)))

    async def _open(self) -> None:
        try:
            self._ws = await websockets.connect(
                self.url,
                subprotocols=[Subprotocol(self.codec.name)],
                max_size=1 << 20,
                compression=None,
                open_timeout=5.0,
            )
        except InvalidStatus as exc:  # the server refused the handshake (403, 429, ...)
            code, message = _denial(exc)
            if code in FINAL_CODES:
                raise ConnectionLost(code, message) from None
            raise ConnectionRefusedError(f"{code}: {message}") from None  # retried
        self._welcomed.clear()
        for msg in self.session.opened():  # hello, then the unanswered commands
            await self._ws.send(self.codec.encode(msg))

    async def _run(self) -> None:
        attempt = 0
        while not self._closed:
            self._heard = time.monotonic()
            every = self.ping_every
            watch = asyncio.create_task(self._watch(self._ws, every)) if every else None
            try:
                async for frame in self._ws:
                    self._heard = time.monotonic()
                    self._receive(frame)
                    attempt = 0
            except ConnectionClosed:
                pass
            finally:
                if watch is not None:
                    watch.cancel()
            # the sans-I/O protocol's close code: public since websockets 14, unlike the
            # connection's own close_code (15+)
            closing = self._ws.protocol
            reason = closing.close_reason if closing.close_code == 4000 else None
            if self.session.dropped(reason or None) == "reconnect_now":
                self._moved = True
            self._take_failure()
            if self._closed or self._failure is not None or not self.reconnect:
                break
            attempt += 1
            if attempt > self.max_retries:
                self._failure = ConnectionLost("client/gave_up", "could not reconnect")
                break
            low, high = self.backoff
            if len(self.urls) > 1:
                self._next_url()
            if self._moved:  # the room moved to another node: go at once
                self._moved = False
            else:
                await asyncio.sleep(
                    min(high, low * 2 ** min(attempt, 10)) * random.uniform(0.5, 1.0)
                )
            try:
                await self._open()
            except ConnectionLost as exc:
                self._failure = exc
                break
            except (TimeoutError, OSError, WebSocketException):
                continue
            self.reconnects += 1
        self._welcomed.set()
        self._fail_pending(self._failure or ConnectionLost("client/closed", "connection closed"))
        self._notify()

    # -- messages --------------------------------------------------------------------

    def _receive(self, frame: bytes | str) -> None:
        try:
            msg = self.codec.decode_server(frame)
        except ProtocolError as exc:  # a newer or broken server: skip what we cannot read
            log.warning("unreadable server frame skipped: %s", exc)
            return
        self._handle(msg)

    def _handle(self, msg: ServerMessage) -> None:
        if isinstance(msg, Welcome | Pong):
            self.clock_offset = (msg.server_time or time.time()) - time.time()
        step = self.session.receive(msg)
        if step.send:
            asyncio.get_running_loop().create_task(self._send_all(step.send))
        for action in step.actions:
            self._act(action)
        if step.outcome == "reconnect_now":
            self._moved = True
        self._take_failure()
        if step.resync_later:  # perhaps our resync was dropped: no snapshot would come
            asyncio.get_running_loop().create_task(self._resync_later())
        self._notify()

    def _act(self, action: Action) -> None:
        match action:
            case Welcomed():
                self._welcomed.set()
            case RequestResync():
                pass  # the session's step carries the Resync to send
            case Acked(id=cmd_id, seq=seq):
                self._resolve(cmd_id, result=seq)
            case Rejected(reject=r):
                self._resolve(r.id, error=CommandRejected(r.code, r.message, r.details))
            case ServerError(error=error):
                if not error.fatal:
                    log.warning("server error %s: %s", error.code, error.message)
            case ViewChanged():
                pass

    def _take_failure(self) -> None:
        """Give up when the session ended for good (a final code)."""
        failure = self.session.failure
        if failure is not None and self._failure is None:
            self._failure = ConnectionLost(failure.code, failure.message)
            self._welcomed.set()

    def _resolve(
        self, cmd_id: str, result: int | None = None, error: ClientError | None = None
    ) -> None:
        future = self._pending.pop(cmd_id, None)
        if future is None or future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def _fail_pending(self, error: ClientError) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        self._pending.clear()
        self.session.pending.clear()

    def _notify(self) -> None:
        """Wake everyone waiting for a change, then ``on_change``."""
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        if self.on_change is not None:
            try:
                self.on_change(self)
            except Exception:  # a caller's bug must not stop the reader
                log.exception("on_change raised")

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
        messages = self.session.command(cmd_id, command)  # ProtocolError: no "type"
        self._pending[cmd_id] = future
        await self._send_all(messages)
        return await future

    async def act(self, act: dict[str, Any], act_id: str | None = None) -> int:
        """(Version 2) Do something to the room (``act["type"]``: ``chat``, ``lock``,
        ``remove``, ``fill``, ``host``, ``admit``, ``hide``; docs/protocol.md 15.3). Returns
        the seq of its record, or raises CommandRejected (``room/not_host``,
        ``room/already_started``, ``chat/bad_text``, ``chat/rate_limited``...)."""
        if self.version < 2:
            raise ClientError("client/needs_v2", "acts need protocol version 2")
        if self._failure is not None:
            raise self._failure
        act_id = act_id or self.next_id()
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        messages = self.session.act(act_id, act)  # ProtocolError: no "type"
        self._pending[act_id] = future
        await self._send_all(messages)
        return await future

    async def chat(self, text: str, channel: str | None = None) -> int:
        """Say ``text`` at the table (a spectator's line goes to the spectators' channel
        unless the room lets spectators into the players'); returns the line's seq."""
        act: dict[str, Any] = {"type": "chat", "text": text}
        if channel is not None:
            act["channel"] = channel
        return await self.act(act)

    async def hide(self, seq: int) -> int:
        """(Host) Hide the chat line at ``seq`` from every view, history entry and export."""
        return await self.act({"type": "hide", "seq": seq})

    async def lock(self, on: bool = True) -> int:
        """(Host, before the game starts) Lock the seats: no one new may sit down."""
        return await self.act({"type": "lock", "on": on})

    async def unlock(self) -> int:
        """(Host, before the game starts) Open the seats again."""
        return await self.lock(False)

    async def remove(self, seat: int | None = None, player: str | None = None) -> int:
        """(Host, before the game starts) Remove the player in ``seat`` (or ``player``, a
        player id: a spectator too); they cannot come back."""
        if (seat is None) == (player is None):
            raise ValueError("remove takes a seat or a player")
        target: dict[str, Any] = {"seat": seat} if seat is not None else {"player": player}
        return await self.act({"type": "remove", **target})

    async def fill(self, policy: str | None = None) -> int:
        """(Host, before the game starts) Hosted bots take every free seat: the game starts."""
        return await self.act({"type": "fill"} | ({} if policy is None else {"policy": policy}))

    async def hand_host(self, player: str) -> int:
        """(Host, before the game starts) The host role goes to that seated player."""
        return await self.act({"type": "host", "player": player})

    async def admit(self, player: str) -> int:
        """(Host) That player may open this private room."""
        return await self.act({"type": "admit", "player": player})

    async def _send_all(self, messages: list[ClientMessage]) -> None:
        """Send on the current socket; on a closed one, the session sends them again later."""
        with contextlib.suppress(ConnectionClosed):
            for msg in messages:
                await self._ws.send(self.codec.encode(msg))

    async def resync(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self._ws.send(self.codec.encode(Resync()))

    async def _resync_later(self) -> None:
        await asyncio.sleep(RESYNC_RETRY)
        if self.mirror.resyncing:
            await self.resync()

    async def ping(self) -> None:
        await self._ws.send(self.codec.encode(Ping(nonce=1)))

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], Any], timeout: float | None = 10.0
    ) -> dict[str, Any]:
        """Wait until ``predicate(view)`` holds; returns the view (``timeout=None``: no bound)."""

        async def check() -> dict[str, Any]:
            while True:
                if self._failure is not None:
                    raise self._failure
                if self.view is not None and predicate(self.view):
                    return self.view
                waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                self._waiters.append(waiter)
                await waiter

        if self._failure is None and self.view is not None and predicate(self.view):
            return self.view  # already true: no task, no timer
        return await asyncio.wait_for(check(), timeout)

    async def wait_seq(self, seq: int, timeout: float = 10.0) -> dict[str, Any]:
        """Wait until the mirror has reached ``seq``."""
        return await self.wait_for(lambda _: self.seq >= seq, timeout)


Runner = Callable[[Client], Awaitable[None]]


def _denial(exc: InvalidStatus) -> tuple[str, str]:
    """The code and message of a refused handshake's JSON body (or its HTTP status)."""
    response = exc.response
    try:
        error = json.loads(bytes(response.body or b""))["error"]
        return str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        return f"http/{response.status_code}", response.reason_phrase
