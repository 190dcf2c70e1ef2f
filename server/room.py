"""The room actor: one asyncio task per live room; its mailbox is the arrival order.

Everything that changes a room runs inside the actor, one item at a time, in the
order it reached the mailbox. For a command:

1. ``decide(state, command)`` -> events (or a typed rejection, which changes nothing);
2. ``store.append(room, records, expected_seq)`` - durable before visible;
3. ``fold`` each record into the room model (``evolve`` inside);
4. for every viewer (each seat and the spectators): ``diff(old view, new view)`` ->
   one patch, encoded once per codec and queued to each connection's bounded outbox.

The actor never awaits a socket: connections drain their own outboxes, so one slow
client cannot stall the room (it overflows its outbox and is dropped).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

from engine.data import to_data
from engine.errors import Rejection
from server.config import Settings
from server.metrics import Metrics
from server.roomlog import RoomModel, event_records, fold, seated_record
from server.store import EventStore, StoreConflict, StoreError
from server.views import Views

log = logging.getLogger("rollhouse.room")

Viewer = int | None
Message = dict[str, Any]


class RoomError(Exception):
    """A request the room refuses, with a wire code (``room/full``, ...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Peer(Protocol):
    """One connection, as the room sees it."""

    codec_name: str
    seat: int | None

    def send_frame(self, frame: bytes | str) -> None:
        """Queue an encoded frame; never blocks (drops the peer when its outbox is full)."""

    def encode(self, message: Message) -> bytes | str:
        """Encode a plain message with this peer's codec."""

    def close_with(self, code: str, message: str) -> None:
        """Send a fatal error and close."""


class Room:
    """A live room: its model, its viewers, its mailbox."""

    def __init__(
        self,
        model: RoomModel,
        store: EventStore,
        settings: Settings,
        metrics: Metrics,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.model = model
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.now = now
        self.players: dict[int, Peer] = {}
        self.spectators: set[Peer] = set()
        self.views = Views(model)
        self.history: dict[Viewer, deque[Message]] = {}
        self.rejected: OrderedDict[tuple[int, str], Message] = OrderedDict()
        self.mailbox: asyncio.Queue[
            tuple[Callable[..., Awaitable[Any]], tuple[Any, ...], asyncio.Future[Any]]
        ] = asyncio.Queue()
        self.last_active = time.monotonic()
        self.broken: BaseException | None = None
        self.away_since: dict[int, float] = {
            seat: time.monotonic() for seat, info in model.holders.items() if info.bot is None
        }
        self._clock_timer: asyncio.TimerHandle | None = None
        self._wake_timer: asyncio.TimerHandle | None = None
        self._bot_timers: dict[int, asyncio.TimerHandle] = {}
        self._task: asyncio.Task[None] | None = None
        for viewer in self.views.viewers:
            self.history[viewer] = deque(maxlen=settings.patch_history)

    # -- lifecycle -----------------------------------------------------------------

    @property
    def room_id(self) -> str:
        return self.model.room_id

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"room-{self.room_id}")
        self._schedule()

    async def stop(self) -> None:
        self._cancel_timers()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def call(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Run ``fn(*args)`` inside the actor, after everything already in the mailbox."""
        if self.broken is not None:
            raise RoomError("room/unavailable", "this room must be reloaded; reconnect")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.mailbox.put_nowait((fn, args, future))
        return await future

    async def _run(self) -> None:
        while True:
            fn, args, future = await self.mailbox.get()
            self.last_active = time.monotonic()
            try:
                result = await fn(*args)
            except Exception as exc:  # handed to the caller, who owns the reply
                if not future.done():
                    future.set_exception(exc)
                if isinstance(exc, StoreConflict):
                    self._break(exc)
            else:
                if not future.done():
                    future.set_result(result)

    def _break(self, exc: BaseException) -> None:
        """Another writer advanced this room's log: stop serving from stale memory."""
        log.error("room %s: log conflict, unloading: %s", self.room_id, exc)
        self.broken = exc
        for peer in [*self.players.values(), *self.spectators]:
            peer.close_with("room/unavailable", "the room moved; reconnect")

    @property
    def connected(self) -> int:
        return len(self.players) + len(self.spectators)

    # -- views -----------------------------------------------------------------------

    def presence(self) -> Message:
        holders = self.model.holders
        return {
            "type": "presence",
            "seats": [
                {
                    "seat": s,
                    "name": holders[s].name if s in holders else None,
                    "connected": s in self.players or (s in holders and holders[s].bot is not None),
                    "bot": s in holders and holders[s].bot is not None,
                }
                for s in range(self.model.seats)
            ],
            "spectators": len(self.spectators),
        }

    # -- joining -----------------------------------------------------------------------

    async def join(
        self, peer: Peer, role: str, name: str | None, token: str | None, last_seq: int | None
    ) -> None:
        """Seat or admit ``peer`` and send it a welcome (snapshot or the patches it missed)."""
        new_token: str | None = None
        if role == "spectator":
            self.spectators.add(peer)
            peer.seat = None
        elif token is not None:
            seat = self.model.seat_for_token(token)
            if seat is None:
                raise RoomError(
                    "room/bad_seat_token", "this seat token belongs to no seat of this room"
                )
            old = self.players.get(seat)
            if old is not None and old is not peer:
                old.close_with("room/replaced", "a newer connection took this seat")
            self.players[seat] = peer
            self.away_since.pop(seat, None)
            peer.seat = seat
            new_token = token
        else:
            free = self.model.free_seats()
            if not free:
                raise RoomError(
                    "room/full", "every seat of this room is taken; join as a spectator"
                )
            seat, new_token = free[0], secrets.token_urlsafe(18)
            await self._append([seated_record(seat, name, new_token, None, self.now())], [])
            self.players[seat] = peer
            peer.seat = seat
            last_seq = None
        self._welcome(peer, role, new_token, last_seq)
        self._broadcast(self.presence())

    def _welcome(self, peer: Peer, role: str, token: str | None, last_seq: int | None) -> None:
        viewer = peer.seat
        base: Message = {
            "type": "welcome",
            "room": self.room_id,
            "game": self.model.game.name,
            "role": role,
            "seat": viewer,
            "seat_token": token,
            "server_time": self.now(),
        }
        missed = self._missed(viewer, last_seq)
        snapshot = peer.encode({**base, "seq": self.model.seq, "view": self.views.snapshot(viewer)})
        if missed is not None:  # resume with the patches when they weigh less than a snapshot
            frames = [peer.encode({**base, "seq": last_seq, "view": None})]
            frames += [peer.encode(patch) for patch in missed]
            if sum(len(frame) for frame in frames) < len(snapshot):
                for frame in frames:
                    peer.send_frame(frame)
                return
        peer.send_frame(snapshot)

    def _missed(self, viewer: Viewer, last_seq: int | None) -> list[Message] | None:
        """The patches after ``last_seq`` if this room still holds all of them."""
        if last_seq is None or last_seq > self.model.seq:
            return None
        if last_seq == self.model.seq:
            return []
        patches = list(self.history[viewer])
        for i, patch in enumerate(patches):
            if patch["from"] == last_seq:
                return patches[i:]
        return None

    async def leave(self, peer: Peer) -> None:
        if peer.seat is not None and self.players.get(peer.seat) is peer:
            del self.players[peer.seat]
            self.away_since[peer.seat] = time.monotonic()
            self._schedule()
        self.spectators.discard(peer)
        self._broadcast(self.presence())

    async def resync(self, peer: Peer) -> None:
        peer.send_frame(
            peer.encode(
                {"type": "snapshot", "seq": self.model.seq, "view": self.views.snapshot(peer.seat)}
            )
        )

    # -- commands ------------------------------------------------------------------------

    async def command(self, peer: Peer, cmd_id: str, data: dict[str, Any]) -> None:
        """Decide, append, evolve, fan out; reply ack or reject to ``peer``."""
        seat = peer.seat
        if seat is None:
            self._reject(peer, None, cmd_id, "room/read_only", "spectators cannot act")
            return
        key = (seat, cmd_id)
        if key in self.model.acks:
            peer.send_frame(peer.encode({"type": "ack", "id": cmd_id, "seq": self.model.acks[key]}))
            return
        if key in self.rejected:
            peer.send_frame(peer.encode(self.rejected[key]))
            return
        try:
            seq = await self.apply(seat, data, cmd_id)
        except Rejection as exc:
            self._reject(peer, key, cmd_id, exc.code, exc.message, exc.details)
            return
        except RoomError as exc:
            self._reject(peer, None, cmd_id, exc.code, exc.message)
            return
        peer.send_frame(peer.encode({"type": "ack", "id": cmd_id, "seq": seq}))

    def _reject(
        self,
        peer: Peer,
        key: tuple[int, str] | None,
        cmd_id: str,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
    ) -> None:
        self.metrics.rejections.inc(code=code)
        reply = {
            "type": "reject",
            "id": cmd_id,
            "code": code,
            "message": message,
            "details": details or {},
        }
        if key is not None:
            self.rejected[key] = reply
            if len(self.rejected) > 1024:
                self.rejected.popitem(last=False)
        peer.send_frame(peer.encode(reply))

    async def apply(self, seat: int, data: Any, cmd_id: str | None) -> int:
        """Run one command for ``seat`` (plain data or a command object); returns its seq."""
        model = self.model
        if model.is_over:
            raise Rejection("the game is over", code="game/over")
        if not model.started:
            raise RoomError("room/not_started", "the game starts when every seat is taken")
        game = model.game
        command = game.commands.load(data, seat=seat) if isinstance(data, dict) else data
        events = game.decide(model.state, command)
        if not events:
            return model.seq
        records = event_records(events, self.now(), seat, cmd_id)
        await self._append(records, [game.public_name(e) for e in events])
        self.metrics.commands.inc(game=game.name)
        return model.seq

    async def _append(self, records: list[dict[str, Any]], names: list[str]) -> None:
        """Durable, then applied, then visible."""
        first = self.model.seq
        started = time.perf_counter()
        try:
            await self.store.append(self.room_id, records, first)
        except StoreConflict:
            raise
        except StoreError as exc:
            raise RoomError("room/unavailable", f"the event log is unavailable: {exc}") from exc
        self.metrics.append_latency.observe(time.perf_counter() - started)
        for offset, record in enumerate(records, start=1):
            fold(self.model, first + offset, record)
        self._fan_out(first, self.model.seq, names)
        self._schedule()

    # -- fan-out -------------------------------------------------------------------------

    def _fan_out(self, first: int, last: int, names: list[str]) -> None:
        started = time.perf_counter()
        for viewer, ops in self.views.advance().items():
            patch = {"type": "patch", "from": first, "to": last, "ops": ops, "events": names}
            self.history[viewer].append(patch)
            peers: Iterable[Peer] = (
                self.spectators if viewer is None else filter(None, [self.players.get(viewer)])
            )
            self._send_all(peers, patch)
        self.metrics.fanout_latency.observe(time.perf_counter() - started)

    def _send_all(self, peers: Iterable[Peer], message: Message) -> None:
        frames: dict[str, bytes | str] = {}
        for peer in list(peers):
            frame = frames.get(peer.codec_name)
            if frame is None:
                frame = frames[peer.codec_name] = peer.encode(message)
            peer.send_frame(frame)

    def _broadcast(self, message: Message) -> None:
        self._send_all([*self.players.values(), *self.spectators], message)

    # -- clocks and bots --------------------------------------------------------------------

    def _cancel_timers(self) -> None:
        for timer in (self._clock_timer, self._wake_timer):
            if timer is not None:
                timer.cancel()
        self._clock_timer = self._wake_timer = None
        for handle in self._bot_timers.values():
            handle.cancel()
        self._bot_timers.clear()

    def _schedule(self) -> None:
        """Arm one timer for the earliest deadline, and one per bot that must move."""
        if self._task is None:
            return
        loop = asyncio.get_running_loop()
        if self._clock_timer is not None:
            self._clock_timer.cancel()
            self._clock_timer = None
        deadlines = self.model.deadlines()
        if deadlines:
            delay = max(0.0, min(deadlines.values()) - self.now())
            self._clock_timer = loop.call_later(delay, self._post, self._timeouts)
        for seat in self._bot_seats():
            if seat not in self._bot_timers:
                delay = float(self.model.settings.get("bot_delay", 0.8))
                self._bot_timers[seat] = loop.call_later(delay, self._post, self._bot_move, seat)
        if self._wake_timer is not None:
            self._wake_timer.cancel()
            self._wake_timer = None
        grace = self._next_takeover()
        if grace is not None:
            self._wake_timer = loop.call_later(grace, self._post, self._wake)

    def _bot_seats(self) -> list[int]:
        """Awaited seats a bot plays now: hosted bots, and players gone past the grace period."""
        model = self.model
        if not model.started or model.is_over:
            return []
        awaited = model.game.awaiting(model.state)
        return [
            s
            for s in awaited
            if s in model.holders and (model.holders[s].bot is not None or self._taken_over(s))
        ]

    def _taken_over(self, seat: int) -> bool:
        grace = self.model.settings.get("takeover_after")
        since = self.away_since.get(seat)
        if grace is None or since is None or seat in self.players:
            return False
        return time.monotonic() - since >= float(grace)

    def _next_takeover(self) -> float | None:
        """Seconds until the next away player's grace period ends (if a bot must step in)."""
        grace = self.model.settings.get("takeover_after")
        if grace is None or not self.model.started or self.model.is_over:
            return None
        awaited = self.model.game.awaiting(self.model.state)
        now = time.monotonic()
        waits = [
            since + float(grace) - now
            for seat, since in self.away_since.items()
            if seat in awaited and seat not in self.players and since + float(grace) > now
        ]
        return max(0.0, min(waits)) if waits else None

    async def _wake(self) -> None:
        self._wake_timer = None
        self._schedule()

    def _post(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        future.add_done_callback(_log_failure)
        self.mailbox.put_nowait((fn, args, future))

    async def _timeouts(self) -> None:
        """Every seat whose clock ran out makes its timeout command."""
        self._clock_timer = None
        now = self.now()
        for seat, deadline in sorted(self.model.deadlines().items()):
            if deadline > now or self.model.is_over:
                continue
            command = self.model.game.timeout_command(self.model.state, seat)
            if command is None:
                continue
            try:
                await self.apply(seat, command, None)
            except Rejection as exc:  # the game moved on already; nothing to do
                log.warning(
                    "room %s: timeout for seat %s rejected: %s", self.room_id, seat, exc.code
                )
        self._schedule()

    async def _bot_move(self, seat: int) -> None:
        self._bot_timers.pop(seat, None)
        model = self.model
        if seat not in self._bot_seats():
            return
        policy_name = model.holders[seat].bot or str(model.settings.get("takeover_policy", ""))
        policy = model.game.policies.get(policy_name) or next(iter(model.game.policies.values()))
        legal = model.game.legal_commands(model.state, seat)
        if not legal:
            return
        rng = random.Random(f"{self.room_id}:{model.seq}:{seat}")
        command = policy(self.views.game[seat], seat, legal, rng)
        await self.apply(seat, command, f"bot-{model.seq}")

    async def seat_bots(self, count: int, policy: str) -> None:
        """Give ``count`` free seats to hosted bots playing ``policy``."""
        now = self.now()
        free = self.model.free_seats()[:count]
        records = [seated_record(s, f"bot {s + 1}", None, policy, now) for s in free]
        if records:
            await self._append(records, [])

    def summary(self) -> dict[str, Any]:
        return room_summary(self.model, len(self.players), len(self.spectators))


def room_summary(model: RoomModel, connected: int = 0, spectators: int = 0) -> dict[str, Any]:
    """What the lobby shows of a room."""
    return {
        "room": model.room_id,
        "game": model.game.name,
        "title": model.game.title,
        "status": model.status,
        "seats": model.seats,
        "taken": len(model.holders),
        "bots": sum(1 for h in model.holders.values() if h.bot is not None),
        "players_connected": connected,
        "spectators": spectators,
        "seq": model.seq,
        "created_at": model.created_at,
        "options": model.options,
        "clock": model.clock,
        "takeover_after": model.settings.get("takeover_after"),
        "result": to_data(model.game.result(model.state)) if model.is_over else None,
    }


def _log_failure(future: asyncio.Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("room task failed: %r", future.exception())
