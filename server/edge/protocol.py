"""Our websocket protocol: an asyncio protocol of our own driving the ``websockets``
library's public sans-I/O :class:`~websockets.server.ServerProtocol` for ``/ws``.

HTTP is Starlette's, served by uvicorn. uvicorn hands a socket over when its request
asks to upgrade to a websocket: ``uvicorn.Config(ws=WebSocketEdge)`` (its documented
``ws`` setting takes an ``asyncio.Protocol`` class), and it gives the class the raw
upgrade request, then the socket's bytes. From there:

- the handshake: :func:`server.edge.handshake.check` (path, Origin, connections per
  address, subprotocol), then ``ServerProtocol.accept`` (the RFC 6455 checks); a
  refusal is an HTTP answer with a JSON error, never an upgrade;
- in: each whole message goes to :meth:`server.edge.connection.Connection.on_frame` as
  it is parsed, inside ``data_received``, in arrival order (no queue, no task);
  fragments are joined, text must be UTF-8 (else close 1007), a message over
  ``ws_max_size`` closes 1009; pings are answered by the sans-I/O layer;
- out: :meth:`WebSocketEdge.write` frames what the room hands over for one input and
  writes it to the transport in one call; a frame object shared by many sockets (a
  spectators' patch) is framed once (:func:`_wire`). While the transport is over its high-water
  mark the frames wait in a bounded outbox (``Settings.outbox_limit`` frames) and go
  out in one write when it drains; when the outbox overflows the client is too slow:
  close 4000 ``room/slow_consumer`` and, whatever it reads, its TCP connection is
  ended within :data:`ABORT_AFTER` seconds;
- close: a close the server starts (:meth:`WebSocketEdge.close`) waits
  :data:`ABORT_AFTER` seconds for the client's close, then ends the TCP connection;
- keepalive: :func:`keepalive` pings, once per :data:`PING_EVERY`, every socket that
  said nothing since the sweep before, and closes (1011) one that has not answered a
  ping by the next sweep: a dead peer's seat is freed in 2-3 sweeps.

Nothing here reaches into uvicorn, Starlette or websockets beyond their public APIs.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from websockets.frames import Frame as WsFrame
from websockets.frames import Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from protocol import errors as codes
from protocol.codec import choose_subprotocol
from server.edge.connection import CLOSE_APP_ERROR, Connection
from server.edge.handshake import Refuse, check

if TYPE_CHECKING:
    from server.services import Services

log = logging.getLogger("rollhouse.edge")

Frame = bytes | str

ABORT_AFTER = 1.0
"""Seconds a closing socket gets to finish its close before its TCP connection ends."""
PING_EVERY = 10.0
"""Seconds between two keepalive sweeps (see :func:`keepalive`)."""
CLOSE_GOING_AWAY = 1012
"""Close code when the server shuts down ("service restart")."""
WIRE_KEPT = 256
"""Frames whose bytes on the wire are kept (see :func:`_wire`)."""

_WIRE: dict[int, tuple[Frame, bytes]] = {}
"""Recently written frames (by identity, the frame kept alive beside its bytes) and
their bytes on the wire."""


def _wire(ws: ServerProtocol, frame: Frame) -> bytes:
    """``frame`` as a websocket frame's bytes, framed once per frame object: a patch
    shared by 5,000 spectators is framed once, not 5,000 times. Our server frames are
    unmasked and the protocol negotiates no extension, so the bytes are the same on
    every socket; they come from the sans-I/O layer itself (``send_binary`` and
    ``data_to_send``), so nothing here frames by hand."""
    kept = _WIRE.get(id(frame))
    if kept is not None and kept[0] is frame:
        return kept[1]
    if type(frame) is bytes:
        ws.send_binary(frame)
    else:
        ws.send_text(frame.encode())  # type: ignore[union-attr]
    wire = b"".join(ws.data_to_send())
    if len(_WIRE) >= WIRE_KEPT:
        _WIRE.clear()
    _WIRE[id(frame)] = (frame, wire)
    return wire


def _select(protocol: ServerProtocol, offered: Any) -> Any:
    """Our subprotocol order (msgpack, then JSON); none offered, or none known: JSON."""
    return choose_subprotocol(list(offered))


class WebSocketEdge(asyncio.Protocol):
    """One socket upgraded to a websocket on ``/ws`` (``uvicorn.Config(ws=...)``)."""

    __slots__ = (
        "_kind",
        "_parts",
        "address",
        "conn",
        "heard",
        "paused",
        "pinged",
        "server_state",
        "services",
        "timer",
        "transport",
        "waiting",
        "ws",
    )  # fmt: skip

    def __init__(self, config: Any, server_state: Any, app_state: Any, **_: Any) -> None:
        """The arguments uvicorn passes: its config (for ``ws_max_size``), its server
        state (for shutdown) and the lifespan's state (where ``services`` is)."""
        self.services: Services | None = (app_state or {}).get("services")
        self.server_state = server_state
        self.ws = ServerProtocol(max_size=config.ws_max_size, select_subprotocol=_select)
        self.transport: asyncio.Transport | None = None
        self.conn: Connection | None = None
        self.address: str | None = None
        """The client's address once admitted (its place in the per-address count)."""
        self.paused = False
        self.waiting: deque[Frame] | None = None
        """Frames held while the transport is over its high-water mark."""
        self.timer: asyncio.TimerHandle | None = None
        self.heard = True
        """Something came from the client since the last keepalive sweep."""
        self.pinged = False
        self._parts: list[bytes] | None = None
        self._kind = Opcode.BINARY

    # -- asyncio.Protocol ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        self.server_state.connections.add(self)

    def data_received(self, data: bytes) -> None:
        ws = self.ws
        ws.receive_data(data)
        self.heard = True
        for event in ws.events_received():
            if isinstance(event, WsFrame):
                self._frame(event)
            elif isinstance(event, Request):
                self._handshake(event)
        self._flush()

    def eof_received(self) -> bool | None:
        self.ws.receive_eof()
        self._flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        # nothing is written from here on: uvloop's closed transports raise on a write
        # (a room closing its players as it breaks must not fail on a reset socket)
        self.transport = None
        self.server_state.connections.discard(self)
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        services, conn = self.services, self.conn
        if services is not None and self.address is not None:
            services.addresses.leave(self.address)
            self.address = None
        if conn is not None and services is not None:
            services.connections.discard(conn)
            conn.lost()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        waiting, self.waiting = self.waiting, None
        if waiting:
            self.write(list(waiting))

    def shutdown(self) -> None:
        """uvicorn shuts down: close 1012 (the client comes back to another node)."""
        if self.ws.state is State.OPEN:
            self.close(CLOSE_GOING_AWAY, "the server is restarting")
        elif self.transport is not None:
            self.transport.close()

    # -- the handshake ---------------------------------------------------------------------

    def _handshake(self, request: Request) -> None:
        services, ws = self.services, self.ws
        if services is None:  # served without our app's lifespan
            refusal = Refuse(503, codes.UNAVAILABLE, "the server is not ready")
            ws.send_response(refusal.response())
            return
        assert self.transport is not None
        peer = self.transport.get_extra_info("peername")
        decision = check(request, peer[0] if peer else None, services.settings,
                         services.addresses.enter, services.operator.barred)  # fmt: skip
        if isinstance(decision, Refuse):
            if decision.limit is not None:
                services.metrics.refused.inc(limit=decision.limit)
            ws.send_response(decision.response())
            return
        self.address = decision.address
        response = ws.accept(request)
        ws.send_response(response)
        request.headers.clear()  # the parser keeps the request for the socket's life
        if response.status_code != 101:  # not a valid websocket handshake
            return
        conn = Connection(self, decision.codec, services, decision.address)
        self.conn = conn
        services.connections.add(conn)
        conn.start()

    # -- in --------------------------------------------------------------------------------

    def _frame(self, frame: WsFrame) -> None:
        opcode = frame.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            if frame.fin:
                self._message(opcode, frame.data)
            else:
                self._kind, self._parts = opcode, [bytes(frame.data)]
        elif opcode is Opcode.CONT and self._parts is not None:
            self._parts.append(bytes(frame.data))
            if frame.fin:
                data, self._parts = b"".join(self._parts), None
                self._message(self._kind, data)
        elif opcode is Opcode.PONG:
            self.pinged = False

    def _message(self, opcode: Opcode, data: Any) -> None:
        conn = self.conn
        if conn is None or self.ws.state is not State.OPEN:
            return
        if opcode is Opcode.TEXT:
            try:
                message: Frame = bytes(data).decode()
            except UnicodeDecodeError:
                self.ws.fail(1007, "invalid UTF-8")
                return
        else:
            message = data if type(data) is bytes else bytes(data)
        try:
            conn.on_frame(message)
        except Exception:  # a bug: fail this connection, keep the server
            log.exception("a frame handler failed; closing the connection")
            self.ws.fail(1011, "internal error")

    # -- out -------------------------------------------------------------------------------

    def write(self, frames: Iterable[Frame]) -> None:
        """Frame each and write them in one call; while the transport is full they wait
        in the outbox (its overflow drops the client: room/slow_consumer)."""
        ws, transport = self.ws, self.transport
        if transport is None or ws.state is not State.OPEN or transport.is_closing():
            return
        if self.paused:
            self._hold(frames)
            return
        chunks = ws.data_to_send()  # usually nothing (every input flushes): goes first
        chunks.extend(_wire(ws, frame) for frame in frames)
        transport.write(chunks[0] if len(chunks) == 1 else b"".join(chunks))

    def _hold(self, frames: Iterable[Frame]) -> None:
        waiting = self.waiting
        if waiting is None:
            waiting = self.waiting = deque()
        waiting.extend(frames)
        services = self.services
        assert services is not None
        if len(waiting) > services.settings.outbox_limit:
            self.waiting = None
            services.metrics.dropped.inc(reason="slow_consumer")
            log.info("dropping slow client (seat %s)", self.conn.seat if self.conn else None)
            if self.conn is not None:
                self.conn.closing = True
            self.close(CLOSE_APP_ERROR, codes.SLOW_CONSUMER)

    def close(self, code: int, reason: str) -> None:
        """Start the closing handshake; the TCP connection ends within ``ABORT_AFTER``
        seconds whatever the client does (one that reads nothing never finishes it)."""
        if self.ws.state is State.OPEN:
            self.ws.send_close(code, reason)
            self._flush()
        self._end_soon()

    def _flush(self) -> None:
        """Write what the sans-I/O layer has to send (answers to pings and closes, the
        handshake's response); its end of stream closes the transport."""
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        data = self.ws.data_to_send()
        if not data:
            return
        eof = b"" in data
        transport.write(b"".join(data))
        if eof:
            transport.close()
        elif self.ws.close_expected():
            self._end_soon()

    def _end_soon(self) -> None:
        if self.timer is None and self.transport is not None:
            loop = asyncio.get_running_loop()
            self.timer = loop.call_later(ABORT_AFTER, self._end)

    def _end(self) -> None:
        """The close did not finish in time: close the transport, and cut it a moment
        later if its buffer never drains."""
        transport = self.transport
        if transport is None or transport.is_closing():
            if transport is not None:
                transport.abort()
            return
        transport.close()
        self.timer = asyncio.get_running_loop().call_later(ABORT_AFTER, self._end)

    # -- keepalive -------------------------------------------------------------------------

    def keepalive(self) -> None:
        """One sweep: ping a socket that said nothing since the last sweep; close one
        that has not answered the ping sent then."""
        if self.ws.state is not State.OPEN:
            return
        if self.heard:
            self.heard, self.pinged = False, False
            return
        if self.pinged:
            self.close(1011, "keepalive ping timeout")
            return
        self.pinged = True
        self.ws.send_ping(b"rh")
        self._flush()


async def keepalive(services: Services, every: float = PING_EVERY) -> None:
    """Sweep the node's sockets every ``every`` seconds (see :meth:`WebSocketEdge.keepalive`)."""
    while True:
        await asyncio.sleep(every)
        for conn in list(services.connections):
            conn.keepalive()
