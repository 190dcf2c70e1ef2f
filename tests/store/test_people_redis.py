"""What only the Redis people store has: cluster-safe keys, and the two-step username
claim (a claim left by a registration that never finished)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.crc import key_slot

from server.store import open_store
from server.store.people_base import Backoff, StoredPlayer, StoredSession
from server.store.redis import RedisStore

pytestmark = pytest.mark.redis

A, B = "p-" + "a" * 16, "p-" + "b" * 16


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[RedisStore]:
    opened = open_store(redis_url)
    assert isinstance(opened, RedisStore)
    try:
        yield opened
    finally:
        await opened.close()


async def test_every_key_is_tagged_and_a_players_keys_share_a_slot(
    store: RedisStore, redis_url: str
) -> None:
    """Each people key holds a hash tag; a player's player, sessions and rooms keys are
    in one slot (so no script crosses slots on a Redis Cluster)."""
    people = store.people
    await people.create_player(StoredPlayer(A, "Ana", 1.0))
    await people.register(A, "ana", "hash", 2.0)
    await people.add_session(A, "1" * 32, StoredSession("d" * 64, 3.0, 3.0), 100.0, 10)
    await people.add_room(A, "room-1", 4.0, 10)
    await people.hit("guest:127.0.0.1", 60, 5.0)
    await people.attempt("signin:ana", 6.0, Backoff(5, 1.0, 900.0, 86_400.0))
    client = aioredis.Redis.from_url(redis_url)
    try:
        keys = sorted([k.decode() async for k in client.scan_iter("rollhouse:{*")])
    finally:
        await client.aclose()
    assert keys == [
        "rollhouse:{hit:guest:127.0.0.1}:60.0",
        f"rollhouse:{{p:{A}}}:player",
        f"rollhouse:{{p:{A}}}:rooms",
        f"rollhouse:{{p:{A}}}:sessions",
        "rollhouse:{try:signin:ana}",
        "rollhouse:{u:ana}",
    ]
    assert len({key_slot(k.encode()) for k in keys if "{p:" in k}) == 1


async def test_a_stale_claim_is_taken_over_and_a_fresh_one_is_not(
    store: RedisStore, redis_url: str
) -> None:
    """A username claimed by a player who never got it is free again once the claim
    is CLAIM_STALE old; before that, it counts as taken."""
    people = store.people
    await people.create_player(StoredPlayer(A, "Ana", 1.0))
    await people.create_player(StoredPlayer(B, "Bo", 1.0))
    client = aioredis.Redis.from_url(redis_url)
    try:
        await client.set(people.username_key("ana"), f"{A} 100.0")  # A crashed mid-way
        assert await people.by_username("ana") is None
        assert await people.register(B, "ana", "hb", 130.0) == "taken"  # 30 s: maybe busy
        assert await people.register(B, "ana", "hb", 161.0) == "ok"
        assert (await people.by_username("ana")) == StoredPlayer(B, "Bo", 1.0, "ana", "hb")
        assert await people.register(A, "ana", "ha", 500.0) == "taken"  # B holds it
    finally:
        await client.aclose()


async def test_a_refused_registration_releases_its_claim(store: RedisStore) -> None:
    """A registered player asking for another name leaves that name free."""
    people = store.people
    await people.create_player(StoredPlayer(A, "Ana", 1.0))
    await people.create_player(StoredPlayer(B, "Bo", 1.0))
    assert await people.register(A, "ana", "ha", 1.0) == "ok"
    assert await people.register(A, "second", "ha", 2.0) == "registered"
    assert await people.register(B, "second", "hb", 3.0) == "ok"
