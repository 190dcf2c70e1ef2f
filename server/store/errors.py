"""Typed errors of the event store.

Exception tree::

    RollhouseError (engine.errors)
    └── StoreError                 store/error (or a more precise store/... code)
        ├── StoreConflict          store/conflict: the log is not at the expected seq
        └── StoreUnavailable       store/unavailable: the backend is down or closed

Input mistakes (a bad room id, a bad URL, data msgpack cannot carry) are plain
``StoreError`` with a precise code such as ``store/bad_room``.
"""

from __future__ import annotations

from typing import Any

from engine.errors import RollhouseError


class StoreError(RollhouseError):
    """Base of every error the store raises on purpose; carries a stable ``code``."""

    code: str = "store/error"

    def __init__(self, message: str, *, code: str | None = None, **details: Any) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.details = details

    def to_data(self) -> dict[str, Any]:
        """Plain data for the wire: ``{"code", "message", **details}``."""
        return {"code": self.code, "message": self.message, **self.details}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


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
