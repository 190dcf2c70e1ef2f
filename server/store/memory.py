"""The in-memory event store: plain dicts, the reference behaviour of the contract.

Each method runs without awaiting anything, so it is atomic on the event loop.
Data is kept as msgpack bytes, exactly as the durable backends keep it, so what
goes in and comes out is the same everywhere (tuples come back as lists).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.store.base import (
    Record,
    check_limit,
    check_page,
    check_room,
    check_seq,
    pack,
    pack_all,
    snapshot_beyond_log,
    unpack,
)
from server.store.errors import StoreConflict, StoreFenced, StoreUnavailable
from server.store.match import MemoryMatches
from server.store.operator import MemoryOperator
from server.store.people_memory import MemoryPeople


class MemoryStore:
    """An EventStore that lives and dies with the process."""

    def __init__(self) -> None:
        self._logs: dict[str, list[bytes]] = {}  # dicts keep insertion = creation order
        self._snapshots: dict[str, tuple[int, bytes]] = {}
        self._fences: dict[str, int] = {}
        self._replies: dict[str, dict[int, dict[str, bytes]]] = {}
        self._driven: dict[str, None] = {}
        self._summaries: dict[str, bytes] = {}
        self._closed = False
        self.people = MemoryPeople(self._check_open)
        """Players and sessions (server/store/people_memory.py)."""
        self.matches = MemoryMatches()
        """Quick match's queues and claims (server/store/match.py)."""
        self.operator = MemoryOperator()
        """The operator console's audit log, bans and node reports (server/store/operator.py)."""

    async def append(
        self,
        room: str,
        records: Sequence[dict[str, Any]],
        expected_seq: int,
        *,
        fence: int | None = None,
    ) -> int:
        """Append ``records`` after ``expected_seq``; StoreConflict if the log is elsewhere."""
        self._check_open()
        check_room(room)
        check_seq(expected_seq, "expected_seq")
        blobs = pack_all(records)
        if not blobs:
            return expected_seq  # nothing to write, nothing checked (as in every backend)
        current = self._fences.get(room, 0)
        if fence is not None and fence != current:
            raise StoreFenced(room, fence, current)
        log = self._logs.get(room, [])
        if len(log) != expected_seq:
            raise StoreConflict(room, expected_seq, len(log))
        self._logs.setdefault(room, log).extend(blobs)
        return expected_seq + len(blobs)

    async def read(self, room: str, after: int = 0, limit: int | None = None) -> list[Record]:
        """Records with seq > ``after`` in order, at most ``limit``."""
        self._check_open()
        check_room(room)
        check_seq(after, "after")
        limit = check_limit(limit)
        log = self._logs.get(room, [])
        end = len(log) if limit is None else min(len(log), after + limit)
        return [Record(seq=i + 1, data=unpack(log[i])) for i in range(after, end)]

    async def last_seq(self, room: str) -> int:
        """The room's last seq, 0 without a log."""
        self._check_open()
        return len(self._logs.get(check_room(room), []))

    async def last_seqs(self, rooms: Sequence[str]) -> dict[str, int]:
        """Each room's last seq, 0 without a log."""
        self._check_open()
        return {room: len(self._logs.get(check_room(room), [])) for room in rooms}

    async def list_rooms(self) -> list[str]:
        """Rooms in creation order."""
        self._check_open()
        return list(self._logs)

    async def save_summaries(self, summaries: Mapping[str, dict[str, Any]]) -> None:
        """Keep the rooms' lobby summaries."""
        self._check_open()
        blobs = {check_room(room): pack(data) for room, data in summaries.items()}
        self._summaries.update(blobs)

    async def room_page(
        self, cursor: int, limit: int
    ) -> tuple[list[tuple[str, dict[str, Any] | None]], int | None]:
        """Rooms newest first, with their summaries."""
        self._check_open()
        cursor, limit = check_page(cursor, limit)
        rooms = list(reversed(self._logs))[cursor : cursor + limit + 1]
        page = [(r, _maybe(self._summaries.get(r))) for r in rooms[:limit]]
        return page, (cursor + limit if len(rooms) > limit else None)

    async def save_snapshot(self, room: str, seq: int, data: dict[str, Any]) -> None:
        """Keep the snapshot unless a newer one (higher seq) is already stored."""
        self._check_open()
        check_room(room)
        check_seq(seq, "seq")
        blob = pack(data)
        last = len(self._logs.get(room, []))
        if seq > last:
            raise snapshot_beyond_log(room, seq, last)
        current = self._snapshots.get(room)
        if current is None or current[0] <= seq:
            self._snapshots[room] = (seq, blob)

    async def load_snapshot(self, room: str) -> tuple[int, dict[str, Any]] | None:
        """The latest snapshot ``(seq, data)`` or None."""
        self._check_open()
        snap = self._snapshots.get(check_room(room))
        return None if snap is None else (snap[0], unpack(snap[1]))

    async def fence(self, room: str) -> int:
        """Move the room's fence epoch on; returns the new epoch."""
        self._check_open()
        self._fences[check_room(room)] = epoch = self._fences.get(room, 0) + 1
        return epoch

    async def save_reply(
        self,
        room: str,
        seat: int,
        cmd_id: str,
        data: dict[str, Any],
        keep: int,
        *,
        fence: int | None = None,
    ) -> None:
        """Keep one answer of ``seat`` (at most ``keep`` per seat)."""
        self._check_open()
        current = self._fences.get(room, 0)
        if fence is not None and fence != current:
            raise StoreFenced(room, fence, current)
        replies = self._replies.setdefault(check_room(room), {}).setdefault(seat, {})
        replies[cmd_id] = pack(data)
        while len(replies) > keep:
            del replies[next(iter(replies))]

    async def load_replies(self, room: str) -> list[tuple[int, str, dict[str, Any]]]:
        """Stored answers, oldest first per seat."""
        self._check_open()
        seats = self._replies.get(check_room(room), {})
        return [(s, i, unpack(b)) for s, replies in seats.items() for i, b in replies.items()]

    async def set_driven(self, room: str, driven: bool) -> None:
        """Mark or unmark ``room`` as driven by time."""
        self._check_open()
        if driven:
            self._driven[check_room(room)] = None
        else:
            self._driven.pop(room, None)

    async def driven_rooms(self) -> list[str]:
        """Rooms marked driven."""
        self._check_open()
        return list(self._driven)

    async def close(self) -> None:
        """Mark the store closed (the data is dropped with it)."""
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailable("the store is closed")


def _maybe(blob: bytes | None) -> dict[str, Any] | None:
    return None if blob is None else unpack(blob)
