"""A new room's first append whose outcome is unknown (a WAIT that timed out during a
Redis master failover) is settled with an epoch of the room's fencer (on a cluster:
the lease's refence, noted in the room's epochs hash and refused to a node that lost
the lease), never with a bare INCR of the store's fence that no claim took (found by
``rollhouse soak``: "record 1 written with epoch 2 nobody took")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server.config import Settings
from server.metrics import Metrics
from server.room.rooms import Rooms
from server.store import StoreUnknown
from server.store.memory import MemoryStore


class FirstAppendUnknown(MemoryStore):
    """A memory store whose first append is lost with its outcome unknown; it notes the
    fence every landed append carried."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False
        self.fences: list[int | None] = []

    async def append(
        self,
        room: str,
        records: Sequence[dict[str, Any]],
        expected_seq: int,
        *,
        fence: int | None = None,
    ) -> int:
        if not self.failed:
            self.failed = True
            raise StoreUnknown("the connection dropped after the append was sent")
        seq = await super().append(room, records, expected_seq, fence=fence)
        self.fences.append(fence)
        return seq


class NotingFencer:
    """A cluster's fencer as the checker sees it: every epoch it gives is noted."""

    exclusive = True

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.given: list[int] = []

    async def claim(self, room: str) -> int:
        self.given.append(await self.store.fence(room))
        return self.given[-1]

    async def refence(self, room: str) -> int:
        self.given.append(await self.store.fence(room))
        return self.given[-1]


async def test_a_new_rooms_unknown_first_append_is_settled_with_a_noted_epoch() -> None:
    """Every record of the new room is written with an epoch its fencer gave."""
    store = FirstAppendUnknown()
    fencer = NotingFencer(store)
    rooms = Rooms(store, Settings(store_url="memory://"), Metrics(), fencer=fencer)
    try:
        summary = await rooms.create("rollie", 2, {}, {"clock": 0})
        assert store.failed and store.fences
        assert [f for f in store.fences if f not in fencer.given] == []
        assert len(await store.read(summary["room"])) >= 1
    finally:
        await rooms.close()


async def test_a_room_settled_with_a_new_epoch_runs_with_it() -> None:
    """The room starts with the epoch that settled its first records, not the claim's
    (which the refence moved on): its next write is accepted where it is, no bounce."""
    store = FirstAppendUnknown()
    fencer = NotingFencer(store)
    rooms = Rooms(store, Settings(store_url="memory://"), Metrics(), fencer=fencer)
    try:
        summary = await rooms.create("rollie", 2, {}, {"clock": 0})
        room_id = summary["room"]
        room = rooms.live[room_id]
        assert len(fencer.given) == 2  # the claim, then the refence that settled it
        assert room.fence == fencer.given[-1]
        await rooms.operate("close", room_id, {"reason": "a write after the settling"})
        assert not room.fenced and rooms.live.get(room_id) is room
        assert store.fences[-1] == fencer.given[-1]
    finally:
        await rooms.close()
