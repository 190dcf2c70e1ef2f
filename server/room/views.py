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
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import is_
from typing import Any

from engine.data import to_data
from engine.memo import FRESH, Memo
from protocol.codec import MSGPACK
from protocol.patch import Op, diff
from server.room.model.records import ChatLine, RoomModel

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

    def _you(self, seat: int) -> dict[str, Any]:
        """``seat``'s ``you`` part now: the same object while its legal commands stay.

        They are computed again only when one of the state parts they come from (the
        game's ``legal_inputs``, engine.core) is not the same object as last time."""
        model = self.model
        inputs = (model.started, model.is_over, *model.game.legal_inputs(model.state, seat))
        kept = self.inputs.get(seat)
        if kept is not None and len(kept) == len(inputs) and all(map(is_, kept, inputs)):
            return self.you[seat]
        self.inputs[seat] = inputs
        commands = legal_commands(model, seat)
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

    def advance(self, model: RoomModel) -> dict[Viewer, list[Op]]:
        """Bring every part up to ``model``; the ops each viewer needs to follow."""
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
        game = self._game_views()
        if self.public:
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
        for seat in range(model.seats):
            before = self.you[seat]
            after = self._you(seat)
            seen = ops.get(seat, ops[None]) if self.public else ops[seat]
            ops[seat] = seen if after is before else seen + diff(before, after, YOU)
        return ops


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
