"""The catalogue of wire error codes, and the protocol's exception types.

Every code a client may see in an ``error`` or ``reject`` message is a constant
here with a one-line description, so the docs, the server and the tests share
one list. Codes are namespaced ``<area>/<reason>`` and never change once
published; the human messages may.

Exception tree::

    ValueError
    └── ProtocolError        a frame or a message the protocol refuses (code, message, field)
        └── PatchError       a patch op that does not fit the view (protocol/bad_patch)

Game rejections are not listed here: they travel in ``reject`` messages with the
game's own codes (``rollie/pile_empty``, ``command/unknown_type``,
``command/bad_field``, ``game/over``, ...); see ``engine.errors``.
"""

from __future__ import annotations

from typing import NamedTuple


class ProtocolError(ValueError):
    """A frame or message refused by the protocol: a stable ``code``, a ``message``, a ``field``."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.field = field

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r}, field={self.field!r})"


class PatchError(ProtocolError):
    """A patch op that does not fit the view it is applied to."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(BAD_PATCH, message, field)


class Code(NamedTuple):
    """One wire error code: what it means, how it arrives, and whether it ends the connection.

    ``via`` is ``"error"`` (an ``error`` message), ``"reject"`` (a ``reject`` answering a
    command's id), ``"error|reject"`` (reject for a command, error otherwise), ``"close"``
    (only the websocket close reason), ``"http"`` (an HTTP API error body) or ``"client"``
    (raised by the client library itself, never sent).
    """

    code: str
    description: str
    fatal: bool
    via: str


# -- protocol/*: the frame or message itself is wrong (sent as `error`) --------------------------
TOO_LARGE = "protocol/too_large"
MALFORMED = "protocol/malformed"
UNKNOWN_TYPE = "protocol/unknown_type"
BAD_FIELD = "protocol/bad_field"
UNKNOWN_FIELD = "protocol/unknown_field"
MISSING_FIELD = "protocol/missing_field"
BAD_PATCH = "protocol/bad_patch"

# -- room/*: the message is well-formed but the room or connection refuses it ------------------
ROOM_NOT_FOUND = "room/not_found"
ROOM_FULL = "room/full"
BAD_SEAT_TOKEN = "room/bad_seat_token"
READ_ONLY = "room/read_only"
HELLO_REQUIRED = "room/hello_required"
ALREADY_JOINED = "room/already_joined"
NOT_STARTED = "room/not_started"
RATE_LIMITED = "room/rate_limited"
SLOW_CONSUMER = "room/slow_consumer"
REPLACED = "room/replaced"
ORIGIN_FORBIDDEN = "room/origin_forbidden"
UNAVAILABLE = "room/unavailable"
UNKNOWN_GAME = "room/unknown_game"
BAD_OPTIONS = "room/bad_options"
# -- http/*: the HTTP API's own refusals ---------------------------------------------------------
BAD_JSON = "http/bad_json"

_E, _R, _ER = "error", "reject", "error|reject"
CATALOGUE: tuple[Code, ...] = (
    Code(TOO_LARGE, "the frame is larger than MAX_FRAME (65536 bytes)", False, _E),
    Code(
        MALFORMED,
        "not valid msgpack/JSON, not a map at the top, nested deeper than 32, "
        "or the wrong frame kind (text on msgpack, binary on JSON)",
        False,
        _E,
    ),
    Code(UNKNOWN_TYPE, "the message `type` is not one this side accepts", False, _E),
    Code(BAD_FIELD, "a field has the wrong type or an out-of-range value (field named)", False, _E),
    Code(
        UNKNOWN_FIELD, "the message has a field its type does not define (field named)", False, _E
    ),
    Code(MISSING_FIELD, "a required field is absent (field named)", False, _E),
    Code(BAD_PATCH, "client side only: a patch op does not fit the view; resync", False, "client"),
    Code(ROOM_NOT_FOUND, "no room with that id", True, _E),
    Code(ROOM_FULL, "a player asked to join but every seat is taken", True, _E),
    Code(BAD_SEAT_TOKEN, "the seat token belongs to no seat of this room", True, _E),
    Code(READ_ONLY, "a spectator sent a command; spectators can never act", False, _R),
    Code(HELLO_REQUIRED, "a message other than hello or ping arrived before hello", False, _ER),
    Code(ALREADY_JOINED, "a second hello on the same connection", False, _E),
    Code(NOT_STARTED, "a command before the game started (seats still free)", False, _R),
    Code(RATE_LIMITED, "too many messages; this one was dropped, slow down", False, _ER),
    Code(
        SLOW_CONSUMER,
        "the connection's outbox overflowed; reconnect and resume with last_seq",
        True,
        "close",
    ),
    Code(REPLACED, "a newer connection took this seat; do not reconnect automatically", True, _E),
    Code(ORIGIN_FORBIDDEN, "the browser Origin is not allowed to connect", True, _E),
    Code(UNAVAILABLE, "the event store or the room failed; reconnect later", True, _ER),
    Code(UNKNOWN_GAME, "POST /api/rooms named a game this server does not have", False, "http"),
    Code(BAD_OPTIONS, "POST /api/rooms: seats or options the game does not accept", False, "http"),
    Code(BAD_JSON, "an HTTP request body that is not a JSON object", False, "http"),
)

BY_CODE: dict[str, Code] = {c.code: c for c in CATALOGUE}

# The codes ProtocolError raised by decoding may carry (PatchError comes from apply()).
DECODE_CODES: frozenset[str] = frozenset(
    {TOO_LARGE, MALFORMED, UNKNOWN_TYPE, BAD_FIELD, UNKNOWN_FIELD, MISSING_FIELD}
)

# Game rejections use the game's own codes; these are examples, documented, not exhaustive.
GAME_CODE_EXAMPLES: tuple[str, ...] = (
    "rollie/pile_empty",
    "command/unknown_type",
    "command/bad_field",
    "game/over",
)


def describe(code: str) -> str:
    """The one-line description of a catalogued code (KeyError for unknown codes)."""
    return BY_CODE[code].description


def is_fatal(code: str) -> bool:
    """Whether the server closes the connection after an `error` with this code."""
    entry = BY_CODE.get(code)
    return entry.fatal if entry is not None else False
