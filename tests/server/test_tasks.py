"""server.tasks.cancel_and_wait: a task is stopped for sure, even where Python 3.11's
``asyncio.wait_for`` swallows the cancel (its inner future completed in the same turn:
CPython gh-86296). A room's task in a redis-py call is there nearly all the time; one
cancel left it running, and the tick that stopped it waited for ever (issue 23)."""

from __future__ import annotations

import asyncio
import sys

import pytest

from server.tasks import cancel_and_wait


async def _swallowing_task() -> tuple[asyncio.Task[None], asyncio.Future[str]]:
    """A task inside ``wait_for`` whose inner future is about to complete."""
    inner: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def work() -> None:
        await asyncio.wait_for(inner, 5)
        await asyncio.sleep(3600)  # carries on, as a room's task goes back to its mailbox

    task = asyncio.create_task(work())
    await asyncio.sleep(0)  # it waits in wait_for now
    return task, inner


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="wait_for no longer swallows a cancel")
async def test_one_cancel_can_be_swallowed_here() -> None:
    """The hazard, on this Python: one cancel, and the task is still running."""
    task, inner = await _swallowing_task()
    inner.set_result("done")
    task.cancel()
    await asyncio.wait({task}, timeout=0.3)
    assert not task.done()
    await cancel_and_wait(task)


async def test_a_task_that_carries_on_after_a_cancel_is_stopped() -> None:
    task, inner = await _swallowing_task()
    inner.set_result("done")
    assert await cancel_and_wait(task, timeout=5)
    assert task.cancelled()


class Stubborn:
    """A task that ignores cancels until told to stop."""

    def __init__(self) -> None:
        self.deaf = True
        self.task = asyncio.create_task(self.run())

    async def run(self) -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if not self.deaf:
                    raise

    async def end(self) -> None:
        self.deaf = False
        assert await cancel_and_wait(self.task, timeout=5)


async def test_a_task_that_never_ends_is_given_up_after_the_timeout() -> None:

    stubborn = Stubborn()
    await asyncio.sleep(0)
    loop = asyncio.get_running_loop()
    began = loop.time()
    assert not await cancel_and_wait(stubborn.task, timeout=0.2)
    assert loop.time() - began < 2
    await stubborn.end()


async def test_the_callers_own_cancel_is_not_swallowed() -> None:
    """The old stop (``suppress(CancelledError): await task``) swallowed it."""

    target = Stubborn()
    caller = asyncio.create_task(cancel_and_wait(target.task))
    await asyncio.sleep(0.1)
    caller.cancel()
    await asyncio.wait({caller}, timeout=2)
    assert caller.cancelled()
    await target.end()


async def test_an_ended_tasks_exception_is_not_raised() -> None:
    async def fails() -> None:
        raise ValueError("its own")

    task = asyncio.create_task(fails())
    await asyncio.sleep(0)
    assert await cancel_and_wait(task)
