"""Stopping asyncio tasks for sure.

Python 3.11's ``asyncio.wait_for`` swallows a cancel that arrives in the same turn as
its inner future completes (CPython gh-86296, fixed in 3.12): the cancelled task gets
the inner result and carries on, so one ``task.cancel()`` followed by ``await task``
can wait for ever. redis-py awaits ``wait_for`` on every socket read and write, and a
room's task is nearly always inside one of them. Found by issue 23's soak: a node's
lease ticks fell silent for 126 s while it went on serving rooms other nodes had taken;
a tick that lets a room go stops its task, and that stop never returned.
"""

from __future__ import annotations

import asyncio
from typing import Any

AGAIN_EVERY = 0.05
"""Seconds between cancels while a cancelled task carries on."""


async def cancel_and_wait(task: asyncio.Future[Any], timeout: float | None = None) -> bool:
    """Cancel ``task`` and wait until it has ended, cancelling it again each time it
    carries on; its outcome (a result, CancelledError, an exception) is not raised, and
    the caller's own cancellation is never swallowed. Whether it ended within
    ``timeout`` seconds (None: no bound)."""
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    while not task.done():
        task.cancel()
        wait = AGAIN_EVERY if deadline is None else min(AGAIN_EVERY, deadline - loop.time())
        if wait <= 0:
            return False
        await asyncio.wait({task}, timeout=wait)
    if not task.cancelled():
        task.exception()  # retrieved: an exception it ended with is not logged as lost
    return True
