"""The catalogue of wire error codes, and the protocol's exception types.

Every code a client may see in an ``error`` or ``reject`` message is a constant
here with a one-line description, so the docs, the server and the tests share
one list. Codes are namespaced ``<area>/<reason>`` and never change once
published; the human messages may.

There is one error tree in Rollhouse, rooted at :class:`engine.errors.CodedError`
(``code``, ``message``, ``details``); the protocol's part of it::

    CodedError (engine.errors)
    ├── ProtocolError (+ ValueError)  a frame or message the protocol refuses (details: field)
    │   └── PatchError                a patch op that does not fit the view (protocol/bad_patch)
    ├── Rejection (engine.errors)     a command or option refused by a game's rules
    ├── server.errors.RoomRefusal     the room or the service refuses (room/full, ...)
    ├── server.store.StoreError       the event store failed
    └── clients.sdk.ClientError       raised by the SDK (a reject, a lost connection)

Game rejections are not listed here: they travel in ``reject`` messages with the
game's own codes (``rollie/pile_empty``, ``command/unknown_type``,
``command/bad_field``, ``game/over``, ...); see ``engine.errors``. The HTTP status of
an API error comes from the catalogue (:func:`http_status`), never from comparing
code strings.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.errors import CodedError


class ProtocolError(CodedError, ValueError):
    """A frame or message refused by the protocol: a stable ``code``, a ``message``, a ``field``."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message, code=code, field=field)
        self.field = field

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

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
    http: int | None = None
    """The HTTP status when this code answers an API request (None: never does)."""


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
MOVED = "room/moved"
UNKNOWN_GAME = "room/unknown_game"
BAD_OPTIONS = "room/bad_options"
TOO_MANY_ROOMS = "room/too_many_rooms"
NOT_FINISHED = "room/not_finished"
TOO_MANY_CONNECTIONS = "room/too_many_connections"
HELLO_TIMEOUT = "room/hello_timeout"
REMOVED = "room/removed"
LOCKED = "room/locked"
NO_SPECTATORS = "room/no_spectators"
NOT_HOST = "room/not_host"
ALREADY_STARTED = "room/already_started"
BAD_ACTION = "room/bad_action"
# -- chat/*: table chat --------------------------------------------------------------------------
BAD_TEXT = "chat/bad_text"
CHAT_RATE_LIMITED = "chat/rate_limited"
CHAT_NOT_ALLOWED = "chat/not_allowed"
# -- player/*: players, sessions, sign-in ---------------------------------------------------------
BAD_NAME = "player/bad_name"
UNAUTHORIZED = "player/unauthorized"
BAD_CREDENTIALS = "player/bad_credentials"
LOGIN_LIMITED = "player/login_limited"
USERNAME_TAKEN = "player/username_taken"
BAD_USERNAME = "player/bad_username"
BAD_PASSWORD = "player/bad_password"
ALREADY_REGISTERED = "player/already_registered"
# -- command/*: the room's own refusals of a command (the game's are in engine.errors) ----------
ID_REUSED = "command/id_reused"
# -- http/*: the HTTP API's own refusals ---------------------------------------------------------
BAD_JSON = "http/bad_json"
TOO_LARGE_BODY = "http/too_large"
HTTP_RATE_LIMITED = "http/rate_limited"
HTTP_NOT_FOUND = "http/not_found"
HTTP_INTERNAL = "http/internal"
BAD_QUERY = "http/bad_query"
BAD_IMPORT = "http/bad_import"
# -- room/closed, server/*, operator/*: the operator console (server/operator) ------------------
ROOM_CLOSED = "room/closed"
BANNED = "server/banned"
NOTICE = "server/notice"
OPERATOR_UNAUTHORIZED = "operator/unauthorized"
OPERATOR_OFF = "operator/off"
OPERATOR_LIMITED = "operator/rate_limited"

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
    Code(ROOM_NOT_FOUND, "no room with that id", True, _E, 404),
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
    Code(
        ORIGIN_FORBIDDEN,
        "the browser Origin is not allowed to connect (HTTP 403 at the handshake, no upgrade)",
        True,
        "http",
        403,
    ),
    Code(
        UNAVAILABLE,
        "the event store or the room failed; nothing changed unless acknowledged; retry later",
        True,
        _ER,
        503,
    ),
    Code(
        MOVED,
        "the room moved to another node (drain, failover, fencing); reconnect (to any node) "
        "and resume with last_seq; not an error to show",
        True,
        _E,
        503,
    ),
    Code(
        ID_REUSED,
        "a command id this seat already used, sent with a different command; use a fresh id",
        False,
        _R,
    ),
    Code(
        UNKNOWN_GAME, "POST /api/rooms named a game this server does not have", False, "http", 404
    ),
    Code(
        BAD_OPTIONS,
        "POST /api/rooms: seats or options the game does not accept",
        False,
        "http",
        400,
    ),
    Code(BAD_JSON, "an HTTP request body that is not a JSON object", False, "http", 400),
    Code(
        TOO_LARGE_BODY,
        "an HTTP request body over the limit (64 KiB by default)",
        False,
        "http",
        413,
    ),
    Code(
        HTTP_RATE_LIMITED,
        "too many rooms or guest players created from this address; retry after the "
        "Retry-After seconds",
        False,
        "http",
        429,
    ),
    Code(HTTP_NOT_FOUND, "no such HTTP route or file", False, "http", 404),
    Code(HTTP_INTERNAL, "a server bug; reported, never expected", False, "http", 500),
    Code(BAD_QUERY, "a query parameter out of range or not a number (named)", False, "http", 400),
    Code(
        BAD_IMPORT,
        "POST /api/rooms/import: not a complete Rollhouse export of a finished game whose dice verify",
        False,
        "http",
        400,
    ),
    Code(
        NOT_FINISHED,
        "the room's game is not over (an export, or a seed, waits for the end)",
        False,
        "http",
        409,
    ),
    Code(
        TOO_MANY_ROOMS,
        "POST /api/rooms: this node holds as many live rooms as it may; retry later",
        False,
        "http",
        429,
    ),
    Code(
        TOO_MANY_CONNECTIONS,
        "the websocket handshake from an address already holding the most connections allowed",
        True,
        "http",
        429,
    ),
    Code(HELLO_TIMEOUT, "no hello arrived within the hello timeout (10 s by default)", True, _E),
    Code(REMOVED, "the host removed you from this room; you cannot come back to it", True, _E, 404),
    Code(
        LOCKED, "the host locked the seats: no one new may sit down (watch instead)", True, _E, 409
    ),
    Code(NO_SPECTATORS, "this room does not take spectators (its host said so)", True, _E),
    Code(NOT_HOST, "only the room's host may do this", False, _R, 403),
    Code(
        ALREADY_STARTED,
        "the game has begun: no host action may change it (chat moderation still may)",
        False,
        _R,
        409,
    ),
    Code(
        BAD_ACTION,
        "an `act` the room does not know, or one missing what it needs (field named)",
        False,
        _R,
        400,
    ),
    Code(
        BAD_TEXT,
        "a chat message that is empty, over 500 characters, or holds control, bidi-override or "
        "zero-width characters",
        False,
        _R,
    ),
    Code(CHAT_RATE_LIMITED, "too many chat messages from you; wait a few seconds", False, _R),
    Code(
        CHAT_NOT_ALLOWED,
        "this room keeps spectators out of the players' channel (or you may not write there)",
        False,
        _R,
    ),
    Code(
        BAD_NAME,
        "a display name that is not 1-32 characters after NFKC normalisation, or holds control, "
        "bidi-override or zero-width characters",
        False,
        _ER,
        400,
    ),
    Code(
        UNAUTHORIZED,
        "no valid player session (missing, unknown, expired or signed out)",
        True,
        _E,
        401,
    ),
    Code(BAD_CREDENTIALS, "that username and password do not match a player", False, "http", 401),
    Code(
        LOGIN_LIMITED,
        "too many failed sign-ins for this account or address, or session tokens that open "
        "nothing from this address; retry after Retry-After seconds",
        False,
        "http",
        429,
    ),
    Code(USERNAME_TAKEN, "another player has that username", False, "http", 409),
    Code(
        BAD_USERNAME,
        "a username must be 3-32 characters: a-z, 0-9, '.', '_' or '-'",
        False,
        "http",
        400,
    ),
    Code(BAD_PASSWORD, "a password must be 10-256 characters", False, "http", 400),
    Code(ALREADY_REGISTERED, "this player has a username and password already", False, "http", 409),
    Code(
        ROOM_CLOSED,
        "an operator closed this room (the message says why); nobody may join it again",
        True,
        _E,
        410,
    ),
    Code(
        BANNED,
        "an operator banned this address or player for a time (the message says until when): "
        "refused at the websocket handshake, at hello and on the HTTP API",
        True,
        _E,
        403,
    ),
    Code(
        NOTICE,
        "not a refusal: an operator's maintenance notice to every connection (the message is "
        "its text); the connection stays",
        False,
        _E,
    ),
    Code(
        OPERATOR_UNAUTHORIZED,
        "an operator console route without the operator token (or with a wrong one)",
        False,
        "http",
        401,
    ),
    Code(OPERATOR_OFF, "the operator console is off: no operator token is set", False, "http", 404),
    Code(
        OPERATOR_LIMITED,
        "too many operator console requests, or wrong tokens, from this address; retry after "
        "Retry-After seconds",
        False,
        "http",
        429,
    ),
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


def http_status(code: str, default: int = 400) -> int:
    """The HTTP status of an API error with ``code`` (``default`` for uncatalogued codes:
    game rejections and option errors are the client's mistake)."""
    entry = BY_CODE.get(code)
    return entry.http if entry is not None and entry.http is not None else default


def describe(code: str) -> str:
    """The one-line description of a catalogued code (KeyError for unknown codes)."""
    return BY_CODE[code].description


def is_fatal(code: str) -> bool:
    """Whether the server closes the connection after an `error` with this code."""
    entry = BY_CODE.get(code)
    return entry.fatal if entry is not None else False
