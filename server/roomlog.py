"""A room's log records and the fold that rebuilds a room from them.

Every change to a room is one record in the room's append-only log (see
:mod:`server.store`). The records are plain data, one of three kinds:

``created`` (always seq 1)
    ``{"k": "created", "game", "seats", "options", "seed", "clock", "room", "at", "setup"}``
    where ``setup`` is the game's setup event (plain data), ``clock`` the seconds a
    seat has for each decision (0: no clock) and ``room`` the room's own settings
    (``bot_delay``, ``takeover_after``).
``seated``
    ``{"k": "seated", "seat", "name", "token" (sha256 of the seat token) | None,
    "bot" (policy) | None, "at"}`` - a seat taken by a person or a hosted bot.
``event``
    ``{"k": "event", "e": <game event>, "at", "seat"?, "cmd"?}`` - one game event. The
    last event a command caused carries the acting ``seat`` and the client's command
    id ``cmd`` (``None`` for a clock timeout), which is what makes retries idempotent
    across restarts.

:func:`fold` applies one record to a :class:`RoomModel`; the live room actor and
the rebuild after a restart use the same function, so they cannot disagree.
Time (``at``) is stamped by the shell; this module reads no clock.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import attrs

from engine.core import Game, get_game
from engine.data import to_data


@attrs.define
class SeatInfo:
    """Who holds a seat: a person (with a token hash) or a hosted bot."""

    name: str | None
    token: str | None = None
    bot: str | None = None


@attrs.define
class RoomModel:
    """Everything the log says about a room, rebuilt record by record."""

    room_id: str
    game: Game[Any]
    seats: int
    options: dict[str, Any]
    clock: float
    created_at: float
    settings: dict[str, Any]
    state: Any
    seq: int = 1
    holders: dict[int, SeatInfo] = attrs.field(factory=dict)
    awaiting_since: dict[int, float] = attrs.field(factory=dict)
    acks: dict[tuple[int, str], int] = attrs.field(factory=dict)

    @property
    def is_over(self) -> bool:
        return bool(self.game.is_over(self.state))

    @property
    def started(self) -> bool:
        """Play (and every clock) starts once every seat is taken."""
        return len(self.holders) >= self.seats

    @property
    def status(self) -> str:
        """``waiting`` for players, ``playing``, or ``finished``."""
        if self.is_over:
            return "finished"
        return "playing" if self.started else "waiting"

    def deadlines(self) -> dict[int, float]:
        """When each awaited seat's clock runs out (unix time); empty without a clock."""
        if self.clock <= 0 or self.is_over:
            return {}
        return {seat: since + self.clock for seat, since in self.awaiting_since.items()}

    def free_seats(self) -> list[int]:
        return [s for s in range(self.seats) if s not in self.holders]

    def seat_for_token(self, token: str) -> int | None:
        digest = token_hash(token)
        for seat, info in self.holders.items():
            if info.token is not None and info.token == digest:
                return seat
        return None


def token_hash(token: str) -> str:
    """What the log keeps of a seat token: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


def created_record(
    game: Game[Any],
    seats: int,
    options: Mapping[str, Any],
    seed: int,
    clock: float,
    at: float,
    settings: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The first record of a room; raises the game's BadOptions for bad options."""
    setup = game.setup(seats, options, seed)
    return {
        "k": "created",
        "game": game.name,
        "seats": seats,
        "options": dict(options),
        "seed": seed,
        "clock": clock,
        "room": dict(settings or {}),
        "at": at,
        "setup": to_data(setup),
    }


def seated_record(
    seat: int, name: str | None, token: str | None, bot: str | None, at: float
) -> dict[str, Any]:
    return {
        "k": "seated",
        "seat": seat,
        "name": name,
        "token": token_hash(token) if token else None,
        "bot": bot,
        "at": at,
    }


def event_records(
    events: tuple[Any, ...], at: float, seat: int | None, cmd: str | None
) -> list[dict[str, Any]]:
    """One record per game event; the last carries who acted and the command id."""
    records: list[dict[str, Any]] = [{"k": "event", "e": to_data(e), "at": at} for e in events]
    if records and seat is not None:
        records[-1]["seat"] = seat
        records[-1]["cmd"] = cmd
    return records


def start(room_id: str, record: Mapping[str, Any]) -> RoomModel:
    """The model from the ``created`` record (seq 1)."""
    game = get_game(record["game"])
    setup = game.events.load(record["setup"])
    model = RoomModel(
        room_id=room_id,
        game=game,
        seats=record["seats"],
        options=dict(record["options"]),
        clock=float(record["clock"]),
        created_at=float(record["at"]),
        settings=dict(record.get("room") or {}),
        state=game.create(setup),
    )
    return model


def fold(model: RoomModel, seq: int, record: Mapping[str, Any]) -> RoomModel:
    """Apply the record at ``seq`` to ``model`` (mutating it) and return it."""
    kind = record["k"]
    if kind == "seated":
        model.holders[record["seat"]] = SeatInfo(record["name"], record["token"], record["bot"])
        _track_clocks(model, float(record["at"]), None)
    elif kind == "event":
        model.state = model.game.evolve(model.state, model.game.events.load(record["e"]))
        acted = record.get("seat")
        if "cmd" in record and record["cmd"] is not None and acted is not None:
            model.acks[(acted, record["cmd"])] = seq
        if "seat" in record:
            _track_clocks(model, float(record["at"]), acted)
    else:
        raise ValueError(f"unknown record kind {kind!r} at seq {seq}")
    model.seq = seq
    return model


def _track_clocks(model: RoomModel, at: float, acted: int | None) -> None:
    """A seat's clock starts when it becomes awaited, and again after it acts."""
    live = model.started and not model.is_over
    awaiting = set(model.game.awaiting(model.state)) if live else set()
    if acted is not None:
        model.awaiting_since.pop(acted, None)
    for seat in list(model.awaiting_since):
        if seat not in awaiting:
            del model.awaiting_since[seat]
    for seat in awaiting:
        model.awaiting_since.setdefault(seat, at)


def rebuild(room_id: str, records: list[tuple[int, Mapping[str, Any]]]) -> RoomModel:
    """Fold a room's whole log (``(seq, data)`` pairs, seq 1 first)."""
    (first_seq, first), *rest = records
    if first_seq != 1 or first.get("k") != "created":
        raise ValueError(f"room {room_id}: log does not start with a created record")
    model = start(room_id, first)
    for seq, record in rest:
        fold(model, seq, record)
    return model
