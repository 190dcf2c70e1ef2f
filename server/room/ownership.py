"""Who may write a room's log: the seam between one node and a cluster of nodes.

A node starts a room's actor only after it has *claimed* the room: the claim returns
the fence epoch that every append of the room then carries (the store refuses an
append with an older epoch, in the same atomic step that checks the expected seq).

- One node (:class:`StoreFencer`): a claim is the store's ``fence`` (an INCR), so a
  restarted node fences off whatever its previous incarnation still had in flight.
- A cluster (:class:`server.cluster.leases.LeaseFencer`): a claim takes the room's
  lease, and fails with :class:`RoomElsewhere` while another node holds it.
"""

from __future__ import annotations

from typing import Protocol

from protocol import errors as codes
from server.errors import RoomRefusal
from server.store import EventStore


class RoomElsewhere(RoomRefusal):
    """Another node holds the room's lease (``owner``); this node may not run it."""

    def __init__(self, room: str, owner: str) -> None:
        super().__init__(codes.MOVED, f"room {room!r} is run by node {owner!r}")
        self.owner = owner


class Fencer(Protocol):
    exclusive: bool
    """True when a claim can be refused (a cluster): then claim before reading the log."""

    async def claim(self, room: str) -> int:
        """Take the right to write ``room``; its new fence epoch (RoomElsewhere if held)."""
        ...

    async def refence(self, room: str) -> int:
        """Move the epoch on for a room this node runs (to settle an unknown outcome)."""
        ...


class StoreFencer:
    """One node: every claim is granted; the epoch is the store's fence counter."""

    exclusive = False

    def __init__(self, store: EventStore) -> None:
        self.store = store

    async def claim(self, room: str) -> int:
        return await self.store.fence(room)

    async def refence(self, room: str) -> int:
        return await self.store.fence(room)
