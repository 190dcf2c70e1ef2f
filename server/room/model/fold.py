"""The pure fold of a room's records into its :class:`~.room.RoomModel`.

:func:`start` makes the model from the ``created`` record (seq 1), :func:`evolve`
applies one record to a model and returns a new model, :func:`rebuild` folds a whole
log. The live room and the rebuild after a restart use the same function, so they
cannot disagree. Time (``at``) is stamped by the shell; this module reads no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.core import Game, get_game
from engine.frozen import replace
from server.room.model.records import (
    Claimed,
    Created,
    Left,
    Played,
    Record,
    Rematched,
    Returned,
    RoomAct,
    Seated,
    TakenOver,
    Unseated,
)
from server.room.model.room import CHAT_KEPT, ChatLine, RoomModel, SeatInfo


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
            known = record.states
            if known is not None and known[0] is model.state:
                state = known[1]  # deciding evolved it from this very state already
            else:
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
