"""The rooms of one node: create, load from the log on demand, list, unload when idle.

A room lives in memory only while someone uses it. An idle room (no connection
for ``idle_unload_seconds``) is unloaded; the next request for it rebuilds it from
its log, so finished rooms stay viewable forever and any node can pick a room up.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.core import get_game
from engine.errors import BadOptions
from server.config import Settings
from server.metrics import Metrics
from server.room import Room, RoomError, room_summary
from server.roomlog import created_record, rebuild
from server.store import EventStore, StoreError

log = logging.getLogger("rollhouse.rooms")

ROOM_SETTINGS = {"clock", "bots", "bot_policy", "bot_delay", "takeover_after"}


class Rooms:
    """Every room this node serves."""

    def __init__(
        self,
        store: EventStore,
        settings: Settings,
        metrics: Metrics,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.now = now
        self.live: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Task[Room]] = {}
        self._summaries: dict[str, dict[str, Any]] = {}
        self._reaper: asyncio.Task[None] | None = None
        metrics.rooms.fn = lambda: float(len(self.live))

    async def start(self) -> None:
        self._reaper = asyncio.create_task(self._reap_idle())

    async def close(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
        for room in list(self.live.values()):
            await room.stop()
        self.live.clear()

    async def create(
        self, game_name: str, seats: int, options: Mapping[str, Any], room: Mapping[str, Any]
    ) -> Room:
        """A new room, its first record durable before anyone can see it."""
        try:
            game = get_game(game_name)
        except KeyError:
            raise RoomError("room/unknown_game", f"no game named {game_name!r}") from None
        if (
            not isinstance(seats, int)
            or isinstance(seats, bool)
            or not game.min_seats <= seats <= game.max_seats
        ):
            raise BadOptions(
                f"{game.title} takes {game.min_seats} to {game.max_seats} seats", field="seats"
            )
        room_settings = _room_settings(room, seats, self.settings.default_clock_seconds)
        if room_settings["bot_policy"] and room_settings["bot_policy"] not in game.policies:
            raise BadOptions(
                f"{game.title} has no bot policy {room_settings['bot_policy']!r}; "
                f"known: {sorted(game.policies)}",
                field="bot_policy",
            )
        game_options = dict(options)
        seed = game_options.pop("seed", None)
        if seed is None:
            seed = secrets.randbits(63)
        elif not isinstance(seed, int) or isinstance(seed, bool):
            raise BadOptions("option 'seed' must be an integer", field="seed")
        record = created_record(
            game,
            seats,
            game_options,
            seed,
            room_settings["clock"],
            self.now(),
            {
                "bot_delay": room_settings["bot_delay"],
                "takeover_after": room_settings["takeover_after"],
                "takeover_policy": room_settings["bot_policy"],
            },
        )
        room_id = "r-" + secrets.token_hex(4)
        await self.store.append(room_id, [record], 0)
        instance = self._activate(rebuild(room_id, [(1, record)]))
        if room_settings["bots"]:
            await instance.call(
                instance.seat_bots, room_settings["bots"], room_settings["bot_policy"]
            )
        return instance

    async def get(self, room_id: str) -> Room:
        """The live room, loading it from its log when needed; room/not_found otherwise."""
        room = self.live.get(room_id)
        if room is not None and room.broken is None:
            return room
        if room is not None:
            await self.unload(room_id)
        task = self._loading.get(room_id)
        if task is None:
            task = asyncio.create_task(self._load(room_id))
            self._loading[room_id] = task
            task.add_done_callback(lambda _: self._loading.pop(room_id, None))
        return await asyncio.shield(task)

    async def _load(self, room_id: str) -> Room:
        try:
            records = await self.store.read(room_id)
        except StoreError as exc:
            if exc.code == "store/bad_room":
                raise RoomError("room/not_found", f"no room {room_id!r}") from exc
            raise RoomError("room/unavailable", f"the event log is unavailable: {exc}") from exc
        if not records:
            raise RoomError("room/not_found", f"no room {room_id!r}")
        model = rebuild(room_id, [(r.seq, r.data) for r in records])
        log.info("room %s loaded from %d records", room_id, len(records))
        return self._activate(model)

    def _activate(self, model: Any) -> Room:
        room = Room(model, self.store, self.settings, self.metrics, self.now)
        self.live[model.room_id] = room
        room.start()
        return room

    async def unload(self, room_id: str) -> None:
        room = self.live.pop(room_id, None)
        if room is not None:
            self._summaries[room_id] = room.summary()
            await room.stop()

    async def list(self) -> list[dict[str, Any]]:
        """Every room in the log, newest first, with live counts where loaded."""
        out = []
        for room_id in reversed(await self.store.list_rooms()):
            room = self.live.get(room_id)
            if room is not None:
                out.append(room.summary())
                continue
            summary = self._summaries.get(room_id)
            if summary is None:
                records = await self.store.read(room_id)
                if not records:
                    continue
                summary = self._summaries[room_id] = room_summary(
                    rebuild(room_id, [(r.seq, r.data) for r in records])
                )
            out.append(summary)
        return out

    async def _reap_idle(self) -> None:
        interval = max(0.05, min(30.0, self.settings.idle_unload_seconds / 4))
        while True:
            await asyncio.sleep(interval)
            cutoff = time.monotonic() - self.settings.idle_unload_seconds
            for room_id, room in list(self.live.items()):
                if room.connected == 0 and room.mailbox.empty() and room.last_active < cutoff:
                    if room.model.status == "playing" and room.model.clock > 0:
                        continue  # its clocks (or bots) still drive it
                    log.info("room %s idle, unloading", room_id)
                    await self.unload(room_id)


def _room_settings(room: Mapping[str, Any], seats: int, default_clock: float) -> dict[str, Any]:
    """Validate the room's own settings (not the game's options)."""
    unknown = set(room) - ROOM_SETTINGS
    if unknown:
        raise BadOptions(f"unknown room setting {sorted(unknown)[0]!r}", field=sorted(unknown)[0])
    clock = room.get("clock", default_clock)
    bots = room.get("bots", 0)
    delay = room.get("bot_delay", 0.8)
    policy = room.get("bot_policy", "")
    takeover = room.get("takeover_after")
    if not isinstance(clock, int | float) or isinstance(clock, bool) or not 0 <= clock <= 3600:
        raise BadOptions("room setting 'clock' must be 0 (no clock) to 3600 seconds", field="clock")
    if not isinstance(bots, int) or isinstance(bots, bool) or not 0 <= bots <= seats:
        raise BadOptions(f"room setting 'bots' must be 0 to {seats}", field="bots")
    if not isinstance(delay, int | float) or isinstance(delay, bool) or not 0 <= delay <= 30:
        raise BadOptions("room setting 'bot_delay' must be 0 to 30 seconds", field="bot_delay")
    if not isinstance(policy, str):
        raise BadOptions("room setting 'bot_policy' must be a policy name", field="bot_policy")
    if takeover is not None and (
        not isinstance(takeover, int | float)
        or isinstance(takeover, bool)
        or not 0 <= takeover <= 3600
    ):
        raise BadOptions(
            "room setting 'takeover_after' must be 0 to 3600 seconds", field="takeover_after"
        )
    return {
        "clock": float(clock),
        "bots": bots,
        "bot_delay": float(delay),
        "bot_policy": policy,
        "takeover_after": None if takeover is None else float(takeover),
    }
