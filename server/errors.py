"""The server's own refusals, in the one error tree (see :mod:`protocol.errors`).

    CodedError (engine.errors)
    └── RoomRefusal    the room or the service refuses a request (a code of the
                       catalogue: room/not_found, room/full, room/unavailable, ...)

The HTTP status of a refusal comes from the catalogue (:func:`protocol.errors.http_status`).
"""

from __future__ import annotations

from engine.errors import CodedError
from protocol.errors import http_status


class RoomRefusal(CodedError):
    """A request the room or the node refuses, with a catalogued wire code."""

    code = "room/unavailable"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code=code)

    @property
    def http_status(self) -> int:
        return http_status(self.code, 503)
