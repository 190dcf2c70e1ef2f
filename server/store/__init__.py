"""The event store: the durable append-only log of every room.

``open_store(url)`` returns an :class:`EventStore` backed by memory (tests), SQLite
(the embedded single-node default) or Redis Streams (production). Every backend
obeys one contract (tests/store/test_contract.py): ``append`` with an expected
sequence is atomic and raises :class:`StoreConflict` when the log has moved on;
appends are group-committed by the durable backends.
"""

from __future__ import annotations

from server.store.base import EventStore, Record
from server.store.errors import StoreConflict, StoreError, StoreUnavailable
from server.store.url import DEFAULT_STORE_URL, open_store

__all__ = [
    "DEFAULT_STORE_URL",
    "EventStore",
    "Record",
    "StoreConflict",
    "StoreError",
    "StoreUnavailable",
    "open_store",
]
