"""The owner side of relayed connections: a node runs a room whose players are connected
to other nodes, which relay their hellos, commands and leaves through its inbox stream
(server.cluster.relay), and other nodes call operations on its rooms by name.

:class:`Owned` keeps every relayed peer of the node's rooms by (relay node, its
connection id), joins a relayed hello (loading its room aside first when it is not in
memory, while that connection's later messages wait), hands each later message to the
peer's room, and answers calls. The relay side (local connections to rooms run
elsewhere) stays in :class:`server.cluster.node.Node`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from protocol import errors as codes
from server.cluster.relay import Message, RemotePeer, Streams, hello_of, sender
from server.errors import RoomRefusal
from server.metrics import Metrics
from server.room.ownership import RoomElsewhere
from server.store import StoreError

if TYPE_CHECKING:
    from server.room.rooms import Rooms
    from server.room.shell import Room

MOVED_MESSAGE = "the room moved to another node; reconnect"
UNREACHABLE_MESSAGE = "this node cannot reach the store; reconnect"


class Node(Protocol):
    """What the owner side uses of its node (:class:`server.cluster.node.Node`)."""

    id: str
    rooms: Rooms | None
    streams: Streams
    metrics: Metrics
    lets_go: bool
    draining: bool
    handlers: dict[str, Callable[[dict[str, Any]], Awaitable[Any]]]

    def renewing(self) -> bool: ...

    def spawn(self, work: Coroutine[Any, Any, None]) -> None: ...

    async def publish(self, rooms: list[Room]) -> None: ...


class Owned:
    """The peers other nodes relay to this node's rooms, and what they send."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.remote: dict[tuple[str, int], tuple[Room, int, RemotePeer]] = {}
        """(relay node, its connection id) -> (room, peer id, peer)."""
        self.joining: dict[tuple[str, int], list[Message]] = {}
        """Relayed hellos whose room is loading, with what followed them."""

    def receive(self, msg: Message) -> None:
        """A message a relay node sent to one of this node's rooms (or a call)."""
        if msg["k"] == "hello":
            self.hello(msg)
        elif msg["k"] == "call":  # a rematch may load a room: never in the inbox reader's way
            self.node.spawn(self._call(msg))
        elif (msg["n"], msg["p"]) in self.joining:  # after its hello, once the room is loaded
            self.joining[(msg["n"], msg["p"])].append(msg)
        else:
            self.forward(msg)

    def hello(self, msg: Message) -> None:
        """Join a relayed connection; a room not in memory is loaded aside, so the inbox
        goes on for other rooms meanwhile (this connection's later messages wait)."""
        rooms = self.node.rooms
        assert rooms is not None
        key = (msg["n"], msg["p"])
        if key in self.remote or key in self.joining:  # sent twice (a pipeline retried)
            return
        if self.node.lets_go and not self.node.renewing():
            # as a local hello (open): with no renewal for a lease, a room this node runs
            # may be another's by now, and its copy stale (a 30-minute soak: a node whose
            # ticks stalled told a relayed player its seat token matched no seat)
            self._close(key, codes.UNAVAILABLE, UNREACHABLE_MESSAGE)
            return
        room = rooms.live.get(msg["r"])
        if room is not None and not room.broken and not self.node.draining:
            self._join(msg, room)
            return
        self.joining[key] = []
        self.node.spawn(self._load_and_join(msg))

    async def _load_and_join(self, msg: Message) -> None:
        rooms = self.node.rooms
        assert rooms is not None
        key = (msg["n"], msg["p"])
        try:
            room = await rooms.get(msg["r"]) if not self.node.draining else None
        except RoomRefusal as exc:
            code = codes.MOVED if isinstance(exc, RoomElsewhere) else exc.code
            self.joining.pop(key, None)
            self._close(key, code, exc.message)
            return
        except BaseException:
            self.joining.pop(key, None)
            raise
        waiting = self.joining.pop(key, [])
        if any(later["k"] == "leave" for later in waiting):  # gone while its room loaded:
            return  # seated now, it would replace its client's newer connection
        if room is None:
            self._close(key, codes.MOVED, MOVED_MESSAGE)
            return
        self._join(msg, room)
        for later in waiting:
            self.forward(later)

    def _join(self, msg: Message, room: Room) -> None:
        node, pid = msg["n"], msg["p"]
        peer = RemotePeer(self.node.streams, node, pid, msg["c"], sender(msg))
        player = msg["h"].get("player")  # the relay checked the session
        self.remote[(node, pid)] = (room, room.join(peer, hello_of(msg), player), peer)

    def forward(self, msg: Message) -> None:
        """A joined peer's command, act, resync or leave, to its room."""
        key = (msg["n"], msg["p"])
        entry = self.remote.get(key)
        if entry is None or entry[0].broken:
            if msg["k"] != "leave":  # the room moved or failed: the relay reconnects its client
                self._close(key, codes.MOVED, MOVED_MESSAGE)
            self.remote.pop(key, None)
            return
        room, pid, peer = entry
        if msg["k"] == "cmd":
            self.node.metrics.forward_latency.observe(max(0.0, time.time() - float(msg["t"])))
            room.command(pid, msg["i"], msg["b"])
        elif msg["k"] == "act":
            room.act(pid, msg["i"], msg["a"])
        elif msg["k"] == "resync":
            room.resync(pid)
        elif msg["k"] == "leave":
            del self.remote[key]
            peer.gone = True
            room.leave(pid, undelivered=bool(msg.get("u")))

    def _close(self, key: tuple[str, int], code: str, message: str) -> None:
        """Tell the relay node ``key[0]`` to close its connection ``key[1]`` with ``code``."""
        self.node.streams.send(key[0], {"k": "close", "p": key[1], "c": code, "m": message})

    async def _call(self, msg: Message) -> None:
        rooms = self.node.rooms
        assert rooms is not None
        reply: Message = {"k": "result", "q": msg["q"]}
        handler = self.node.handlers.get(msg.get("op", ""))
        try:
            if handler is not None:  # node-wide: no room
                reply["v"] = await handler(msg.get("a") or {})
                self.node.streams.send(msg["n"], reply)
                return
            value = await rooms.run_op(msg.get("op", "rematch"), msg["r"], msg.get("a") or {})
            if msg.get("op", "rematch") == "rematch":
                new = rooms.live.get(value["room"])
                if new is not None:
                    await self.node.publish([new])
                value = {**value, "node": self.node.id}
            reply["v"] = value
        except RoomRefusal as exc:
            reply["e"] = [exc.code, exc.message]
        except StoreError as exc:
            reply["e"] = [codes.UNAVAILABLE, str(exc)]
        self.node.streams.send(msg["n"], reply)
