"""The room core: every decision a live room makes, as a pure state machine.

``RoomCore.handle(input) -> [output, ...]`` (types in :mod:`server.room.io`). The core
reads the time and randomness only from its inputs and does no I/O: the asyncio shell
(:mod:`server.room.shell`) feeds it one input at a time from the room's mailbox (that order
is the arrival order) and carries out its outputs in order.

Writes. At most one write is pending at a time: an :class:`Append` of records (or a
:class:`SaveReply`) is answered by the shell with :class:`WriteDone` or
:class:`WriteFailed` before any other input, except a :class:`Join` that writes
nothing (:meth:`RoomCore.reads_only`): it is welcomed from the durable model while the
write is in flight. Only a durable write changes the model (durable before visible);
then every viewer gets its patch and the command its ack.
Commands that arrive together (:class:`Commands`) are decided one after another and
written as one append with one patch per viewer (:mod:`server.room.commands`).

Unknown outcomes. A write whose outcome is unknown (a timeout or a dropped connection
after sending) is never answered as a reject: the core asks the shell to
:class:`Settle` (fence off every older write of the room, then read the log's tail) and
answers from what the log holds: an ack if the records landed, ``room/unavailable``
only if they certainly did not. A room never serves state behind or ahead of its log.

Liveness. Clock timeouts, bot moves, takeovers and the room's own bookkeeping records
(``left``, ``returned``, ``takeover``, ``unseated``) are derived from the model after
every input (:meth:`server.room.clock.Clockwork._drive`), so a failed write is tried again after a
capped exponential backoff. Timeouts that fall due together are applied in the game's
turn order (Rollie: the First player, then clockwise), never by seat number.

Answers. A command id gets one answer for the room's lifetime (:mod:`server.room.model.answers`):
acks are in the log, every other answer is stored beside it before it is sent.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections import deque
from typing import Any

import attrs

from protocol import errors as codes
from protocol.codec import MSGPACK, OpPieces
from protocol.messages import (
    Patch,
    Presence,
    SeatPresence,
    ServerMessage,
    Snapshot,
    Welcome,
)
from protocol.patch import Op
from server.room.clock import Clockwork
from server.room.commands import Deciding
from server.room.io import (
    Append,
    Arm,
    BotThought,
    Broken,
    Close,
    CommandIn,
    Commands,
    Count,
    Finished,
    Input,
    Join,
    Leave,
    Output,
    PeerId,
    Rematch,
    ResyncIn,
    SaveReply,
    SaveSnapshot,
    Send,
    SendFrames,
    Settle,
    Start,
    TailRead,
    TimerFired,
    WriteDone,
    WriteFailed,
)
from server.room.model.answers import Answer, Answers, reply_to_plain
from server.room.model.records import (
    Record,
    Rematched,
    RoomModel,
    evolve,
    seated_record,
    to_plain,
)
from server.room.model.snapshots import snapshot_of
from server.room.parts import Done, Failed
from server.room.views import Viewer, Views
from server.store.base import pack, unpack

log = logging.getLogger("rollhouse.room")


@attrs.frozen
class CoreSettings:
    """The room core's knobs (from :class:`server.config.Settings`)."""

    patch_history: int = 512
    patch_history_bytes: int = 65_536
    """Also at most this many bytes of patches (their msgpack frames) kept per viewer."""
    replies_per_seat: int = 256
    retry_base: float = 0.1
    retry_cap: float = 5.0
    snapshot_every: int = 500
    """Events between snapshots of the room (server.room.model.snapshots); 0: none."""
    presence_every: float = 0.25
    """At most one presence frame per room per this many seconds: arrivals and
    departures in between are summed into the next (joins cost O(n), not O(n^2))."""
    spectators_presence_every: float = 1.0
    """The same when only the spectator count changed (seats: ``presence_every``)."""


class PatchHistory:
    """A viewer's latest patches, for resumes, as the msgpack frames sent for them: at
    most ``count`` of them holding at most ``limit`` bytes; the oldest go first.
    Resuming from before them gets a snapshot, as does any resume whose patches would
    outweigh the snapshot. Frames are bytes: a finished room's history is nothing for
    the garbage collector to walk."""

    __slots__ = ("count", "frames", "limit", "size", "starts")

    def __init__(self, count: int, limit: int) -> None:
        self.count, self.limit = count, limit
        self.starts: deque[int] = deque()
        """Each kept patch's ``from``."""
        self.frames: deque[bytes] = deque()
        self.size = 0

    def append(self, start: int, frame: bytes) -> None:
        """Keep the frame of a patch from ``start``."""
        self.starts.append(start)
        self.frames.append(frame)
        self.size += len(frame)
        while self.frames and (len(self.frames) > self.count or self.size > self.limit):
            self.starts.popleft()
            self.size -= len(self.frames.popleft())

    def since(self, seq: int) -> list[bytes] | None:
        """The frames of the patches from ``seq`` on, if the first of them is still here."""
        for i, start in enumerate(self.starts):
            if start == seq:
                return list(itertools.islice(self.frames, i, None))
        return None


@attrs.frozen
class PeerInfo:
    seat: int | None
    role: str
    codec: str


@attrs.frozen
class Pending:
    """The write in flight and what to do when it is durable, or certainly not."""

    records: tuple[Record, ...]
    names: tuple[str, ...]
    done: Done
    failed: Failed
    model: RoomModel | None = None
    """The model once the records are folded, when the core has folded them already."""


def _nothing(*_: object) -> None:
    return None


class RoomCore(Clockwork, Deciding):
    """One room's decisions: its model, its viewers, its answers, its timers."""

    def __init__(
        self, model: RoomModel, answers: Answers | None = None, settings: CoreSettings | None = None
    ) -> None:
        self.settings = settings or CoreSettings()
        self.model = model
        self.answers = answers or Answers(self.settings.replies_per_seat)
        self.views = Views(model)
        count, limit = self.settings.patch_history, self.settings.patch_history_bytes
        self.history = {viewer: PatchHistory(count, limit) for viewer in self.views.viewers}
        self.peers: dict[PeerId, PeerInfo] = {}
        self.seated: dict[int, PeerId] = {}
        self.pending: Pending | None = None
        self.deferred: deque[CommandIn] = deque()
        """Commands that arrived with others and wait for the write before them."""
        self.settling = False
        self.broken = False
        self.failures = 0
        self.backoff_until = 0.0
        self.armed: dict[str, float] = {}
        self.bot_due: dict[int, float] = {}
        self.thinking: dict[int, int] = {}
        """Seats whose searching bot is thinking off the loop, with the seq it thinks on."""
        self.left_at: dict[int, float] = {}
        self.unconfirmed: set[int] = set()
        self.stuck: set[tuple[int, int]] = set()
        self.snapshot_seq = 0
        """The seq of the last snapshot made (or loaded from)."""
        self.presence_sent = -math.inf
        self.presence_at: float | None = None
        """When the next presence goes out (None: none is due)."""
        self._out: list[Output] = []

    # -- the one entry point ---------------------------------------------------------------

    def handle(self, inp: Input) -> list[Output]:
        """Everything the shell must do, in order, because of ``inp``."""
        if self.broken:
            return []
        if (
            self.pending is not None
            and not isinstance(inp, WriteDone | WriteFailed | TailRead)
            and not (type(inp) is Join and self.reads_only(inp))
        ):
            raise RuntimeError(f"{type(inp).__name__} while a write is pending")
        match inp:
            case WriteDone():
                self._write_done(inp.now, inp.gone)
            case WriteFailed():
                self._write_failed(inp)
            case TailRead():
                self._settled(inp)
            case CommandIn():
                self._commands((inp,))
            case Commands():
                self._commands(inp.commands)
            case Join():
                self._join(inp)
            case Leave():
                self._leave(inp)
            case ResyncIn():
                self._resync(inp.peer)
            case TimerFired():
                self._timer(inp.key, inp.now)
            case BotThought():
                self._thought(inp)
            case Rematch():
                self._rematch(inp)
            case Start():
                pass
        while self.deferred and self.pending is None and not self.broken:
            waiting = tuple(self.deferred)
            self.deferred.clear()
            self._commands(waiting)
        if self.pending is None and not self.broken:
            self._drive(inp.now)
        out, self._out = self._out, []
        return out

    def reads_only(self, join: Join) -> bool:
        """Whether ``join`` is answered without a write (a spectator, or a seat's token),
        so it may be handled while a write is in flight: its welcome is the durable view,
        and the write's patch follows it like any other viewer's."""
        return join.role == "spectator" or join.token is not None

    def holder_of(self, token: str | None) -> PeerId | None:
        """The connection that holds the seat ``token`` opens, if any."""
        seat = None if token is None else self.model.seat_for_token(token)
        return None if seat is None else self.seated.get(seat)

    @property
    def needs_driver(self) -> bool:
        """Whether time alone moves this room (clocks, hosted bots, takeovers)."""
        model = self.model
        bots = any(h.bot is not None for h in model.holders.values())
        return model.live and (model.clock > 0 or bots or model.takeover_after is not None)

    @property
    def idle(self) -> bool:
        """No connection, no write in flight, nothing that time alone would move."""
        return not self.peers and self.pending is None and not self.needs_driver

    # -- writes --------------------------------------------------------------------------------

    def _append(
        self,
        records: tuple[Record, ...],
        names: tuple[str, ...] = (),
        done: Done = _nothing,
        failed: Failed | None = None,
        model: RoomModel | None = None,
    ) -> None:
        self.pending = Pending(records, names, done, failed or self._retry_later, model)
        self._out.append(Append(records, self.model.seq))

    def _save_reply(self, peer: PeerId, seat: int, answer: Answer) -> None:
        def done(_now: float, _gone: frozenset[PeerId]) -> None:
            self.answers.remember(seat, answer.reply.id, answer)
            self._reply(peer, answer.reply)

        def failed(_now: float) -> None:
            self._unavailable(peer, answer.reply.id)

        self.pending = Pending((), (), done, failed)
        self._out.append(SaveReply(seat, answer.reply.id, reply_to_plain(answer)))

    def _write_done(self, now: float, gone: frozenset[PeerId]) -> None:
        pending, self.pending = self.pending, None
        assert pending is not None
        self.settling = False
        self.failures, self.backoff_until = 0, 0.0
        if pending.records:
            self._fold(pending.records, pending.names, pending.model)
        pending.done(now, gone)

    def _write_failed(self, inp: WriteFailed) -> None:
        pending = self.pending
        assert pending is not None
        if inp.conflict:
            self._break(f"the room's log moved under it: {inp.reason}")
            return
        self._out.append(
            Count("append_failures", (("outcome", "certain" if inp.certain else "unknown"),))
        )
        if inp.certain or not pending.records:
            self.pending = None
            self.settling = False
            log.warning("room %s: write failed: %s", self.model.room_id, inp.reason)
            pending.failed(inp.now)
            return
        log.warning(
            "room %s: write outcome unknown (%s); settling from the log",
            self.model.room_id,
            inp.reason,
        )
        self.settling = True
        self._out.append(Settle(self.model.seq))

    def _settled(self, inp: TailRead) -> None:
        pending = self.pending
        assert pending is not None and self.settling
        mine = [unpack(pack(to_plain(r))) for r in pending.records]
        tail = [dict(data) for _, data in inp.records]
        if not tail:  # fenced and absent: it can never land now
            self.pending, self.settling = None, False
            pending.failed(inp.now)
            return
        if tail[: len(mine)] != mine:
            self._break("another writer appended to this room's log")
            return
        self._write_done(inp.now, inp.gone)
        if len(tail) > len(mine):
            self._break("another writer appended to this room's log")

    def _fold(
        self, records: tuple[Record, ...], names: tuple[str, ...], folded: RoomModel | None
    ) -> None:
        """Make durable ``records`` the model (``folded``, if the core folded them already)
        and send every viewer its patch."""
        first = self.model.seq
        model = self.model
        for offset, record in enumerate(records, start=1):
            if folded is None:
                model = evolve(model, first + offset, record)
            self.answers.learn(first + offset, record)
        model = folded or model
        self.model = model
        if self.stuck:  # a refused timeout or bot move is tried again once the room moves
            self.stuck.clear()
        # Viewers share op objects, and often a whole list of ops (a public view whose
        # ``you`` did not move): each op is encoded once, each list is one patch and
        # one msgpack frame (kept for resumes, sent to msgpack peers), and the viewers
        # of one patch get one Send (one encoding per codec).
        pieces: OpPieces = {}
        patches: dict[int, tuple[list[Op], Patch, bytes, list[PeerId]]] = {}
        for viewer, ops in self.views.advance(model).items():
            known = patches.get(id(ops))
            if known is None:
                patch = Patch(first, model.seq, tuple(ops), names)
                frame = MSGPACK.encode_patch(patch, pieces)
                known = patches[id(ops)] = (ops, patch, frame, [])
            self.history[viewer].append(first, known[2])
            known[3].extend(self._viewer_peers(viewer))
        for _, patch, frame, peers in patches.values():
            if peers:
                self._out.append(Send(tuple(peers), patch, frame))
        every = self.settings.snapshot_every
        if every and model.seq - self.snapshot_seq >= every:
            self.snapshot_seq = model.seq
            self._out.append(SaveSnapshot(model.seq, snapshot_of(model, self.answers.acks_plain())))

    def _retry_later(self, now: float) -> None:
        self.failures += 1
        delay = min(self.settings.retry_cap, self.settings.retry_base * 2 ** (self.failures - 1))
        self.backoff_until = now + delay
        self._out.append(Count("retries"))
        log.warning(
            "room %s: retrying in %.2f s (failure %d)", self.model.room_id, delay, self.failures
        )

    def _break(self, why: str) -> None:
        log.error("room %s: %s; unloading", self.model.room_id, why)
        self.broken = True
        self.pending = None
        self._out.append(Broken(codes.UNAVAILABLE, "the room moved; reconnect"))

    # -- peers -----------------------------------------------------------------------------

    def _send(self, peers: tuple[PeerId, ...], message: ServerMessage) -> None:
        self._out.append(Send(peers, message))

    def _viewer_peers(self, viewer: Viewer) -> tuple[PeerId, ...]:
        if viewer is None:
            return tuple(p for p, info in self.peers.items() if info.seat is None)
        peer = self.seated.get(viewer)
        return () if peer is None else (peer,)

    def _join(self, j: Join) -> None:
        model = self.model
        if j.role == "spectator":
            self.peers[j.peer] = PeerInfo(None, "spectator", j.codec)
            self._welcome(j.peer, None, j.last_seq, j.now)
            self._presence(j.now, seats=False)
            return
        if j.token is not None:
            seat = model.seat_for_token(j.token)
            if seat is None:
                self._out.append(
                    Close(
                        j.peer,
                        codes.BAD_SEAT_TOKEN,
                        "this seat token belongs to no seat of this room",
                    )
                )
                return
            self._take_seat(j, seat, j.token, j.last_seq)
            return
        free = model.free_seats()
        if not free:
            self._out.append(
                Close(
                    j.peer, codes.ROOM_FULL, "every seat of this room is taken; join as a spectator"
                )
            )
            return
        seat = free[0]

        def done(now: float, gone: frozenset[PeerId]) -> None:
            if j.peer in gone:  # nobody got the token: give the seat back
                self.unconfirmed.add(seat)
            else:
                self._take_seat(j, seat, j.fresh_token, None)

        def failed(_now: float) -> None:
            self._out.append(
                Close(
                    j.peer,
                    codes.UNAVAILABLE,
                    "the seat could not be taken; nothing changed; try again",
                )
            )

        self._append((seated_record(seat, j.name, j.fresh_token, None, j.now),), (), done, failed)

    def _take_seat(self, j: Join, seat: int, token: str, last_seq: int | None) -> None:
        old = self.seated.get(seat)
        if old is not None and old != j.peer:
            self._out.append(Close(old, codes.REPLACED, "a newer connection took this seat"))
            self.peers.pop(old, None)
        self.peers[j.peer] = PeerInfo(seat, "player", j.codec)
        self.seated[seat] = j.peer
        self.left_at.pop(seat, None)
        self._welcome(j.peer, token, last_seq, j.now)
        self._presence(j.now)

    def _leave(self, inp: Leave) -> None:
        info = self.peers.pop(inp.peer, None)
        if info is None:
            return
        if info.seat is not None and self.seated.get(info.seat) == inp.peer:
            del self.seated[info.seat]
            self.left_at[info.seat] = inp.now
        self._presence(inp.now, seats=info.seat is not None)

    def _welcome(self, peer: PeerId, token: str | None, last_seq: int | None, now: float) -> None:
        info = self.peers[peer]
        viewer = info.seat
        room, game = self.model.room_id, self.model.game.name
        role: Any = info.role
        snapshot = Welcome(room, game, role, viewer, token, self.model.seq,
                           self.views.snapshot(viewer), now)  # fmt: skip
        missed = self._missed(viewer, last_seq)
        if missed is None or last_seq is None:
            self._send_view((peer,), snapshot, viewer, info.codec)
            return
        resume = Welcome(room, game, role, viewer, token, last_seq, None, now)
        if not missed:
            self._send((peer,), resume)
            return
        whole = self._with_view(snapshot, viewer)  # what the patches must beat (or be sent)
        if len(MSGPACK.encode(resume)) + sum(map(len, missed)) < len(whole):
            self._send((peer,), resume)
            self._out.append(SendFrames(peer, tuple(missed)))
        else:
            self._out.append(Send((peer,), snapshot, whole))

    def _with_view(self, message: Welcome | Snapshot, viewer: Viewer) -> bytes:
        """``message`` (carrying ``viewer``'s view) in msgpack, its view encoded once per
        change of the room (:meth:`server.room.views.Views.encoded`)."""
        return MSGPACK.encode_with(message, "view", self.views.encoded(viewer))

    def _send_view(
        self, peers: tuple[PeerId, ...], message: Welcome | Snapshot, viewer: Viewer, codec: str
    ) -> None:
        """Send a message carrying a whole view; to a msgpack peer, its view as encoded
        for every other peer of the same viewer since the room last changed."""
        frame = self._with_view(message, viewer) if codec == MSGPACK.name else None
        self._out.append(Send(peers, message, frame))

    def _missed(self, viewer: Viewer, last_seq: int | None) -> list[bytes] | None:
        """The patches after ``last_seq``, if this room still holds all of them."""
        if last_seq is None or last_seq > self.model.seq:
            return None
        if last_seq == self.model.seq:
            return []
        return self.history[viewer].since(last_seq)

    def _resync(self, peer: PeerId) -> None:
        info = self.peers.get(peer)
        if info is not None:
            snapshot = Snapshot(self.model.seq, self.views.snapshot(info.seat))
            self._send_view((peer,), snapshot, info.seat, info.codec)

    def presence(self) -> Presence:
        """Who is at the table now."""
        holders, model = self.model.holders, self.model
        seats = []
        for s in range(model.seats):
            info = holders.get(s)
            bot = info is not None and (info.bot is not None or s in model.taken_over)
            seats.append(SeatPresence(s, info.name if info else None, s in self.seated or bot, bot))
        spectators = sum(1 for p in self.peers.values() if p.seat is None)
        return Presence(tuple(seats), spectators)

    def _presence(self, now: float, seats: bool = True) -> None:
        """Tell everyone who is here: now, or at the end of the current interval if a
        presence went out less than ``presence_every`` ago (one frame for a burst). A
        change in the spectator count alone (``seats`` false) waits for the longer
        ``spectators_presence_every``: a crowd of spectators costs the room a frame per
        connection per interval, and nobody acts on the count."""
        every = self.settings.presence_every if seats else self.settings.spectators_presence_every
        due = self.presence_sent + every
        if self.presence_at is not None and self.presence_at <= due:
            return  # one is already due by then: it will say this too
        if now >= due:
            self._presence_now(now)
        else:
            self.presence_at = due
            self.armed["presence"] = due
            self._out.append(Arm("presence", due))

    def _presence_now(self, now: float) -> None:
        self.presence_at = None
        if self.peers:
            self.presence_sent = now
            self._send(tuple(self.peers), self.presence())

    # -- commands ---------------------------------------------------------------------------

    # -- rematch ------------------------------------------------------------------

    def _rematch(self, inp: Rematch) -> None:
        if self.model.rematch is not None:
            self._out.append(Finished(inp.op))
            return

        def failed(_now: float) -> None:
            self._out.append(Finished(inp.op, codes.UNAVAILABLE, "the event log is unavailable"))

        done: Done = lambda _n, _g: self._out.append(Finished(inp.op))  # noqa: E731
        self._append((Rematched(inp.room, inp.now),), (), done, failed)
