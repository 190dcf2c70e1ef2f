"""When a node's tick is stuck, and where it waits.

The tick (:meth:`server.cluster.node.Node.tick`) renews the node's leases and then
tidies up in steps, each bounded by a lease, so a tick on a slow link may last several
leases while one step that has run for two is stuck: in stop 33's soak a node's ticks
fell silent for 126 s while it went on serving copies of rooms other nodes had taken
(a room's stop that waited for ever: server/tasks.py). :class:`TickWatch` keeps the
times; the node acts on :meth:`TickWatch.stuck_for`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any


class TickWatch:
    """When the running tick began its latest step, and when the watchdog last looked."""

    def __init__(self, lease: float, every: float) -> None:
        self.lease, self.every = lease, every
        self.moved: float | None = None
        """When the running tick began its latest step (None between ticks)."""
        self.watched: float | None = None
        """When :meth:`stuck_for` last ran."""

    def begin(self) -> None:
        self.moved = time.monotonic()

    def step(self) -> None:
        """The running tick begins another step (each bounded by a lease)."""
        if self.moved is not None:
            self.moved = time.monotonic()

    def end(self) -> None:
        self.moved = None

    def stuck_for(self) -> float | None:
        """Seconds the running tick has spent in one step when that is over two leases,
        else None. A look that comes late (the process was stopped, SIGSTOP in the soak,
        or the event loop blocked) judges nothing: every timer of the tick was late too,
        and it gets the next look to catch up."""
        now, last = time.monotonic(), self.watched
        self.watched = now
        if last is None or now - last > 2 * self.every or self.moved is None:
            return None
        spent = now - self.moved
        return spent if spent > 2 * self.lease else None  # within its step's bound: a lease


def awaiting(task: asyncio.Task[Any]) -> str:
    """Where ``task`` waits: each coroutine of its await chain, innermost last (through
    the ``cr_await`` of each coroutine; a future or another task ends the chain)."""
    steps: list[str] = []
    step: Any = task.get_coro()
    while step is not None and len(steps) < 64:
        frame = getattr(step, "cr_frame", None) or getattr(step, "gi_frame", None)
        if frame is None:
            steps.append(repr(step)[:120])
            break
        steps.append(f"{frame.f_code.co_name} ({frame.f_code.co_filename.rsplit('/', 1)[-1]}"
                     f":{frame.f_lineno})")  # fmt: skip
        step = getattr(step, "cr_await", None) or getattr(step, "gi_yieldfrom", None)
    return " -> ".join(steps) or "nothing"
