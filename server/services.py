"""What every request handler reaches through ``app.state.services``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import attrs

from server.config import Settings
from server.limits import AddressCount, WindowCounter
from server.metrics import Metrics
from server.people import People, Policy
from server.room.rooms import Rooms
from server.store import EventStore

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

    def remember_creation(self, key: str, room_id: str) -> None:
        """Keep the room an Idempotency-Key made (the oldest of ``IDEMPOTENCY_KEYS`` go)."""
        self.idempotency[key] = room_id
        while len(self.idempotency) > IDEMPOTENCY_KEYS:
            del self.idempotency[next(iter(self.idempotency))]
