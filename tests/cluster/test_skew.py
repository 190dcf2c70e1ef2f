"""Issue 23, item 3: nodes whose clocks run minutes apart (``faketime``, Debian's
libfaketime, five minutes ahead and five behind) share rooms and take them over from
each other. Leases are Redis's own ``PX`` timers and every node measures its renewals
on its own monotonic clock, so no wall clock is compared across machines.

The checker, over the recorded history: every acknowledged command is in the log
exactly once at its seq; no client's view is ever ahead of the log; each fence epoch
of the room was held by one node only (sampled from Redis all along); the room
finishes.

Negative control: the same run on a build whose leases trust the holder's wall clock
(tests/support/wallclock_leases.py) must fail the checker: the room never finishes."""

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


def _needs_faketime() -> None:
    if shutil.which("faketime") is None or not LIBFAKETIME.exists():
        missing("faketime is not installed (Debian package faketime)", "ROLLHOUSE_REQUIRE_REDIS")


async def test_nodes_minutes_apart_share_a_room_and_take_it_over(tmp_path: Path) -> None:
    """The room's owner runs five minutes ahead; its players reach it through the two
    other nodes. SIGKILL the owner mid-game: a node five minutes behind (or on time)
    takes over within the lease's time, and the game finishes; the checker holds."""
    _needs_faketime()
    finished, acks, history, room = await _kill_the_owner_ahead(tmp_path, "clients.cli", 120)
    assert finished
    history.check()
    fences = history.holders[room]
    assert "n1" in fences.get(1, set()) and len(fences) >= 2  # taken over: a later epoch
    print(f"\nclocks +5 min / on time / -5 min: {acks} acks once in the log, fences "
          f"{dict(sorted((e, sorted(n)) for e, n in fences.items()))}")  # fmt: skip


async def test_negative_control_a_wall_clock_lease_strands_the_room(tmp_path: Path) -> None:
    """Negative control: the same run on a build whose leases expire at a time the
    holder's wall clock gives (tests/support/wallclock_leases.py). The owner five
    minutes ahead dies holding a lease that runs five more minutes: nobody takes the
    room over and the game does not finish within ten leases; the checker's last
    condition (every room finishes once the faults stop) fails."""
    _needs_faketime()
    broken = "tests.support.wallclock_leases"
    finished, acks, history, room = await _kill_the_owner_ahead(tmp_path, broken, 10 * LEASE)
    fences = history.holders.get(room, {})
    print(f"\nwall-clock leases: finished {finished}, {acks} acks once in the log, fences "
          f"{dict(sorted((e, sorted(n)) for e, n in fences.items()))}")  # fmt: skip
    assert not finished, "the room finished: the negative control did not break the run"
    assert set().union(*fences.values()) == {"n1"}  # never taken over


async def _kill_the_owner_ahead(
    tmp_path: Path, module: str, timeout: float
) -> tuple[bool, int, History, str]:
    """Nodes on the machine's clock, five minutes ahead (n1, the owner) and behind; the
    owner SIGKILLed mid-game. (whether the game finished within ``timeout`` s of the
    kill, acks checked once in the log, the sampled history, the room)."""
    url, stop = start_redis(tmp_path / "redis", appendonly=True)
    servers = [
        ServerProcess(url, tmp_path, env=_skewed(skew), module=module,
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
        done, stuck = await asyncio.wait(games, timeout=timeout)
        for game in stuck:
            game.cancel()
        await asyncio.gather(*stuck, return_exceptions=True)
        finished = not stuck and all(
            g.exception() is None and g.result()["room"]["status"] == "finished" for g in done
        )
        if finished:
            last = (await read_log(url, room))[-1][0]
            await watcher.wait_seq(last, timeout=15)
            await asyncio.sleep(0.1)
        acks = await check_acks_once(url, room, players)
        return finished, acks, history, room
    finally:
        if sampler is not None:
            sampler.cancel()
        for client in clients:
            await client.close()
        for server in servers:
            server.kill()
        stop()
