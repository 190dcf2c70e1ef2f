"""The event store: the durable append-only log of every room.

``open_store(url)`` returns an :class:`EventStore` backed by memory (tests), SQLite
(the embedded single-node default) or Redis Streams (production). Every backend
obeys one contract (tests/store/test_contract.py): ``append`` with an expected
sequence is atomic and raises :class:`StoreConflict` when the log has moved on;
appends are group-committed by the durable backends. Beside each log a store keeps a
fence epoch (``fence``; an append carrying an older epoch is refused), the room's
stored command replies (``save_reply``, bounded per seat) and the set of rooms that
time alone moves (``set_driven``), which a node loads at start-up.

Each backend also keeps players, their sessions and rooms, and shared counters, in
the same database or server: ``store.people``, a
:class:`~server.store.people_base.PeopleStore` (one contract suite too,
tests/store/test_people_contract.py). Beside them, ``store.operator``: the operator
console's audit log, bans and node reports (server/store/operator.py; its contract in
tests/store/test_operator_contract.py).

Imports nothing of :mod:`server` but its base modules.
"""

from __future__ import annotations

from server.store.base import EventStore, Record
from server.store.errors import (
    StoreConflict,
    StoreError,
    StoreFenced,
    StoreUnavailable,
    StoreUnknown,
)
from server.store.url import DEFAULT_STORE_URL, open_store

__all__ = [
    "DEFAULT_STORE_URL",
    "EventStore",
    "Record",
    "StoreConflict",
    "StoreError",
    "StoreFenced",
    "StoreUnavailable",
    "StoreUnknown",
    "open_store",
]
