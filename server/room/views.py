"""Every viewer's view of a room, kept as shared parts, and the patches that move them.

A viewer's view is ``{"game": <the game's view>, "room": <the room's public state>,
"you": {"seat", "legal"}}`` (``you`` for players only). The parts are kept apart
so each is diffed once per change: the ``room`` part is the same for everyone, and
a game that declares ``public_view = True`` (its view does not depend on the
viewer, like Rollie's) has its ``game`` part built and diffed once for all viewers
instead of once per seat. Views are never mutated, so parts can be shared.

Parts are shared between successive views too: the game builds its view through the
room's :class:`engine.memo.Memo`, the room part's seats come from the same memo, and a
seat's ``you`` is kept while its legal commands are the same, so :func:`diff` stops at
``is`` wherever nothing changed. A fresh :func:`reference_view` (no memo) is the
definition they must equal.

Patches from events: when the game declares what each event touches
(``Game.touches``, engine.core), :meth:`Views.advance` builds only the touched
top-level keys and seat entries of the public view (``Game.view_part``,
``Game.seat_view``), diffs those alone, and computes legal commands again only for
the seats the events name; the ops are the ones a whole diff would make, in its order.
tests/server/test_patches_from_events.py checks it event by event on random games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import is_
from typing import Any

from engine.core import Touched
from engine.data import to_data
from engine.memo import FRESH, Memo
from protocol.codec import MSGPACK
from protocol.patch import Op, diff
from server.room.model.room import ChatLine, RoomModel

Viewer = int | None


def _seats(
    seats: int, holders: Mapping[int, Any], away: Mapping[int, float], taken_over: frozenset[int]
) -> list[dict[str, Any]]:
    return [
        {
            "seat": s,
            "name": holders[s].name if s in holders else None,
            "taken": s in holders,
            "bot": s in holders and holders[s].bot is not None,
            "away": s in away,
            "takeover": s in taken_over,
            "player": holders[s].player if s in holders else None,
            "held": s in holders and holders[s].hold is not None,
        }
        for s in range(seats)
    ]


def _lines(chat: tuple[ChatLine, ...], channel: str) -> list[dict[str, Any]]:
    return [
        {"seq": c.seq, "name": c.name, "seat": c.seat, "player": c.player, "text": c.text,
         "at": round(c.at, 3)}
        for c in chat
        if c.channel == channel
    ]  # fmt: skip


def chat_part(model: RoomModel, spectator: bool, memo: Memo = FRESH) -> dict[str, Any]:
    """The table chat a viewer reads: the players' channel, and for spectators theirs."""
    out = {"players": memo.part("chat players", _lines, model.chat, "players")}
    if spectator:
        out["spectators"] = memo.part("chat spectators", _lines, model.chat, "spectators")
    return out


def room_part(model: RoomModel, memo: Memo = FRESH) -> dict[str, Any]:
    """The room's public state: status, each awaited seat's deadline, the seats, the rematch.

    A seat is ``away`` when its player left a room with takeover, and ``takeover`` once a
    bot plays it for them (both from the log, so every viewer sees the same)."""
    return {
        "status": model.status,
        "deadlines": {str(s): round(t, 3) for s, t in sorted(model.deadlines().items())},
        "clock": model.clock,
        "seats": memo.part(
            "room seats", _seats, model.seats, model.holders, model.away, model.taken_over
        ),
        "rematch": model.rematch,
        "last_move": None
        if model.last_move is None
        else {"seat": model.last_move[0], "by": model.last_move[1]},
        "visibility": model.visibility,
        "host": model.host,
        "locked": model.locked,
        "watch": model.watchable,
    }


def legal_commands(model: RoomModel, seat: int) -> list[Any]:
    """The commands ``seat`` may send now (engine values)."""
    if not model.started or model.is_over:
        return []
    return model.game.legal_commands(model.state, seat)


def _as_sent(
    commands: list[Any], known: Mapping[Any, dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Each command as a client would send it; one in ``known`` (a command -> the form
    it was sent in before) keeps that very dict, so the diff passes over it."""
    out = []
    for command in commands:
        data = known.get(command) if known else None
        if data is None:
            data = to_data(command)
            data.pop("seat", None)
        out.append(data)
    return out


def legal(model: RoomModel, seat: int) -> list[dict[str, Any]]:
    """The commands ``seat`` may send now, as it would send them (no ``seat`` field)."""
    return _as_sent(legal_commands(model, seat))


def reference_view(model: RoomModel, viewer: Viewer) -> dict[str, Any]:
    """``viewer``'s whole view built afresh from ``model``: the definition :class:`Views`
    keeps up to date (and what the tests compare its patches against)."""
    out = {"game": model.game.view(model.state, viewer), "room": room_part(model),
           "chat": chat_part(model, viewer is None)}  # fmt: skip
    if viewer is not None:
        out["you"] = {"seat": viewer, "legal": legal(model, viewer)}
    return out


def _by_command(
    commands: list[Any], sent: list[dict[str, Any]]
) -> dict[Any, dict[str, Any]] | None:
    """Each command's sent form, by the command (None if a game's commands are not
    hashable: they are then all converted again)."""
    try:
        return dict(zip(commands, sent, strict=True))
    except TypeError:
        return None


GAME, ROOM, YOU, CHAT = ("game",), ("room",), ("you",), ("chat",)
"""The path prefixes of a view's three parts."""

NOTHING = Touched(frozenset(), frozenset(), frozenset())


def _diff_into(old: Any, new: Any, prefix: tuple[str | int, ...], ops: list[Op]) -> None:
    if old is not new:
        ops.extend(diff(old, new, prefix))


class Views:
    """The current parts of every viewer's view of one room."""

    def __init__(self, model: RoomModel) -> None:
        self.model = model
        self.public = model.game.public_view
        self.viewers: list[Viewer] = [None, *range(model.seats)]
        self.memos: dict[Viewer, Memo] = {
            v: Memo() for v in self.viewers[: 1 if self.public else None]
        }
        self.inputs: dict[int, tuple[Any, ...]] = {}
        """What each seat's legal commands were computed from (the game's ``legal_inputs``)."""
        self.room = room_part(model, self.memos[None])
        self.chat_memo = Memo()
        self.chat = self._chat_parts()
        self.chat_memo_of = model.chat
        """The model's chat the parts were built from (a new tuple: a new line or a hidden one)."""
        self.game = self._game_views()
        self.commands: dict[int, list[Any]] = {}
        self.you: dict[int, dict[str, Any]] = {}
        self._encoded: dict[Viewer, bytes] = {}
        """Each viewer's whole view in msgpack, made when first asked since the last change."""
        for seat in range(model.seats):
            self._you(seat)

    def _chat_parts(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The chat part of the players' views and of the spectators' view."""
        memo = self.chat_memo
        return chat_part(self.model, False, memo), chat_part(self.model, True, memo)

    def _game_views(self) -> dict[Viewer, dict[str, Any]]:
        game, state = self.model.game, self.model.state
        if self.public:
            shared = game.view(state, None, self.memos[None])
            return dict.fromkeys(self.viewers, shared)
        return {viewer: game.view(state, viewer, self.memos[viewer]) for viewer in self.viewers}

    def _you(self, seat: int, playing: bool | None = None) -> dict[str, Any]:
        """``seat``'s ``you`` part now: the same object while its legal commands stay.

        They are computed again only when one of the state parts they come from (the
        game's ``legal_inputs``, engine.core) is not the same object as last time.
        ``playing``: whether the game is started and not over (None: not known yet)."""
        model = self.model
        if playing is None:
            playing = model.started and not model.is_over
        inputs = (playing, *model.game.legal_inputs(model.state, seat))
        kept = self.inputs.get(seat)
        if kept is not None and len(kept) == len(inputs) and all(map(is_, kept, inputs)):
            return self.you[seat]
        self.inputs[seat] = inputs
        commands = model.game.legal_commands(model.state, seat) if playing else []
        before = self.commands.get(seat)
        if before is None or commands != before:
            known = _by_command(before, self.you[seat]["legal"]) if before else None
            self.commands[seat] = commands
            self.you[seat] = {"seat": seat, "legal": _as_sent(commands, known)}
        return self.you[seat]

    def snapshot(self, viewer: Viewer) -> dict[str, Any]:
        """The whole view of ``viewer`` now."""
        out = {"game": self.game[viewer], "room": self.room, "chat": self.chat[viewer is None]}
        if viewer is not None:
            out["you"] = self.you[viewer]
        return out

    def encoded(self, viewer: Viewer) -> bytes:
        """``snapshot(viewer)`` in msgpack: encoded once per change of the room, however
        many join or resume in between (a crowd arriving costs one encoding per viewer)."""
        frame = self._encoded.get(viewer)
        if frame is None:
            frame = self._encoded[viewer] = MSGPACK.encode_data(self.snapshot(viewer))
        return frame

    def advance(
        self, model: RoomModel, events: Sequence[Any] | None = None
    ) -> dict[Viewer, list[Op]]:
        """Bring every part up to ``model``; the ops each viewer needs to follow.

        ``events`` are the game events folded since the last call (None: not known):
        when the game declares what each of them touches (``Game.touches``), only those
        parts of its public view are built and diffed, and only those seats' legal
        commands computed again; otherwise the whole view is."""
        before = self.model
        touched = self._touched(before, model, events)
        self.model = model
        self._encoded.clear()
        room = room_part(model, self.memos[None])
        room_ops = diff(self.room, room, ROOM)
        self.room = room
        seen_ops, all_ops = room_ops, room_ops
        if model.chat is not self.chat_memo_of:
            chat = self._chat_parts()
            seen_ops = room_ops + diff(self.chat[0], chat[0], CHAT)
            all_ops = room_ops + diff(self.chat[1], chat[1], CHAT)
            self.chat, self.chat_memo_of = chat, model.chat
        if touched is not None:
            game, shared = self._game_parts(touched)
        else:
            game = self._game_views()
        if self.public:
            if touched is None:
                shared = diff(self.game[None], game[None], GAME)
            ops: dict[Viewer, list[Op]] = {None: shared + all_ops}
            if seen_ops is not all_ops:  # players see the players' channel only
                players = shared + seen_ops
                for seat in range(model.seats):
                    ops[seat] = players
        else:
            ops = {v: diff(self.game[v], game[v], GAME) + (all_ops if v is None else seen_ops)
                   for v in self.viewers}  # fmt: skip
        self.game = game
        legal = range(model.seats) if touched is None or touched.legal is None else touched.legal
        playing = model.started and not model.is_over
        for seat in legal:
            was = self.you[seat]
            now = self._you(seat, playing)
            seen = ops.get(seat, ops[None]) if self.public else ops[seat]
            ops[seat] = seen if now is was else seen + diff(was, now, YOU)
        for seat in range(model.seats):  # the seats whose legal commands stay
            ops.setdefault(seat, ops[None])
        return ops

    def _touched(
        self, before: RoomModel, after: RoomModel, events: Sequence[Any] | None
    ) -> Touched | None:
        """What ``events`` changed, by the game's declarations; None: anything may have."""
        if not self.public or events is None:
            return None
        game = after.game
        if before.started is not after.started or before.is_over is not after.is_over:
            return None  # every seat's legal commands turn on (or off)
        out = NOTHING
        for event in events:
            touched = game.touched(event)
            if touched is None:
                return None
            out = out | touched
        if not events and after.state is not before.state:
            return None
        return out

    def _game_parts(self, touched: Touched) -> tuple[dict[Viewer, dict[str, Any]], list[Op]]:
        """The public game view with only the ``touched`` parts built again, and the ops."""
        old = self.game[None]
        if not touched.keys and touched.seats is not None and not touched.seats:
            return self.game, []
        game, state, memo = self.model.game, self.model.state, self.memos[None]
        new = dict(old)
        ops: list[Op] = []
        per_seat = game.seat_part
        for key in old:  # in the view's order: the ops a whole diff would make, in its order
            if key in touched.keys:
                value = new[key] = game.view_part(state, key, memo)
                _diff_into(old[key], value, (*GAME, key), ops)
            elif key == per_seat and (touched.seats is None or touched.seats):
                seats = range(len(old[key])) if touched.seats is None else sorted(touched.seats)
                entries = new[key] = list(old[key])
                for seat in seats:
                    entries[seat] = game.seat_view(state, seat, memo)
                    _diff_into(old[key][seat], entries[seat], (*GAME, key, seat), ops)
        return dict.fromkeys(self.viewers, new), ops


WAITING_EXPIRES = 600.0
"""A room still waiting this long after it was made, with nobody at it (no player
connected, nobody watching), has expired: the lobby lists it no more (its summary's
``expires_at``); a rematch nobody joined leaves the list that way."""


def room_summary(model: RoomModel, connected: int = 0, spectators: int = 0) -> dict[str, Any]:
    """What the lobby shows of a room."""
    waiting = model.status == "waiting"
    return {
        "room": model.room_id,
        "game": model.game.name,
        "title": model.game.title,
        "status": model.status,
        "seats": model.seats,
        "taken": len(model.holders),
        "bots": sum(1 for h in model.holders.values() if h.bot is not None),
        "players_connected": connected,
        "spectators": spectators,
        "seq": model.seq,
        "created_at": model.created_at,
        "options": dict(model.options),
        "clock": model.clock,
        "takeover_after": model.takeover_after,
        "rematch": model.rematch,
        "result": to_data(model.game.result(model.state)) if model.is_over else None,
        "seed_commitment": model.commit or None,
        "imported_from": model.settings.get("imported_from"),
        "seed": model.seed if model.is_over else None,
        "seed_salt": model.salt if model.is_over else None,
        "visibility": model.visibility,
        "host": model.host,
        "locked": model.locked,
        "watch": model.watchable,
        "players": sorted(model.players()),
        "names": [
            (model.holders[s].name if s in model.holders else None) for s in range(model.seats)
        ],
        "expires_at": model.created_at + WAITING_EXPIRES if waiting and model.created_at else None,
        ACCESS: {
            "members": sorted(model.members),
            "banned": sorted(model.banned),
            "invite": model.invite,
        },
    }


ACCESS = "access"
"""The part of a summary only the server reads (who may see a private room): the index
keeps it, :func:`public_summary` leaves it out of every answer."""


def public_summary(summary: Mapping[str, Any]) -> dict[str, Any]:
    """A summary as clients get it."""
    return {k: v for k, v in summary.items() if k != ACCESS}
