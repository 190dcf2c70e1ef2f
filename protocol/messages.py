"""The wire messages: one ``@attrs.frozen`` class per message ``type``.

Each class has a ``TYPE`` tag (the wire ``type`` field) and fields named as on the
wire, except ``Patch.from_`` which is ``from`` on the wire (see ``WIRE_NAMES``).
Plain-data fields (views, commands, patch ops, reject details) are ``dict`` /
``tuple`` values holding only plain data: None, bool, 64-bit int, finite float,
str, lists and str-keyed maps. Validators check the ranges the protocol states;
they raise :class:`~protocol.errors.ProtocolError` (a ValueError) naming the field.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import attrs

from protocol.errors import BAD_FIELD, MISSING_FIELD, PatchError, ProtocolError
from protocol.patch import check_op

Role = Literal["player", "spectator"]


def _length(lo: int, hi: int) -> Any:
    def check(_inst: Any, attr: attrs.Attribute[Any], value: str | None) -> None:
        if value is not None and not lo <= len(value) <= hi:
            raise ProtocolError(
                BAD_FIELD, f"{attr.name}: length must be {lo}..{hi}, got {len(value)}", attr.name
            )

    return check


TOKEN_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
"""What a client's own seat token may be made of (base64url, as ``secrets.token_urlsafe``)."""


def _own_token(_inst: Any, attr: attrs.Attribute[Any], value: str | None) -> None:
    if value is None:
        return
    if not 22 <= len(value) <= 128 or not TOKEN_ALPHABET.issuperset(value):
        raise ProtocolError(
            BAD_FIELD,
            f"{attr.name}: 22..128 characters of A-Z a-z 0-9 - _ (at least 128 random bits), "
            f"got {len(value)} characters",
            attr.name,
        )


def _client_id(_inst: Any, attr: attrs.Attribute[Any], value: str | None) -> None:
    if value is None:
        return
    if not 8 <= len(value) <= 64 or not TOKEN_ALPHABET.issuperset(value):
        raise ProtocolError(
            BAD_FIELD,
            f"{attr.name}: 8..64 characters of A-Z a-z 0-9 - _, got {len(value)} characters",
            attr.name,
        )


def _attempt(_inst: Any, attr: attrs.Attribute[Any], value: int | None) -> None:
    if value is not None and not 1 <= value < 2**53:
        raise ProtocolError(BAD_FIELD, f"{attr.name}: must be 1..2**53-1, got {value}", attr.name)


def _non_negative(_inst: Any, attr: attrs.Attribute[Any], value: int | None) -> None:
    if value is not None and value < 0:
        raise ProtocolError(BAD_FIELD, f"{attr.name}: must be >= 0, got {value}", attr.name)


def _game_command(_inst: Any, attr: attrs.Attribute[Any], value: dict[str, Any]) -> None:
    name = attr.name
    if "type" not in value:
        raise ProtocolError(MISSING_FIELD, f"{name}: missing field 'type'", f"{name}.type")
    if not isinstance(value["type"], str):
        raise ProtocolError(BAD_FIELD, f"{name}.type: expected str", f"{name}.type")


def check_ops(value: tuple[dict[str, Any], ...]) -> None:
    """Every op of a decoded patch is well formed (``protocol/bad_field`` naming it).

    Run by the codec on decoding, not by the constructor: the server builds several
    patches per change from ops its own diff made, and checking them again there cost
    a sixth of its CPU per command."""
    for i, op in enumerate(value):
        try:
            check_op(op)
        except PatchError as exc:
            raise ProtocolError(BAD_FIELD, f"ops[{i}]: {exc.message}", f"ops[{i}]") from exc


# -- client -> server ---------------------------------------------------------------------------


@attrs.frozen
class Hello:
    """The first message of every connection: which room, as whom, and where to resume.

    Version 2 adds ``session`` (a player's session token: their seat follows them, and
    private rooms they belong to open), ``invite`` (a private room's invite code) and
    ``new_seat_token``: a secret of the client's own making that becomes the seat token
    of the free seat this hello takes, so a hello sent again after the connection was
    lost before its welcome (the seat durable, its token never delivered) finds that
    seat again instead of a full room. Joins are idempotent, like commands by id.
    ``client`` and ``attempt`` number a client's connections (a random id of the client,
    the same on each, and 1, 2, 3...): a hello that reaches the room after a later
    connection of the same client holds its seat (a copy delayed between nodes while
    the client moved on) is refused, instead of taking the seat from it."""

    TYPE: ClassVar[str] = "hello"
    room: str
    role: Role
    name: str | None = attrs.field(default=None, validator=_length(1, 32))
    seat_token: str | None = None
    last_seq: int | None = attrs.field(default=None, validator=_non_negative)
    session: str | None = attrs.field(default=None, validator=_length(1, 256), repr=False)
    invite: str | None = attrs.field(default=None, validator=_length(1, 128), repr=False)
    new_seat_token: str | None = attrs.field(default=None, validator=_own_token, repr=False)
    client: str | None = attrs.field(default=None, validator=_client_id)
    attempt: int | None = attrs.field(default=None, validator=_attempt)


@attrs.frozen
class Command:
    """A game command with a client-chosen id (unique per seat; a retry reuses it)."""

    TYPE: ClassVar[str] = "command"
    id: str = attrs.field(validator=_length(1, 64))
    command: dict[str, Any] = attrs.field(validator=_game_command)


@attrs.frozen
class Act:
    """(Version 2) Something done to the room rather than in the game, with a client-chosen
    id: a chat line or a host's action (``act.type``: ``chat``, ``lock``, ``remove``,
    ``fill``, ``host``, ``admit``, ``hide``). Answered by ``ack`` or ``reject``."""

    TYPE: ClassVar[str] = "act"
    id: str = attrs.field(validator=_length(1, 64))
    act: dict[str, Any] = attrs.field(validator=_game_command)


@attrs.frozen
class Resync:
    """The client saw a gap in sequence numbers and asks for a fresh snapshot."""

    TYPE: ClassVar[str] = "resync"


@attrs.frozen
class Ping:
    """Application-level keepalive (browsers cannot send websocket pings)."""

    TYPE: ClassVar[str] = "ping"
    nonce: int | None = None


# -- server -> client ---------------------------------------------------------------------------


@attrs.frozen
class Welcome:
    """The answer to hello: the seat, its token, and a snapshot (or None: patches follow)."""

    TYPE: ClassVar[str] = "welcome"
    room: str
    game: str
    role: Role
    seat: int | None
    seat_token: str | None
    seq: int = attrs.field(validator=_non_negative)
    view: dict[str, Any] | None
    server_time: float = 0.0
    player: str | None = None
    """(Version 2, present only when the hello carried a valid session) your player id."""


@attrs.frozen
class Snapshot:
    """A full view at sequence ``seq`` (after resync, or when a gap is too large)."""

    TYPE: ClassVar[str] = "snapshot"
    seq: int = attrs.field(validator=_non_negative)
    view: dict[str, Any]


@attrs.frozen
class Ack:
    """A command was accepted; ``seq`` is the sequence number of its last event."""

    TYPE: ClassVar[str] = "ack"
    id: str
    seq: int = attrs.field(validator=_non_negative)


@attrs.frozen
class Reject:
    """A command was refused (by the game or the room); nothing was appended."""

    TYPE: ClassVar[str] = "reject"
    id: str
    code: str
    message: str
    details: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class Patch:
    """Moves the viewer's view from sequence ``from_`` (wire: ``from``) to ``to``."""

    TYPE: ClassVar[str] = "patch"
    from_: int = attrs.field(validator=_non_negative)
    to: int = attrs.field(validator=_non_negative)
    ops: tuple[dict[str, Any], ...]
    """Checked on decoding (:func:`check_ops`), trusted when the server builds it."""
    events: tuple[str, ...] = ()


@attrs.frozen
class SeatPresence:
    """One seat in a presence message."""

    seat: int
    name: str | None
    connected: bool
    bot: bool


@attrs.frozen
class Presence:
    """Who is at the table: every seat's name and connection, and the spectator count."""

    TYPE: ClassVar[str] = "presence"
    seats: tuple[SeatPresence, ...]
    spectators: int = attrs.field(validator=_non_negative)


@attrs.frozen
class Error:
    """A protocol or room error; ``fatal`` means the server closes the connection next."""

    TYPE: ClassVar[str] = "error"
    code: str
    message: str
    field: str | None = None
    fatal: bool = False


@attrs.frozen
class Pong:
    """The answer to ping, echoing its nonce, with the server's clock (unix seconds)."""

    TYPE: ClassVar[str] = "pong"
    nonce: int | None = None
    server_time: float = 0.0


ClientMessage = Hello | Command | Act | Resync | Ping
ServerMessage = Welcome | Snapshot | Ack | Reject | Patch | Presence | Error | Pong
Message = ClientMessage | ServerMessage

CLIENT_MESSAGES: dict[str, type[ClientMessage]] = {
    c.TYPE: c for c in (Hello, Command, Act, Resync, Ping)
}
CLIENT_MESSAGES_V1: dict[str, type[ClientMessage]] = {
    c.TYPE: c for c in (Hello, Command, Resync, Ping)
}
V2_FIELDS: dict[type, tuple[str, ...]] = {
    Hello: ("session", "invite", "new_seat_token", "client", "attempt"),
    Welcome: ("player",),
}
"""Fields version 2 added to version 1's messages: a v1 codec refuses them in what it
decodes, and every codec leaves them out of what it encodes while they are None."""
SERVER_MESSAGES: dict[str, type[ServerMessage]] = {
    c.TYPE: c for c in (Welcome, Snapshot, Ack, Reject, Patch, Presence, Error, Pong)
}

# attribute name -> wire name, where they differ (``from`` is a Python keyword).
WIRE_NAMES: dict[str, str] = {"from_": "from"}
ATTR_NAMES: dict[str, str] = {v: k for k, v in WIRE_NAMES.items()}
# fields carried as floats; engine.data does not handle floats, the codec does.
FLOAT_FIELDS: dict[type, tuple[str, ...]] = {Welcome: ("server_time",), Pong: ("server_time",)}
