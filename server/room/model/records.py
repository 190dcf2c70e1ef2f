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
    """Who holds a seat: a person (with a token hash, a player id, or both) or a hosted bot."""

    name: str | None
    token: str | None = None
    bot: str | None = None
    player: str | None = None
    hold: float | None = None
    """Held for ``player`` until this time, and not yet claimed (a quick match)."""


@attrs.frozen
class ChatLine:
    """One line of table chat (``seq``: its record's)."""

    seq: int
    channel: str
    """``players`` (everyone reads it) or ``spectators`` (spectators only)."""
    text: str
    at: float
    name: str | None
    seat: int | None
    player: str | None


CHAT_KEPT = 200
"""Chat lines a room's model keeps per channel (the history has every line)."""


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
    host: str | None = None
    """The host's player id (None: a room with no host)."""
    invite: str | None = attrs.field(default=None, repr=False)
    """The SHA-256 of the room's invite code (None: none issued, or revoked)."""
    members: frozenset[str] = frozenset()
    """Players let in (by the host, or with the invite code) besides the seated."""
    banned: frozenset[str] = frozenset()
    """Players the host removed: they may not come back."""
    banned_tokens: frozenset[str] = attrs.field(default=frozenset(), repr=False)
    """The seat-token digests of seats the host emptied."""
    locked: bool = False
    chat: tuple[ChatLine, ...] = ()
    """The latest lines of every channel (hidden lines removed)."""
    closed: str | None = None
    """Why an operator closed the room (None: open). A closed room takes nobody and
    time no longer moves it; its log stays readable."""

    @property
    def visibility(self) -> str:
        return str(self.settings.get("visibility", "public"))

    @property
    def watchable(self) -> bool:
        """Whether spectators may watch (invited ones only in a private room)."""
        return bool(self.settings.get("watch", True))

    @property
    def host_grace(self) -> float:
        return float(self.settings.get("host_grace", 60.0))

    def players(self) -> frozenset[str]:
        """The player ids holding a seat."""
        return frozenset(h.player for h in self.holders.values() if h.player is not None)

    def seat_of(self, player: str | None) -> int | None:
        """The seat ``player`` holds, if any."""
        if player is None:
            return None
        for seat, info in self.holders.items():
            if info.player == player:
                return seat
        return None

    @property
    def is_over(self) -> bool:
        return bool(self.game.is_over(self.state))

    @property
    def started(self) -> bool:
        """Play (and every clock) starts once every seat is taken (and every seat held
        for a player is claimed by them)."""
        return len(self.holders) >= self.seats and all(
            h.hold is None for h in self.holders.values()
        )

    @property
    def live(self) -> bool:
        return self.started and not self.is_over and self.closed is None

    @property
    def status(self) -> str:
        """``waiting`` for players, ``playing``, ``finished``, or ``closed`` (by an operator)."""
        if self.closed is not None:
            return "closed"
        if self.is_over:
            return "finished"
        return "playing" if self.started else "waiting"

    @property
    def takeover_after(self) -> float | None:
        grace = self.settings.get("takeover_after")
        return None if grace is None else float(grace)

    def deadlines(self) -> dict[int, float]:
        """When each awaited seat's clock runs out (unix time); empty without a clock."""
        if self.clock <= 0 or self.is_over or self.closed is not None:
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
    host = created.settings.get("host")
    return RoomModel(
        host=None if host is None else str(host),
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
            info = SeatInfo(record.name, record.token, record.bot, record.player, record.hold)
            holders = {**model.holders, record.seat: info}
            return _track_clocks(replace(model, holders=holders, seq=seq), record.at, None)
        case Unseated():
            holders = {s: h for s, h in model.holders.items() if s != record.seat}
            return replace(model, holders=holders, seq=seq)
        case Claimed():
            held = model.holders[record.seat]
            holders = {**model.holders, record.seat: replace(held, hold=None)}
            return _track_clocks(replace(model, holders=holders, seq=seq), record.at, None)
        case RoomAct():
            return _track_clocks(replace(act_on(model, seq, record), seq=seq), record.at, None)
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


def game_events(records: Iterable[Record]) -> list[Any] | None:
    """The engine events among ``records``, in order; None if one of them is known only
    as plain data (read back from the log, not made by this process)."""
    out = []
    for record in records:
        if type(record) is Played:
            if record.value is None:
                return None
            out.append(record.value)
    return out


def act_on(model: RoomModel, seq: int, record: RoomAct) -> RoomModel:
    """The model after a person's act at ``seq`` (the log's own record: trusted)."""
    act = record.act
    match act.get("type"):
        case "chat" if act.get("hidden"):  # a line hidden later, read from a redacted log
            return model
        case "chat":
            line = ChatLine(seq, str(act["channel"]), str(act["text"]), record.at,
                            record.name, record.seat, record.by)  # fmt: skip
            same = [c for c in model.chat if c.channel == line.channel]
            drop = {c.seq for c in same[: max(0, len(same) + 1 - CHAT_KEPT)]}
            chat = (*(c for c in model.chat if c.seq not in drop), line)
            return replace(model, chat=chat)
        case "hide":
            return replace(model, chat=tuple(c for c in model.chat if c.seq != act["seq"]))
        case "lock":
            return replace(model, locked=bool(act["on"]))
        case "close":  # an operator's (server/operator)
            return replace(model, closed=str(act.get("reason") or "closed"))
        case "host":
            player = act.get("player")
            return replace(model, host=None if player is None else str(player))
        case "invite":
            code = act.get("hash")
            return replace(model, invite=None if code is None else str(code))
        case "admit":
            return replace(model, members=model.members | {str(act["player"])})
        case "remove":
            removed = _removed(model, act.get("seat"), act.get("player"))
            return replace(removed, invite=None) if act.get("revoke") else removed
        case "fill":
            policy = str(act.get("policy") or "")
            holders = dict(model.holders)
            for seat in act["seats"]:
                holders[int(seat)] = SeatInfo(f"bot {int(seat) + 1}", None, policy)
            return replace(model, holders=holders)
    return model  # an act this version does not know changes nothing it keeps


def _removed(model: RoomModel, seat: Any, player: Any) -> RoomModel:
    """The host removed the holder of ``seat``, or the player ``player``: they are banned
    (their player id and the seat's token) and their seat is free again."""
    holders = dict(model.holders)
    banned, tokens = set(model.banned), set(model.banned_tokens)
    if player is not None:
        banned.add(str(player))
        seat = model.seat_of(str(player)) if seat is None else seat
    if seat is not None and int(seat) in holders:
        info = holders.pop(int(seat))
        if info.player is not None:
            banned.add(info.player)
        if info.token is not None:
            tokens.add(info.token)
    members = model.members - banned
    return replace(model, holders=holders, banned=frozenset(banned),
                   banned_tokens=frozenset(tokens), members=members)  # fmt: skip


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
) -> list[Played]:
    """One record per game event; the last carries who acted, the command and why."""
    if seat is None or not events:
        return [Played(to_data(e), at, value=e) for e in events]
    *before, last = events
    records = [Played(to_data(e), at, value=e) for e in before]
    records.append(Played(to_data(last), at, seat, cmd, body, by, command, value=last))
    return records
