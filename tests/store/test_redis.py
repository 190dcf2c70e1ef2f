"""Redis backend specifics: the id scheme, key layout, prefixes, script reloads, outages."""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest
import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from server.store import StoreUnavailable, StoreUnknown, open_store
from server.store.redis import RedisStore
from server.store.redis_keys import migrate
from tests.support.redis_server import start_redis

pytestmark = pytest.mark.redis


async def test_redis_itself_refuses_a_stale_writer(redis_url: str) -> None:
    """A raw XADD with an id <= the stream's top fails: the id scheme holds without our script."""
    store = open_store(redis_url)
    await store.append("r-1", [{"n": 1}, {"n": 2}], 0)
    await store.close()
    client = aioredis.Redis.from_url(redis_url)
    try:
        for stale in ("0-1", "0-2"):
            with pytest.raises(ResponseError, match="equal or smaller"):
                await client.xadd("rollhouse:room:{r-1}:log", {"d": b"x"}, id=stale)
        assert await client.xlen("rollhouse:room:{r-1}:log") == 2
    finally:
        await client.aclose()


async def test_key_layout(redis_url: str) -> None:
    """Entries are 0-{seq} with one msgpack field d; a room's keys share its hash tag."""
    store = open_store(redis_url)
    await store.append("r-1", [{"n": 1}, {"n": 2}], 0)
    await store.save_snapshot("r-1", 2, {"s": 2})
    await store.close()
    client = aioredis.Redis.from_url(redis_url)
    try:
        entries = await client.xrange("rollhouse:room:{r-1}:log")
        assert [(eid, set(f)) for eid, f in entries] == [(b"0-1", {b"d"}), (b"0-2", {b"d"})]
        assert msgpack.unpackb(entries[1][1][b"d"]) == {"n": 2}
        assert await client.zrange("rollhouse:rooms", 0, -1) == [b"r-1"]
        assert await client.hget("rollhouse:room:{r-1}:snap", "s") == b"2"
        assert await client.get("rollhouse:layout") == b"tagged"
    finally:
        await client.aclose()


async def test_a_store_made_before_hash_tags_still_loads_and_migrates(redis_url: str) -> None:
    """A plain-layout store (rooms, no layout key) is used as it is; migrate-keys tags it."""
    client = aioredis.Redis.from_url(redis_url)
    try:  # what a store made before the hash tags holds
        await client.xadd("rollhouse:room:r-old:log", {"d": msgpack.packb({"n": 1})}, id="0-1")
        await client.set("rollhouse:room:r-old:fence", 4)
        await client.hset("rollhouse:room:r-old:replies", "0:c1", msgpack.packb({"a": 1}))
        await client.rpush("rollhouse:room:r-old:replies:0", "0:c1")
        await client.zadd("rollhouse:rooms", {"r-old": 1})
        await client.set("rollhouse:rooms:counter", 1)
        store = open_store(redis_url)
        assert [r.data for r in await store.read("r-old")] == [{"n": 1}]
        assert await store.append("r-old", [{"n": 2}], 1, fence=4) == 2
        await store.append("r-new", [{"n": 1}], 0)
        assert await client.exists("rollhouse:room:r-new:log") == 1  # the store's layout
        await store.close()
        assert await migrate(client, "rollhouse") == 2
        assert await client.exists("rollhouse:room:r-old:log") == 0
        assert await client.get("rollhouse:room:{r-old}:fence") == b"4"
        assert await client.exists("rollhouse:room:{r-old}:replies:0") == 1
        store = open_store(redis_url)
        assert [r.data for r in await store.read("r-old")] == [{"n": 1}, {"n": 2}]
        assert await store.list_rooms() == ["r-old", "r-new"]
        assert await store.load_replies("r-old") == [(0, "c1", {"a": 1})]
        await store.close()
        assert await migrate(client, "rollhouse") == 0  # once is enough
    finally:
        await client.aclose()


async def test_prefixes_isolate_stores(redis_url: str) -> None:
    """Two prefixes on one db see only their own rooms."""
    one = open_store(f"{redis_url}?prefix=one")
    two = open_store(f"{redis_url}?prefix=two")
    try:
        await one.append("r-1", [{"n": 1}], 0)
        assert await two.list_rooms() == []
        assert await two.append("r-1", [{"n": 9}], 0) == 1
        assert [r.data for r in await one.read("r-1")] == [{"n": 1}]
    finally:
        await one.close()
        await two.close()


async def test_scripts_are_reloaded_after_script_flush(redis_url: str) -> None:
    """After SCRIPT FLUSH (as after a Redis restart) appends and snapshots still work."""
    store = open_store(redis_url)
    client = aioredis.Redis.from_url(redis_url)
    try:
        await store.append("r-1", [{"n": 1}], 0)
        await client.script_flush()
        assert await store.append("r-1", [{"n": 2}], 1) == 2
        await client.script_flush()
        await store.save_snapshot("r-1", 2, {"s": 2})
        assert await store.load_snapshot("r-1") == (2, {"s": 2})
        assert await store.last_seq("r-1") == 2
    finally:
        await client.aclose()
        await store.close()


async def test_a_stopped_server_is_unavailable(tmp_path: Path) -> None:
    """Appends and reads against a stopped redis-server raise StoreUnavailable."""
    url, stop = start_redis(tmp_path / "redis")
    store = open_store(url)
    assert isinstance(store, RedisStore)
    try:
        await store.append("r-1", [{"n": 1}], 0)
        stop()
        with pytest.raises(StoreUnavailable):
            await store.append("r-1", [{"n": 2}], 1)
        with pytest.raises(StoreUnavailable):
            await store.read("r-1")
    finally:
        stop()
        await store.close()


async def test_on_a_cluster_answers_wait_for_a_replica_like_appends(
    redis_cluster_url: str,
) -> None:
    """A stored answer (a refusal, or an ack that changed nothing) is acknowledged only
    once a replica holds it, as an append is: a failover that lost it would let the
    command's id be decided again (refused first, accepted on its resend). Asking for
    two replicas of masters that have one makes both fail, the append as unknown and
    the answer as unavailable, though the master took them; one replica is enough."""
    strict = open_store(f"{redis_cluster_url}?wait=2&wait_timeout=0.1")
    store = open_store(redis_cluster_url)
    try:
        with pytest.raises(StoreUnknown):
            await strict.append("r-1", [{"n": 1}], 0)
        with pytest.raises(StoreUnavailable):
            await strict.save_reply("r-1", 0, "c-1", {"type": "reject"}, 8)
        assert await store.last_seq("r-1") == 1  # on the master: not on enough replicas
        assert await store.load_replies("r-1") == [(0, "c-1", {"type": "reject"})]
        await store.save_reply("r-1", 1, "c-2", {"type": "ack"}, 8)
        assert (1, "c-2", {"type": "ack"}) in await store.load_replies("r-1")
    finally:
        await strict.close()
        await store.close()
