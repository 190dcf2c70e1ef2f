"""Issue 23, third bug: a server SIGKILLed between a room's last append and its next
summary left the index behind the log for good (finished rooms listed as ``playing``
at an older seq; a restart did not mend them, since nobody loads a finished room)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from clients.sdk import create_room
from tests.cluster.conftest import LEASE
from tests.support.redis_server import start_redis
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(120)

INDEX = "rollhouse:index"


async def _indexed(client: aioredis.Redis, room: str) -> tuple[bytes, dict[str, Any]] | None:
    blob = await client.hget(INDEX, room)
    return None if blob is None else (blob, json.loads(blob))


async def _until(client: aioredis.Redis, room: str, status: str) -> bytes:
    """The index's summary of ``room`` once it says ``status`` (bounded wait)."""
    for _ in range(600):
        found = await _indexed(client, room)
        if found is not None and found[1]["status"] == status:
            return found[0]
        await asyncio.sleep(0.05)
    raise AssertionError(f"room {room} never indexed as {status}")


async def _log_top(client: aioredis.Redis, room: str) -> int:
    top = await client.xrevrange(f"rollhouse:room:{{{room}}}:log", "+", "-", count=1)
    return int(top[0][0].split(b"-")[1])


async def test_a_kill_between_the_append_and_the_summary_is_mended_from_the_log(
    tmp_path: Path,
) -> None:
    """Two all-bot rooms play to the end; the server is SIGKILLed and the index is left
    as a kill between the last append and its summary leaves it (each room's summary
    from mid-game). After a restart on the same Redis, the room's info and the room
    list say finished at the log's last seq, and the index itself is mended."""
    url, stop = start_redis(tmp_path / "redis", appendonly=True)
    args = ("--node-id", "n0", "--lease", str(LEASE))
    server = ServerProcess(url, tmp_path, args=args)
    client = aioredis.Redis.from_url(url)
    try:
        server.start()
        body = {"bots": 2, "bot_delay": 0.05, "clock": 0}
        rooms = [(await create_room(server.url, "rollie", 2, room=body))["room"] for _ in "ab"]
        mid_game = {room: await _until(client, room, "playing") for room in rooms}
        for room in rooms:
            await _until(client, room, "finished")
        server.kill()
        for room, blob in mid_game.items():  # what a kill before the publish leaves
            await client.hset(INDEX, room, blob)
        stale = {room: json.loads(blob)["seq"] for room, blob in mid_game.items()}
        tops = {room: await _log_top(client, room) for room in rooms}
        assert all(stale[r] < tops[r] for r in rooms)

        server = ServerProcess(url, tmp_path, args=args)
        server.start()
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
            info = (await http.get(f"/api/rooms/{rooms[0]}")).json()
            listed = {r["room"]: r for r in (await http.get("/api/rooms")).json()["rooms"]}
        assert (info["status"], info["seq"]) == ("finished", tops[rooms[0]])
        for room in rooms:
            assert (listed[room]["status"], listed[room]["seq"]) == ("finished", tops[room])
            found = await _indexed(client, room)
            assert found is not None and found[1]["status"] == "finished"
    finally:
        await client.aclose()
        server.kill()
        stop()
