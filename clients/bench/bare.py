"""The bare baseline for ``rollhouse bench``: the ``websockets`` library, nothing else.

``python -m clients.bench.bare --port P`` serves ``ws://127.0.0.1:P/`` and speaks
just enough of our protocol for the SDK client to drive it: a ``hello`` joins the
named room and is answered with a ``welcome`` (an empty view at the room's current
seq); any other frame is a command: it bumps the room's seq, is broadcast to every
socket of the room as one patch ``{"type": "patch", "from": n - 1, "to": n, "ops": []}``
(encoded once, ``websockets.broadcast``; or, if the command carries a ``frame``, those
bytes as they are: :mod:`clients.bench.audience` replays our patches), and is answered to the sender with
``{"type": "ack", "id": ..., "seq": n}`` - patch first, then ack, as our server does.
msgpack on binary frames, JSON on text frames. No game, no store, no validation,
no outbox, no rate limit: the ceiling our stack is compared with.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
from collections.abc import Callable
from typing import Any

import msgpack
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from protocol.codec import SUBPROTOCOLS


class BareRooms:
    """Sockets and sequence numbers per room."""

    def __init__(self) -> None:
        self.sockets: dict[str, set[ServerConnection]] = {}
        self.seq: dict[str, int] = {}

    async def handler(self, ws: ServerConnection) -> None:
        room: str | None = None
        try:
            async for frame in ws:
                binary = isinstance(frame, bytes)
                message = msgpack.unpackb(frame) if binary else json.loads(frame)
                encode: Callable[[Any], bytes | str] = msgpack.packb if binary else json.dumps
                if room is None:
                    room = str(message.get("room"))
                    self.sockets.setdefault(room, set()).add(ws)
                    await ws.send(encode(self.welcome(room, message)))
                else:
                    await self.command(room, ws, message, encode)
        except ConnectionClosed:
            pass
        finally:
            if room is not None:
                self.leave(room, ws)

    def welcome(self, room: str, hello: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "welcome", "room": room, "game": "bare", "role": hello.get("role"),
            "seat": None, "seat_token": None, "seq": self.seq.setdefault(room, 0), "view": {},
            "server_time": 0.0,
        }  # fmt: skip

    async def command(
        self,
        room: str,
        ws: ServerConnection,
        message: dict[str, Any],
        encode: Callable[[Any], bytes | str],
    ) -> None:
        seq = self.seq[room] = self.seq[room] + 1
        command = message.get("command") or {}
        patch = {"type": "patch", "from": seq - 1, "to": seq, "ops": []}
        patch["events"] = [str(command.get("type"))]
        frame = message.get("frame")  # a recorded frame to replay (clients.bench.audience)
        broadcast(self.sockets[room], frame if isinstance(frame, bytes) else encode(patch))
        await ws.send(encode({"type": "ack", "id": message.get("id"), "seq": seq}))

    def leave(self, room: str, ws: ServerConnection) -> None:
        members = self.sockets.get(room, set())
        members.discard(ws)
        if not members:
            self.sockets.pop(room, None)
            self.seq.pop(room, None)


async def serve_bare(port: int) -> None:
    """Serve until cancelled."""
    rooms = BareRooms()
    async with serve(
        rooms.handler,
        "127.0.0.1",
        port,
        subprotocols=[Subprotocol(p) for p in SUBPROTOCOLS],
        compression=None,
        max_size=1 << 20,
    ):
        await asyncio.Future()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    if importlib.util.find_spec("uvloop") is not None:
        import uvloop

        run: Callable[..., Any] = uvloop.run
    else:
        run = asyncio.run
    with contextlib.suppress(KeyboardInterrupt):
        run(serve_bare(args.port))


if __name__ == "__main__":
    main()
