"""The websocket edge after its TCP connection is gone: closing it or writing to it is
a no-op, not an error.

uvloop's transports raise ``RuntimeError`` on a write once closed (asyncio's only log
it). A room that closed its players' connections as it broke (``room/unavailable``)
wrote a close frame to a socket whose peer had just vanished; the error escaped into
the room's task and failed the room (seen in a 30-minute soak: "room r-c10d2097
failed"). Here a real uvloop transport over loopback TCP: the peer resets it, the edge
hears ``connection_lost``, then the room closes it and writes to it.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import types

import uvloop
from websockets.client import ClientProtocol
from websockets.uri import parse_uri

from server.edge.protocol import WebSocketEdge


class _Heard(WebSocketEdge):
    """The edge, telling when it heard its connection go."""

    lost: asyncio.Future[None]

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.lost.set_result(None)


def _open_edge() -> _Heard:
    """An edge whose websocket handshake is done (through the sans-I/O layers)."""
    config = types.SimpleNamespace(ws_max_size=1 << 20)
    edge = _Heard(config, types.SimpleNamespace(connections=set()), {})
    client = ClientProtocol(parse_uri("ws://127.0.0.1/ws"))
    client.send_request(client.connect())
    edge.ws.receive_data(b"".join(client.data_to_send()))
    request = edge.ws.events_received()[0]
    edge.ws.send_response(edge.ws.accept(request))
    edge.ws.data_to_send()
    return edge


async def _gone_then_closed() -> None:
    loop = asyncio.get_running_loop()
    listener = socket.create_server(("127.0.0.1", 0))
    theirs = socket.create_connection(listener.getsockname())
    ours, _ = listener.accept()
    listener.close()
    edge = _open_edge()
    edge.lost = loop.create_future()
    await loop.connect_accepted_socket(lambda: edge, ours)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    theirs.close()  # a reset: no end of stream, the websocket still open as far as it knows
    await asyncio.wait_for(edge.lost, 5)
    edge.write([b"late"])  # a patch for a socket that is gone
    edge.close(1011, "room/unavailable")  # the room breaking: no error either


def test_a_gone_connection_is_closed_and_written_to_without_error() -> None:
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(_gone_then_closed())
