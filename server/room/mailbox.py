"""A room's mailbox: its inputs in arrival order, and which join may go ahead of them.

:class:`Mailbox` is what the room's one task (:class:`server.room.Room`) waits on.
:func:`may_go_ahead` is the ordering rule for a join answered as it is posted while
the room is busy: it decides from what waits, and does nothing else.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

import attrs

from server.room.io import CommandIn, Commands, Input, Join, Leave, Output, PeerId, ResyncIn


@attrs.frozen
class Carry:
    """Outputs of an input handled as it was posted that the task carries out: its
    first write and what follows (or nothing: the driven mark to update)."""

    outputs: tuple[Output, ...]


Item = tuple[Input | Carry | None, "asyncio.Future[Any] | None"]
"""An input (or carried outputs, or None: a marker) and the future to set once it is
handled, if someone waits for it."""


class Mailbox:
    """A room's inputs in arrival order, which its one task waits on.

    Lighter than an ``asyncio.Queue`` on the path every command takes (no size bound,
    one waiter, no loop lookup per call), and the shell may look through what waits
    (:func:`may_go_ahead`)."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[Item] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put(self, item: Item) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def put_first(self, item: Item) -> None:
        """Put ``item`` before everything that waits (what an input begun at once left
        for the task: its write must come before any other input)."""
        self._items.appendleft(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    def first(self) -> Item | None:
        """The first item, left in place (None when empty)."""
        return self._items[0] if self._items else None

    def take(self) -> Item:
        """The first item (the mailbox must not be empty)."""
        return self._items.popleft()

    async def get(self) -> Item:
        """The first item, once there is one."""
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()

    def __iter__(self) -> Iterator[Item]:
        return iter(self._items)


def may_go_ahead(join: Join, holder: PeerId | None, waiting: Iterable[Item]) -> bool:
    """Whether ``join``, one that only reads the room, may be answered ahead of the
    ``waiting`` items: a spectator always (a new peer: nothing waiting is about it);
    a seat's resume unless something of that seat waits (a command, leave or resync of
    ``holder``, the connection holding the seat now, or a join with the same token),
    which keeps its place before it."""
    if join.role == "spectator":
        return True
    for item, _ in waiting:
        if isinstance(item, CommandIn | Leave | ResyncIn):
            if item.peer == holder:
                return False
        elif isinstance(item, Commands):
            if any(c.peer == holder for c in item.commands):
                return False
        elif isinstance(item, Join) and item.token == join.token:
            return False
    return True
