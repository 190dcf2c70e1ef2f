"""How frames reach a connection and leave it, on uvicorn's ``websockets-sansio`` protocol.

The ASGI way costs every frame a trip each way through uvicorn's queue and a task
switch, and uvicorn stops reading the socket after each frame until the application
has taken it (two ``epoll_ctl`` calls a frame). A connection takes neither path once
it is accepted, when the server runs :class:`FrameProtocol` (``rollhouse serve`` and the tests
do: ``uvicorn.Config(ws=FrameProtocol)``):

- in: the protocol hands each whole message to the connection's ``on_frame`` as it
  parses it, in the order it arrives, inside ``data_received`` (:class:`FrameProtocol`;
  a connection sets ``on_frame`` as soon as it is accepted); until then (or on any
  other server) messages go through ASGI as usual, and the disconnect always does;
- out: frames are written straight to the transport, all of one turn's in one
  write, when nothing waits before them and the transport is below its high-water
  mark (:class:`DirectWrite`: the same calls the ASGI ``send`` makes).

Both reach the protocol through the ASGI ``receive`` callable Starlette keeps (its
``__self__``); on a server that is not uvicorn's ``websockets-sansio`` neither finds
it and the connection keeps to ASGI.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from starlette.websockets import WebSocket
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

log = logging.getLogger("rollhouse.connection")

OnFrame = Callable[[bytes | str], None]


def protocol_of(ws: WebSocket) -> Any:
    """uvicorn's protocol object behind ``ws`` (None when there is none to find)."""
    return getattr(getattr(ws, "_receive", None), "__self__", None)


class FrameProtocol(WebSocketsSansIOProtocol):
    """uvicorn's ``websockets-sansio`` protocol, which can hand messages to a callable.

    ``on_frame`` (None until a connection sets it) takes each message's data, ``bytes``
    or ``str``, as soon as the frame that ends it is parsed. It must not raise: an
    exception is logged and the connection failed (1011), as for an ASGI app that
    crashes. Reading is never paused for it, so its work is the backpressure."""

    on_frame: OnFrame | None = None

    def send_receive_event_to_app(self) -> None:
        handler = self.on_frame
        if handler is None or self.close_sent:
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.curr_msg_data_type == "text":
            try:
                text = data.decode()
            except UnicodeDecodeError:  # what uvicorn does with it: close 1007
                self.logger.exception("Invalid UTF-8 sequence received from client.")
                self.conn.send_close(1007)
                self.handle_parser_exception()
                return
            self._deliver(handler, text)
        else:
            self._deliver(handler, data)

    def _deliver(self, handler: OnFrame, frame: bytes | str) -> None:
        try:
            handler(frame)
        except Exception:  # a bug: fail this connection, keep the server
            log.exception("a frame handler failed; closing the connection")
            self.on_frame = None
            self.conn.fail(1011, "internal error")
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.queue.put_nowait({"type": "websocket.disconnect", "code": 1011})
            self.close_sent = True
            self.transport.close()


def take_frames(ws: WebSocket, on_frame: OnFrame) -> bool:
    """From now on hand ``ws``'s messages to ``on_frame`` (see :class:`FrameProtocol`);
    False (nothing changed) when the server does not run it. Messages already waiting
    in the ASGI queue are handed over first, in order, and reading resumes."""
    protocol = protocol_of(ws)
    if not isinstance(protocol, FrameProtocol) or protocol.close_sent:
        return False
    waiting = []
    while not protocol.queue.empty():
        waiting.append(protocol.queue.get_nowait())
    for message in waiting:
        if message["type"] != "websocket.receive":  # a disconnect: leave it for ASGI
            protocol.queue.put_nowait(message)
            continue
        data = message.get("bytes")
        frame = data if data is not None else message.get("text")
        if frame is not None:
            protocol._deliver(on_frame, frame)
    protocol.on_frame = on_frame
    if protocol.read_paused:
        protocol.read_paused = False
        protocol.transport.resume_reading()
    return True


class DirectWrite:
    """Frames written straight to uvicorn's ``websockets-sansio`` protocol, when its
    transport takes them without waiting (the same calls its ASGI ``send`` makes)."""

    __slots__ = ("protocol",)

    def __init__(self, protocol: Any) -> None:
        self.protocol = protocol

    @classmethod
    def of(cls, ws: WebSocket) -> DirectWrite | None:
        """The direct path for ``ws``, or None when the server is not one we know."""
        protocol = protocol_of(ws)
        needed = ("conn", "transport", "writable", "close_sent", "handshake_complete")
        if protocol is None or not all(hasattr(protocol, name) for name in needed):
            return None
        if not hasattr(protocol.conn, "send_binary"):
            return None
        return cls(protocol)

    def ready(self) -> bool:
        """Open, past the handshake, and below the high-water mark."""
        p = self.protocol
        return (
            p.handshake_complete
            and not p.close_sent
            and not getattr(p, "disconnected", False)
            and p.writable.is_set()
            and not p.transport.is_closing()
        )

    def write(self, frames: list[bytes | str]) -> None:
        """Frame each and hand them to the transport in one write."""
        conn = self.protocol.conn
        for frame in frames:
            if isinstance(frame, bytes):
                conn.send_binary(frame)
            else:
                conn.send_text(frame.encode())
        self.protocol.transport.write(b"".join(conn.data_to_send()))
