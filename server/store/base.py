"""What every event-store backend shares: the Record value, the EventStore protocol,
input validation and the msgpack codec of record data.

Every backend stores ``data`` as msgpack bytes (the memory backend too, so it is an
exact reference): tuples come back as lists, and anything msgpack cannot carry is
refused with ``store/bad_data`` before anything is written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import attrs
import msgpack

from server.store.errors import StoreError
from server.store.match import MatchStore
from server.store.operator import OperatorStore
from server.store.people_base import PeopleStore

_ROOM_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")


@attrs.frozen
class Record:
    """One entry of a room's log: ``seq`` is its 1-based position, ``data`` plain data."""

    seq: int
    data: dict[str, Any]


class EventStore(Protocol):
    """The durable append-only log of every room (see server/store/__init__.py)."""

    @property
    def people(self) -> PeopleStore:
        """Players, sessions and shared counters, kept by the same backend
        (server/store/people_base.py)."""
        ...

    @property
    def matches(self) -> MatchStore:
        """Quick match's queues and claims, kept by the same backend (server/store/match.py)."""
        ...

    @property
    def operator(self) -> OperatorStore:
        """The operator console's audit log, bans and node reports, kept by the same
        backend (server/store/operator.py)."""
        ...

    async def append(
        self,
        room: str,
        records: Sequence[dict[str, Any]],
        expected_seq: int,
        *,
        fence: int | None = None,
    ) -> int:
        """Append ``records`` after ``expected_seq`` atomically; return the new last seq.

        With ``fence``, the append is refused (StoreFenced) unless ``fence`` is the
        room's current fence epoch, checked in the same atomic step.
        """
        ...

    async def fence(self, room: str) -> int:
        """Move the room's fence epoch on and return it: no append carrying an older
        epoch can land after this returns (even one sent before it)."""
        ...

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
        """Keep one command answer of ``seat``; at most ``keep`` per seat (oldest go).

        With ``fence``, refused (StoreFenced) unless it is the room's current epoch."""
        ...

    async def load_replies(self, room: str) -> list[tuple[int, str, dict[str, Any]]]:
        """The stored answers ``(seat, cmd_id, data)`` of a room, oldest first per seat."""
        ...

    async def set_driven(self, room: str, driven: bool) -> None:
        """Mark (or unmark) a room as one that time alone moves (clocks, bots, takeover)."""
        ...

    async def driven_rooms(self) -> list[str]:
        """Every room marked driven (a node loads them at start-up)."""
        ...

    async def read(self, room: str, after: int = 0, limit: int | None = None) -> list[Record]:
        """Records with ``seq > after``, in order, at most ``limit`` of them."""
        ...

    async def last_seq(self, room: str) -> int:
        """The room's last seq; 0 when it has no log."""
        ...

    async def last_seqs(self, rooms: Sequence[str]) -> dict[str, int]:
        """Each room's last seq (0 when it has no log), in one round trip: the room
        list compares a page of summaries with their logs."""
        ...

    async def list_rooms(self) -> list[str]:
        """Every room that has a log, in creation order."""
        ...

    async def save_snapshot(self, room: str, seq: int, data: dict[str, Any]) -> None:
        """Keep ``data`` as the room's state at ``seq`` (an older snapshot is ignored)."""
        ...

    async def load_snapshot(self, room: str) -> tuple[int, dict[str, Any]] | None:
        """The room's latest snapshot as ``(seq, data)``, or None."""
        ...

    async def save_summaries(self, summaries: Mapping[str, dict[str, Any]]) -> None:
        """Keep each room's lobby summary (what ``GET /api/rooms`` lists), replacing any
        earlier one; one write for all."""
        ...

    async def room_page(
        self, cursor: int, limit: int
    ) -> tuple[list[tuple[str, dict[str, Any] | None]], int | None]:
        """Rooms newest first from position ``cursor`` (0: the newest), at most ``limit``
        (1..MAX_PAGE), each with its kept summary (None if it has none yet); and the
        cursor of the next page (None at the end)."""
        ...

    async def close(self) -> None:
        """Finish pending work and release the backend; idempotent."""
        ...


MAX_PAGE = 500
"""The most rooms one ``room_page`` returns."""


def check_page(cursor: object, limit: object) -> tuple[int, int]:
    """``(cursor, limit)`` as a page of rooms, limit clamped to 1..MAX_PAGE."""
    if isinstance(cursor, bool) or not isinstance(cursor, int) or cursor < 0:
        raise StoreError(f"cursor must be an int >= 0, got {cursor!r}", code="store/bad_page")
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise StoreError(f"limit must be an int, got {limit!r}", code="store/bad_page")
    return cursor, max(1, min(MAX_PAGE, limit))


def check_room(room: object) -> str:
    """Return ``room`` if it is a valid room id (1-64 of [A-Za-z0-9_-]), else raise."""
    if not isinstance(room, str) or _ROOM_RE.fullmatch(room) is None:
        raise StoreError(
            f"invalid room id {room!r}: 1-64 characters of A-Z a-z 0-9 _ -",
            code="store/bad_room",
        )
    return room


def check_seq(value: object, name: str) -> int:
    """Return ``value`` if it is an int >= 0 (not a bool), else raise ``store/bad_seq``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise StoreError(f"{name} must be an int >= 0, got {value!r}", code="store/bad_seq")
    return value


def check_limit(limit: object) -> int | None:
    """Return ``limit`` if it is None or an int >= 0, else raise ``store/bad_seq``."""
    return None if limit is None else check_seq(limit, "limit")


def pack(data: object) -> bytes:
    """Encode one record's data (a str-keyed dict of plain data) as msgpack."""
    if not isinstance(data, dict):
        raise StoreError(
            f"record data must be a dict, got {type(data).__name__}", code="store/bad_data"
        )
    try:
        return _PACK(data)  # type: ignore[no-any-return]
    except (TypeError, ValueError, OverflowError) as exc:
        raise StoreError(f"record data is not plain data: {exc}", code="store/bad_data") from exc


_PACK = msgpack.Packer(use_bin_type=True).pack
"""One shared packer (``msgpack.packb`` builds one, and its buffer, per call). Packing
plain data runs no Python code, so a call is whole under the interpreter lock, and a
failed one leaves the packer empty."""


def pack_all(records: Sequence[dict[str, Any]]) -> list[bytes]:
    """Encode every record (refusing the whole batch if one is not plain data)."""
    if isinstance(records, dict | str | bytes):
        raise StoreError("records must be a sequence of dicts", code="store/bad_data")
    return [pack(r) for r in records]


def unpack(blob: bytes) -> dict[str, Any]:
    """Decode one record's data."""
    return msgpack.unpackb(blob, raw=False, strict_map_key=False)  # type: ignore[no-any-return]


def snapshot_beyond_log(room: str, seq: int, last: int) -> StoreError:
    """The error for a snapshot whose seq is past the end of the room's log."""
    return StoreError(
        f"snapshot of room {room!r} at seq {seq} is beyond its log (last seq {last})",
        code="store/bad_snapshot",
        room=room,
        seq=seq,
        last=last,
    )
