"""A paused owner wakes past its lease: its writes are refused by the fence epoch."""

from __future__ import annotations

import asyncio
import signal

import pytest
import redis.asyncio as aioredis

from clients.sdk import Client, create_room
from server.cluster.leases import Leases
from server.room.ownership import RoomElsewhere
from server.store import StoreFenced, open_store
from tests.cluster.conftest import LEASE, metric
from tests.cluster.support import check_acks_once, player, read_log
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(180)


async def test_a_lapsed_holder_cannot_write(redis_url: str) -> None:
    """Node a's lease lapses, b claims the room: a's append, renewal and refence are refused."""
    client = aioredis.Redis.from_url(redis_url)
    store = open_store(redis_url)
    try:
        a, b = (Leases(client, "rollhouse", n, 0.2) for n in "ab")
        epoch_a = (await a.take("r-1")).epoch
        await store.append("r-1", [{"k": "x"}], 0, fence=epoch_a)
        with pytest.raises(RoomElsewhere):
            await b.take("r-1")
        await asyncio.sleep(0.3)
        claimed = await b.take("r-1")
        assert claimed.epoch == epoch_a + 1 and claimed.previous == "a"
        with pytest.raises(StoreFenced):
            await store.append("r-1", [{"k": "y"}], 1, fence=epoch_a)
        assert await a.renew({"r-1": epoch_a}) == {"r-1": False}
        with pytest.raises(StoreFenced):
            await a.refence("r-1")
        assert not await a.release("r-1")
        assert await store.append("r-1", [{"k": "z"}], 1, fence=claimed.epoch) == 2
        assert await b.release("r-1")
        assert (await a.take("r-1")).previous == ""  # handed over: not a failover
        epoch = (await a.take("r-1")).epoch
        await asyncio.sleep(0.3)  # lapsed, and nobody claimed it since: a renewal takes it again
        assert await a.renew({"r-1": epoch}) == {"r-1": True}
        assert await a.renew({"r-1": epoch - 1}) == {"r-1": True}  # ours: a live lease renews
    finally:
        await store.close()
        await client.aclose()


async def test_sigstop_owner_past_its_lease(nodes: tuple[str, list[ServerProcess]]) -> None:
    """SIGSTOP the owner past its lease, SIGCONT: it appends nothing, its clients move on."""
    url, servers = nodes
    owner = servers[0]
    room = (await create_room(owner.url, "rollie", 2, room={"clock": 0}))["room"]
    # no pings: the players stay on the paused node, which must move them itself on waking
    players = [await player(servers, 0, room, f"p{i}", None).connect() for i in range(2)]
    watcher = await Client(servers[1].ws_url, room, role="spectator").connect()
    view = await players[0].wait_for(lambda v: v["room"]["status"] == "playing")
    roller = players[view["game"]["first_player"]]
    appended = metric(owner, "rollhouse_append_seconds_count")
    owner.signal(signal.SIGSTOP)
    try:
        roll = asyncio.create_task(roller.send({"type": "roll"}))  # waits in the paused node
        await asyncio.sleep(LEASE * 2.5)  # the lease lapses; the spectator's node claims the room
        holder = await _holder(url, room)
        assert holder not in (None, "n0")
    finally:
        owner.signal(signal.SIGCONT)
    seq = await asyncio.wait_for(roll, 30)  # answered once, by the new owner
    await watcher.wait_seq(seq)
    await asyncio.sleep(LEASE)
    assert metric(owner, "rollhouse_append_seconds_count") == appended
    assert metric(owner, "rollhouse_rooms_owned") == 0
    assert metric(owner, "rollhouse_leases_total", event="lost") >= 1
    refused = metric(owner, "rollhouse_fencing_refusals_total")
    print(f"\nfenced owner: appends landed 0, fencing refusals {refused:g}, moved clients "
          f"{sum(p.reconnects for p in players)}")  # fmt: skip
    assert await check_acks_once(url, room, players) == 1
    assert [s for s, _ in await read_log(url, room)][-1] == seq
    for client in (*players, watcher):
        await client.close()


async def _holder(url: str, room: str) -> str | None:
    client = aioredis.Redis.from_url(url)
    try:
        value = await client.get(f"rollhouse:room:{{{room}}}:lease")
        return None if value is None else value.decode()
    finally:
        await client.aclose()
