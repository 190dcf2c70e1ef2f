"""What every request handler reaches through ``app.state.services``."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from server.config import Settings
from server.limits import AddressCount, WindowCounter
from server.match import Matchmaker
from server.metrics import Metrics
from server.operator.console import Console
from server.people import People, Policy
from server.room.rooms import Rooms
from server.store import EventStore, StoreError

IDEMPOTENCY_KEYS = 10_000
"""Idempotency keys a node remembers (in memory: a restart forgets them). On a Redis
store they are kept in Redis instead (server/cluster/idempotency.py), for every node."""

if TYPE_CHECKING:
    from server.cluster.node import Node


class Socket(Protocol):
    """An open websocket of this node, as the node sees it
    (:class:`server.edge.connection.Connection`)."""

    seat: int | None
    role: str | None
    closing: bool
    address: str
    player: str | None

    def notify(self, text: str) -> None:
        """Send an operator's notice (``server/notice``)."""

    def close_with(self, code: str, message: str) -> None:
        """Send a fatal error, then close."""

    def keepalive(self) -> None:
        """One keepalive sweep (see :func:`server.edge.protocol.keepalive`)."""

    def disconnect(self, code: int = 1012, reason: str = "") -> None:
        """Close the socket without an error (the client reconnects and resumes)."""


@attrs.define
class Services:
    """The node's settings, store, metrics, rooms, open connections, cluster membership
    and people."""

    settings: Settings
    store: EventStore
    metrics: Metrics
    rooms: Rooms
    connections: set[Socket] = attrs.field(factory=set)
    addresses: AddressCount = attrs.field(
        default=attrs.Factory(
            lambda self: AddressCount(self.settings.connections_per_address), takes_self=True
        )
    )
    creations: WindowCounter = attrs.field(
        default=attrs.Factory(
            lambda self: WindowCounter(self.settings.creations_per_minute), takes_self=True
        )
    )
    idempotency: dict[str, str] = attrs.field(factory=dict)
    """``Idempotency-Key`` of a room creation -> the room it made (this node, bounded)."""
    cluster: Node | None = None
    """This node's cluster membership (a ``redis://`` store), else None."""
    people: People = attrs.field(
        default=attrs.Factory(
            lambda self: People(self.store.people, Policy.of(self.settings), self.metrics),
            takes_self=True,
        )
    )
    """Players and sessions (:mod:`server.people`), kept by the same store."""
    matchmaker: Matchmaker = attrs.field(
        default=attrs.Factory(
            lambda self: Matchmaker(self.store.matches, self.run, self.make), takes_self=True
        )
    )
    """Quick match (:mod:`server.match`), over the store's queues and claims."""
    tasks: set[asyncio.Task[Any]] = attrs.field(factory=set)
    """Work this node started beside requests (the rooms players joined, written down)."""
    operator: Console = attrs.field(
        default=attrs.Factory(
            lambda self: Console(
                self.settings, self.store, self.metrics, self.rooms, self.cluster, self.connections
            ),
            takes_self=True,
        )
    )
    """The operator console (:mod:`server.operator`): its bans hold on every node."""

    async def run(self, op: str, room_id: str, args: dict[str, Any]) -> Any:
        """Run a room operation where the room lives: this node, or its owner."""
        if self.cluster is not None:
            return await self.cluster.run(op, room_id, args)
        return await self.rooms.run_op(op, room_id, args)

    async def make(self, game: str, seats: int, room_id: str, room: Mapping[str, Any]) -> None:
        """Make a room for quick match (published to the cluster's index at once)."""
        await self.rooms.make(game, seats, {}, room, None, room_id)
        if self.cluster is not None:
            made = self.rooms.live.get(room_id)
            if made is not None:
                with contextlib.suppress(StoreError):
                    await self.cluster.publish([made])

    def joined(self, player: str, room_id: str, at: float) -> None:
        """A player took a seat: their list of games keeps the room (best effort)."""
        self._spawn(self.people.add_room(player, room_id, at))

    def reopened(self, summary: dict[str, Any]) -> None:
        """A seat of a waiting room is free again: quick match may offer it."""
        self._spawn(self.matchmaker.enlist(summary))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def remember_creation(self, key: str, room_id: str) -> None:
        """Keep the room an Idempotency-Key made (the oldest of ``IDEMPOTENCY_KEYS`` go)."""
        self.idempotency[key] = room_id
        while len(self.idempotency) > IDEMPOTENCY_KEYS:
            del self.idempotency[next(iter(self.idempotency))]
