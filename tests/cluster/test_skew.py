"""Issue 23, item 3: nodes whose clocks run minutes apart (``faketime``, Debian's
libfaketime, five minutes ahead and five behind) share rooms and take them over from
each other. Leases are Redis's own ``PX`` timers and every node measures its renewals
on its own monotonic clock, so no wall clock is compared across machines.

The checker, over the recorded history: every acknowledged command is in the log
exactly once at its seq; no client's view is ever ahead of the log; each fence epoch
of the room was held by one node only (sampled from Redis all along)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

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
from tests.support.redis_server import start_redis
from tests.support.required import missing
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(180)

LIBFAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
SKEWS = ("", "+5m", "-5m")
"""Node n0 on the machine's clock, n1 five minutes ahead, n2 five minutes behind."""


def _skewed(offset: str) -> dict[str, str]:
    if not offset:
        return {}
    return {"LD_PRELOAD": str(LIBFAKETIME), "FAKETIME": offset, "FAKETIME_NO_CACHE": "1"}


async def test_nodes_minutes_apart_share_a_room_and_take_it_over(tmp_path: Path) -> None:
    """The room's owner runs five minutes ahead; its players reach it through the two
    other nodes. SIGKILL the owner mid-game: a node five minutes behind (or on time)
    takes over within the lease's time, and the game finishes; the checker holds."""
    if shutil.which("faketime") is None or not LIBFAKETIME.exists():
        missing("faketime is not installed (Debian package faketime)", "ROLLHOUSE_REQUIRE_REDIS")
    url, stop = start_redis(tmp_path / "redis", appendonly=True)
    servers = [
        ServerProcess(url, tmp_path, env=_skewed(skew),
                      args=("--node-id", f"n{i}", "--lease", str(LEASE)))
        for i, skew in enumerate(SKEWS)
    ]  # fmt: skip
    clients: list[Client] = []
    history = History()
    sampler = None
    try:
        for server in servers:
            server.start()
        room = (await create_room(servers[1].url, "rollie", 2, room={"clock": 0}))["room"]
        players: list[RecordingClient] = [
            await player(servers, first, room, f"p{first}").connect() for first in (0, 2)
        ]
        watcher = await Client(servers[2].ws_url, room, role="spectator", ping_every=1.0,
                               backoff=(0.05, 0.5)).connect()  # fmt: skip
        clients = [*players, watcher]
        sampler = asyncio.create_task(sample_history(url, {room: clients}, history))
        games = [asyncio.create_task(play_seat(p, "push", delay=0.02, seed=i, patience=60))
                 for i, p in enumerate(players)]  # fmt: skip
        await players[0].wait_for(lambda _: players[0].seq >= 15, timeout=60)
        servers[1].kill()  # the owner, five minutes ahead
        finals = await asyncio.wait_for(asyncio.gather(*games), 120)
        assert all(f["room"]["status"] == "finished" for f in finals)
        last = (await read_log(url, room))[-1][0]
        await watcher.wait_seq(last, timeout=15)
        await asyncio.sleep(0.1)
        acks = await check_acks_once(url, room, players)
        history.check()
        fences = history.holders[room]
        assert "n1" in fences.get(1, set()) and len(fences) >= 2  # taken over: a later epoch
        print(f"\nclocks +5 min / on time / -5 min: {acks} acks once in the log, fences "
              f"{dict(sorted((e, sorted(n)) for e, n in fences.items()))}")  # fmt: skip
    finally:
        if sampler is not None:
            sampler.cancel()
        for client in clients:
            await client.close()
        for server in servers:
            server.kill()
        stop()
