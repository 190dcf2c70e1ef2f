"""One node of a cluster: it claims rooms, renews their leases, relays connections to
rooms run elsewhere, takes over rooms whose owner died, and drains on shutdown.

Two loops, each bounded by Redis's socket timeout:

- every ``lease / 4`` (:meth:`Node.tick`): renew every lease held (one pipeline, with
  the node's heartbeat); a room whose lease another node has claimed since (its fence
  epoch moved) is closed at once (``room/moved``). A lease that lapsed while nobody
  claimed the room (the process was paused, or cut off from Redis) is taken again by
  the same script, so a node that loses Redis for a while keeps the rooms nobody else
  could take (and their in-memory state, such as seats whose hello has not been
  confirmed). Until a renewal succeeds again the node is not ready. Then publish
  changed room summaries to the index and drop the peers of relay nodes that died.
- every ``scan_seconds`` (:meth:`Node.scan`, 0.25 s by default): look for leases that
  lapsed among the rooms this node cares about, so a takeover starts within a scan of
  the expiry: claim time-driven rooms that nobody holds (a failover), and move the
  local connections of relayed rooms whose owner changed or went (they reconnect and
  the first hello claims the room).

A third loop watches the first (server.cluster.watchdog): a tick stuck in one step
for two leases is logged with where it waits, cancelled and started again, and a node
on a Redis Cluster lets its rooms and relayed clients go at once rather than serve
copies of rooms other nodes may have taken meanwhile.

What other nodes relay to this node's rooms (hellos, commands, leaves, calls) is
handled by :class:`server.cluster.owner.Owned`; the relay side (local connections to
rooms run elsewhere) is here.

Failover time is therefore the lease's remaining time at the kill (``3/4 lease`` to
``lease``) + up to one scan + the rebuild: about 1.7-2.5 s with the 2 s default.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from redis.asyncio.cluster import RedisCluster

from protocol import errors as codes
from server.cluster.idempotency import IdempotencyKeys
from server.cluster.index import Index
from server.cluster.leases import ANY_INCARNATION, Leases, restarted
from server.cluster.owner import MOVED_MESSAGE, UNREACHABLE_MESSAGE, Owned
from server.cluster.relay import (
    Message,
    RemoteRoom,
    Session,
    Streams,
    sender,
)
from server.cluster.watchdog import TickWatch, awaiting
from server.config import Settings
from server.errors import RoomRefusal
from server.metrics import Metrics
from server.room.ownership import RoomElsewhere
from server.store import EventStore, StoreError, StoreUnavailable
from server.store.redis_conn import connect, single_shot, wait_of
from server.store.url import redis_parts
from server.tasks import cancel_and_wait

if TYPE_CHECKING:
    from server.room.rooms import Rooms
    from server.room.shell import Room

log = logging.getLogger("rollhouse.cluster")


class Node:
    """This process as a member of the cluster; the rooms' :class:`~server.room.ownership.Fencer`."""

    exclusive = True

    def __init__(self, settings: Settings, store: EventStore, metrics: Metrics) -> None:
        self.settings = settings
        self.id = settings.node
        self.lease = settings.lease_seconds
        self.renew_every = self.lease / 4
        self.scan_every = min(settings.scan_seconds, self.renew_every)
        self.store = store
        self.metrics = metrics
        url, prefix = redis_parts(settings.store_url)
        timeout = max(0.2, min(2.0, self.lease / 3))
        self.client = connect(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self.reader = connect(url, socket_timeout=5.0, socket_connect_timeout=2.0)
        self.lets_go = isinstance(self.client, RedisCluster)
        """Whether a node cut off from Redis for a lease closes its clients (`_let_go`)
        and refuses hellos: on a Redis Cluster one node can lose its masters while the
        others keep theirs, so its players are better served elsewhere. On one Redis the
        nodes keep their clients through an outage and answer when it is back (what the
        single-Redis fault tests hold: no ghost seat, the stall metrics)."""
        replicas, wait_timeout = wait_of(url)  # a claim waits for a replica on a cluster
        # what WAITs goes through a client that never retries: a retried pipeline could
        # send its WAIT to another connection than its writes (counting nothing)
        self.writer = single_shot(url, self.client, timeout) if replicas else self.client
        self.streams = Streams(self.writer, self.reader, prefix, self.id, self.on_message)
        self.leases = Leases(self.client, prefix, self.id, self.lease, replicas=replicas,
                             wait_timeout=min(wait_timeout, timeout / 2), writer=self.writer,
                             incarnation=self.streams.incarnation,
                             on_backwards=self._fence_went_back)  # fmt: skip
        self.streams.replicas, self.streams.wait_timeout = replicas, self.leases.wait_timeout
        self.index = Index(self.client, prefix)
        self.idempotency = IdempotencyKeys(self.client, prefix)
        self.rooms: Rooms | None = None
        self.sessions: dict[int, Session] = {}
        """Relay side: local connections to rooms run elsewhere, by connection id."""
        self.owned = Owned(self)
        """Owner side: the peers other nodes relay to this node's rooms."""
        self.draining = False
        self.last_renewed = time.monotonic()
        self.watch = TickWatch(self.lease, self.renew_every)
        self.room_renewed: dict[str, float] = {}
        """When each room's lease was last renewed (its master may fail alone)."""
        self._published: dict[str, str] = {}
        self._calls: dict[str, asyncio.Future[Message]] = {}
        self._call_ids = itertools.count(1)
        self._background: set[asyncio.Task[None]] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self.handlers: dict[str, Callable[[dict[str, Any]], Awaitable[Any]]] = {}
        """Node-wide operations other nodes may :meth:`call` by name, with no room (the
        operator console's: a notice, the bans, a drain)."""

    # -- life --------------------------------------------------------------------------

    async def start(self, rooms: Rooms) -> None:
        self.rooms = rooms
        self.metrics.rooms_owned.fn = lambda: float(len(rooms.live))
        self.metrics.lease_seconds.set(self.lease)
        self.metrics.lease_renewal_age.fn = lambda: time.monotonic() - self.last_renewed
        layout = getattr(self.store, "layout", None)  # the Redis store's key names
        if layout is not None:
            self.leases.keys = await layout()
        self.last_renewed = time.monotonic()
        await self._heartbeat()
        await self.streams.start()
        self._tasks = [
            asyncio.create_task(self._every(self.renew_every, self.tick), name="cluster-ticks"),
            asyncio.create_task(self._every(self.scan_every, self.scan), name="cluster-scans"),
            asyncio.create_task(
                self._every(self.renew_every, self._watch_ticks), name="cluster-watchdog"
            ),
        ]
        log.info("node %s joined the cluster (lease %.1f s)", self.id, self.lease)

    async def _heartbeat(self) -> None:
        """Say this node is alive before it relays anything: an owner drops the peers of
        a relay node whose heartbeat it cannot see (bounded; the ticks go on trying)."""
        for _attempt in range(10):
            try:
                await self.leases.renew({})
                return
            except StoreError as exc:
                log.warning("node %s: cannot write its heartbeat yet: %s", self.id, exc)
                await asyncio.sleep(0.2)

    async def drain(self) -> None:
        """Stop taking rooms, move local connections away, hand every room over."""
        if self.draining or self.rooms is None:
            return
        self.draining = True
        log.info("node %s draining: %d rooms", self.id, len(self.rooms.live))
        for pid, session in list(self.sessions.items()):
            session.room.close(pid, codes.MOVED, "this node is shutting down; reconnect")
        for room_id in list(self.rooms.live):
            await self.rooms.hand_over(
                room_id, codes.MOVED, "this node is shutting down; reconnect"
            )
        await self.streams.flush()

    async def close(self) -> None:
        for task in [*self._tasks, *self._background]:
            await cancel_and_wait(task)
        await self.streams.close()
        if self.writer is not self.client:
            await self.writer.aclose()
        await self.client.aclose()
        await self.reader.aclose()

    def _fence_went_back(self, room: str) -> None:
        """A renewal found ``room``'s fence below this node's epoch: the store lost a
        write it had acknowledged (the lease put it back; the room is reloaded)."""
        self.metrics.store_regressions.inc(what="fence")

    def ready(self) -> bool:
        """Leases are being renewed and the node takes rooms."""
        return not self.draining and self.renewing()

    def renewing(self) -> bool:
        """A renewal reached Redis within the last lease: the rooms this node runs are
        still its own as far as it can know (past that, any may be another node's)."""
        return time.monotonic() - self.last_renewed < self.lease

    # -- Fencer ------------------------------------------------------------------------

    async def claim(self, room: str) -> int:
        if self.draining:
            raise RoomRefusal(codes.MOVED, "this node is shutting down; reconnect")
        claimed = await self.leases.take(room)
        self.metrics.leases.inc(event="taken")
        if claimed.previous:
            self.metrics.failovers.inc()
            log.info("room %s taken over from node %s", room, claimed.previous)
        return claimed.epoch

    async def refence(self, room: str) -> int:
        return await self.leases.refence(room)

    async def release(self, room: str) -> None:
        self._published.pop(room, None)
        if await self.leases.release(room):
            self.metrics.leases.inc(event="released")

    # -- what connections and handlers call --------------------------------------------

    async def open(self, room_id: str) -> Room | RemoteRoom:
        """The room to join: run here (claimed if nobody runs it), or relayed to its owner."""
        assert self.rooms is not None
        if self.draining:
            raise RoomRefusal(codes.MOVED, "this node is shutting down; reconnect")
        if self.lets_go and not self.ready():  # cut off from its Redis Cluster
            raise RoomRefusal(codes.UNAVAILABLE, UNREACHABLE_MESSAGE)
        try:
            return await self.rooms.get(room_id)
        except RoomElsewhere as exc:
            return RemoteRoom(self.streams, self.sessions, room_id, exc.owner, self.metrics)

    async def owner_of(self, room_id: str) -> str | None:
        if self.rooms is not None and room_id in self.rooms.live:
            return self.id
        return (await self.leases.holders([room_id]))[room_id]

    async def publish(self, rooms: list[Room]) -> None:
        """Write the summaries of ``rooms`` that changed to the index."""
        changed = {}
        for room in rooms:
            summary = {**room.summary(), "node": self.id}
            text = json.dumps(summary, sort_keys=True)
            if self._published.get(room.room_id) != text:
                changed[room.room_id] = summary
                self._published[room.room_id] = text
        try:  # bounded: the tick that publishes also renews the leases
            await asyncio.wait_for(self.index.put(changed), self.lease)
        except (StoreError, TimeoutError) as exc:
            for room_id in changed:
                self._published.pop(room_id, None)
            if isinstance(exc, TimeoutError):
                raise StoreUnavailable("room summaries not written within a lease") from exc
            raise

    async def current(self, found: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """These summaries read from the index, each one that is behind its room's log
        and that no live node will publish again (its owner died, or this node's last
        incarnation, between an append and the summary) replaced by one folded from the
        log, and written back (:meth:`Index.mend`)."""
        assert self.rooms is not None
        live = self.rooms.live
        seqs = {r: int(s.get("seq", 0)) for r, s in found.items() if r not in live}
        behind = await self.index.behind(self.leases.keys, seqs)
        mended = {}
        for room_id, holder in behind.items():
            if holder is not None and holder != self.id:  # its owner publishes it within a tick
                continue
            summary = await self.rooms.summary_from_log(room_id)
            if summary is not None:
                mended[room_id] = {**summary, "node": None}
        if mended:
            log.info("node %s: summaries mended from the log: %s", self.id, sorted(mended))
            self.metrics.summaries_mended.inc(len(mended))
            with contextlib.suppress(StoreError):  # the next read mends them again
                await self.index.mend(mended)
        return {**found, **mended}

    async def call(self, owner: str, op: str, room: str, args: dict[str, Any] | None = None) -> Any:
        """Ask ``owner`` to run ``op`` on ``room`` (:meth:`server.room.rooms.Rooms.run_op`:
        a rematch, a quick match's hold, an invite code); its answer."""
        qid = f"{self.id}:{next(self._call_ids)}"
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._calls[qid] = future
        self.metrics.forwarded.inc(direction="out", kind="call")
        self.streams.send(owner, {"k": "call", "n": self.id, "q": qid, "op": op, "r": room,
                                  "a": args or {}})  # fmt: skip
        try:
            reply = await asyncio.wait_for(future, max(5.0, 2 * self.lease))
        except TimeoutError:
            raise RoomRefusal(codes.UNAVAILABLE, f"node {owner} did not answer") from None
        finally:
            self._calls.pop(qid, None)
        if "e" in reply:
            raise RoomRefusal(reply["e"][0], reply["e"][1])
        return reply["v"]

    async def run(self, op: str, room_id: str, args: dict[str, Any] | None = None) -> Any:
        """Run ``op`` on ``room_id`` where it lives: here (claimed if nobody runs it), or
        on its owner."""
        assert self.rooms is not None
        try:
            await self.rooms.get(room_id)
        except RoomElsewhere as exc:
            return await self.call(exc.owner, op, room_id, args)
        return await self.rooms.run_op(op, room_id, args or {})

    # -- the inbox -------------------------------------------------------------------

    async def on_message(self, msg: Message) -> None:
        kind = msg["k"]
        if kind in ("frames", "close", "result"):
            self.metrics.forwarded.inc(direction="back", kind=kind)
            self._to_relay(msg)
            return
        self.metrics.forwarded.inc(direction="in", kind=kind)
        self.owned.receive(msg)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` aside (cancelled when the node closes)."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _to_relay(self, msg: Message) -> None:
        if msg["k"] == "frames":
            for pid in msg["p"]:
                session = self.sessions.get(pid)
                if session is not None:
                    if not session.answered:
                        session.answered = True
                        session.owner_incarnation = sender(msg)
                    session.peer.send_frame(msg["f"])
                    if session.sent or not session.welcomed:
                        session.read(msg["f"], self.metrics)
        elif msg["k"] == "close":
            session = self.sessions.pop(msg["p"], None)
            if session is not None:
                session.peer.close_with(msg["c"], msg["m"])
        else:
            future = self._calls.get(msg["q"])
            if future is not None and not future.done():
                future.set_result(msg)

    # -- the tick --------------------------------------------------------------------

    async def _every(self, seconds: float, step: Callable[[], Awaitable[None]]) -> None:
        """Run ``step`` every ``seconds`` (from one start to the next), for ever."""
        loop = asyncio.get_running_loop()
        due = loop.time()
        while True:
            due = max(due + seconds, loop.time())  # a late step is not run twice to catch up
            await asyncio.sleep(due - loop.time())
            try:
                await step()
            except StoreError as exc:
                log.warning("node %s: %s failed: %s", self.id, step.__name__, exc)
            except Exception:
                log.exception("node %s: %s failed", self.id, step.__name__)

    async def tick(self) -> None:
        """Renew, then tidy (:meth:`_tick`), noting each step for the watchdog."""
        self.watch.begin()
        try:
            await self._tick()
        finally:
            self.watch.end()

    async def _watch_ticks(self) -> None:
        """A tick stuck in one step (server.cluster.watchdog): log where it waits, cancel
        it and start the ticks again; on a Redis Cluster, with no renewal for a lease,
        let this node's rooms and relayed clients go now, as a failed renewal would."""
        spent = self.watch.stuck_for()
        if spent is None:
            return
        stuck = self._tasks[0]
        log.error("node %s: a tick step has run for %.1f s, waiting in %s; starting the ticks "
                  "again", self.id, spent, awaiting(stuck))  # fmt: skip
        self.metrics.ticks_restarted.inc()
        await cancel_and_wait(stuck, timeout=self.lease)
        self.watch.end()
        self._tasks[0] = asyncio.create_task(self._every(self.renew_every, self.tick),
                                             name="cluster-ticks")  # fmt: skip
        if self.lets_go and not self.renewing():
            await self._let_go()

    async def _tick(self) -> None:
        assert self.rooms is not None
        rooms = self.rooms
        sent = time.monotonic()
        if sent - self.last_renewed > self.lease:
            log.warning("node %s: no lease renewed for %.1f s", self.id, sent - self.last_renewed)
        owned = {r: room.fence or 0 for r, room in rooms.live.items() if not room.broken}
        try:  # a renewal later than a lease is worth nothing (a cluster client retries long)
            renewed = await asyncio.wait_for(self.leases.renew(owned), self.lease)
        except (StoreError, TimeoutError) as exc:
            if self.lets_go and time.monotonic() - self.last_renewed > self.lease:
                await self._let_go()
            if isinstance(exc, TimeoutError):
                raise StoreUnavailable("no renewal within a lease") from exc
            raise
        self.last_renewed = sent
        self.room_renewed = {r: t for r, t in self.room_renewed.items() if r in owned}
        for room_id, ok in renewed.items():
            if ok is None:  # its master did not answer (failing over): kept for its lease
                if sent - self.room_renewed.setdefault(room_id, sent) <= self.lease:
                    continue
            elif ok:
                self.room_renewed[room_id] = sent
                self.metrics.leases.inc(event="renewed")
                continue
            self.metrics.leases.inc(event="lost")
            if ok is None:
                log.warning("node %s: room %s not renewed for a lease (its master is away); "
                            "let go", self.id, room_id)  # fmt: skip
            else:
                log.warning("node %s: room %s is held by another node now", self.id, room_id)
            self.watch.step()
            await rooms.lose(room_id, codes.MOVED, MOVED_MESSAGE)
        for room_id, room in list(rooms.live.items()):
            if room.broken:
                if room.fenced:  # another node claimed it: its appends were refused
                    self.metrics.leases.inc(event="lost")
                self.watch.step()
                await rooms.unload(room_id)
                self.watch.step()
                with contextlib.suppress(TimeoutError):  # its lease lapses by itself
                    await asyncio.wait_for(rooms.release(room_id), self.lease)
        self.watch.step()
        await self.publish(list(rooms.live.values()))
        self.watch.step()
        await self._drop_dead_relays()

    async def _let_go(self) -> None:
        """No renewal has reached Redis for a whole lease: every room this node runs may
        be another node's by now, and nothing it relays reaches an owner. Its clients
        would wait on it for as long as the cut lasts (their connections are fine), so
        every one is closed with ``room/moved``: they go to a node that reaches Redis
        and resume from their seq. The rooms are not released (Redis is out of reach):
        their leases lapse, and another node claims them."""
        assert self.rooms is not None
        closed = len(self.sessions) + sum(len(r.peers) for r in self.rooms.live.values())
        if closed or self.rooms.live:
            log.warning("node %s: no lease renewed for %.1f s; letting %d rooms and %d "
                        "relayed connections go", self.id, time.monotonic() - self.last_renewed,
                        len(self.rooms.live), len(self.sessions))  # fmt: skip
        for room_id in list(self.rooms.live):
            self.metrics.leases.inc(event="lost")
            await self.rooms.lose(room_id, codes.MOVED, MOVED_MESSAGE)
        for pid, session in list(self.sessions.items()):
            session.room.close(pid, codes.MOVED, MOVED_MESSAGE)

    async def scan(self) -> None:
        """Act on lapsed leases within a scan: take driven rooms over, move relayed clients."""
        if not self.draining:
            await self._take_over()
        await self._watch_relayed()

    async def _take_over(self) -> None:
        """Claim the time-driven rooms nobody holds (their owner died or handed them over)."""
        assert self.rooms is not None
        driven = [r for r in await self.store.driven_rooms() if r not in self.rooms.live]
        for room_id, holder in (await self.leases.holders(driven)).items():
            if holder is None:
                with contextlib.suppress(RoomRefusal):
                    await self.rooms.get(room_id)

    async def _watch_relayed(self) -> None:
        """Move local connections whose room changed owner, whose owner restarted, or
        whose hello went unanswered.

        Only the connections open before the lease read began are judged: one opened
        during it may be to a room the read did not ask about (issue 23: it was taken
        for moved and closed 3 ms after its hello, while its owner seated it). An owner
        killed and started again within its lease takes its rooms back under the same
        node id, but holds none of the connections its earlier process served: its
        heartbeat names another incarnation than the one that answered (issue 23: a
        relayed player waited for patches that never came). Each close is a leave to
        the owner (:meth:`RemoteRoom.close`)."""
        judged = list(self.sessions.items())
        rooms = sorted({s.room.room_id for _, s in judged})
        holders = await self.leases.holders(rooms)
        now_running = await self.leases.alive(sorted({s.room.owner for _, s in judged}))
        now = time.monotonic()
        for pid, session in judged:
            if self.sessions.get(pid) is not session:  # left meanwhile
                continue
            owner = session.room.owner
            moved = holders.get(session.room.room_id) != owner or restarted(
                session.owner_incarnation, now_running.get(owner)
            )
            silent = not session.answered and now - session.opened > self.lease
            if moved or silent:
                session.room.close(pid, codes.MOVED, MOVED_MESSAGE)

    async def _drop_dead_relays(self) -> None:
        """Peers relayed by a node whose heartbeat stopped, or by an earlier process of a
        node that restarted, have left (they cannot say so)."""
        remote = self.owned.remote
        for key in [k for k, (_, _, peer) in remote.items() if peer.closed]:
            remote.pop(key, None)
        nodes = sorted({node for node, _ in remote})
        try:  # bounded: the next tick's renewal waits on this one
            running = await asyncio.wait_for(self.leases.alive(nodes), self.lease)
        except TimeoutError as exc:
            raise StoreUnavailable("relay heartbeats not read within a lease") from exc
        for key, (room, pid, peer) in list(remote.items()):
            current = running.get(key[0], ANY_INCARNATION)
            if current is None or restarted(peer.incarnation, current):
                log.warning("node %s: relay node %s is silent or restarted; its peer %s left",
                            self.id, *key)  # fmt: skip
                del remote[key]
                peer.gone = True
                room.leave(pid)
                # were it alive after all (a late heartbeat), its client must not wait on
                # frames that will never come: it reconnects and resumes from its seq
                peer.close_with(codes.MOVED, MOVED_MESSAGE)
