"""One thread that runs calls in order for the event loop: where the SQLite store works.

``loop.run_in_executor`` on a one-thread pool does the same job through
``concurrent.futures`` (a work item, a future with its lock and condition, a second
future chained to it); under a room's every append that machinery cost more CPU than
the handoff itself (``python -m server.store.bench_store``). Here a call is one queue
item, and its outcome one ``call_soon_threadsafe`` back to the loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_Call = tuple[Callable[..., Any], tuple[Any, ...], asyncio.AbstractEventLoop | None, Any]


class Worker:
    """A thread running the calls it is given, one at a time, in the order given."""

    def __init__(self, name: str) -> None:
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the thread; its result or its exception, here. A caller
        cancelled meanwhile does not stop the call (it runs, and nobody learns)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._calls.put((fn, args, loop, future))
        return await future

    def call_blocking(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the thread, waited for here (outside the event loop)."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._calls.put((fn, args, None, future))
        return future.result()

    def stop(self) -> None:
        """Let the thread end once the calls already given are done."""
        self._calls.put(None)

    def _serve(self) -> None:
        while True:
            item = self._calls.get()
            if item is None:
                return
            fn, args, loop, future = item
            error: BaseException | None = None
            result: Any = None
            try:
                result = fn(*args)
            except BaseException as exc:  # handed to the caller, whatever it is
                error = exc
            if loop is None:
                if error is None:
                    future.set_result(result)
                else:
                    future.set_exception(error)
                continue
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody is waiting
                loop.call_soon_threadsafe(_settle, future, result, error)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)
