"""The group-commit Batcher: one flush per loop turn, each caller its own outcome."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from server.store.batch import Batcher
from server.store.errors import StoreUnavailable


class Recorder:
    """A flush function that records its batches and fails odd items on request."""

    def __init__(self, fail_odd: bool = False, delay: float = 0.0) -> None:
        self.batches: list[list[int]] = []
        self.fail_odd = fail_odd
        self.delay = delay

    async def __call__(self, items: list[int]) -> Sequence[int | BaseException]:
        self.batches.append(list(items))
        await asyncio.sleep(self.delay)
        return [ValueError(i) if self.fail_odd and i % 2 else i * 10 for i in items]


async def test_items_of_one_turn_are_flushed_together() -> None:
    """Submits issued in the same loop turn form one batch, results in order."""
    flush = Recorder()
    batcher: Batcher[int, int] = Batcher(flush)
    results = await asyncio.gather(*(batcher.submit(i) for i in range(10)))
    assert results == [i * 10 for i in range(10)]
    assert flush.batches == [list(range(10))]
    assert (batcher.flushes, batcher.items) == (1, 10)


async def test_each_caller_gets_its_own_exception() -> None:
    """An exception for one item reaches that caller only."""
    batcher: Batcher[int, int] = Batcher(Recorder(fail_odd=True))
    results = await asyncio.gather(*(batcher.submit(i) for i in range(4)), return_exceptions=True)
    assert results[0] == 0 and results[2] == 20
    assert isinstance(results[1], ValueError) and isinstance(results[3], ValueError)


async def test_a_failing_flush_fails_every_item_of_the_batch() -> None:
    """If flush raises, every caller of that batch gets the exception."""

    async def broken(items: list[int]) -> Sequence[int | BaseException]:
        raise StoreUnavailable("down")

    batcher: Batcher[int, int] = Batcher(broken)
    results = await asyncio.gather(*(batcher.submit(i) for i in range(3)), return_exceptions=True)
    assert all(isinstance(r, StoreUnavailable) for r in results)


async def test_items_arriving_during_a_flush_form_the_next_batch() -> None:
    """While one flush is in flight, new submits queue up and are flushed together next."""
    gate = asyncio.Event()
    batches: list[list[int]] = []

    async def gated(items: list[int]) -> Sequence[int | BaseException]:
        batches.append(list(items))
        await gate.wait()
        return items

    batcher: Batcher[int, int] = Batcher(gated)
    first = asyncio.ensure_future(batcher.submit(0))
    while not batches:  # bounded by the loop: the flush starts on the next turn
        await asyncio.sleep(0)
    later = [asyncio.ensure_future(batcher.submit(i)) for i in range(1, 4)]
    await asyncio.sleep(0)
    more = [asyncio.ensure_future(batcher.submit(i)) for i in range(4, 6)]
    await asyncio.sleep(0)
    assert batches == [[0]]  # nothing else flushed while the first is in flight
    gate.set()
    assert await asyncio.gather(first, *later, *more) == [0, 1, 2, 3, 4, 5]
    assert batches == [[0], [1, 2, 3, 4, 5]]


async def test_max_batch_splits_large_batches() -> None:
    """No flush receives more than max_batch items."""
    flush = Recorder()
    batcher: Batcher[int, int] = Batcher(flush, max_batch=4)
    await asyncio.gather(*(batcher.submit(i) for i in range(10)))
    assert [len(b) for b in flush.batches] == [4, 4, 2]


async def test_a_cancelled_caller_does_not_disturb_the_others() -> None:
    """Cancelling one waiting caller leaves the other results intact."""
    batcher: Batcher[int, int] = Batcher(Recorder(delay=0.01))
    tasks = [asyncio.ensure_future(batcher.submit(i)) for i in range(3)]
    await asyncio.sleep(0)
    tasks[1].cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert results[0] == 0 and results[2] == 20
    assert isinstance(results[1], asyncio.CancelledError)


async def test_close_drains_then_refuses() -> None:
    """close waits for queued items to flush; later submits raise StoreUnavailable."""
    flush = Recorder(delay=0.01)
    batcher: Batcher[int, int] = Batcher(flush)
    pending = [asyncio.ensure_future(batcher.submit(i)) for i in range(3)]
    await asyncio.sleep(0)
    await batcher.close()
    assert [p.result() for p in pending] == [0, 10, 20]
    with pytest.raises(StoreUnavailable):
        await batcher.submit(9)
