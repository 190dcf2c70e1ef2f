"""Group commit: collect the requests issued within one event-loop turn, flush them
together, and hand each caller its own result. :class:`GroupCommitted` is the
``append`` that the SQLite and Redis backends share on top of it.

``submit(item)`` queues ``item`` and awaits its result. The first request of a turn
starts a drain task (it runs on the next loop iteration, after every task woken in
this turn has had its chance to submit); the drain hands up to ``max_batch`` queued
items to ``flush`` and resolves each caller's future with its own result, or raises
its own exception. Only one flush is in flight at a time: requests that arrive while
it runs are queued and make up the next batch, so batches grow with the load.

``flush`` returns one outcome per item, in order: a value, or an exception instance
for that item alone. If ``flush`` itself raises, every item of the batch gets that
exception.

A caller that is cancelled while waiting does not cancel its write: the item may
still be committed (the caller simply never learns the result).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Generic, TypeVar

import attrs

from server.store.base import check_room, check_seq, pack_all
from server.store.errors import StoreUnavailable

T = TypeVar("T")
R = TypeVar("R")

Flush = Callable[[list[T]], Awaitable[Sequence[R | BaseException]]]


class Batcher(Generic[T, R]):
    """Collects items per loop turn and flushes them in batches through ``flush``."""

    def __init__(self, flush: Flush[T, R], *, max_batch: int = 512) -> None:
        self._flush = flush
        self._max_batch = max_batch
        self._queue: list[tuple[T, asyncio.Future[R]]] = []
        self._drain: asyncio.Task[None] | None = None
        self._closed = False
        self.flushes = 0  # statistics: batches flushed
        self.items = 0  # statistics: items flushed

    async def submit(self, item: T) -> R:
        """Queue ``item`` for the next flush and wait for its own result."""
        if self._closed:
            raise StoreUnavailable("the store is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[R] = loop.create_future()
        self._queue.append((item, future))
        if self._drain is None:
            self._drain = loop.create_task(self._run())
        return await future

    async def close(self) -> None:
        """Refuse new items and wait until everything queued has been flushed."""
        self._closed = True
        if self._drain is not None:
            await asyncio.shield(self._drain)

    async def _run(self) -> None:
        try:
            while self._queue:
                batch = self._queue[: self._max_batch]
                del self._queue[: self._max_batch]
                await self._flush_batch(batch)
        finally:
            self._drain = None

    async def _flush_batch(self, batch: list[tuple[T, asyncio.Future[R]]]) -> None:
        self.flushes += 1
        self.items += len(batch)
        try:
            outcomes = await self._flush([item for item, _ in batch])
        except asyncio.CancelledError:
            _fail(batch + self._queue, StoreUnavailable("the store's flush was cancelled"))
            raise
        except Exception as exc:
            outcomes = [exc] * len(batch)
        for (_, future), outcome in zip(batch, outcomes, strict=True):
            if future.done():
                continue  # the caller was cancelled
            if isinstance(outcome, BaseException):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)


def _fail(pending: Sequence[tuple[object, asyncio.Future[R]]], exc: BaseException) -> None:
    for _, future in pending:
        if not future.done():
            future.set_exception(exc)


@attrs.frozen
class Append:
    """One room's append waiting for the group commit: msgpack blobs after ``expected``."""

    room: str
    expected: int
    blobs: list[bytes]
    fence: int | None = None


class GroupCommitted:
    """The ``append`` of the durable backends: check, pack, hand to the batcher.

    A subclass sets ``self.batcher`` (whose flush writes a batch of :class:`Append`)
    and ``_check_open``.
    """

    batcher: Batcher[Append, int]

    def _check_open(self) -> None:
        raise NotImplementedError

    async def append(
        self,
        room: str,
        records: Sequence[dict[str, Any]],
        expected_seq: int,
        *,
        fence: int | None = None,
    ) -> int:
        """Append ``records`` after ``expected_seq`` (group-committed); return the new last seq."""
        self._check_open()
        check_room(room)
        check_seq(expected_seq, "expected_seq")
        if fence is not None:
            check_seq(fence, "fence")
        blobs = pack_all(records)
        if not blobs:
            return expected_seq
        return await self.batcher.submit(Append(room, expected_seq, blobs, fence))
