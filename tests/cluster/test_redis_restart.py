"""Issue 23, second bug: after a Redis SIGKILL and restart, clients relayed through
another node never received the patch of an acknowledged seq (their view stalled).

Three nodes on one redis-server (AOF, ``appendfsync always``) that the test kills and
restarts again and again under relayed traffic: every player and spectator reaches a
room through a node that does not run it. Once the faults stop, every game must
finish and every relayed view must reach the log's last seq. The checker, over the
history sampled all along: every ack is in the log once, at its seq; no view was
ever ahead of the log; each fence epoch had one holder."""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest

from clients.bots.play import play_seat
from clients.sdk import Client, create_room
from tests.cluster.conftest import LEASE
from tests.cluster.support import (
    History,
    RecordingClient,
    check_acks_once,
    player,
    read_log,
    sample_history,
)
from tests.support.faults import RedisProcess
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(150)

ROOMS = 3
CRASHES = 8
LONG_DOWNS = 3
SEED = int(os.environ.get("ROLLHOUSE_FAULT_SEED", "23"))
"""The fault schedule's seed (set it to explore other schedules)."""
FAULTS_FOR = 30.0
"""Seconds of faults at most: the whole test stays well under a minute."""


async def _faults(redis: RedisProcess, rng: random.Random, games: list[asyncio.Task[Any]]) -> int:
    """While the games go on, SIGKILL Redis every second or so and restart it: short
    downs first (leases hold: commands meet a dead store), then downs that outlast the
    lease (rooms and clients move); ``CRASHES`` in all at most."""
    done, started = 0, time.monotonic()
    while done < CRASHES and time.monotonic() - started < FAULTS_FOR:
        await asyncio.sleep(rng.uniform(0.6, 1.6))
        if all(g.done() for g in games):
            break
        long = done >= CRASHES - LONG_DOWNS
        await redis.crash(rng.uniform(1.5, LEASE * 1.3) if long else rng.uniform(0.1, 0.8))
        done += 1
    return done


async def _stalled(
    url: str, players: dict[str, list[RecordingClient]], watchers: dict[str, list[Client]]
) -> str:
    """Where each room's clients stand against its log (for a failure's message)."""
    lines = []
    for room, group in players.items():
        top = (await read_log(url, room))[-1][0]
        acked = max((seq for p in group for _, seq, _ in p.acked), default=0)
        seats = [(p.seq, list(p.session.pending), bool((p.view or {}).get("you", {}).get("legal")))
                 for p in group]  # fmt: skip
        spectators = [w.seq for w in watchers[room]]
        lines.append(f"{room}: log {top}, last ack {acked}, players (seq, unanswered, "
                     f"legal) {seats}, spectators at {spectators}")  # fmt: skip
    return "games stalled: " + "; ".join(lines)


async def test_relayed_views_reach_every_acked_seq_across_redis_restarts(
    tmp_path: Path,
) -> None:
    """Redis SIGKILLed and restarted under relayed play: no relayed view stalls."""
    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    servers = [
        ServerProcess(redis.store_url, tmp_path, args=("--node-id", f"n{i}", "--lease", str(LEASE)))
        for i in range(3)
    ]
    clients: list[Client] = []
    history = History()
    sampler = None
    try:
        for server in servers:
            server.start()
        rooms = [
            (await create_room(servers[0].url, "rollie", 2, options={"rounds": 7},
                               room={"clock": 0}))["room"]
            for _ in range(ROOMS)
        ]  # fmt: skip
        players = {
            room: [await player(servers, 1 + i, room, f"p{i}").connect() for i in range(2)]
            for room in rooms
        }
        watchers = {
            room: [
                await Client(servers[i].ws_url, room, role="spectator", ping_every=1.0,
                             backoff=(0.05, 0.5)).connect()
                for i in (1, 2)
            ]
            for room in rooms
        }  # fmt: skip
        clients = [c for group in (*players.values(), *watchers.values()) for c in group]
        sampled = {room: [*players[room], *watchers[room]] for room in rooms}
        sampler = asyncio.create_task(sample_history(redis.url, sampled, history))
        games = [
            asyncio.create_task(play_seat(p, "push", delay=0.06, seed=i, patience=None))
            for room in rooms
            for i, p in enumerate(players[room])
        ]
        crashes = await _faults(redis, random.Random(SEED), games)
        playing = sum(not g.done() for g in games)
        try:
            finals = await asyncio.wait_for(asyncio.gather(*games), 60)
        except TimeoutError:
            raise AssertionError(await _stalled(redis.url, players, watchers)) from None
        assert all(f["room"]["status"] == "finished" for f in finals)
        for room in rooms:
            last = (await read_log(redis.url, room))[-1][0]
            for watcher in watchers[room]:
                await watcher.wait_seq(last, timeout=15)
            assert await check_acks_once(redis.url, room, players[room]) > 0
        history.check()
        acks = sum(len(p.acked) for group in players.values() for p in group)
        moved = sum(c.reconnects for c in clients)
        print(f"\n{crashes} Redis restarts under relayed play: {acks} acks, every relayed "
              f"view at the log's end, {moved} reconnects, {playing} seats still playing")  # fmt: skip
    finally:
        if sampler is not None:
            sampler.cancel()
        for client in clients:
            await client.close()
        for server in servers:
            server.kill()
        redis.stop()
