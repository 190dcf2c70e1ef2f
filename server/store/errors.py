"""Typed errors of the event store.

Exception tree::

    CodedError (engine.errors: code, message, details, to_data)
    └── StoreError                 store/error (or a more precise store/... code)
        ├── StoreConflict          store/conflict: the log is not at the expected seq
        ├── StoreFenced            store/fenced: a newer fence epoch owns the room; nothing written
        └── StoreUnavailable       store/unavailable: the backend is down or closed; nothing written
            └── StoreUnknown       store/unknown: an append was (maybe) sent and its outcome
                                   is not known; read the log (after fencing) to find out

Input mistakes (a bad room id, a bad URL, data msgpack cannot carry) are plain
``StoreError`` with a precise code such as ``store/bad_room``.
"""

from __future__ import annotations

from engine.errors import CodedError


class StoreError(CodedError):
    """Base of every error the store raises on purpose; carries a stable ``code``."""

    code = "store/error"


class StoreConflict(StoreError):
    """Optimistic concurrency failure: the room's log was not at ``expected``; nothing written."""

    code = "store/conflict"

    def __init__(self, room: str, expected: int, actual: int) -> None:
        super().__init__(
            f"room {room!r}: expected last seq {expected}, the log is at {actual}",
            room=room,
            expected=expected,
            actual=actual,
        )
        self.room = room
        self.expected = expected
        self.actual = actual


class StoreUnavailable(StoreError):
    """The backend is down, unreachable or the store was closed."""

    code = "store/unavailable"


class StoreFenced(StoreError):
    """The append carried an old fence epoch: another writer fenced the room; nothing written."""

    code = "store/fenced"

    def __init__(self, room: str, fence: int, current: int) -> None:
        super().__init__(
            f"room {room!r}: fence epoch {fence} is stale (now {current})",
            room=room,
            fence=fence,
            current=current,
        )


class StoreUnknown(StoreUnavailable):
    """The append may have been written or not (a timeout or a lost connection after
    sending). Fence the room and read its log to learn which."""

    code = "store/unknown"
