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

Parts. The core is one class holding its parts as attributes, all over one
:class:`~server.room.state.RoomState`: :attr:`RoomCore.table` (peers, seats, welcomes,
presence: :mod:`server.room.table`), :attr:`RoomCore.deciding` (commands:
:mod:`server.room.commands`), :attr:`RoomCore.clockwork` (time: :mod:`server.room.clock`)
and :attr:`RoomCore.fanout` (patches and kept frames: :mod:`server.room.fanout`). Every
write carries what it is for, a value of :mod:`server.room.then`, matched once it is
durable in :meth:`RoomCore._durable` or, certainly lost, in :meth:`RoomCore._lost`.

The path of a command: :meth:`RoomCore.handle` (``CommandIn``/``Commands``) ->
:meth:`server.room.commands.Deciding.decide` (``Append`` with ``CommandsAcked``) -> the
shell writes -> ``WriteDone`` -> :meth:`RoomCore._write_done` -> :meth:`RoomCore._fold`
(patches: :meth:`server.room.fanout.Fanout.patches`) -> :meth:`RoomCore._durable` ->
:meth:`server.room.commands.Deciding.acked` (the acks).

Unknown outcomes. A write whose outcome is unknown (a timeout or a dropped connection
after sending) is never answered as a reject: the core asks the shell to
:class:`Settle` (fence off every older write of the room, then read the log's tail) and
answers from what the log holds: an ack if the records landed, ``room/unavailable``
only if they certainly did not. A room never serves state behind or ahead of its log.

Liveness. Clock timeouts, bot moves, takeovers and the room's own bookkeeping records
(``left``, ``returned``, ``takeover``, ``unseated``) are derived from the model after
every input (:meth:`server.room.clock.Clockwork.drive`), so a failed write is tried again after a
capped exponential backoff. Timeouts that fall due together are applied in the game's
turn order (Rollie: the First player, then clockwise), never by seat number.

Answers. A command id gets one answer for the room's lifetime (:mod:`server.room.model.answers`):
acks are in the log, every other answer is stored beside it before it is sent.
"""

from __future__ import annotations

import logging

from protocol import errors as codes
from protocol.messages import Presence
from server.room.acts import Acts
from server.room.clock import Clockwork, waits_for_people
from server.room.commands import Deciding
from server.room.fanout import Fanout, PatchHistory
from server.room.io import (
    ActIn,
    BotThought,
    Broken,
    CommandIn,
    Commands,
    Count,
    Finished,
    Input,
    Invite,
    Join,
    Leave,
    Operate,
    Output,
    PeerId,
    Rematch,
    Reserve,
    ResyncIn,
    SaveSnapshot,
    Settle,
    Start,
    TailRead,
    TimerFired,
    WriteDone,
    WriteFailed,
)
from server.room.model.answers import Answers
from server.room.model.fold import evolve, game_events
from server.room.model.records import Record, Rematched, seated_record, to_plain
from server.room.model.room import RoomModel
from server.room.model.snapshots import snapshot_of
from server.room.state import CoreSettings, PeerInfo, Pending, RoomState
from server.room.table import Table
from server.room.then import (
    Acted,
    Bookkept,
    CommandsAcked,
    Moved,
    OpDone,
    ReplySaved,
    SeatTaken,
    Then,
)
from server.room.views import Views
from server.store.base import pack, unpack

__all__ = ["CoreSettings", "PeerInfo", "Pending", "RoomCore"]

log = logging.getLogger("rollhouse.room")


class RoomCore:
    """One room's decisions: its model, its viewers, its answers, its timers."""

    def __init__(
        self, model: RoomModel, answers: Answers | None = None, settings: CoreSettings | None = None
    ) -> None:
        settings = settings or CoreSettings()
        views = Views(model)
        self.state = RoomState(
            model, answers or Answers(settings.replies_per_seat), views, settings
        )
        self.fanout = Fanout(views, settings.patch_history, settings.patch_history_bytes)
        self.table = Table(self.state, self.fanout)
        self.deciding = Deciding(self.state)
        self.clockwork = Clockwork(self.state, self.table)
        self.acts = Acts(self.state, self.table)
        self.settling = False
        self.broken = False
        self.failures = 0
        self.snapshot_seq = 0
        """The seq of the last snapshot made (or loaded from)."""

    # -- what the shell and the tests read -------------------------------------------------

    @property
    def model(self) -> RoomModel:
        return self.state.model

    @property
    def settings(self) -> CoreSettings:
        return self.state.settings

    @property
    def answers(self) -> Answers:
        return self.state.answers

    @property
    def views(self) -> Views:
        return self.state.views

    @property
    def peers(self) -> dict[PeerId, PeerInfo]:
        return self.state.peers

    @property
    def seated(self) -> dict[int, PeerId]:
        return self.state.seated

    @property
    def pending(self) -> Pending | None:
        return self.state.pending

    @property
    def armed(self) -> dict[str, float]:
        return self.state.armed

    @property
    def history(self) -> dict[int | None, PatchHistory]:
        return self.fanout.history

    @property
    def presence_at(self) -> float | None:
        return self.table.presence_at

    def presence(self) -> Presence:
        """Who is at the table now."""
        return self.table.now_present()

    # -- the one entry point ---------------------------------------------------------------

    def handle(self, inp: Input) -> list[Output]:
        """Everything the shell must do, in order, because of ``inp``."""
        if self.broken:
            return []
        state = self.state
        if (
            state.pending is not None
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
                self.deciding.decide((inp,))
            case Commands():
                self.deciding.decide(inp.commands)
            case Join():
                self.table.join(inp)
            case Leave():
                self.table.leave(inp)
            case ResyncIn():
                self.table.resync(inp.peer)
            case TimerFired():
                self.clockwork.timer(inp.key, inp.now)
            case BotThought():
                self.clockwork.thought(inp)
            case ActIn():
                self.acts.act(inp)
            case Rematch():
                self._rematch(inp)
            case Reserve():
                self._reserve(inp)
            case Invite():
                self.acts.invite(inp)
            case Operate():
                self.acts.operate(inp)
            case Start():
                self.table.note_host(inp.now)
        deferred = self.deciding.deferred
        while deferred and state.pending is None and not self.broken:
            waiting = tuple(deferred)
            deferred.clear()
            self.deciding.decide(waiting)
        if state.pending is None and not self.broken:
            self.clockwork.drive(inp.now)
        out, state.out = state.out, []
        return out

    def reads_only(self, join: Join) -> bool:
        """Whether ``join`` is answered without a write (a spectator, a seat's token, or a
        player coming back to their seat), so it may be handled while a write is in
        flight: its welcome is the durable view, and the write's patch follows it like
        any other viewer's."""
        if join.role == "spectator" or join.token is not None:
            return True
        seat = self.model.seat_of(join.player)
        return seat is not None and self.model.holders[seat].hold is None

    def holder_of(self, join: Join) -> PeerId | None:
        """The connection that holds the seat ``join`` comes back to, if any."""
        seat = self.table.seat_of(join)
        return None if seat is None else self.seated.get(seat)

    @property
    def needs_driver(self) -> bool:
        """Whether time alone moves this room (clocks, hosted bots, takeovers; seats held
        for players, bots to come)."""
        model = self.model
        if waits_for_people(model):
            return True
        bots = any(h.bot is not None for h in model.holders.values())
        return model.live and (model.clock > 0 or bots or model.takeover_after is not None)

    @property
    def idle(self) -> bool:
        """No connection, no write in flight, nothing that time alone would move."""
        return not self.peers and self.pending is None and not self.needs_driver

    # -- what follows a write ----------------------------------------------------------------

    def _durable(self, then: Then, now: float, gone: frozenset[PeerId]) -> None:
        """The write ``then`` was for is durable (and folded): finish what it began."""
        match then:
            case CommandsAcked():
                self.deciding.acked(then.run)
            case ReplySaved():
                self.deciding.reply_saved(then)
            case SeatTaken():
                self.table.seat_taken(then.join, then.seat, then.token, gone)
            case Bookkept():
                self.clockwork.bookkept(then.record, now)
            case Acted():
                self.acts.acted(then)
                self.table.note_host(now)
                self.table.presence(now)
            case OpDone():
                self.state.out.append(Finished(then.op, value=then.value))
            case Moved():
                pass

    def _lost(self, then: Then, now: float) -> None:
        """The write ``then`` was for certainly did not land: nothing changed."""
        match then:
            case CommandsAcked():
                for accepted in then.run:
                    self.deciding.unavailable(accepted.peer, accepted.id)
            case ReplySaved():
                self.deciding.unavailable(then.peer, then.answer.reply.id)
            case SeatTaken():
                self.table.seat_lost(then.join)
            case Acted():
                self.acts.lost(then)
            case OpDone():
                text = "the event log is unavailable"
                self.state.out.append(Finished(then.op, codes.UNAVAILABLE, text))
            case Bookkept() | Moved():
                self._retry_later(now)

    # -- writes --------------------------------------------------------------------------------

    def _write_done(self, now: float, gone: frozenset[PeerId]) -> None:
        pending, self.state.pending = self.state.pending, None
        assert pending is not None
        self.settling = False
        self.failures, self.clockwork.backoff_until = 0, 0.0
        if pending.records:
            self._fold(pending.records, pending.names, pending.model)
        self._durable(pending.then, now, gone)

    def _write_failed(self, inp: WriteFailed) -> None:
        pending = self.state.pending
        assert pending is not None
        if inp.conflict:
            self._break(f"the room's log moved under it: {inp.reason}")
            return
        self.state.out.append(
            Count("append_failures", (("outcome", "certain" if inp.certain else "unknown"),))
        )
        if inp.certain or not pending.records:
            self.state.pending = None
            self.settling = False
            log.warning("room %s: write failed: %s", self.model.room_id, inp.reason)
            self._lost(pending.then, inp.now)
            return
        log.warning(
            "room %s: write outcome unknown (%s); settling from the log",
            self.model.room_id,
            inp.reason,
        )
        self.settling = True
        self.state.out.append(Settle(self.model.seq))

    def _settled(self, inp: TailRead) -> None:
        pending = self.state.pending
        assert pending is not None and self.settling
        mine = [unpack(pack(to_plain(r))) for r in pending.records]
        tail = [dict(data) for _, data in inp.records]
        if not tail:  # fenced and absent: it can never land now
            self.state.pending, self.settling = None, False
            self._lost(pending.then, inp.now)
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
        state = self.state
        first = state.model.seq
        model = state.model
        for offset, record in enumerate(records, start=1):
            if folded is None:
                model = evolve(model, first + offset, record)
            state.answers.learn(first + offset, record)
        model = folded or model
        state.model = model
        if self.clockwork.stuck:  # a refused timeout or bot move is tried again once the room moves
            self.clockwork.stuck.clear()
        events = game_events(records)
        state.out.extend(
            self.fanout.patches(first, model, names, self.table.viewer_peers(), events)
        )
        every = state.settings.snapshot_every
        if every and model.seq - self.snapshot_seq >= every:
            self.snapshot_seq = model.seq
            state.out.append(
                SaveSnapshot(model.seq, snapshot_of(model, state.answers.acks_plain()))
            )

    def _retry_later(self, now: float) -> None:
        self.failures += 1
        settings = self.state.settings
        delay = min(settings.retry_cap, settings.retry_base * 2 ** (self.failures - 1))
        self.clockwork.backoff_until = now + delay
        self.state.out.append(Count("retries"))
        log.warning(
            "room %s: retrying in %.2f s (failure %d)", self.model.room_id, delay, self.failures
        )

    def _break(self, why: str) -> None:
        log.error("room %s: %s; unloading", self.model.room_id, why)
        self.broken = True
        self.state.pending = None
        self.state.out.append(Broken(codes.UNAVAILABLE, "the room moved; reconnect"))

    # -- rematch ---------------------------------------------------------------------------

    def _rematch(self, inp: Rematch) -> None:
        if self.model.rematch is not None:
            self.state.out.append(Finished(inp.op))
            return
        self.state.write((Rematched(inp.room, inp.now),), (), OpDone(inp.op))

    def _reserve(self, inp: Reserve) -> None:
        """Hold a free seat for a quick-matched player (theirs already, if they hold one)."""
        model, out = self.model, self.state.out
        seat = model.seat_of(inp.player)
        if seat is not None:
            out.append(Finished(inp.op, value=seat))
            return
        free = model.free_seats()
        if (
            model.started
            or model.is_over
            or model.locked
            or model.closed is not None
            or not free
            or inp.player in model.banned
        ):
            out.append(Finished(inp.op, codes.ROOM_FULL, "no seat to hold in this room"))
            return
        record = seated_record(free[0], inp.name, None, None, inp.now, inp.player, inp.until)
        self.state.write((record,), (), OpDone(inp.op, free[0]))
