"""The rooms of one node: create, load from the log on demand, list, unload when idle.

A room lives in memory only while it is used: an idle room (no connection, no write
in flight, nothing that time alone moves) is unloaded after ``idle_unload_seconds``;
the next request rebuilds it from its log and its stored answers, so finished rooms
stay viewable forever. Rooms that time alone moves (clocks, hosted bots, takeovers)
are marked in the store and loaded when the node starts, so their deadlines fire and
their bots play without anyone opening them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.core import get_game
from engine.errors import BadOptions
from protocol import errors as codes
from server.config import Settings
from server.errors import RoomRefusal
from server.metrics import Metrics
from server.room.access import invite_digest
from server.room.core import CoreSettings, RoomCore
from server.room.io import Input, Invite, Operate, Rematch, Reserve
from server.room.model.fold import rebuild
from server.room.model.records import (
    Record,
    RoomAct,
    created_record,
    from_plain,
    seated_record,
    to_plain,
)
from server.room.model.room import RoomModel
from server.room.ownership import Fencer, RoomElsewhere, StoreFencer
from server.room.rebuild import Rebuilder
from server.room.settings import PEOPLE_SETTINGS, room_settings
from server.room.shell import Room
from server.room.views import room_summary
from server.store import EventStore, StoreError, StoreUnknown
from server.tasks import cancel_and_wait

log = logging.getLogger("rollhouse.rooms")

SUMMARY_EVERY = 1.0
"""Seconds between two writes of the live rooms' changed summaries to the index."""
LOAD_CHUNK = 50
"""Records folded between two yields to the event loop while a room loads (~2 ms of
Roll Builder's, the costliest to fold)."""
LOAD_PAGE = 200
"""Records read from the store at once while a room loads: a Redis reply is parsed on
the event loop, so a room's whole log in one read would stall every other room."""

INVITE_BYTES = 16
"""An invite code's randomness: 128 bits (the issue asks for at least 64)."""


class Rooms:
    """Every room this node serves."""

    def __init__(
        self,
        store: EventStore,
        settings: Settings,
        metrics: Metrics,
        clock: Callable[[], float] = time.time,
        fencer: Fencer | None = None,
        on_member: Callable[[str, str, float], None] | None = None,
        on_reopen: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.store = store
        self.on_member = on_member
        """Told ``(player, room, time)`` when a player takes a seat (their list of games)."""
        self.on_reopen = on_reopen
        """Told a waiting room's summary when a seat of it is free again (quick match)."""
        self.fencer: Fencer = fencer or StoreFencer(store)
        self.settings = settings
        self.metrics = metrics
        self.clock = clock
        self.core_settings = CoreSettings(
            patch_history=settings.patch_history,
            patch_history_bytes=settings.patch_history_bytes,
            replies_per_seat=settings.replies_per_seat,
            retry_base=settings.retry_base_seconds,
            retry_cap=settings.retry_cap_seconds,
            snapshot_every=settings.snapshot_every,
        )
        self.live: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Task[Room]] = {}
        self._summaries: dict[str, dict[str, Any]] = {}
        """What the store's summary index holds for each room (as far as this node wrote)."""
        self._rematching: dict[str, asyncio.Lock] = {}
        self._tasks: list[asyncio.Task[None]] = []
        metrics.rooms.fn = lambda: float(len(self.live))
        metrics.append_stalled.fn = self._append_stalled

    def _append_stalled(self) -> float:
        """Seconds since the oldest unrecovered store-write failure of a live room."""
        since = [r.writes.failing_since for r in self.live.values() if r.writes.failing_since]
        return time.monotonic() - min(since) if since else 0.0

    async def start(self) -> None:
        """Start the idle reaper, and load (in the background) every room time moves."""
        self._tasks.append(asyncio.create_task(self._reap_idle()))
        self._tasks.append(asyncio.create_task(self._load_driven()))
        if not self.fencer.exclusive:  # a cluster keeps its own index (server.cluster.index)
            self._tasks.append(asyncio.create_task(self._index_summaries()))

    async def close(self) -> None:
        for task in self._tasks:
            await cancel_and_wait(task)
        for room in list(self.live.values()):
            await room.stop()
        if not self.fencer.exclusive:
            await self._write_summaries({r: room.summary() for r, room in self.live.items()})
        self.live.clear()

    async def create(
        self, game_name: str, seats: int, options: Mapping[str, Any], room: Mapping[str, Any]
    ) -> dict[str, Any]:
        """A new room (with no host); its summary (see :meth:`make`)."""
        summary, _ = await self.make(game_name, seats, options, room)
        return summary

    async def make(
        self,
        game_name: str,
        seats: int,
        options: Mapping[str, Any],
        room: Mapping[str, Any],
        host: str | None = None,
        room_id: str | None = None,
    ) -> tuple[dict[str, Any], str | None]:
        """A new room, its first records durable before anyone can see it: its summary,
        and the invite code of a private room (for its creator alone: the log keeps only
        its digest). ``host``: the creating player's id.

        Once the room's log exists the answer is the room, even if loading it fails."""
        if len(self.live) >= self.settings.max_rooms:
            raise RoomRefusal(
                codes.TOO_MANY_ROOMS,
                f"this node holds {self.settings.max_rooms} rooms; retry later",
            )
        try:
            game = get_game(game_name)
        except KeyError:
            raise RoomRefusal(codes.UNKNOWN_GAME, f"no game named {game_name!r}") from None
        if (
            not isinstance(seats, int)
            or isinstance(seats, bool)
            or not game.min_seats <= seats <= game.max_seats
        ):
            raise BadOptions(
                f"{game.title} takes {game.min_seats} to {game.max_seats} seats", field="seats"
            )
        chosen = room_settings(room, seats, self.settings.default_clock_seconds)
        people = {k: chosen[k] for k in PEOPLE_SETTINGS if chosen[k] is not None}
        if host is not None:
            people["host"] = host
        if chosen["bot_policy"] and chosen["bot_policy"] not in game.policies:
            raise BadOptions(
                f"{game.title} has no bot policy {chosen['bot_policy']!r}; "
                f"known: {sorted(game.policies)}",
                field="bot_policy",
            )
        game_options = dict(options)
        seed = game_options.pop("seed", None)
        if seed is None:
            seed = secrets.randbits(63)
        elif not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
            raise BadOptions("option 'seed' must be an integer 0 to 2**63-1", field="seed")
        record = created_record(
            game,
            seats,
            game_options,
            seed,
            chosen["clock"],
            self.clock(),
            {
                "bot_delay": chosen["bot_delay"],
                "takeover_after": chosen["takeover_after"],
                "takeover_policy": chosen["bot_policy"],
                **people,
            },
            salt=secrets.token_hex(16),
        )
        room_id = room_id or "r-" + secrets.token_hex(4)
        fence = await self._claim(room_id) if self.fencer.exclusive else None
        bots = [
            seated_record(s, f"bot {s + 1}", None, chosen["bot_policy"], record.at)
            for s in range(chosen["bots"])
        ]
        records: list[Record] = [record, *bots]
        invite = None
        if people.get("visibility") == "private":
            invite = secrets.token_urlsafe(INVITE_BYTES)
            act = {"type": "invite", "hash": invite_digest(invite)}
            records.append(RoomAct(act, record.at, host))
        if chosen["bots"] == seats:  # time alone moves it: load it again after a restart
            await self.store.set_driven(room_id, True)
        written = await self._append_new(room_id, [to_plain(r) for r in records], fence)
        if fence is not None:  # a refence that settled the append moved the claim's epoch on
            fence = written
        model = rebuild(room_id, list(enumerate(records, start=1)))  # one atomic step above
        try:
            core = RoomCore(model, settings=self.core_settings)
            summary = (await self._activate(core, fence)).summary()
        except RoomRefusal as exc:  # created all the same: the next request loads it
            log.warning("room %s created but not loaded: %s", room_id, exc.message)
            summary = room_summary(model)
        if not self.fencer.exclusive:
            await self._write_summaries({room_id: summary})
        return summary, invite

    async def request(self, room_id: str, make: Callable[[int, float], Input]) -> Any:
        """An operation of the room's own API (:meth:`server.room.shell.Room.request`) on
        the live room, loaded if need be: what it gives back."""
        return await (await self.get(room_id)).request(make)

    async def run_op(self, op: str, room_id: str, args: Mapping[str, Any]) -> Any:
        """One of the operations another node (or this one) asks of a room this node
        runs, by name, with plain arguments (they travel between nodes):

        - ``summary``: the room's summary as it is now (its ``access`` part too);
        - ``rematch``: the summary of the room's rematch;
        - ``reserve`` ``{player, name, until}``: the seat held for a quick-matched player;
        - ``invite`` ``{player, code}``: the host's new invite code recorded (code None:
          revoked);
        - ``close`` ``{reason}``, ``hide`` ``{seq}``, ``remove`` ``{peer|seat|player, reason}``,
          ``inspect``: an operator's (:meth:`operate`)."""
        if op in OPERATOR_OPS:
            return await self.operate(op, room_id, args)
        match op:
            case "summary":
                return (await self.get(room_id)).summary()
            case "rematch":
                return await self.rematch(room_id)
            case "reserve":
                player, name, until = str(args["player"]), str(args["name"]), float(args["until"])
                return await self.request(
                    room_id, lambda o, now: Reserve(o, player, name, until, now)
                )
            case "invite":
                host, code = args.get("player"), args.get("code")
                return await self.request(room_id, lambda o, now: Invite(o, host, code, now))
        raise RoomRefusal(codes.UNAVAILABLE, f"no room operation {op!r}")

    async def operate(self, op: str, room_id: str, args: Mapping[str, Any]) -> Any:
        """An operator's action on a room this node runs (server/operator):

        - ``close``: an ``act`` record says why, then every peer is closed with
          ``room/closed`` and the reason; the room takes nobody after (its summary back);
        - ``hide``: the chat line at ``seq`` leaves every view (as the host's hide);
        - ``remove``: the connections of a peer id, a seat or a player are closed with
          ``room/removed`` and the reason (nothing is written: a ban keeps them out);
          the number closed back;
        - ``inspect``: the room's seats, connections, spectators and log length."""
        room = await self.get(room_id)
        reason = str(args.get("reason") or "")
        if op == "close":
            act = {"type": "close", "reason": reason}
            await room.request(lambda o, now: Operate(o, act, now))
            room.close_peers(None, codes.ROOM_CLOSED, f"an operator closed this room: {reason}")
            return room.summary()
        if op == "hide":
            hide = {"type": "hide", "seq": args.get("seq")}
            return await room.request(lambda o, now: Operate(o, hide, now))
        if op == "remove":
            chosen = _chosen_peers(room, args)
            if not chosen:
                raise RoomRefusal(codes.BAD_ACTION, "no connection of this room matches")
            text = f"an operator removed you from this room: {reason}"
            room.close_peers(chosen, codes.REMOVED, text)
            return len(chosen)
        return _inspect(room)

    async def _append_new(
        self, room_id: str, plain: list[dict[str, Any]], fence: int | None
    ) -> int:
        """A new room's first records, settled like any append whose outcome is unknown:
        the log says whether they landed (a fresh room id has no other writer). The
        epoch they were settled with: the room's writes carry it from then on (a room
        started with the claim's epoch after a refence has its first write refused and
        bounces to another node)."""
        if fence is None:  # single node: fence the creation too, so a late write can be refused
            fence = await self.store.fence(room_id)
        for attempt in range(3):
            try:
                await self.store.append(room_id, plain, 0, fence=fence)
                return fence
            except StoreUnknown:
                if attempt == 2:
                    raise
                await asyncio.sleep(0.05 * (attempt + 1))
                with contextlib.suppress(StoreError):  # the first try can no longer land;
                    # the fencer's epoch: on a cluster noted with its node, and only if the
                    # lease is still ours (a bare INCR of the fence would be neither)
                    fence = await self.fencer.refence(room_id)
                    if await self.store.last_seq(room_id) == len(plain):
                        return fence  # it landed
        raise AssertionError("unreachable: the third unknown outcome is raised")

    async def get(self, room_id: str) -> Room:
        """The live room, loading it from its log when needed; room/not_found otherwise."""
        room = self.live.get(room_id)
        if room is not None and not room.broken:
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
        fence = await self._claim(room_id) if self.fencer.exclusive else None
        started = time.perf_counter()
        try:
            head = await self.store.read(room_id, 0, 1)
            if not head:
                if fence is not None:
                    await self.release(room_id)
                raise RoomRefusal(codes.ROOM_NOT_FOUND, f"no room {room_id!r}")
            snapshot = await self.store.load_snapshot(room_id)
            builder = Rebuilder(room_id, head[0].data, snapshot and snapshot[1], self.core_settings)
            replies = await self.store.load_replies(room_id)
            folded = await self._fold_log(builder)
        except StoreError as exc:
            if exc.code == "store/bad_room":
                raise RoomRefusal(codes.ROOM_NOT_FOUND, f"no room {room_id!r}") from exc
            raise RoomRefusal(codes.UNAVAILABLE, f"the event log is unavailable: {exc}") from exc
        core = builder.core(replies)
        self.metrics.load_seconds.observe(time.perf_counter() - started)
        log.info("room %s loaded: %d records folded%s", room_id, folded,
                 f" after the snapshot at {builder.snapshot_seq}" if builder.snapshot_seq else "")  # fmt: skip
        return await self._activate(core, fence)

    async def _fold_log(self, builder: Rebuilder) -> int:
        """Fold the log after ``builder``'s seq, read a page at a time and folded a chunk
        at a time, other rooms running between chunks; the records folded."""
        folded = 0
        while True:
            page = await self.store.read(builder.model.room_id, builder.seq, LOAD_PAGE)
            for i in range(0, len(page), LOAD_CHUNK):
                builder.fold([(r.seq, r.data) for r in page[i : i + LOAD_CHUNK]])
                await asyncio.sleep(0)
            folded += len(page)
            if len(page) < LOAD_PAGE:
                return folded

    async def _claim(self, room_id: str) -> int:
        """Claim the right to write ``room_id`` (RoomElsewhere when another node holds it)."""
        try:
            return await self.fencer.claim(room_id)
        except RoomElsewhere:
            raise
        except StoreError as exc:
            raise RoomRefusal(codes.UNAVAILABLE, f"the event log is unavailable: {exc}") from exc

    async def _activate(self, core: RoomCore, fence: int | None = None) -> Room:
        """Fence off every earlier writer of the room (unless claimed already), then start it."""
        room_id = core.model.room_id
        if fence is None:
            fence = await self._claim(room_id)
        room = Room(core, self.store, self.settings, self.metrics, fence, self.clock,
                    refence=self.fencer.refence, on_member=self.on_member,
                    on_reopen=self.on_reopen)  # fmt: skip
        self.live[room_id] = room
        room.start()
        return room

    async def unload(self, room_id: str) -> None:
        room = self.live.pop(room_id, None)
        if room is not None:
            await room.stop()
            if not self.fencer.exclusive:
                await self._write_summaries({room_id: room.summary()})
            self._summaries.pop(room_id, None)

    async def lose(self, room_id: str, code: str, message: str) -> None:
        """Stop serving ``room_id`` at once (its lease is gone): close its peers, unload."""
        room = self.live.get(room_id)
        if room is not None:
            room.close_all(code, message)
            await self.unload(room_id)

    async def hand_over(self, room_id: str, code: str, message: str) -> None:
        """Finish what the room's mailbox holds, close its peers, unload, give up the claim."""
        room = self.live.get(room_id)
        if room is None:
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(room.settled(), 5.0)
        room.close_all(code, message)
        await self.unload(room_id)
        await self.release(room_id)

    async def release(self, room_id: str) -> None:
        """Give up this node's claim on ``room_id`` (a no-op for one node)."""
        release = getattr(self.fencer, "release", None)
        if release is not None:
            with contextlib.suppress(StoreError):
                await release(room_id)

    async def rematch(self, room_id: str) -> dict[str, Any]:
        """The rematch of ``room_id``: the same game, seats, options and settings (made once)."""
        lock = self._rematching.setdefault(room_id, asyncio.Lock())
        async with lock:
            old = await self.get(room_id)
            model: RoomModel = old.core.model
            if model.closed is not None:  # an operator's close: no way around it
                raise RoomRefusal(
                    codes.ROOM_CLOSED, f"an operator closed this room: {model.closed}"
                )
            if model.rematch is not None:
                return (await self.get(model.rematch)).summary()
            bots = [h.bot for h in model.holders.values() if h.bot is not None]
            settings = {
                "clock": model.clock,
                "bots": len(bots),
                "bot_policy": bots[0] if bots else str(model.settings.get("takeover_policy") or ""),
                "bot_delay": float(model.settings.get("bot_delay", 0.8)),
                "takeover_after": model.takeover_after,
                **{k: model.settings[k] for k in PEOPLE_SETTINGS if k in model.settings},
            }
            new, _ = await self.make(model.game.name, model.seats, dict(model.options),
                                     settings, model.host)  # fmt: skip
            await old.request(lambda op, now: Rematch(op, new["room"], now))
            return new

    async def list(
        self, cursor: int = 0, limit: int = 100
    ) -> tuple[list[dict[str, Any]], int | None]:
        """One page of rooms, newest first, from the store's summary index (live rooms
        of this node as they are now); the next page's cursor, None at the end.

        A room with no summary yet (a store from before the index), or one behind its
        log (the server was killed between an append and the summary's next write,
        issue 23), gets one made from its log, once, and kept."""
        page, after = await self.store.room_page(cursor, limit)
        kept = [r for r, s in page if s is not None and r not in self.live]
        tops = await self.store.last_seqs(kept)
        out, made = [], {}
        for room_id, summary in page:
            room = self.live.get(room_id)
            if room is not None:
                summary = room.summary()
            elif summary is None or int(summary.get("seq", 0)) < tops[room_id]:
                summary = await self.summary_from_log(room_id)
                if summary is None:
                    continue
                made[room_id] = summary
            out.append(summary)
        await self._write_summaries(made)
        return out, after

    async def summary_from_log(self, room_id: str) -> dict[str, Any] | None:
        """A room's summary folded from its log, without loading it here (None: no log)."""
        records = await self.store.read(room_id)
        if not records:
            return None
        return room_summary(rebuild(room_id, [(r.seq, from_plain(r.data)) for r in records]))

    async def _write_summaries(self, summaries: dict[str, dict[str, Any]]) -> None:
        """Keep these summaries in the store's index (best effort: the next tick retries)."""
        if not summaries:
            return
        try:
            await self.store.save_summaries(summaries)
        except StoreError as exc:
            log.warning("room summaries not written: %s", exc)
            return
        self._summaries.update({r: s for r, s in summaries.items() if r in self.live})

    async def _index_summaries(self) -> None:
        """Every second, write the summaries of live rooms that changed."""
        while True:
            await asyncio.sleep(SUMMARY_EVERY)
            changed = {}
            for room_id, room in list(self.live.items()):
                summary = room.summary()
                written = self._summaries.get(room_id)
                if summary is not written and summary != written:
                    changed[room_id] = summary
            await self._write_summaries(changed)

    async def _load_driven(self) -> None:
        """Load every room marked driven; unmark those that no longer are."""
        try:
            driven = await self.store.driven_rooms()
        except StoreError as exc:
            log.warning("cannot list driven rooms at start-up: %s", exc)
            return
        for room_id in driven:
            try:
                room = await self.get(room_id)
            except RoomRefusal as exc:
                if exc.code == codes.ROOM_NOT_FOUND:
                    await self._forget_driven(room_id)
                elif exc.code != codes.MOVED:  # another node runs it: fine
                    log.warning("room %s not loaded at start-up: %s", room_id, exc.message)
                continue
            self.metrics.rooms_loaded_at_start.inc()
            log.info("room %s loaded at start-up (driven: %s)", room_id, room.core.needs_driver)

    async def _forget_driven(self, room_id: str) -> None:
        try:
            await self.store.set_driven(room_id, False)
        except StoreError as exc:
            log.warning("room %s: cannot unmark driven: %s", room_id, exc)

    async def _reap_idle(self) -> None:
        settings = self.settings
        shortest = min(settings.idle_unload_seconds, settings.finished_unload_seconds)
        interval = max(0.05, min(30.0, shortest / 4))
        while True:
            await asyncio.sleep(interval)
            now = time.monotonic()
            cutoff = now - settings.idle_unload_seconds
            finished_cutoff = now - shortest  # a finished room goes first, never later
            for room_id, room in list(self.live.items()):
                if (
                    room.core.idle
                    and room.connected == 0
                    and room.mailbox.empty()
                    and room.last_active < (finished_cutoff if room.model.is_over else cutoff)
                ):
                    log.info("room %s idle, unloading", room_id)
                    await self.unload(room_id)
                    await self.release(room_id)


OPERATOR_OPS = frozenset({"close", "hide", "remove", "inspect"})


def _chosen_peers(room: Room, args: Mapping[str, Any]) -> set[int]:
    """The peer ids of ``room`` that an operator's ``remove`` names."""
    peer, seat, player = args.get("peer"), args.get("seat"), args.get("player")
    return {
        pid
        for pid, info in room.core.peers.items()
        if (peer is not None and pid == peer)
        or (seat is not None and info.seat == seat)
        or (player is not None and info.player == player)
    }


def _inspect(room: Room) -> dict[str, Any]:
    """What the console shows of a live room: seats, connections, spectators, log length."""
    model: RoomModel = room.core.model
    connected = {info.seat for info in room.core.peers.values() if info.seat is not None}
    seats = [
        {
            "seat": seat,
            "name": h.name,
            "player": h.player,
            "bot": h.bot,
            "connected": seat in connected,
            "held": h.hold is not None,
        }
        for seat, h in sorted(model.holders.items())
    ]
    peers = [
        {
            "peer": pid,
            "role": info.role,
            "seat": info.seat,
            "name": info.name,
            "player": info.player,
        }
        for pid, info in sorted(room.core.peers.items())
    ]
    return {
        "summary": room.summary(),
        "seats": seats,
        "connections": peers,
        "spectators": sum(1 for p in peers if p["role"] == "spectator"),
        "log_length": model.seq,
        "closed": model.closed,
        "host": model.host,
        "chat": [
            {"seq": c.seq, "channel": c.channel, "text": c.text, "name": c.name} for c in model.chat
        ],
    }
