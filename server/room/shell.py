"""The room actor: the asyncio shell around one :class:`~server.room.core.RoomCore`.

Every input enters one way, :meth:`Room.post`, and is handled one way,
:meth:`Room._begin`: the core decides, and its outputs are carried out in order up to
the first write; the room's one task carries out that write and what follows it
(:meth:`Room._carry_out`: the write's outcome is the core's next input), one input
at a time from the room's mailbox (that order is the arrival order; commands queued
one behind another go in together, as one :class:`~server.room.io.Commands`, so they
share a write). :meth:`Room.post` decides only *when* an input begins: at once when
that changes no answer (a join, leave, resync or timer reaching a room whose task
waits on an empty mailbox: the same order, a turn of the event loop sooner; or a join
that only reads the room, a spectator or a seat's resume, while the room is busy,
ahead of what waits unless something of its seat does: the core answers it from what
is durable, :meth:`RoomCore.reads_only`), otherwise when the task reaches it.

Messages become frames in :class:`server.room.fanout.Encoder` (once per codec), and
each peer's frames of one input are handed to its connection together before the
room next waits (the actor never awaits a socket); timers are armed on the loop.
Time is read here (``clock``, unix seconds) and passed in as ``now``.

When the core asks to settle an unknown outcome the shell fences the room and reads
its log tail, retrying with capped backoff until the store answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from engine.core import choose
from protocol import errors as codes
from protocol.messages import Hello, Welcome
from server.config import Settings
from server.errors import RoomRefusal
from server.metrics import Metrics
from server.room.core import RoomCore
from server.room.fanout import Encoder, Frame
from server.room.handle import Peer
from server.room.io import (
    ActIn,
    Append,
    Arm,
    BotThought,
    Broken,
    Close,
    CommandIn,
    Commands,
    Count,
    Disarm,
    Finished,
    Input,
    Join,
    Leave,
    Member,
    Output,
    PeerId,
    Reopened,
    ResyncIn,
    SaveReply,
    SaveSnapshot,
    Send,
    SendFrames,
    Settle,
    Start,
    TailRead,
    Think,
    TimerFired,
    WriteDone,
    WriteFailed,
)
from server.room.mailbox import Carry, Mailbox, may_go_ahead
from server.room.model.records import to_plain
from server.room.views import room_summary
from server.store import EventStore, StoreConflict, StoreError, StoreFenced, StoreUnknown

log = logging.getLogger("rollhouse.room")

_peer_ids = itertools.count(1)
_AT_ONCE = (Join, Leave, ResyncIn, TimerFired)
"""Inputs a waiting room begins as they are posted (they seldom write; see Room.post)."""
_WRITES = (Append, SaveReply, Settle)


MAX_BATCH = 64
"""At most this many queued commands are decided together and written as one append."""


class Room:
    """A live room: the core, its peers' connections, its mailbox and timers."""

    def __init__(
        self,
        core: RoomCore,
        store: EventStore,
        settings: Settings,
        metrics: Metrics,
        fence: int | None = None,
        clock: Callable[[], float] = time.time,
        refence: Callable[[str], Awaitable[int]] | None = None,
        on_member: Callable[[str, str, float], None] | None = None,
        on_reopen: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.core = core
        self.on_member = on_member
        """Told ``(player, room, time)`` when a player takes a seat here (their games)."""
        self.on_reopen = on_reopen
        """Told the room's summary when a seat of it is free again (quick match)."""
        self.refence = refence or store.fence
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.fence = fence
        self.clock = clock
        self.peers: dict[PeerId, Peer] = {}
        self.mailbox = Mailbox()
        self._parked = False
        """The task waits on an empty mailbox: no input is being handled."""
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.ops: dict[int, asyncio.Future[Finished]] = {}
        self.write_failing_since: float | None = None
        """When (monotonic) a store write of this room failed with none succeeding since
        (``rollhouse_append_stalled_seconds``)."""
        self.broken = False
        self.fenced = False
        """Another node fenced this room off: it must not be served from here."""
        self.driven: bool | None = None
        self.last_active = time.monotonic()
        self._op_ids = itertools.count(1)
        self._task: asyncio.Task[None] | None = None
        self._snapshot: asyncio.Task[None] | None = None
        self._next_snapshot: SaveSnapshot | None = None
        self._held: dict[PeerId, tuple[Peer, list[Frame]]] = {}
        """Frames for each peer, held until the room next waits (see :meth:`_do`)."""
        self._encoder = Encoder()
        self._summary: tuple[tuple[Any, ...], dict[str, Any]] | None = None
        self.thoughts: set[asyncio.Task[None]] = set()
        """Searching bots thinking in worker threads (see :meth:`_think`)."""

    @property
    def room_id(self) -> str:
        return self.core.model.room_id

    @property
    def model(self) -> Any:
        return self.core.model

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"room-{self.room_id}")
        self.post(Start(self.clock()))

    async def stop(self) -> None:
        for handle in self.timers.values():
            handle.cancel()
        self.timers.clear()
        if self._snapshot is not None and not self._snapshot.done():
            with contextlib.suppress(Exception):  # best effort: give it a moment
                await asyncio.wait_for(asyncio.shield(self._snapshot), 1.0)
            self._snapshot.cancel()
        for thought in list(self.thoughts):
            thought.cancel()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    # -- the one way in --------------------------------------------------------------------

    def post(self, inp: Input) -> None:
        """Every input of the room comes in here. It begins (:meth:`_begin`) at once when
        that changes no answer, otherwise it waits in the mailbox for the room's task:

        - the room is waiting for input and ``inp`` is a join, leave, resync or timer:
          the same order, one turn of the event loop sooner;
        - the room is busy (a write in flight, inputs waiting) and ``inp`` is a join that
          only reads the room (a spectator, or a seat's token: a resume), with nothing
          waiting that concerns that seat: it is welcomed from what is durable now, and
          the patches of what was waiting follow it, instead of waiting behind them
          (a write waits for its commit: a reconnecting player would wait for every
          commit queued in the room).

        What an input begun at once leaves to do (its first write and what follows, or
        the driven mark to update) goes first in the mailbox, for the task."""
        if self.broken or type(inp) not in _AT_ONCE or not self._may_begin(inp):
            self.mailbox.put((inp, None))
            return
        rest: Sequence[Output] = ()
        try:
            rest = self._begin(inp)
        except Exception:  # a bug: stop serving from memory rather than guess
            log.exception("room %s failed", self.room_id)
            self._broken(codes.UNAVAILABLE, "the room failed; reconnect")
        finally:
            self._sent()
        if rest or (self.core.needs_driver != self.driven and not self.broken):
            self.mailbox.put_first((Carry(tuple(rest)), None))

    def _may_begin(self, inp: Input) -> bool:
        """Whether ``inp`` (a join, leave, resync or timer) may begin as it is posted."""
        if self._parked and self.mailbox.empty():
            return True
        if type(inp) is not Join:
            return False
        core = self.core  # a join that only reads, ahead of what waits
        return core.reads_only(inp) and may_go_ahead(inp, core.holder_of(inp), self.mailbox)

    async def request(self, make: Callable[[int, float], Input]) -> Any:
        """Run an operation (``make(op, now)``), wait until the core says it is over, and
        return what it gives back (a refusal raises RoomRefusal)."""
        if self.broken:
            raise RoomRefusal(codes.UNAVAILABLE, "this room must be reloaded; try again")
        op = next(self._op_ids)
        future: asyncio.Future[Finished] = asyncio.get_running_loop().create_future()
        self.ops[op] = future
        self.post(make(op, self.clock()))
        finished = await future
        if finished.code is not None:
            raise RoomRefusal(finished.code, finished.message)
        return finished.value

    async def settled(self) -> None:
        """Wait until everything posted so far has been handled (for tests and shutdown)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.mailbox.put((None, future))
        await future

    # -- what connections call (server.room.handle.RoomHandle) -----------------------------

    def join(self, peer: Peer, hello: Hello, player: str | None = None) -> PeerId:
        """Admit ``peer`` (its welcome, or a fatal error, follows through the mailbox);
        ``player``: the player whose session the hello carried, checked by the caller."""
        pid = next(_peer_ids)
        self.peers[pid] = peer
        own = hello.new_seat_token
        fresh = own or secrets.token_urlsafe(18)
        self.post(Join(pid, peer.codec_name, hello.role, hello.name, hello.seat_token,
                       hello.last_seq, fresh, self.clock(), player, hello.invite,
                       own is not None))  # fmt: skip
        return pid

    def command(self, pid: PeerId, cmd_id: str, body: dict[str, Any]) -> None:
        self.post(CommandIn(pid, cmd_id, body, self.clock()))

    def act(self, pid: PeerId, act_id: str, act: dict[str, Any]) -> None:
        self.post(ActIn(pid, act_id, act, self.clock()))

    def resync(self, pid: PeerId) -> None:
        self.post(ResyncIn(pid, self.clock()))

    def leave(self, pid: PeerId, undelivered: bool = False) -> None:
        """``pid``'s socket is gone (``undelivered``: before its welcome reached it)."""
        self.post(Leave(pid, self.clock(), undelivered))

    @property
    def connected(self) -> int:
        return len(self.peers)

    def summary(self) -> dict[str, Any]:
        """What the lobby shows of this room now (the same dict while nothing it shows
        has changed: the index's tick compares it with what it wrote last)."""
        players = len(self.core.seated)
        key = (self.core.model, players, len(self.core.peers) - players)
        last = self._summary
        if last is None or last[0][0] is not key[0] or last[0][1:] != key[1:]:
            last = self._summary = (key, room_summary(*key))
        return last[1]

    # -- the actor -------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            if not self.mailbox.empty():
                inp, future = self.mailbox.take()
            else:
                self._parked = True
                try:
                    inp, future = await self.mailbox.get()
                finally:
                    self._parked = False
            if isinstance(inp, CommandIn) and future is None:
                inp = self._gather(inp)
            self.last_active = time.monotonic()
            try:
                if inp is not None and not self.broken:
                    rest = inp.outputs if isinstance(inp, Carry) else self._begin(inp)
                    await self._carry_out(rest)
            except Exception:  # a bug: stop serving from memory rather than guess
                log.exception("room %s failed", self.room_id)
                self._broken(codes.UNAVAILABLE, "the room failed; reconnect")
            finally:
                self._sent()
            if type(inp) is CommandIn or type(inp) is Commands:  # their answers went out above
                now = self.clock()
                for cmd in inp.commands if type(inp) is Commands else (inp,):
                    self.metrics.ack_latency.observe(max(0.0, now - cmd.now))
            if future is not None and not future.done():
                future.set_result(None)

    def _gather(self, first: CommandIn) -> Input:
        """``first`` and the commands queued right behind it (up to ``MAX_BATCH``), as one
        input; what follows them stays first in the mailbox."""
        batch = [first]
        while len(batch) < MAX_BATCH:
            item = self.mailbox.first()
            if item is None or not isinstance(item[0], CommandIn) or item[1] is not None:
                break
            self.mailbox.take()
            batch.append(item[0])
        if len(batch) == 1:
            return first
        return Commands(tuple(batch), batch[-1].now)

    def _begin(self, inp: Input) -> Sequence[Output]:
        """Hand ``inp`` to the core and carry out its outputs up to the first write; that
        write and what follows it are returned (for :meth:`_carry_out`)."""
        self.last_active = time.monotonic()
        started = time.perf_counter()
        outputs = self.core.handle(inp)
        if isinstance(inp, WriteDone | TailRead):  # folding, diffing, queueing patches
            self.metrics.fanout_latency.observe(time.perf_counter() - started)
        if isinstance(inp, Leave):  # the core has let it go: nothing more is sent to it
            self.peers.pop(inp.peer, None)
        for i, out in enumerate(outputs):
            if type(out) is Send:  # most of them: no dispatch
                self._send(out)
            elif type(out) in _WRITES:
                return outputs[i:]
            else:
                self._do(out)
        return ()

    async def _carry_out(self, outputs: Sequence[Output]) -> None:
        """Carry out ``outputs``, which begin with a write (or are empty): the write, what
        follows it, then the core's answer to the write's outcome, until no write is left."""
        while outputs:
            self._sent()  # before a wait: nothing sent may be held up
            outcome = await self._write(outputs[0])
            for out in outputs[1:]:
                self._do(out)
            outputs = self._begin(outcome)
        if self.fenced and not self.broken:
            self._broken(codes.MOVED, "this room is run by another node now; reconnect")
        await self._mark_driven()

    def _write(self, out: Output) -> Awaitable[Input]:
        match out:
            case Append():
                return self._append(out)
            case SaveReply():
                return self._save_reply(out)
            case Settle():
                return self._settle(out.after)
        raise TypeError(f"{type(out).__name__} is not a write")

    def _do(self, out: Output) -> None:
        """Carry out ``out``, which is not a write."""
        if self._held and not isinstance(out, Send | SendFrames | Arm | Disarm | Count):
            self._sent()  # before a close: nothing sent may be held up
        match out:
            case Send():
                self._send(out)
            case SendFrames():
                peer = self.peers.get(out.peer)
                if peer is not None:
                    self._hold(out.peer, peer, self._encoder.kept(out.frames, peer.codec_name))
            case Arm():
                self._arm(out.key, out.at)
            case Disarm():
                handle = self.timers.pop(out.key, None)
                if handle is not None:
                    handle.cancel()
            case Close():
                peer = self.peers.pop(out.peer, None)
                if peer is not None:
                    peer.close_with(out.code, out.message)
            case Finished():
                future = self.ops.pop(out.op, None)
                if future is not None and not future.done():
                    future.set_result(out)
            case Count():
                self._count(out)
            case SaveSnapshot():
                self._save_snapshot(out)
            case Think():
                thought = asyncio.create_task(self._think(out), name=f"think-{self.room_id}")
                self.thoughts.add(thought)
                thought.add_done_callback(self.thoughts.discard)
            case Broken():
                self._broken(out.code, out.message)
            case Member():
                if self.on_member is not None:
                    self.on_member(out.player, self.room_id, self.clock())
            case Reopened():
                if self.on_reopen is not None:
                    self.on_reopen(self.summary())
            case _:
                raise TypeError(f"{type(out).__name__} is a write: see _carry_out")

    async def _think(self, out: Think) -> None:
        """Run the bot in a worker thread, so the event loop (every room and socket of the
        node) goes on meanwhile; its command comes back through the mailbox."""
        try:
            command = await asyncio.to_thread(
                choose, out.game, out.state, out.seat, out.policy, random.Random(out.seed)
            )
        except Exception:  # a bot bug: that seat's move is refused, the room goes on
            log.exception("room %s: bot for seat %s failed", self.room_id, out.seat)
            command = None
        self.post(BotThought(out.seat, out.seq, command, self.clock()))

    # -- frames ----------------------------------------------------------------------------

    def _send(self, out: Send) -> None:
        """Hold ``out``'s frame for each of its peers (one frame object per codec: a
        patch for 5,000 spectators is one loop of dictionary lookups, nothing encoded
        or allocated per peer but its held list)."""
        frames: dict[str, Frame] = {}
        welcome = out.message if isinstance(out.message, Welcome) else None
        peers, held, encoder = self.peers, self._held, self._encoder
        for pid in out.peers:
            peer = peers.get(pid)
            if peer is None:
                continue
            if welcome is not None:
                peer.seat, peer.role = welcome.seat, welcome.role
            frame = frames.get(peer.codec_name)
            if frame is None:
                frame = encoder.frame(out, peer.codec_name, frames)
            kept = held.get(pid)
            if kept is None:
                held[pid] = (peer, [frame])
            else:
                kept[1].append(frame)

    def _hold(self, pid: PeerId, peer: Peer, frames: list[Frame]) -> None:
        """Keep ``frames`` for ``peer`` until the room next waits (:meth:`_sent`)."""
        held = self._held.get(pid)
        if held is None:
            self._held[pid] = (peer, frames)
        else:
            held[1].extend(frames)

    def _sent(self) -> None:
        """Hand each peer the frames held for it (its patch and its ack go out together)."""
        self._encoder.clear()
        held, self._held = self._held, {}
        for peer, frames in held.values():
            peer.send_frames(frames)

    # -- writes ----------------------------------------------------------------------------

    def _gone(self) -> frozenset[PeerId]:
        return frozenset(pid for pid, peer in self.peers.items() if peer.gone)

    async def _append(self, out: Append) -> Input:
        started = time.perf_counter()
        plain = [to_plain(r) for r in out.records]
        try:
            await self.store.append(self.room_id, plain, out.expected, fence=self.fence)
        except StoreFenced as exc:
            self.fenced = True
            self.metrics.fencing_refusals.inc()
            return WriteFailed(True, str(exc), self.clock(), conflict=True)
        except StoreConflict as exc:
            if exc.actual < out.expected:  # the room is reloaded from the log as it is
                log.error("room %s: its log went back to %d below the %d acknowledged",
                          self.room_id, exc.actual, out.expected)  # fmt: skip
            return WriteFailed(True, str(exc), self.clock(), conflict=True)
        except StoreUnknown as exc:
            self._write_failed()
            return WriteFailed(False, str(exc), self.clock())
        except StoreError as exc:
            self._write_failed()
            return WriteFailed(True, str(exc), self.clock())
        self.metrics.append_latency.observe(time.perf_counter() - started)
        self.write_failing_since = None
        return WriteDone(self.clock(), self._gone())

    def _write_failed(self) -> None:
        if self.write_failing_since is None:
            self.write_failing_since = time.monotonic()

    async def _save_reply(self, out: SaveReply) -> Input:
        keep = self.core.settings.replies_per_seat
        data = dict(out.data)
        try:
            await self.store.save_reply(
                self.room_id, out.seat, out.cmd_id, data, keep, fence=self.fence
            )
        except StoreFenced as exc:  # another node owns the room now
            self.fenced = True
            self.metrics.fencing_refusals.inc()
            return WriteFailed(True, str(exc), self.clock(), conflict=True)
        except StoreError as exc:
            self._write_failed()
            return WriteFailed(True, str(exc), self.clock())
        self.write_failing_since = None
        return WriteDone(self.clock(), self._gone())

    async def _settle(self, after: int) -> Input:
        """Fence off older writes, then read the tail; retried until the store answers."""
        delay = self.core.settings.retry_base
        while True:
            try:
                try:
                    self.fence = await self.refence(self.room_id)
                except StoreFenced:  # another node runs the room now: read, answer, then go
                    self.fenced = True
                    self.metrics.fencing_refusals.inc()
                records = await self.store.read(self.room_id, after)
            except StoreError as exc:
                self._write_failed()
                self.metrics.retries.inc(reason="settle")
                log.warning(
                    "room %s: cannot settle yet (%s); retrying in %.2f s", self.room_id, exc, delay
                )
                await asyncio.sleep(delay)
                delay = min(self.core.settings.retry_cap, delay * 2)
                continue
            self.write_failing_since = None
            tail = tuple((r.seq, r.data) for r in records)
            return TailRead(tail, self.clock(), self._gone())

    def _save_snapshot(self, out: SaveSnapshot) -> None:
        """Write the snapshot in the background (one at a time; the newest waits)."""
        if self._snapshot is not None and not self._snapshot.done():
            self._next_snapshot = out
            return
        self._snapshot = asyncio.get_running_loop().create_task(self._write_snapshot(out))

    async def _write_snapshot(self, out: SaveSnapshot | None) -> None:
        while out is not None:
            try:
                await self.store.save_snapshot(self.room_id, out.seq, dict(out.data))
                self.metrics.snapshots.inc(outcome="saved")
            except StoreError as exc:  # only the next load is longer
                self.metrics.snapshots.inc(outcome="failed")
                log.warning("room %s: snapshot at %d not saved: %s", self.room_id, out.seq, exc)
            out, self._next_snapshot = self._next_snapshot, None

    def _arm(self, key: str, at: float) -> None:
        old = self.timers.pop(key, None)
        if old is not None:
            old.cancel()
        delay = max(0.0, at - self.clock())
        self.timers[key] = asyncio.get_running_loop().call_later(delay, self._fire, key)

    def _fire(self, key: str) -> None:
        self.timers.pop(key, None)
        self.post(TimerFired(key, self.clock()))

    def _count(self, out: Count) -> None:
        labels: dict[str, Any] = dict(out.labels)
        counter = {
            "rejections": self.metrics.rejections,
            "commands": self.metrics.commands,
            "retries": self.metrics.retries,
            "append_failures": self.metrics.append_failures,
        }[out.metric]
        counter.inc(out.amount, **({"reason": "write"} if out.metric == "retries" else labels))

    def close_peers(self, pids: Iterable[PeerId] | None, code: str, message: str) -> None:
        """Close these peers' connections (None: every peer's) with ``code``; each leaves
        the room as its socket closes, and the room goes on."""
        for pid in list(self.peers) if pids is None else pids:
            peer = self.peers.get(pid)
            if peer is not None:
                peer.close_with(code, message)

    def close_all(self, code: str, message: str) -> None:
        """Stop serving from memory: close every peer with ``code`` (e.g. room/moved)."""
        if not self.broken:
            self._broken(code, message)

    def _broken(self, code: str, message: str) -> None:
        if self.fenced:  # not a failure the client should see: the room goes on elsewhere
            code, message = codes.MOVED, "this room is run by another node now; reconnect"
        self.broken = True
        for peer in list(self.peers.values()):
            peer.close_with(code, message)
        self.peers.clear()
        for handle in self.timers.values():
            handle.cancel()
        self.timers.clear()
        for future in self.ops.values():
            if not future.done():
                future.set_result(Finished(0, code, message))

    async def _mark_driven(self) -> None:
        """Keep the store's set of time-driven rooms current (best effort, retried)."""
        driven = self.core.needs_driver
        if driven == self.driven or self.broken:
            return
        try:
            await self.store.set_driven(self.room_id, driven)
        except StoreError as exc:
            log.warning("room %s: cannot mark driven=%s: %s", self.room_id, driven, exc)
            return
        self.driven = driven
