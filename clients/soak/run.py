"""The soak's shell: the processes, the games, the poller, the fault loop.

:func:`soak` starts a Redis Cluster of its own (or uses ``--redis`` seeds), three
``rollhouse serve`` nodes on it (:class:`clients.bench.cluster.Node`), and keeps
``rooms`` games going back to back: some played by SDK players over websockets
(:class:`~clients.soak.history.RecordingClient`, each seat trying another node
first, so most seats are relayed), the others by hosted bots. Meanwhile a fault is
drawn every few seconds (:mod:`clients.soak.faults`) until ``minutes`` have passed;
then the games go on for ``settle`` seconds without faults, and the run ends. The
history is checked (:mod:`clients.soak.history`) and summed up (:func:`summary`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import random
import secrets
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
from redis.asyncio.cluster import RedisCluster as AsyncCluster
from redis.cluster import RedisCluster as SyncCluster

from clients import progress
from clients.bench.cluster import Node
from clients.bench.proc import rss_kib
from clients.bench.report import percentile
from clients.bots.play import play_seat
from clients.sdk import create_room
from clients.soak import faults as F
from clients.soak.history import RecordingClient, RoomHistory, check, game_over
from clients.soak.netsplit import ProxiedCluster
from clients.soak.redis_cluster import ALWAYS, NotAMaster, RedisCluster, launch_cluster
from clients.soak.track import Track, longest_stall, merged, moved_since, recovered_after, seq_at
from server.store.redis_conn import connect

NODES = 3
SEATS = 3
"""Seats of a websocket room (a hosted bots' room has two)."""
JOIN_TRIES = 20
YOUNG = 3.0
"""Seconds a game must have been in play at the end before it is judged (one made in the
last moments of the settle has had no time to be seen moving)."""
PATIENCE = 90.0
"""Seconds a game may go without moving before it is given up (and counted unfinished)."""
POLL = 0.5
START_SECONDS = 15.0
"""About how long the cluster and the nodes take to start (the progress bar's unit)."""
PREFIX = "rollhouse"
PERSISTENCE: dict[str, Any] = {"appendonly": True, "appendfsync": ALWAYS}
"""The soak's members keep an AOF, flushed before any reply (deploy/redis-cluster.conf):
a master killed and started again at once (``master-restart``) comes back with every
write it acknowledged."""


@attrs.frozen
class Options:
    minutes: float = 30.0
    rooms: int = 50
    hosted: int = 25
    """How many of the rooms are played by hosted bots."""
    every: float = 5.0
    """Mean seconds between the end of a fault and the next."""
    settle: float = 20.0
    lease: float = 2.0
    seed: int = 1
    redis: str | None = None
    """Seed nodes (host:port,...) of an existing cluster; None: start one."""
    faults: tuple[str, ...] = (*F.NODE_FAULTS, *F.REDIS_FAULTS, *F.LINK_FAULTS)
    delay: float = 0.1
    """A websocket bot's think time (seconds, ±50 %)."""
    bot_delay: float = 0.3


@attrs.define
class Game:
    history: RoomHistory
    track: Track


class Soak:
    def __init__(self, options: Options, url: str, nodes: list[Node],
                 cluster: RedisCluster | None, client: AsyncCluster) -> None:  # fmt: skip
        self.options, self.url, self.nodes, self.cluster = options, url, nodes, cluster
        self.client = client
        self.games: dict[str, Game] = {}
        self.faults: list[F.Fault] = []
        self.deck: list[str] = []
        self.timings: dict[str, float] = {}
        """Seconds from the start to the end of each phase (faults, settle, stop, check)."""
        self.errors: list[str] = []
        self.created = 0
        self.workdir: Path | None = None
        """Where ``verdict.json`` goes (the soak's folder)."""

    # -- games -------------------------------------------------------------------------

    def ws_urls(self, first: int) -> list[str]:
        n = len(self.nodes)
        return [self.nodes[(first + i) % n].url.replace("http://", "ws://") + "/ws"
                for i in range(n)]  # fmt: skip

    async def create(self, slot: int, seats: int, room: dict[str, Any]) -> str:
        """A new room on the nodes in turn from ``slot`` (one may be dead or paused)."""
        for attempt in range(60):
            node = self.nodes[(slot + attempt) % len(self.nodes)]
            try:
                made = await asyncio.wait_for(create_room(node.url, "rollie", seats, room=room), 5)
                self.created += 1
                return str(made["room"])
            except Exception:  # that node is down, paused or its slot failing over: the next
                await asyncio.sleep(0.5)
        raise RuntimeError("no node made a room for 60 tries")

    def register(self, room: str, players: Sequence[RecordingClient], hosted: bool) -> Game:
        kind = "hosted" if hosted else "websocket"
        game = Game(RoomHistory(room, players, hosted=hosted),
                    Track(room, kind, time.monotonic()))  # fmt: skip
        self.games[room] = game
        return game

    async def join(self, first: int, room: str, name: str) -> RecordingClient:
        """A player seated in ``room``, trying the nodes in turn from ``first`` (the SDK
        moves on by itself once connected, not before its first welcome). Only a
        connection that failed to open is tried again elsewhere: one that waits for its
        welcome (a paused node, a failover) waits, as a player would. Every try sends
        the same own seat token (``new_seat_token``), so a seat an earlier try took,
        its welcome lost with a node, is found again rather than left to nobody."""
        last: Exception | None = None
        own = secrets.token_urlsafe(24)
        for attempt in range(JOIN_TRIES):
            p = RecordingClient(self.ws_urls(first + attempt), room, name=name,
                                backoff=(0.05, 0.5), ping_every=1.0, max_retries=400,
                                new_seat_token=own)  # fmt: skip
            p.acked = []
            try:
                await p.connect(timeout=PATIENCE)
                return p
            except Exception as exc:  # refused, or a handshake cut short by a kill
                last = exc
                await _close([p])
                await asyncio.sleep(0.5)
        raise RuntimeError(f"{room}: {name} could not join in {JOIN_TRIES} tries: {last!r}")

    async def ws_game(self, slot: int, rng: random.Random) -> None:
        room = await self.create(slot, SEATS, {"clock": 0})
        players: list[RecordingClient] = []
        try:
            for seat in range(SEATS):
                players.append(await self.join(slot + seat, room, f"p{seat}"))
        except BaseException:
            await _close(players)
            raise
        game = self.register(room, players, hosted=False)
        tasks: list[asyncio.Task[dict[str, Any]]] = []
        try:
            tasks = [asyncio.create_task(play_seat(p, "push", delay=self.options.delay,
                                                   seed=rng.randrange(1 << 30), patience=PATIENCE))
                     for p in players]  # fmt: skip
            await asyncio.wait(tasks)
        finally:
            game.track.ended = time.monotonic()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            game.history.finals = [t.result() for t in tasks if not t.cancelled()
                                   and t.exception() is None]  # fmt: skip
            self.errors += [f"{room}: {p.name} gave up: {t.exception()!r}"
                            for p, t in zip(players, tasks, strict=False)
                            if t.done() and not t.cancelled() and t.exception() is not None]  # fmt: skip
            game.track.over = len(game.history.finals) == SEATS
            await _close(players)

    async def hosted_game(self, slot: int) -> None:
        settings = {"clock": 0, "bots": 2, "bot_delay": self.options.bot_delay}
        room = await self.create(slot, 2, settings)
        track = self.register(room, [], hosted=True).track
        try:
            while not track.over:
                await asyncio.sleep(POLL)
                last = track.grew[-1][0] if track.grew else track.started
                if time.monotonic() - last > PATIENCE:
                    self.errors.append(f"{room}: hosted bots' game stalled {PATIENCE:g} s")
                    return
        finally:
            track.ended = time.monotonic()

    async def slot(self, slot: int) -> None:
        """Games back to back in one slot until cancelled."""
        rng = random.Random(self.options.seed * 1000 + slot)
        hosted = slot < self.options.hosted
        while True:
            try:
                await (self.hosted_game(slot) if hosted else self.ws_game(slot, rng))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a game given up: counted unfinished by the checker
                self.errors.append(f"slot {slot}: {exc!r}")
                await asyncio.sleep(1.0)

    # -- the poller --------------------------------------------------------------------

    async def poll_one(self, track: Track) -> None:
        top: Any = await self.client.xrevrange(F.key(PREFIX, track.room, "log"), count=5)
        if top:
            track.see(time.monotonic(), int(bytes(top[0][0]).split(b"-")[1]))
            if game_over(bytes(fields[b"d"]) for _, fields in top):
                track.over = True

    async def poller(self) -> None:
        """Every ``POLL`` seconds, each running game's log length (and its end)."""
        while True:
            running = [g.track for g in self.games.values() if g.track.ended is None]
            reads = [asyncio.wait_for(self.poll_one(t), 2) for t in running]
            await asyncio.gather(*reads, return_exceptions=True)  # a slot failing over: later
            await asyncio.sleep(POLL)

    # -- the faults ----------------------------------------------------------------------

    async def fault_loop(self, until: float, shown: progress.Bar) -> None:
        """A fault every ``every`` seconds (±50 %), each undone before the next, until
        ``until``."""
        rng = random.Random(self.options.seed)
        kinds = [k for k in self.options.faults if self.can(k)]
        while kinds:
            pause = rng.uniform(0.5, 1.5) * self.options.every
            if time.monotonic() + pause >= until:
                return
            await asyncio.sleep(pause)
            try:
                fault = await self.inject_drawing_again(rng, kinds)
            except Exception as exc:  # noted; the soak goes on
                self.errors.append(f"fault: {exc!r}")
                continue
            self.faults.append(fault)
            shown.now(f"{len(self.faults)} faults, last {fault.kind} of {fault.target}")

    def can(self, kind: str) -> bool:
        """Whether this run can bring ``kind`` about: a master's fault needs the cluster
        the soak started, a link's fault that cluster behind the soak's proxies."""
        if kind in F.LINK_FAULTS:
            return isinstance(self.cluster, ProxiedCluster)
        return self.cluster is not None or kind not in F.REDIS_FAULTS

    async def inject_drawing_again(self, rng: random.Random, kinds: list[str]) -> F.Fault:
        """:meth:`inject`, drawn again (up to three times) when the master it drew became
        a replica before anything was done to it (the cluster failed over by itself)."""
        for _attempt in range(2):
            try:
                return await self.inject(rng, kinds)
            except NotAMaster:
                continue
        return await self.inject(rng, kinds)

    async def inject(self, rng: random.Random, kinds: list[str]) -> F.Fault:
        """Draw a fault and its target, bring it about and undo it."""
        masters = await asyncio.to_thread(self.cluster.masters) if self.cluster else []
        kind, target = F.draw(rng, self.deck, kinds, self.nodes, masters)
        if isinstance(target, int):  # a master, once the last fault's failover is over
            assert self.cluster is not None
            await asyncio.to_thread(self.cluster.wait_whole, 60.0)
            masters = await asyncio.to_thread(self.cluster.masters)
            if target not in masters:  # a failover of its own moved it meanwhile
                target = rng.choice(masters)
        running = [g for g in self.games.values() if g.track.ended is None]
        rooms = [g.history.room for g in running]
        if isinstance(target, int):
            assert self.cluster is not None
            histories = [g.history for g in running]
            if kind == "master-isolate":
                assert isinstance(self.cluster, ProxiedCluster)
                return await F.isolate_master(self.client, self.cluster, PREFIX, target, histories)
            if kind == "master-restart":
                return await F.restart_master(self.client, self.cluster, PREFIX, target, histories)
            return await F.kill_master(self.client, self.cluster, PREFIX, target, histories)
        if kind in ("node-cut", "node-slow"):
            assert isinstance(self.cluster, ProxiedCluster)
            links = self.cluster.links_of(target.id)
            act = F.cut_node if kind == "node-cut" else F.slow_node
            return await act(self.client, PREFIX, target, links, rooms)
        if kind == "node-kill":
            return await F.kill_node(self.client, PREFIX, target, rooms)
        return await F.pause_node(self.client, PREFIX, target, rooms)

    async def stuck(self, since: float) -> list[str]:
        """What can be seen of each game in play that has not moved ``since``: its log's
        length, its lease holder, each player's seq, node and reconnects."""
        out = []
        now = time.monotonic()
        for room, game in self.games.items():
            growth = merged(game.track, _acks(game.history))
            if game.track.ended is not None or moved_since(growth, since, seq_at(growth, since)):
                continue
            if game.track.started > now - YOUNG:
                continue
            with contextlib.suppress(Exception):
                holder = await self.client.get(F.key(PREFIX, room, "lease"))
                players = [f"{p.name} seq {p.seq} on {p.url} ({p.reconnects} reconnects)"
                           for p in game.history.players if isinstance(p, RecordingClient)]  # fmt: skip
                out.append(f"{room} ({game.track.kind}) stuck at seq {game.track.seq}, lease "
                           f"{holder!r}; " + "; ".join(players))  # fmt: skip
        return out

    # -- the processes' memory -----------------------------------------------------------

    def processes(self) -> dict[str, int]:
        """Name -> pid of every process of the soak."""
        out = {f"node {n.id}": n.proc.pid for n in self.nodes if n.proc is not None}
        if self.cluster is not None:
            out |= {f"redis {port}": pid for port, pid in self.cluster.pids().items()}
        out["soak (players)"] = os.getpid()
        return out

    def memory(self) -> dict[str, int]:
        out = {}
        for name, pid in self.processes().items():
            with contextlib.suppress(OSError, RuntimeError):
                out[name] = rss_kib(pid)
        return out


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


async def run_soak(soak: Soak, shown: progress.Bar) -> dict[str, Any]:
    """Play, break, settle; the summary."""
    options = soak.options
    began = time.monotonic()
    faults_end = began + options.minutes * 60
    load_start = load_average()
    poller = asyncio.create_task(soak.poller())
    slots = [asyncio.create_task(soak.slot(i)) for i in range(options.rooms)]
    ticker = asyncio.create_task(_tick(shown))
    try:
        await asyncio.sleep(min(3.0, options.minutes * 60))  # every slot's first room made
        memory_start = soak.memory()
        await soak.fault_loop(faults_end, shown)
        await asyncio.sleep(max(0.0, faults_end - time.monotonic()))
        quiet = time.monotonic()
        soak.timings["faults_ended"] = quiet - began
        shown.now(f"{len(soak.faults)} faults done; {options.settle:g} s without faults")
        await asyncio.sleep(options.settle)
        memory_end = soak.memory()
        load_end = load_average()
        settled = time.monotonic()
        soak.errors += await soak.stuck(quiet)
        soak.timings["settled"] = time.monotonic() - began
    finally:
        for task in [*slots, poller, ticker]:
            task.cancel()
        await asyncio.gather(*slots, poller, ticker, return_exceptions=True)
    ended = time.monotonic()
    soak.timings["stopped"] = ended - began
    shown.now("checking the history")
    for game in soak.games.values():  # a game that ended is judged finished first
        growth = merged(game.track, _acks(game.history))
        young = game.track.started > settled - YOUNG
        game.history.playing = young or moved_since(growth, quiet, seq_at(growth, quiet))
    sync = await asyncio.to_thread(_sync_client, soak)
    try:
        histories = [g.history for g in soak.games.values()]
        problems, counts = await asyncio.to_thread(check, sync, histories, PREFIX)
    finally:
        sync.close()
    soak.timings["checked"] = time.monotonic() - began
    _keep(soak, problems)
    return summary(soak, problems, counts, ended - began, ended,
                   {"start": memory_start, "end": memory_end},
                   {"start": load_start, "end": load_end})  # fmt: skip


def _keep(soak: Soak, problems: list[str]) -> None:
    """Every problem, error and fault (with its wall-clock time, to read beside the nodes'
    logs) in ``verdict.json`` of the soak's folder: the printout keeps the first 20."""
    if soak.workdir is None:
        return
    shift = time.time() - time.monotonic()
    faults = [{"kind": f.kind, "target": f.target, "began": round(f.began + shift, 3),
               "rooms": sorted(f.tails), "promoted": f.promoted, "whole": f.whole}
              for f in soak.faults]  # fmt: skip
    verdict = {"problems": problems, "errors": soak.errors, "faults": faults}
    with contextlib.suppress(OSError):
        (soak.workdir / "verdict.json").write_text(json.dumps(verdict, indent=1))


async def _close(players: Sequence[RecordingClient]) -> None:
    closing = [asyncio.wait_for(p.close(), 5) for p in players]
    await asyncio.gather(*closing, return_exceptions=True)


async def _tick(shown: progress.Bar) -> None:
    while True:
        await asyncio.sleep(1.0)
        shown.advance(1.0)


def _acks(history: RoomHistory) -> list[tuple[float, int]]:
    return [(at, seq) for p in history.players for _, seq, at in p.acked]


def _sync_client(soak: Soak) -> SyncCluster:
    if soak.cluster is not None:
        return soak.cluster.client()
    host, port = (soak.options.redis or "").split(",")[0].strip().rsplit(":", 1)
    return SyncCluster(host=host, port=int(port), socket_timeout=5)


def _figures(values: list[float]) -> dict[str, Any]:
    return {"count": len(values), "p50": percentile(values, 50), "p99": percentile(values, 99),
            "max": round(max(values), 2) if values else None}  # fmt: skip


def summary(
    soak: Soak,
    problems: list[str],
    counts: dict[str, int],
    seconds: float,
    ended: float,
    memory: dict[str, dict[str, int]],
    load: dict[str, list[float]],
) -> dict[str, Any]:
    """The soak's figures and verdict as plain data."""
    growths = {room: merged(g.track, _acks(g.history)) for room, g in soak.games.items()}
    stalls = {room: longest_stall(g.track, growths[room], ended) for room, g in soak.games.items()}
    worst = max(stalls, key=lambda r: stalls[r], default=None)
    recoveries: dict[str, list[float]] = {}
    never = []
    for fault in soak.faults:
        for room, tail in fault.tails.items():
            took = recovered_after(growths[room], fault.began, tail)
            if took is not None:
                recoveries.setdefault(fault.kind, []).append(took)
            elif not soak.games[room].track.over:
                never.append(f"{room} after {fault.kind} of {fault.target}")
    restarts: dict[str, int] = {}
    for fault in soak.faults:
        name = f"node {fault.target}" if fault.kind.startswith("node") else fault.target
        restarts[name] = restarts.get(name, 0) + fault.restarts
    kinds = sorted({f.kind for f in soak.faults})
    ok = not problems and not never and not soak.errors and counts["acked"] > 0
    return {
        "ok": ok,
        "minutes": soak.options.minutes,
        "seconds": round(seconds, 1),
        "rooms": {
            "websocket": soak.options.rooms - soak.options.hosted,
            "hosted": soak.options.hosted,
        },
        "nodes": len(soak.nodes),
        "redis": soak.options.redis or "3 masters + 3 replicas (started by the soak)",
        "lease_seconds": soak.options.lease,
        "commands": {
            "acked": counts["acked"],
            "verified": counts["acked_found"],
            "lost": counts["lost"],
            "duplicated": counts["duplicated"],
            "misplaced": counts["misplaced"],
            "seen_records_checked": counts["seen_records_checked"],
        },
        "games": {
            "played": counts["rooms"],
            "finished": counts["finished"],
            "playing_at_end": counts["playing"],
            "records": counts["records"],
        },
        "longest_stall": {
            "seconds": round(stalls[worst], 2) if worst else None,
            "room": worst,
            "kind": soak.games[worst].track.kind if worst else None,
        },
        "faults": {
            "count": len(soak.faults),
            "by_kind": {k: sum(f.kind == k for f in soak.faults) for k in kinds},
            "failover_seconds": _figures([t for ts in recoveries.values() for t in ts]),
            "failover_seconds_by_kind": {k: _figures(v) for k, v in sorted(recoveries.items())},
            "promotion_seconds": _figures([f.promoted for f in soak.faults if f.promoted]),
            "replica_back_seconds": _figures([f.whole for f in soak.faults if f.whole]),
            "rooms_never_recovered": never,
        },
        "memory_kib": {
            name: {
                "start": memory["start"].get(name),
                "end": memory["end"].get(name),
                "restarts": restarts.get(name, 0),
            }
            for name in sorted({*memory["start"], *memory["end"]})
        },
        "load_average": load,
        "phases_seconds": {k: round(v, 1) for k, v in soak.timings.items()},
        "cpus": os.cpu_count(),
        "problems": problems[:20],
        "problem_count": len(problems),
        "errors": soak.errors[:20],
        "error_count": len(soak.errors),
    }


async def soak(options: Options, workdir: Path, shown: progress.Bar) -> dict[str, Any]:
    """Start everything, :func:`run_soak`, stop everything."""
    cluster: RedisCluster | None = None
    ids = [f"b{i}" for i in range(NODES)]
    if options.redis:
        url = "redis+cluster://" + options.redis
    elif any(k in F.LINK_FAULTS for k in options.faults):
        shown.now("starting a Redis Cluster (3 masters + 3 replicas) behind proxies")
        cluster = await ProxiedCluster(workdir / "redis", **PERSISTENCE).launch(ids)
        url = cluster.url
    else:
        shown.now("starting a Redis Cluster (3 masters + 3 replicas)")
        cluster = await asyncio.to_thread(
            functools.partial(launch_cluster, workdir / "redis", **PERSISTENCE)
        )
        url = cluster.url
    node_urls = [cluster.node_url(i) if isinstance(cluster, ProxiedCluster) else url for i in ids]
    nodes = [Node(i, node_urls[i], workdir, options.lease) for i in range(NODES)]
    client = connect(url, socket_timeout=2, socket_connect_timeout=2)
    try:
        shown.now("starting three nodes")
        for node in nodes:
            await asyncio.to_thread(node.start)
        assert isinstance(client, AsyncCluster)
        await client.initialize()
        shown.advance(START_SECONDS)
        run = Soak(options, url, nodes, cluster, client)
        run.workdir = workdir
        return await run_soak(run, shown)
    finally:
        await client.aclose()
        for node in nodes:
            node.stop()
        if cluster is not None:
            await asyncio.to_thread(cluster.stop)
        if isinstance(cluster, ProxiedCluster):
            await cluster.close_links()
