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

The room holds its parts as attributes: :attr:`Room.peers`
(:class:`~server.room.peers.Peers`: its connections; each peer's frames of one input
are handed to its connection together before the room next waits, so the actor never
awaits a socket) and :attr:`Room.writes` (:class:`~server.room.writes.Writes`: the
write awaited, with its outcome the core's next input; snapshots and the driven mark).
Timers are armed on the loop and searching bots think in worker threads; both post
their result back. Time is read here (``clock``, unix seconds) and passed in as
``now``.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from engine.core import choose
from protocol import errors as codes
from protocol.messages import Hello
from server.config import Settings
from server.errors import RoomRefusal
from server.metrics import Metrics
from server.room.core import RoomCore
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
)
from server.room.mailbox import Carry, Mailbox, may_go_ahead
from server.room.peers import Peers
from server.room.views import room_summary
from server.room.writes import Writes
from server.store import EventStore
from server.tasks import cancel_and_wait

log = logging.getLogger("rollhouse.room")

_peer_ids = itertools.count(1)
_AT_ONCE = (Join, Leave, ResyncIn, TimerFired)
"""Inputs a waiting room begins as they are posted (they seldom write; see Room.post)."""
_WRITES = (Append, SaveReply, Settle)


MAX_BATCH = 64
"""At most this many queued commands are decided together and written as one append."""


class Room:
    """A live room: the core, its peers, its writes, its mailbox and timers."""

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
        self.settings = settings
        self.metrics = metrics
        self.clock = clock
        self.peers = Peers()
        """The room's connections, and the frames held for them until it next waits."""
        self.writes = Writes(core.model.room_id, store, core.settings, metrics, self.peers,
                             clock, fence, refence or store.fence)  # fmt: skip
        """The room's writes to its store, and what they tell of it (fence, failures)."""
        self.mailbox = Mailbox()
        self._parked = False
        """The task waits on an empty mailbox: no input is being handled."""
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.ops: dict[int, asyncio.Future[Finished]] = {}
        self.broken = False
        self.last_active = time.monotonic()
        self._op_ids = itertools.count(1)
        self._task: asyncio.Task[None] | None = None
        self._summary: tuple[tuple[Any, ...], dict[str, Any]] | None = None
        self.thoughts: set[asyncio.Task[None]] = set()
        """Searching bots thinking in worker threads (see :meth:`_think`)."""

    @property
    def room_id(self) -> str:
        return self.core.model.room_id

    @property
    def model(self) -> Any:
        return self.core.model

    @property
    def fence(self) -> int | None:
        """The fence this room's writes carry (the cluster reports it)."""
        return self.writes.fence

    @property
    def fenced(self) -> bool:
        """Another node fenced this room off: it must not be served from here."""
        return self.writes.fenced

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"room-{self.room_id}")
        self.post(Start(self.clock()))

    async def stop(self) -> None:
        for handle in self.timers.values():
            handle.cancel()
        self.timers.clear()
        await self.writes.stop_snapshots()
        for thought in list(self.thoughts):
            thought.cancel()
        if self._task is not None:  # for sure: a cancel alone may be swallowed (server.tasks)
            await cancel_and_wait(self._task)

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
            self.peers.flush()
        if rest or (self.core.needs_driver != self.writes.driven and not self.broken):
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
        self.peers.add(pid, peer)
        own = hello.new_seat_token
        fresh = own or secrets.token_urlsafe(18)
        self.post(Join(pid, peer.codec_name, hello.role, hello.name, hello.seat_token,
                       hello.last_seq, fresh, self.clock(), player, hello.invite,
                       own is not None, hello.client, hello.attempt))  # fmt: skip
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
                self.peers.flush()
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
            self.peers.drop(inp.peer)
        for i, out in enumerate(outputs):
            if type(out) is Send:  # most of them: no dispatch
                self.peers.send(out)
            elif type(out) in _WRITES:
                return outputs[i:]
            else:
                self._do(out)
        return ()

    async def _carry_out(self, outputs: Sequence[Output]) -> None:
        """Carry out ``outputs``, which begin with a write (or are empty): the write, what
        follows it, then the core's answer to the write's outcome, until no write is left."""
        while outputs:
            self.peers.flush()  # before a wait: nothing sent may be held up
            outcome = await self.writes.write(outputs[0])
            for out in outputs[1:]:
                self._do(out)
            outputs = self._begin(outcome)
        if self.writes.fenced and not self.broken:
            self._broken(codes.MOVED, "this room is run by another node now; reconnect")
        if not self.broken:
            await self.writes.mark_driven(self.core.needs_driver)

    def _do(self, out: Output) -> None:
        """Carry out ``out``, which is not a write."""
        if self.peers.holding and not isinstance(out, Send | SendFrames | Arm | Disarm | Count):
            self.peers.flush()  # before a close: nothing sent may be held up
        match out:
            case Send():
                self.peers.send(out)
            case SendFrames():
                self.peers.send_kept(out)
            case Arm():
                self._arm(out.key, out.at)
            case Disarm():
                handle = self.timers.pop(out.key, None)
                if handle is not None:
                    handle.cancel()
            case Close():
                self.peers.close(out.peer, out.code, out.message)
            case Finished():
                future = self.ops.pop(out.op, None)
                if future is not None and not future.done():
                    future.set_result(out)
            case Count():
                self._count(out)
            case SaveSnapshot():
                self.writes.save_snapshot(out)
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

    # -- timers and counts -----------------------------------------------------------------

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

    # -- closing ---------------------------------------------------------------------------

    def close_peers(self, pids: Iterable[PeerId] | None, code: str, message: str) -> None:
        """Close these peers' connections (None: every peer's) with ``code``; each leaves
        the room as its socket closes, and the room goes on."""
        self.peers.close_some(pids, code, message)

    def close_all(self, code: str, message: str) -> None:
        """Stop serving from memory: close every peer with ``code`` (e.g. room/moved)."""
        if not self.broken:
            self._broken(code, message)

    def _broken(self, code: str, message: str) -> None:
        if self.writes.fenced:  # not a failure the client should see: the room goes on elsewhere
            code, message = codes.MOVED, "this room is run by another node now; reconnect"
        self.broken = True
        self.peers.close_all(code, message)
        for handle in self.timers.values():
            handle.cancel()
        self.timers.clear()
        for future in self.ops.values():
            if not future.done():
                future.set_result(Finished(0, code, message))
