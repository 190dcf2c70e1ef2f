"""The refusals of the people service, in the one error tree (:mod:`protocol.errors`).

    CodedError (engine.errors)
    └── PeopleRefusal    a sign-in, session or registration refused, with its player/*
                         code (player/unauthorized, player/bad_credentials,
                         player/login_limited with ``retry_after`` seconds,
                         player/username_taken, player/already_registered)

Bad input (a display name, username or password that is not one) is a
:class:`protocol.errors.ProtocolError` with ``player/bad_name``, ``player/bad_username``
or ``player/bad_password``. The HTTP status of each code is in the catalogue.
"""

from __future__ import annotations

import math

from engine.errors import CodedError
from protocol.errors import LOGIN_LIMITED


class PeopleRefusal(CodedError):
    """A request about players or sessions the service refuses (a catalogued code)."""

    code = "player/unauthorized"

    def __init__(self, code: str, message: str, retry_after: float | None = None) -> None:
        if retry_after is None:
            super().__init__(message, code=code)
        else:
            super().__init__(message, code=code, retry_after=max(1, math.ceil(retry_after)))

    @property
    def retry_after(self) -> int | None:
        """Whole seconds to wait before trying again (for Retry-After), if any."""
        value = self.details.get("retry_after")
        return value if isinstance(value, int) else None


def limited(why: str, wait: float) -> PeopleRefusal:
    """``player/login_limited``: ``why``, try again in ``wait`` seconds."""
    return PeopleRefusal(LOGIN_LIMITED, f"{why}; try again in {math.ceil(wait)} s", wait)
