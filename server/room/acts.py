"""What people do to the room rather than in the game: table chat and the host's
actions (a part of :class:`server.room.core.RoomCore`; pure like it).

An ``act`` arrives with a client id and is answered like a command: an ``ack`` with the
seq of its record, or a ``reject`` with a code; a repeated id gets the first ack (from
the log) and changes nothing. Each accepted act is one ``act`` record of the log
(:class:`~server.room.model.records.RoomAct`), so history and replays show it.

| act | who | when | refusals |
|---|---|---|---|
| ``chat`` ``{text, channel?}`` | a seated player; a spectator with a player session | any time | ``chat/bad_text``, ``chat/rate_limited`` (5 per 10 s), ``chat/not_allowed`` |
| ``lock`` ``{on}`` | the host | before the game starts | ``room/not_host``, ``room/already_started`` |
| ``remove`` ``{seat}`` or ``{player}`` | the host | before the game starts | ``room/not_host``, ``room/already_started``, ``room/bad_action`` |
| ``fill`` ``{policy?}`` | the host | before the game starts: bots take the free seats, and the game starts | the same |
| ``host`` ``{player}`` | the host | before the game starts: hands the role to a seated player | the same |
| ``admit`` ``{player}`` | the host | any time: lets a player id into a private room | ``room/not_host`` |
| ``hide`` ``{seq}`` | the host | any time: a chat line leaves every view, history and export | ``room/not_host``, ``room/bad_action`` |

Spectators write in a channel of their own (``spectators``, which players never see)
unless the room's ``spectator_chat`` is ``together``. Everything is refused with
nothing written; the host's invite code is issued over HTTP (it must reach the host
alone), see :meth:`Acts.invite`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

from protocol import errors as codes
from protocol.errors import ProtocolError
from protocol.messages import Ack, Reject
from protocol.text import clean_chat
from server.room.access import invite_digest
from server.room.io import ActIn, Close, Count, Finished, Invite, Operate, PeerId
from server.room.model.records import RoomAct
from server.room.state import PeerInfo, RoomState
from server.room.table import Table
from server.room.then import Acted, OpDone

CHAT_BURST = 5
"""Chat lines one person may send within :data:`CHAT_WINDOW` seconds."""
CHAT_WINDOW = 10.0
HOST_ACTS = frozenset({"lock", "remove", "fill", "host", "admit", "hide"})
BEFORE_START = frozenset({"lock", "remove", "fill", "host"})


class Refused(Exception):
    """An act refused: its code and message (nothing was written)."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.field = code, message, field


class Acts:
    """Chat and the host's actions."""

    def __init__(self, state: RoomState, table: Table) -> None:
        self.state = state
        self.table = table
        self.said: dict[str, deque[float]] = {}
        """When each person's latest chat lines were accepted (for the rate limit)."""

    def act(self, a: ActIn) -> None:
        state = self.state
        info = state.peers.get(a.peer)
        if info is None:
            return
        actor = _actor(info)
        if actor is not None:
            seq = state.answers.act_seq(actor, a.id)
            if seq is not None:
                self._reply(a.peer, Ack(a.id, seq))
                return
        try:
            act, removed = self._decide(info, a)
        except Refused as exc:
            details = {} if exc.field is None else {"field": exc.field}
            self._reply(a.peer, Reject(a.id, exc.code, exc.message, details))
            return
        record = RoomAct(act, a.now, info.player, a.id, self._name(info), info.seat)
        state.write((record,), (), Acted(a.peer, a.id, removed))

    def acted(self, then: Acted) -> None:
        """The act is durable: ack it, and close whoever it removed."""
        self._reply(then.peer, Ack(then.id, self.state.model.seq))
        for peer in then.removed:
            if peer in self.state.peers:
                text = "the host removed you from this room"
                self.state.out.append(Close(peer, codes.REMOVED, text))
                self.state.peers.pop(peer, None)
                for seat, holder in list(self.state.seated.items()):
                    if holder == peer:
                        del self.state.seated[seat]

    def lost(self, then: Acted) -> None:
        text = "the event log is unavailable; nothing changed; send it again"
        self._reply(then.peer, Reject(then.id, codes.UNAVAILABLE, text))

    def _reply(self, peer: PeerId, reply: Ack | Reject) -> None:
        if isinstance(reply, Reject):
            self.state.out.append(Count("rejections", (("code", reply.code),)))
        if peer in self.state.peers:
            self.state.send((peer,), reply)

    def _name(self, info: PeerInfo) -> str | None:
        model = self.state.model
        if info.seat is not None and info.seat in model.holders:
            return model.holders[info.seat].name
        return info.name

    # -- deciding ---------------------------------------------------------------------------

    def _decide(self, info: PeerInfo, a: ActIn) -> tuple[dict[str, Any], tuple[PeerId, ...]]:
        """The act's record and the peers it removes, or Refused."""
        model = self.state.model
        kind = a.act.get("type")
        if kind == "chat":
            return self._chat(info, a.act, a.now), ()
        if kind not in HOST_ACTS:
            raise Refused(
                codes.BAD_ACTION,
                f"no act {kind!r}; known: chat, {', '.join(sorted(HOST_ACTS))}",
                "type",
            )
        if info.player is None or info.player != model.host:
            raise Refused(codes.NOT_HOST, "only the room's host may do this")
        if kind in BEFORE_START and (model.started or model.is_over):
            raise Refused(codes.ALREADY_STARTED, "the game has begun: this would change it")
        match kind:
            case "lock":
                on = a.act.get("on", True)
                if not isinstance(on, bool):
                    raise Refused(codes.BAD_ACTION, "lock.on must be true or false", "on")
                return {"type": "lock", "on": on}, ()
            case "remove":
                return self._remove(info, a.act)
            case "fill":
                return self._fill(a.act), ()
            case "host":
                player = a.act.get("player")
                if player == model.host or player not in model.players():
                    raise Refused(
                        codes.BAD_ACTION, "the host role goes to another seated player", "player"
                    )
                return {"type": "host", "player": player}, ()
            case "admit":
                player = a.act.get("player")
                if not isinstance(player, str) or not 1 <= len(player) <= 64:
                    raise Refused(codes.BAD_ACTION, "admit.player must be a player id", "player")
                if player in model.banned:
                    raise Refused(
                        codes.BAD_ACTION, "that player was removed from this room", "player"
                    )
                return {"type": "admit", "player": player}, ()
            case _:  # hide
                seq = a.act.get("seq")
                if not any(line.seq == seq for line in model.chat):
                    raise Refused(codes.BAD_ACTION, "no chat line shown at that seq", "seq")
                return {"type": "hide", "seq": seq}, ()

    def _chat(self, info: PeerInfo, act: Mapping[str, Any], now: float) -> dict[str, Any]:
        model = self.state.model
        if info.seat is None and info.player is None:
            raise Refused(
                codes.CHAT_NOT_ALLOWED, "sign in (a guest will do) to chat as a spectator"
            )
        together = model.settings.get("spectator_chat", "apart") == "together"
        own = "players" if info.seat is not None or together else "spectators"
        channel = act.get("channel", own)
        if channel not in ("players", "spectators"):
            raise Refused(codes.BAD_ACTION, "channel is players or spectators", "channel")
        if channel != own and not (info.seat is None and channel == "spectators"):
            raise Refused(codes.CHAT_NOT_ALLOWED, f"you write in the {own} channel here", "channel")
        try:
            text = clean_chat(act.get("text"))
        except ProtocolError as exc:
            raise Refused(exc.code, exc.message, "text") from None
        said = self.said.setdefault(_actor(info) or "", deque())
        while said and said[0] <= now - CHAT_WINDOW:
            said.popleft()
        if len(said) >= CHAT_BURST:
            raise Refused(
                codes.CHAT_RATE_LIMITED, f"at most {CHAT_BURST} lines in {CHAT_WINDOW:g} s"
            )
        said.append(now)
        return {"type": "chat", "channel": channel, "text": text}

    def _remove(
        self, info: PeerInfo, act: Mapping[str, Any]
    ) -> tuple[dict[str, Any], tuple[PeerId, ...]]:
        model = self.state.model
        seat, player = act.get("seat"), act.get("player")
        if seat is not None:
            holder = model.holders.get(seat) if isinstance(seat, int) else None
            if holder is None or holder.bot is not None:
                raise Refused(codes.BAD_ACTION, "no player sits in that seat", "seat")
            if holder.player is not None and holder.player == info.player:
                raise Refused(codes.BAD_ACTION, "the host cannot remove themselves", "seat")
            out: dict[str, Any] = {"type": "remove", "seat": seat}
            if holder.player is not None:
                out["player"] = holder.player
            peers = self.table.peers_of(holder.player, seat)
        elif isinstance(player, str) and player != info.player:
            peers = self.table.peers_of(player)
            if not peers and model.seat_of(player) is None:
                raise Refused(codes.BAD_ACTION, "that player is not in this room", "player")
            out = {"type": "remove", "player": player}
        else:
            raise Refused(codes.BAD_ACTION, "remove names a seat or another player", "seat")
        if model.visibility == "private" and model.invite is not None:
            out["revoke"] = True  # the invite they came with goes with them
        return out, peers

    def _fill(self, act: Mapping[str, Any]) -> dict[str, Any]:
        model = self.state.model
        policy = act.get("policy") or str(model.settings.get("takeover_policy") or "")
        if policy and policy not in model.game.policies:
            raise Refused(codes.BAD_ACTION, f"no bot policy {policy!r}", "policy")
        free = model.free_seats()
        if not free:
            raise Refused(codes.BAD_ACTION, "no free seat to fill", "seats")
        return {"type": "fill", "seats": free, "policy": policy}

    # -- the room's own API ------------------------------------------------------------------

    def invite(self, inp: Invite) -> None:
        """Issue the host's new invite code (or revoke it): one ``act`` record."""
        model = self.state.model
        if inp.player is None or inp.player != model.host:
            self.state.out.append(
                Finished(inp.op, codes.NOT_HOST, "only the room's host may do this")
            )
            return
        digest = None if inp.code is None else invite_digest(inp.code)
        record = RoomAct({"type": "invite", "hash": digest}, inp.now, inp.player)
        self.state.write((record,), (), OpDone(inp.op))

    def operate(self, inp: Operate) -> None:
        """An operator's act (server/operator): close the room, or hide a chat line; one
        ``act`` record by nobody (``by`` None) named ``operator``."""
        model, kind = self.state.model, inp.act.get("type")
        if kind == "close":
            if model.closed is not None:  # closed already: nothing more to write
                self.state.out.append(Finished(inp.op))
                return
            act: dict[str, Any] = {"type": "close", "reason": str(inp.act.get("reason") or "")}
        elif kind == "hide":
            seq = inp.act.get("seq")
            if not any(line.seq == seq for line in model.chat):
                text = "no chat line shown at that seq"
                self.state.out.append(Finished(inp.op, codes.BAD_ACTION, text))
                return
            act = {"type": "hide", "seq": seq}
        else:
            self.state.out.append(Finished(inp.op, codes.BAD_ACTION, f"no operator act {kind!r}"))
            return
        record = RoomAct(act, inp.now, None, None, "operator")
        self.state.write((record,), (), OpDone(inp.op))


def _actor(info: PeerInfo) -> str | None:
    """Who acts, for act ids and the chat limit: the player, else the seat."""
    if info.player is not None:
        return info.player
    return None if info.seat is None else f"seat:{info.seat}"
