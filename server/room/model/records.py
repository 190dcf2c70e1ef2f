"""A room's log records, the room model they build, and the pure fold between them.

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

:func:`evolve` applies one record to a :class:`RoomModel` and returns a new model; the
live room and the rebuild after a restart use the same function, so they cannot
disagree. Time (``at``) is stamped by the shell; this module reads no clock.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from engine.core import Game, get_game
from engine.data import to_data
from engine.fairness import commitment
from engine.frozen import replace

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
    """Digest of the command's body (:func:`body_digest`), to refuse a reused id."""
    by: str | None = None
    """``timeout``, ``bot`` or ``takeover`` when the player did not make the move."""
    command: Plain | None = None
    """The command that caused the events (on the last of them), as plain data."""
    value: Any = attrs.field(default=None, eq=False, repr=False)
    """The engine event ``event`` was made from, when this process made it: folding the
    room's own write then skips parsing it back (never stored, never compared)."""


@attrs.frozen
class Rematched:
    room: str
    at: float


Record = Created | Seated | Unseated | Left | Returned | TakenOver | Played | Rematched

_SEAT_KINDS: dict[str, type[Unseated | Left | Returned | TakenOver]] = {
    "unseated": Unseated,
    "left": Left,
    "returned": Returned,
    "takeover": TakenOver,
}
_KIND_OF: dict[type, str] = {v: k for k, v in _SEAT_KINDS.items()}


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
            return {"k": "seated", "seat": record.seat, "name": record.name,
                    "token": record.token, "bot": record.bot, "at": record.at}  # fmt: skip
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
        return Seated(data["seat"], data["name"], data["token"], data["bot"], float(data["at"]))
    if kind in _SEAT_KINDS:
        return _SEAT_KINDS[kind](data["seat"], float(data["at"]))
    if kind == "created":
        return Created(data["game"], data["seats"], dict(data["options"]), data["seed"],
                       float(data["clock"]), dict(data.get("room") or {}), float(data["at"]),
                       data["setup"], data.get("salt", ""), data.get("commit", ""))  # fmt: skip
    if kind == "rematch":
        return Rematched(data["room"], float(data["at"]))
    raise ValueError(f"unknown record kind {kind!r}")


def token_hash(token: str) -> str:
    """What the log keeps of a seat token: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


def body_digest(body: Mapping[str, Any]) -> str:
    """A short digest of a command's body, the same for equal bodies (key order aside)."""
    text = repr(sorted((str(k), repr(v)) for k, v in body.items()))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


# -- the model ----------------------------------------------------------------------------


@attrs.frozen
class SeatInfo:
    """Who holds a seat: a person (with a token hash) or a hosted bot."""

    name: str | None
    token: str | None = None
    bot: str | None = None


@attrs.frozen
class RoomModel:
    """Everything the log says about a room, rebuilt record by record."""

    room_id: str
    game: Game[Any]
    seats: int
    options: Mapping[str, Any]
    clock: float
    created_at: float
    settings: Mapping[str, Any]
    state: Any
    seq: int = 1
    holders: Mapping[int, SeatInfo] = attrs.field(factory=dict)
    awaiting_since: Mapping[int, float] = attrs.field(factory=dict)
    """When each awaited seat's clock started."""
    away: Mapping[int, float] = attrs.field(factory=dict)
    """Seats whose player left (rooms with takeover), and since when."""
    taken_over: frozenset[int] = frozenset()
    """Seats a bot plays for their absent player."""
    rematch: str | None = None
    last_move: tuple[int, str | None] | None = None
    """The seat that made the last move, and why the room made it (``timeout``...)."""
    seed: int = attrs.field(default=0, repr=False)
    """Secret until the game is over (with ``salt``); ``commit`` is public."""
    salt: str = attrs.field(default="", repr=False)
    commit: str = ""

    @property
    def is_over(self) -> bool:
        return bool(self.game.is_over(self.state))

    @property
    def started(self) -> bool:
        """Play (and every clock) starts once every seat is taken."""
        return len(self.holders) >= self.seats

    @property
    def live(self) -> bool:
        return self.started and not self.is_over

    @property
    def status(self) -> str:
        """``waiting`` for players, ``playing``, or ``finished``."""
        if self.is_over:
            return "finished"
        return "playing" if self.started else "waiting"

    @property
    def takeover_after(self) -> float | None:
        grace = self.settings.get("takeover_after")
        return None if grace is None else float(grace)

    def deadlines(self) -> dict[int, float]:
        """When each awaited seat's clock runs out (unix time); empty without a clock."""
        if self.clock <= 0 or self.is_over:
            return {}
        return {seat: since + self.clock for seat, since in self.awaiting_since.items()}

    def free_seats(self) -> list[int]:
        return [s for s in range(self.seats) if s not in self.holders]

    def humans(self) -> list[int]:
        """Seats held by people (not hosted bots)."""
        return [s for s, info in self.holders.items() if info.bot is None]

    def seat_for_token(self, token: str) -> int | None:
        digest = token_hash(token)
        for seat, info in self.holders.items():
            if info.token is not None and info.token == digest:
                return seat
        return None


def start(room_id: str, created: Created) -> RoomModel:
    """The model from the ``created`` record (seq 1)."""
    game = get_game(created.game)
    return RoomModel(
        room_id=room_id,
        game=game,
        seats=created.seats,
        options=dict(created.options),
        clock=created.clock,
        created_at=created.at,
        settings=dict(created.settings),
        state=game.create(game.events.trusted(created.setup)),
        seed=created.seed,
        salt=created.salt,
        commit=created.commit,
    )


def evolve(model: RoomModel, seq: int, record: Record) -> RoomModel:
    """The model after the record at ``seq``."""
    match record:
        case Played():
            game = model.game
            event = record.value
            if event is None:  # read from the log: the room's own writing, trusted
                event = game.events.trusted(record.event)
            state = game.evolve(model.state, event)
            if record.seat is None:
                return replace(model, state=state, seq=seq)
            live = model.started and not game.is_over(state)
            since = _clocks(game, state, live, model.awaiting_since, record.at, record.seat)
            return replace(model, state=state, seq=seq, awaiting_since=since,
                           last_move=(record.seat, record.by))  # fmt: skip
        case Seated():
            holders = {
                **model.holders,
                record.seat: SeatInfo(record.name, record.token, record.bot),
            }
            return _track_clocks(replace(model, holders=holders, seq=seq), record.at, None)
        case Unseated():
            holders = {s: h for s, h in model.holders.items() if s != record.seat}
            return replace(model, holders=holders, seq=seq)
        case Left():
            return replace(model, away={**model.away, record.seat: record.at}, seq=seq)
        case Returned():
            away = {s: t for s, t in model.away.items() if s != record.seat}
            taken = model.taken_over - {record.seat}
            return replace(model, away=away, taken_over=taken, seq=seq)
        case TakenOver():
            return replace(model, taken_over=model.taken_over | {record.seat}, seq=seq)
        case Rematched():
            return replace(model, rematch=record.room, seq=seq)
        case Created():
            raise ValueError(f"a created record at seq {seq}")


def _track_clocks(model: RoomModel, at: float, acted: int | None) -> RoomModel:
    """A seat's clock starts when it becomes awaited, and again after it acts."""
    since = _clocks(model.game, model.state, model.live, model.awaiting_since, at, acted)
    return model if since is model.awaiting_since else replace(model, awaiting_since=since)


def _clocks(
    game: Game[Any], state: Any, live: bool, before: Mapping[int, float], at: float,
    acted: int | None,
) -> Mapping[int, float]:  # fmt: skip
    """When each awaited seat's clock started: ``before`` itself when nothing changed."""
    awaiting = game.awaiting(state) if live else frozenset()
    since = {s: t for s, t in before.items() if s in awaiting and s != acted}
    for seat in awaiting:
        since.setdefault(seat, at)
    return before if since == before else since


def rebuild(room_id: str, records: Iterable[tuple[int, Record]]) -> RoomModel:
    """Fold a room's whole log (``(seq, record)`` pairs, seq 1 first)."""
    it = iter(records)
    first_seq, first = next(it)
    if first_seq != 1 or not isinstance(first, Created):
        raise ValueError(f"room {room_id}: log does not start with a created record")
    model = start(room_id, first)
    for seq, record in it:
        model = evolve(model, seq, record)
    return model


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
    seat: int, name: str | None, token: str | None, bot: str | None, at: float
) -> Seated:
    """A seat taken; ``token`` is hashed here, so the log never holds it."""
    return Seated(seat, name, token_hash(token) if token else None, bot, at)


def played_records(
    events: tuple[Any, ...],
    at: float,
    seat: int | None,
    cmd: str | None,
    body: str | None = None,
    by: str | None = None,
    command: Plain | None = None,
) -> list[Played]:
    """One record per game event; the last carries who acted, the command and why."""
    if seat is None or not events:
        return [Played(to_data(e), at, value=e) for e in events]
    *before, last = events
    records = [Played(to_data(e), at, value=e) for e in before]
    records.append(Played(to_data(last), at, seat, cmd, body, by, command, value=last))
    return records
