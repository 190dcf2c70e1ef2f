"""Who is at the table: joins, seats, welcomes, resumes, resyncs, leaves and presence
(a part of :class:`server.room.core.RoomCore`; pure like it).

Who may come in is :mod:`server.room.access`'s to say: to a visitor who may not see a
private room it does not exist (``room/not_found``); a removed player gets
``room/removed``. A spectator, a player with their seat token, or a player whose
session's player holds a seat (their seat follows them to any device) is welcomed from
what is durable (a resume gets only the patches it missed, when they weigh less than
the view). A player without a seat takes the first free one, unless the host locked
them: the ``seated`` record (with the player's id, when the hello carried a session)
is written first (:class:`~server.room.then.SeatTaken`), and the welcome with the fresh
token follows once it is durable (:meth:`Table.seat_taken`). A seat a quick match held
for a player is claimed (a ``claimed`` record) when that player arrives.
"""

from __future__ import annotations

import math
from typing import Any

from protocol import errors as codes
from protocol.codec import MSGPACK
from protocol.messages import Presence, SeatPresence, Snapshot, Welcome
from server.room.access import Visitor, is_banned, may_see, may_watch
from server.room.fanout import Fanout
from server.room.io import Arm, Close, Join, Leave, Member, PeerId, Send, SendFrames
from server.room.model.records import Claimed, seated_record
from server.room.state import PeerInfo, RoomState
from server.room.then import SeatTaken
from server.room.views import Viewer


class Table:
    """The room's peers and seats, and what they are told when they come and go."""

    def __init__(self, state: RoomState, fanout: Fanout) -> None:
        self.state = state
        self.fanout = fanout
        self.left_at: dict[int, float] = {}
        """When each seat's player left (for the ``left`` record a takeover room owes)."""
        self.unconfirmed: set[int] = set()
        """Seats whose taker was gone before its welcome: to be given back."""
        self.fresh: dict[PeerId, int] = {}
        """Peers welcomed to a seat with a token made for them (their seat), so a leave
        that says the welcome never reached the client gives that seat back."""
        self.host_gone: float | None = None
        """Since when the room's host has had no connection here (None: here, or none)."""
        self.presence_sent = -math.inf
        self.presence_at: float | None = None
        """When the next presence goes out (None: none is due)."""

    # -- joins and leaves ------------------------------------------------------------------

    def join(self, j: Join) -> None:
        state, model = self.state, self.state.model
        visitor = Visitor(j.player, j.invite, j.token)
        if not may_see(model, visitor):
            state.out.append(Close(j.peer, codes.ROOM_NOT_FOUND, f"no room {model.room_id!r}"))
            return
        if model.closed is not None:
            text = f"an operator closed this room: {model.closed}"
            state.out.append(Close(j.peer, codes.ROOM_CLOSED, text))
            return
        if is_banned(model, visitor):
            text = "the host removed you from this room"
            state.out.append(Close(j.peer, codes.REMOVED, text))
            return
        if j.role == "spectator":
            if not may_watch(model, visitor):
                text = "this room does not take spectators"
                state.out.append(Close(j.peer, codes.NO_SPECTATORS, text))
                return
            state.peers[j.peer] = PeerInfo(None, "spectator", j.codec, j.player, j.name)
            self._welcome(j.peer, None, j.last_seq, j.now)
            self.presence(j.now, seats=False)
            self.note_host(j.now)
            return
        seat = self.seat_of(j)
        if seat is not None:
            held = model.holders[seat].hold is not None
            if held:  # a seat a quick match held for this player: claimed now
                state.write((Claimed(seat, j.now),), (), SeatTaken(j, seat, None))
            elif j.token is None and j.own and model.seat_of(j.player) != seat:
                self._take_seat(j, seat, j.fresh_token, j.last_seq)  # its own token, again
            else:
                self._take_seat(j, seat, j.token, j.last_seq)
            return
        if j.token is not None:
            text = "this seat token belongs to no seat of this room"
            state.out.append(Close(j.peer, codes.BAD_SEAT_TOKEN, text))
            return
        free = model.free_seats()
        if not free:
            text = "every seat of this room is taken; join as a spectator"
            state.out.append(Close(j.peer, codes.ROOM_FULL, text))
            return
        if model.locked:
            text = "the host locked the seats; join as a spectator"
            state.out.append(Close(j.peer, codes.LOCKED, text))
            return
        seat = free[0]
        record = seated_record(seat, j.name, j.fresh_token, None, j.now, j.player)
        state.write((record,), (), SeatTaken(j, seat, j.fresh_token))

    def seat_of(self, j: Join) -> int | None:
        """The seat ``j`` comes back to: its player's, its token's, or the one an earlier
        copy of this hello took with the client's own token (its welcome lost)."""
        model = self.state.model
        seat = model.seat_of(j.player)
        if seat is None and j.token is not None:
            seat = model.seat_for_token(j.token)
        if seat is None and j.token is None and j.own:
            seat = model.seat_for_token(j.fresh_token)
        return seat

    def seat_taken(self, j: Join, seat: int, token: str | None, gone: frozenset[PeerId]) -> None:
        """The seat's record is durable: welcome its taker (gone: give the seat back)."""
        if j.peer in gone:  # nobody got the token (or came for the held seat)
            if token is not None:
                self.unconfirmed.add(seat)
            return
        if j.player is not None:
            self.state.out.append(Member(j.player))
        if self._take_seat(j, seat, token, None) and token is not None:
            self.fresh[j.peer] = seat

    def seat_lost(self, j: Join) -> None:
        text = "the seat could not be taken; nothing changed; try again"
        self.state.out.append(Close(j.peer, codes.UNAVAILABLE, text))

    def _take_seat(self, j: Join, seat: int, token: str | None, last_seq: int | None) -> bool:
        """Seat ``j`` (whoever held the seat is closed: ``room/replaced``), unless the
        holder is a later connection of its client: then ``j`` is closed. Whether seated."""
        state = self.state
        old = state.seated.get(seat)
        if old is not None and old != j.peer:
            if _later(state.peers.get(old), j):
                text = "a later connection of this client holds this seat"
                state.out.append(Close(j.peer, codes.REPLACED, text))
                return False
            state.out.append(Close(old, codes.REPLACED, "a newer connection took this seat"))
            state.peers.pop(old, None)
            self.fresh.pop(old, None)
        state.peers[j.peer] = PeerInfo(seat, "player", j.codec, j.player, j.name, j.client,
                                       j.attempt)  # fmt: skip
        state.seated[seat] = j.peer
        self.left_at.pop(seat, None)
        self._welcome(j.peer, token, last_seq, j.now)
        self.presence(j.now)
        self.note_host(j.now)
        return True

    def leave(self, inp: Leave) -> None:
        """``inp.peer`` is gone; if its welcome never reached it (a relay says so) and
        gave it a fresh token, nobody holds that token: the seat is given back."""
        state = self.state
        fresh = self.fresh.pop(inp.peer, None)
        info = state.peers.pop(inp.peer, None)
        if info is None:
            return
        if info.seat is not None and state.seated.get(info.seat) == inp.peer:
            del state.seated[info.seat]
            if inp.undelivered and fresh == info.seat:
                self.unconfirmed.add(info.seat)
            else:
                self.left_at[info.seat] = inp.now
        self.presence(inp.now, seats=info.seat is not None)
        self.note_host(inp.now)

    def note_host(self, now: float) -> None:
        """Keep :attr:`host_gone` current (after peers come and go, or the host changes)."""
        state = self.state
        host = state.model.host
        if host is None or any(info.player == host for info in state.peers.values()):
            self.host_gone = None
        elif self.host_gone is None:
            self.host_gone = now

    def peers_of(self, player: str | None = None, seat: int | None = None) -> tuple[PeerId, ...]:
        """The connections of ``player`` (any role), or of whoever sits in ``seat``."""
        peers = self.state.peers
        return tuple(
            p for p, info in peers.items()
            if (player is not None and info.player == player) or (seat is not None and info.seat == seat)
        )  # fmt: skip

    def viewer_peers(self) -> dict[Viewer, tuple[PeerId, ...]]:
        """The connections of each viewer now (spectators share the ``None`` viewer)."""
        state = self.state
        out: dict[Viewer, tuple[PeerId, ...]] = {seat: (p,) for seat, p in state.seated.items()}
        out[None] = tuple(p for p, info in state.peers.items() if info.seat is None)
        return out

    # -- views -----------------------------------------------------------------------------

    def _welcome(self, peer: PeerId, token: str | None, last_seq: int | None, now: float) -> None:
        state = self.state
        info = state.peers[peer]
        viewer, model = info.seat, state.model
        room, game = model.room_id, model.game.name
        role: Any = info.role
        snapshot = Welcome(room, game, role, viewer, token, model.seq,
                           state.views.snapshot(viewer), now, info.player)  # fmt: skip
        missed = self.fanout.missed(viewer, last_seq, model.seq)
        if missed is None or last_seq is None:
            self._send_view((peer,), snapshot, viewer, info.codec)
            return
        resume = Welcome(room, game, role, viewer, token, last_seq, None, now, info.player)
        if not missed:
            state.send((peer,), resume)
            return
        whole = self.fanout.with_view(snapshot, viewer)  # what the patches must beat (or be sent)
        if len(MSGPACK.encode(resume)) + sum(map(len, missed)) < len(whole):
            state.send((peer,), resume)
            state.out.append(SendFrames(peer, tuple(missed)))
        else:
            state.out.append(Send((peer,), snapshot, whole))

    def _send_view(
        self, peers: tuple[PeerId, ...], message: Welcome | Snapshot, viewer: Viewer, codec: str
    ) -> None:
        """Send a message carrying a whole view; to a msgpack peer, its view as encoded
        for every other peer of the same viewer since the room last changed."""
        frame = self.fanout.with_view(message, viewer) if codec == MSGPACK.name else None
        self.state.out.append(Send(peers, message, frame))

    def resync(self, peer: PeerId) -> None:
        state = self.state
        info = state.peers.get(peer)
        if info is not None:
            snapshot = Snapshot(state.model.seq, state.views.snapshot(info.seat))
            self._send_view((peer,), snapshot, info.seat, info.codec)

    # -- presence --------------------------------------------------------------------------

    def now_present(self) -> Presence:
        """Who is at the table now."""
        state = self.state
        model = state.model
        holders = model.holders
        seats = []
        for s in range(model.seats):
            info = holders.get(s)
            bot = info is not None and (info.bot is not None or s in model.taken_over)
            seats.append(
                SeatPresence(s, info.name if info else None, s in state.seated or bot, bot)
            )
        spectators = sum(1 for p in state.peers.values() if p.seat is None)
        return Presence(tuple(seats), spectators)

    def presence(self, now: float, seats: bool = True) -> None:
        """Tell everyone who is here: now, or at the end of the current interval if a
        presence went out less than ``presence_every`` ago (one frame for a burst). A
        change in the spectator count alone (``seats`` false) waits for the longer
        ``spectators_presence_every``: a crowd of spectators costs the room a frame per
        connection per interval, and nobody acts on the count."""
        settings = self.state.settings
        every = settings.presence_every if seats else settings.spectators_presence_every
        due = self.presence_sent + every
        if self.presence_at is not None and self.presence_at <= due:
            return  # one is already due by then: it will say this too
        if now >= due:
            self.presence_now(now)
        else:
            self.presence_at = due
            self.state.armed["presence"] = due
            self.state.out.append(Arm("presence", due))

    def presence_now(self, now: float) -> None:
        state = self.state
        self.presence_at = None
        if state.peers:
            self.presence_sent = now
            state.send(tuple(state.peers), self.now_present())


def _later(holder: PeerInfo | None, j: Join) -> bool:
    """Whether the seat's holder is a later connection of the client ``j`` comes from:
    ``j`` is a copy of an earlier hello, delayed (between nodes, or in a room that was
    loading) while the client moved on; it must not take the seat from its own future."""
    return (
        holder is not None
        and holder.client is not None
        and holder.client == j.client
        and holder.attempt is not None
        and j.attempt is not None
        and holder.attempt > j.attempt
    )
