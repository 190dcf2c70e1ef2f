"""Quick match: "seat me at a game of X", on any node.

The store holds, for each game and table size, a queue of the open public rooms
(oldest first) that quick match fills, each with tickets: the seats it may still hold
there (:class:`server.store.match.MatchStore`). A request:

1. takes the player's own claim (one request of a player at a time, on every node);
   a player who holds a seat from an earlier match that is still waiting gets it back;
2. takes a ticket of the oldest room of the queue; when there is none, a requester claims the
   making of a room (at most :data:`MAKERS` at once; the others wait a moment and read
   the queue again), makes it (public, waiting; ``fill_bots_after`` if asked) and puts
   it in the queue;
3. asks the room's owner to hold a free seat for the player
   (:class:`server.room.io.Reserve`: the room's core gives seats one at a time, so a room
   is never overfilled, whatever the tickets say); a room that has no seat to hold
   (players from the lobby took them) leaves the queue and the request goes on.

The hold lasts :data:`HOLD_SECONDS`: the player's ``hello`` claims it, and a hold nobody
claims is given back by the room itself (a ``unseated`` record), so nothing is stranded.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs

from protocol import errors as codes
from server.errors import RoomRefusal
from server.store.match import MatchStore

HOLD_SECONDS = 20.0
"""How long a quick match holds a seat for its player's hello."""
PATIENCE = 30.0
"""Seconds one request goes on trying (rooms, or waits for a room being made) before it
gives up with ``room/unavailable``."""
WAIT = 0.02
"""Seconds between two reads of the queue while another request makes its room."""
MAKERS = 3
"""Rooms of one queue that may be in the making at once (a crowd arriving together is
seated in parallel; at most this many rooms more than it needs are left waiting)."""


@attrs.frozen
class Matched:
    room: str
    seat: int
    hold_seconds: float


RunOp = Callable[[str, str, dict[str, Any]], Awaitable[Any]]
"""Run a room operation where the room lives (:meth:`server.room.rooms.Rooms.run_op`,
through :meth:`server.cluster.node.Node.run` in a cluster)."""
MakeRoom = Callable[[str, int, str, Mapping[str, Any]], Awaitable[None]]
"""Make a public room ``(game, seats, room id, room settings)``."""


class Matchmaker:
    """Quick match over a :class:`MatchStore` (see the module docstring)."""

    def __init__(
        self,
        store: MatchStore,
        run: RunOp,
        make: MakeRoom,
        clock: Callable[[], float] = time.time,
        hold: float = HOLD_SECONDS,
    ) -> None:
        self.store, self.run, self.make, self.clock, self.hold = store, run, make, clock, hold

    async def enlist(self, summary: Mapping[str, Any]) -> None:
        """Put a room just made in its quick-match queue when it is open to anyone: public,
        waiting, unlocked, with a free seat (the lobby's rooms are matched too)."""
        if (
            summary.get("visibility", "public") == "public"
            and summary.get("status") == "waiting"
            and not summary.get("locked")
            and summary.get("taken", 0) < summary.get("seats", 0)
        ):
            queue = f"mm:{summary['game']}:{summary['seats']}"
            free = int(summary["seats"]) - int(summary.get("taken", 0))
            await self.store.queue_add(
                queue, str(summary["room"]), float(summary["created_at"]), free
            )

    async def match(
        self, player: str, name: str, game: str, seats: int, room: Mapping[str, Any]
    ) -> Matched:
        """Hold a seat for ``player`` in an open public room of ``game`` for ``seats``."""
        mine = secrets.token_hex(8)
        who = f"mm:player:{player}"
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:  # one request of a player at a time
            held = await self.store.claim(who, mine, 2 * self.hold, self.clock())
            if held == mine:
                break
            if held.startswith("r-"):  # an earlier match of theirs: that seat again
                found = await self._hold(held, player, name)
                if found is not None:
                    return found
                await self.store.release(who, held)
                continue
            await asyncio.sleep(WAIT)
        else:
            raise RoomRefusal(codes.UNAVAILABLE, "quick match is busy; try again")
        try:
            matched = await self._match(player, name, game, seats, room, deadline)
        except BaseException:
            await self.store.release(who, mine)
            raise
        await self.store.release(who, mine)
        await self.store.claim(who, matched.room, self.hold, self.clock())  # a repeat: this seat
        return matched

    async def _match(
        self,
        player: str,
        name: str,
        game: str,
        seats: int,
        room: Mapping[str, Any],
        deadline: float,
    ) -> Matched:
        queue = f"mm:{game}:{seats}"
        while time.monotonic() < deadline:
            room_id = await self.store.queue_take(queue)
            if room_id is None:
                await self._make(queue, game, seats, room)
                continue
            found = await self._hold(room_id, player, name)
            if found is not None:
                return found
            await self.store.queue_remove(queue, room_id)  # its tickets were too many
        raise RoomRefusal(codes.UNAVAILABLE, "no room could hold a seat; try again")

    async def _make(self, queue: str, game: str, seats: int, room: Mapping[str, Any]) -> None:
        """Make a room of the queue, unless :data:`MAKERS` requests are making one (then
        wait a moment)."""
        room_id = "r-" + secrets.token_hex(4)
        for maker in range(MAKERS):
            key = f"{queue}:making:{maker}"
            if await self.store.claim(key, room_id, 10.0, self.clock()) != room_id:
                continue
            try:
                await self.make(game, seats, room_id, {**room, "visibility": "public"})
                await self.store.queue_add(queue, room_id, self.clock(), seats)
            finally:
                await self.store.release(key, room_id)
            return
        await asyncio.sleep(WAIT)

    async def _hold(self, room_id: str, player: str, name: str) -> Matched | None:
        """A seat held in ``room_id`` for ``player``, or None when it has none to give."""
        args = {"player": player, "name": name, "until": self.clock() + self.hold}
        try:
            seat = await self.run("reserve", room_id, args)
        except RoomRefusal as exc:
            if exc.code in (codes.ROOM_FULL, codes.ROOM_NOT_FOUND):
                return None
            raise
        return Matched(room_id, int(seat), self.hold)
