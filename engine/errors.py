"""Typed rejections shared by every game.

Exception tree::

    RollhouseError (Exception)
    └── CodedError                carries a stable ``code``, a ``message`` and ``details``
        ├── Rejection             a command or an option refused
        │   ├── InvalidCommand (+ ValueError)   malformed data: unknown type, bad field
        │   ├── BadOptions (+ ValueError), GameOver, NotASeat
        │   └── every game's own rejections, e.g. ``rollie/pile_empty``
        ├── protocol.errors.ProtocolError (+ ValueError), server.errors.RoomRefusal
        ├── server.store.StoreError and its family
        └── clients.sdk.ClientError (CommandRejected, ConnectionLost): the SDK's errors

A rejection never changes state: ``decide`` raises it before producing events.
Codes are namespaced ``<area>/<reason>`` and never change once published; the
human message may.
"""

from __future__ import annotations

from typing import Any


class RollhouseError(Exception):
    """Base class of every error the engine raises on purpose."""


class CodedError(RollhouseError):
    """An error with a stable namespaced ``code``, a human ``message`` and plain ``details``."""

    code: str = "rollhouse/error"

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


class Rejection(CodedError):
    """A command refused by the rules, with a stable ``code`` and a human ``message``."""

    code = "engine/rejected"


class InvalidCommand(Rejection, ValueError):
    """The data does not describe a command of this game (unknown type, bad field)."""

    code = "command/invalid"


class BadOptions(Rejection, ValueError):
    """Room options or seat count the game does not accept."""

    code = "room/bad_options"


class GameOver(Rejection):
    """The game has ended; no command is accepted any more."""

    code = "game/over"


class NotASeat(Rejection):
    """The command names a seat that is not at this table."""

    code = "game/no_such_seat"
