"""A live room's writes to its store, and what they tell of the room.

The room's task awaits one write at a time (:meth:`Writes.write`): an append of
records, a command's reply kept for good, or the settling of an unknown outcome (the
room is fenced, then its log tail read, retried with capped backoff until the store
answers). Each returns its outcome, the core's next input. Beside them, best effort
and awaited by no command: snapshots (:meth:`Writes.save_snapshot`, one at a time,
the newest waiting) and the store's set of rooms that time drives
(:meth:`Writes.mark_driven`).

What the writes tell is kept here: the room's fence, whether another node fenced it
off, and since when its writes fail (``rollhouse_append_stalled_seconds``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from server.metrics import Metrics
from server.room.core import CoreSettings
from server.room.io import (
    Append,
    Input,
    Output,
    SaveReply,
    SaveSnapshot,
    Settle,
    TailRead,
    WriteDone,
    WriteFailed,
)
from server.room.model.records import to_plain
from server.room.peers import Peers
from server.store import EventStore, StoreConflict, StoreError, StoreFenced, StoreUnknown

log = logging.getLogger("rollhouse.room")


class Writes:
    """One room's writes: each awaited by the room's task, its outcome the next input."""

    def __init__(
        self,
        room_id: str,
        store: EventStore,
        settings: CoreSettings,
        metrics: Metrics,
        peers: Peers,
        clock: Callable[[], float],
        fence: int | None,
        refence: Callable[[str], Awaitable[int]],
    ) -> None:
        self.room_id = room_id
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.peers = peers
        """Whose sockets are gone when a write is durable (the outcome says)."""
        self.clock = clock
        self.fence = fence
        self.refence = refence
        self.fenced = False
        """Another node fenced this room off: it must not be served from here."""
        self.failing_since: float | None = None
        """When (monotonic) a store write of this room failed with none succeeding since
        (``rollhouse_append_stalled_seconds``)."""
        self.driven: bool | None = None
        """What the store's set of time-driven rooms says of this room (None: not known)."""
        self._snapshot: asyncio.Task[None] | None = None
        self._next_snapshot: SaveSnapshot | None = None

    def write(self, out: Output) -> Awaitable[Input]:
        """Carry out the write ``out``; its outcome is the core's next input."""
        match out:
            case Append():
                return self.append(out)
            case SaveReply():
                return self.save_reply(out)
            case Settle():
                return self.settle(out.after)
        raise TypeError(f"{type(out).__name__} is not a write")

    async def append(self, out: Append) -> Input:
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
                self.metrics.store_regressions.inc(what="log")
                log.error("room %s: its log went back to %d below the %d acknowledged",
                          self.room_id, exc.actual, out.expected)  # fmt: skip
            return WriteFailed(True, str(exc), self.clock(), conflict=True)
        except StoreUnknown as exc:
            self._failed()
            return WriteFailed(False, str(exc), self.clock())
        except StoreError as exc:
            self._failed()
            return WriteFailed(True, str(exc), self.clock())
        self.metrics.append_latency.observe(time.perf_counter() - started)
        self.failing_since = None
        return WriteDone(self.clock(), self.peers.gone())

    def _failed(self) -> None:
        if self.failing_since is None:
            self.failing_since = time.monotonic()

    async def save_reply(self, out: SaveReply) -> Input:
        keep = self.settings.replies_per_seat
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
            self._failed()
            return WriteFailed(True, str(exc), self.clock())
        self.failing_since = None
        return WriteDone(self.clock(), self.peers.gone())

    async def settle(self, after: int) -> Input:
        """Fence off older writes, then read the tail; retried until the store answers."""
        delay = self.settings.retry_base
        while True:
            try:
                try:
                    self.fence = await self.refence(self.room_id)
                except StoreFenced:  # another node runs the room now: read, answer, then go
                    self.fenced = True
                    self.metrics.fencing_refusals.inc()
                records = await self.store.read(self.room_id, after)
            except StoreError as exc:
                self._failed()
                self.metrics.retries.inc(reason="settle")
                log.warning(
                    "room %s: cannot settle yet (%s); retrying in %.2f s", self.room_id, exc, delay
                )
                await asyncio.sleep(delay)
                delay = min(self.settings.retry_cap, delay * 2)
                continue
            self.failing_since = None
            tail = tuple((r.seq, r.data) for r in records)
            return TailRead(tail, self.clock(), self.peers.gone())

    # -- best effort -----------------------------------------------------------------------

    def save_snapshot(self, out: SaveSnapshot) -> None:
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

    async def stop_snapshots(self) -> None:
        """Give a snapshot being written a moment to finish, then cancel it."""
        if self._snapshot is not None and not self._snapshot.done():
            with contextlib.suppress(Exception):  # best effort: give it a moment
                await asyncio.wait_for(asyncio.shield(self._snapshot), 1.0)
            self._snapshot.cancel()

    async def mark_driven(self, driven: bool) -> None:
        """Keep the store's set of time-driven rooms current (best effort, retried)."""
        if driven == self.driven:
            return
        try:
            await self.store.set_driven(self.room_id, driven)
        except StoreError as exc:
            log.warning("room %s: cannot mark driven=%s: %s", self.room_id, driven, exc)
            return
        self.driven = driven
