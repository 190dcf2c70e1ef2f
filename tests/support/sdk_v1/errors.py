"""The SDK's errors: one branch of the engine's coded-error tree.

Exception tree::

    engine.errors.CodedError      a stable ``code``, a human ``message``, plain ``details``
    └── ClientError               something the SDK could not do; ``code`` is the wire code
        ├── CommandRejected       the room refused a command (a ``reject``); nothing changed
        └── ConnectionLost        the client gave up: a final error (``room/replaced``,
                                  ``room/not_found``, ...), ``client/gave_up`` or ``client/closed``

``str(exc)`` is ``"<code>: <message>"``.
"""

from __future__ import annotations

from typing import Any

from engine.errors import CodedError


class ClientError(CodedError):
    """Base of the SDK's errors; ``code`` is the wire code (``room/full``, ``http/error``)."""

    code = "client/error"

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message, code=code)
        self.details = dict(details or {})

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class CommandRejected(ClientError):
    """The room refused a command (nothing changed); ``code`` says why."""


class ConnectionLost(ClientError):
    """The client gave up (a final error, or closed)."""
