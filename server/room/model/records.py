"""A room's log records: their kinds, their plain form in the store, and how a room makes them.

Every change to a room is one record in its append-only log (see :mod:`server.store`).
Records are frozen values; on the wire of the store they are plain maps with a kind
``k`` (the names below), so logs written by earlier versions still load:

``created`` (always seq 1)
    the game, seats, options, seed, clock (seconds per decision, 0: none), the
    room's own settings (``bot_delay``, ``takeover_after``, ``takeover_policy``), the
    time, the game's setup event, and the commitment to the seed: ``commit`` is
    ``sha256(salt + ":" + seed)`` (hex), public from the start; ``salt`` and ``seed``
    stay secret until the game is over (docs/fairness.md).
``seated`` / ``unseated``
    a seat taken by a person (``token``: the SHA-256 of the seat token, never the
    token) or a hosted bot (``bot``: its policy); ``unseated`` gives back a seat whose
    token never reached its player (the hello's connection was gone by the time
    the seat was durable).
``left`` / ``returned`` / ``takeover``
    in rooms with ``takeover_after``: a seat's player went away, came back, or has
    been away past the grace period so that a bot now plays the seat. Time away is
    in the log, so a takeover survives a restart.
``event``
    one game event. The last event a command caused carries the acting ``seat``, the
    client's command id ``cmd``, the digest ``h`` of the command's body, the command
    itself ``c`` (plain data, so that anyone can replay the game's dice from the seed
    once it is revealed), and ``by``: what made the move when it was not the player
    (``timeout``, ``bot``, ``takeover``).
``rematch``
    the room a rematch of this one was created as.
``claimed``
    a seat held for a player (a quick match's reservation, ``hold`` on its ``seated``
    record) was taken by that player's connection; until then the game does not start.
``act``
    something a person did to the room rather than in the game: a chat line, a host's
    action (lock, remove, fill with bots, hand over the host role, hide a chat line,
    re-issue the invite code, admit a player), or the host role passing on by itself.
    ``a`` is the act (a map with its ``type``), ``by`` the player id of who did it
    (None: the room itself), ``id`` the client's act id, ``name`` and ``seat`` who
    they were at the table. The invite code is kept only as its SHA-256.

A ``created`` record's room settings may say (absent: the defaults of a room made
before players existed): ``visibility`` (``public``, ``unlisted``, ``private``),
``host`` (the creating player's id), ``watch`` (may spectators watch), ``spectator_chat``
(``apart``: spectators have a channel of their own; ``together``: they write in the
players'), ``fill_bots_after`` (seconds after the first seat is taken when the free
seats get bots), ``host_grace`` (seconds the host may be gone before the role passes).

A seat token and a command's body are kept as digests (:mod:`~.digests`). The records
fold into a :class:`~server.room.model.room.RoomModel` in :mod:`~.fold`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from engine.core import Game
from engine.data import to_data
from engine.fairness import commitment
from server.room.model.digests import token_hash

Plain = dict[str, Any]


# -- records ------------------------------------------------------------------------------


@attrs.frozen
class Created:
    game: str
    seats: int
    options: Mapping[str, Any]
    seed: int
    clock: float
    settings: Mapping[str, Any]
    at: float
    setup: Plain
    salt: str = ""
    commit: str = ""


@attrs.frozen
class Seated:
    seat: int
    name: str | None
    token: str | None
    """The SHA-256 of the seat token (None for a hosted bot)."""
    bot: str | None
    at: float
    player: str | None = None
    """The player whose seat it is (None: a seat token's, or a bot's)."""
    hold: float | None = None
    """Held for ``player`` until then (a quick match): claimed when they arrive."""


@attrs.frozen
class Unseated:
    seat: int
    at: float


@attrs.frozen
class Left:
    seat: int
    at: float


@attrs.frozen
class Returned:
    seat: int
    at: float


@attrs.frozen
class TakenOver:
    seat: int
    at: float


@attrs.frozen
class Played:
    """One game event; the last of a command's events says who acted and why."""

    event: Plain
    at: float
    seat: int | None = None
    cmd: str | None = None
    body: str | None = None
    """Digest of the command's body (:func:`~.digests.body_digest`), to refuse a reused id."""
    by: str | None = None
    """``timeout``, ``bot`` or ``takeover`` when the player did not make the move."""
    command: Plain | None = None
    """The command that caused the events (on the last of them), as plain data."""
    value: Any = attrs.field(default=None, eq=False, repr=False)
    """The engine event ``event`` was made from, when this process made it: folding the
    room's own write then skips parsing it back (never stored, never compared)."""
    states: tuple[Any, Any] | None = attrs.field(default=None, eq=False, repr=False)
    """The game's state before and after ``value``, when deciding worked them out: the
    fold takes the second instead of evolving again, if its state is the first (the
    same object: evolve is pure). Never stored, never compared."""


@attrs.frozen
class Rematched:
    room: str
    at: float


@attrs.frozen
class Claimed:
    seat: int
    at: float


@attrs.frozen
class RoomAct:
    """A person's act on the room (chat, a host's action); see the module docstring."""

    act: Plain
    at: float
    by: str | None = None
    id: str | None = None
    name: str | None = None
    seat: int | None = None


Record = (
    Created | Seated | Unseated | Left | Returned | TakenOver | Played | Rematched | Claimed
    | RoomAct
)  # fmt: skip

_SEAT_KINDS: dict[str, type[Unseated | Left | Returned | TakenOver | Claimed]] = {
    "unseated": Unseated,
    "left": Left,
    "returned": Returned,
    "takeover": TakenOver,
    "claimed": Claimed,
}
_KIND_OF: dict[type, str] = {v: k for k, v in _SEAT_KINDS.items()}


# -- the plain form (what the store keeps) ------------------------------------------------


def to_plain(record: Record) -> Plain:
    """The plain map the store keeps for ``record``."""
    match record:
        case Played():
            out: Plain = {"k": "event", "e": record.event, "at": record.at}
            if record.seat is not None:
                out["seat"] = record.seat
                out["cmd"] = record.cmd
                if record.body is not None:
                    out["h"] = record.body
                if record.by is not None:
                    out["by"] = record.by
                if record.command is not None:
                    out["c"] = record.command
            return out
        case Seated():
            out = {"k": "seated", "seat": record.seat, "name": record.name,
                   "token": record.token, "bot": record.bot, "at": record.at}  # fmt: skip
            if record.player is not None:
                out["player"] = record.player
            if record.hold is not None:
                out["hold"] = record.hold
            return out
        case RoomAct():
            out = {"k": "act", "a": dict(record.act), "at": record.at}
            for key, value in (("by", record.by), ("id", record.id), ("name", record.name),
                               ("seat", record.seat)):  # fmt: skip
                if value is not None:
                    out[key] = value
            return out
        case Created():
            return {"k": "created", "game": record.game, "seats": record.seats,
                    "options": dict(record.options), "seed": record.seed,
                    "clock": record.clock, "room": dict(record.settings),
                    "at": record.at, "setup": record.setup, "salt": record.salt,
                    "commit": record.commit}  # fmt: skip
        case Rematched():
            return {"k": "rematch", "room": record.room, "at": record.at}
        case _:
            return {"k": _KIND_OF[type(record)], "seat": record.seat, "at": record.at}


def from_plain(data: Mapping[str, Any]) -> Record:
    """The record a plain map holds (ValueError for an unknown kind)."""
    kind = data.get("k")
    if kind == "event":
        return Played(data["e"], float(data["at"]), data.get("seat"), data.get("cmd"),
                      data.get("h"), data.get("by"), data.get("c"))  # fmt: skip
    if kind == "seated":
        hold = data.get("hold")
        return Seated(data["seat"], data["name"], data["token"], data["bot"], float(data["at"]),
                      data.get("player"), None if hold is None else float(hold))  # fmt: skip
    if kind == "act":
        return RoomAct(dict(data["a"]), float(data["at"]), data.get("by"), data.get("id"),
                       data.get("name"), data.get("seat"))  # fmt: skip
    if kind in _SEAT_KINDS:
        return _SEAT_KINDS[kind](data["seat"], float(data["at"]))
    if kind == "created":
        return Created(data["game"], data["seats"], dict(data["options"]), data["seed"],
                       float(data["clock"]), dict(data.get("room") or {}), float(data["at"]),
                       data["setup"], data.get("salt", ""), data.get("commit", ""))  # fmt: skip
    if kind == "rematch":
        return Rematched(data["room"], float(data["at"]))
    raise ValueError(f"unknown record kind {kind!r}")


# -- the records a room writes ------------------------------------------------------------


def created_record(
    game: Game[Any],
    seats: int,
    options: Mapping[str, Any],
    seed: int,
    clock: float,
    at: float,
    settings: Mapping[str, Any] | None = None,
    salt: str = "",
) -> Created:
    """The first record of a room; raises the game's BadOptions for bad options.

    ``salt`` (fresh randomness from the shell) makes the seed's commitment unguessable."""
    setup = game.setup(seats, options, seed)
    return Created(game.name, seats, dict(options), seed, clock, dict(settings or {}), at,
                   to_data(setup), salt, commitment(seed, salt))  # fmt: skip


def seated_record(
    seat: int,
    name: str | None,
    token: str | None,
    bot: str | None,
    at: float,
    player: str | None = None,
    hold: float | None = None,
) -> Seated:
    """A seat taken; ``token`` is hashed here, so the log never holds it."""
    return Seated(seat, name, token_hash(token) if token else None, bot, at, player, hold)


def played_records(
    events: tuple[Any, ...],
    at: float,
    seat: int | None,
    cmd: str | None,
    body: str | None = None,
    by: str | None = None,
    command: Plain | None = None,
    states: tuple[Any, tuple[Any, ...] | None] = (None, None),
) -> list[Played]:
    """One record per game event; the last carries who acted, the command and why.
    ``states``: the game's state the events were decided on, and the state after each
    when deciding worked them out (see :attr:`Played.states`)."""
    base, afters = states
    folds: list[tuple[Any, Any] | None] = [None] * len(events)
    if afters is not None and len(afters) == len(events):
        folds = list(zip((base, *afters[:-1]), afters, strict=True))
    if seat is None or not events:
        return [
            Played(to_data(e), at, value=e, states=f) for e, f in zip(events, folds, strict=True)
        ]
    records = [Played(to_data(e), at, value=e, states=f)
               for e, f in zip(events[:-1], folds[:-1], strict=True)]  # fmt: skip
    last = events[-1]
    records.append(Played(to_data(last), at, seat, cmd, body, by, command, value=last,
                          states=folds[-1]))  # fmt: skip
    return records
