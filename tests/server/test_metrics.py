"""The series the dashboard and the alerts (deploy/monitoring/) read that the server added
for them: command-to-ack latency, the store check, the longest append stall, the lease
renewal age. Each is read from a live server's /metrics while the store works, while
its link is cut, and once it is back."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from clients.sdk import Client, CommandRejected
from server.config import Settings
from tests.support.redis_server import start_redis
from tests.support.server import serve
from tests.support.tcp_proxy import TcpProxy

LEASE = 1.0


async def scrape(url: str) -> dict[str, float]:
    """Every sample of ``url``/metrics, keyed by name and labels as written."""
    async with httpx.AsyncClient(timeout=10) as http:
        text = (await http.get(url + "/metrics")).text
    samples = (line.rsplit(" ", 1) for line in text.splitlines() if not line.startswith("#"))
    return {key: float(value) for key, value in samples}


async def until(check: Callable[[], Awaitable[bool]], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await check():
            return True
        await asyncio.sleep(0.1)
    return False


async def play_one(client: Client) -> None:
    """Wait for a legal command of ``client``'s seat and send it (acked)."""
    view = await client.wait_for(lambda v: bool(v["you"]["legal"]), timeout=10)
    await client.send(view["you"]["legal"][-1])


async def test_an_answered_command_is_timed_and_the_store_is_up(live_server) -> None:  # type: ignore[no-untyped-def]
    """A command's answer adds to rollhouse_ack_seconds; a working store reads 1 and no
    room has a stall; a single node has no lease (0)."""
    room = await live_server.create_room("rollie", seats=2, room={"bots": 1, "bot_delay": 0})
    async with Client(live_server.ws_url, room["room"], name="ann") as me:
        await play_one(me)
    got = await scrape(live_server.url)
    assert got["rollhouse_ack_seconds_count"] >= 1
    assert got['rollhouse_ack_seconds_bucket{le="+Inf"}'] == got["rollhouse_ack_seconds_count"]
    assert got["rollhouse_store_up"] == 1
    assert got["rollhouse_append_stalled_seconds"] == 0
    assert got["rollhouse_lease_seconds"] == 0


async def test_a_cut_store_reads_down_stalls_appends_and_ages_the_leases(tmp_path: Path) -> None:
    """With the node's link to Redis cut: the store reads 0, a command's failed append
    leaves a stall that grows, leases go unrenewed past the lease; once the link is back
    and a command is acked, all three read healthy again."""
    url, stop = start_redis(tmp_path / "redis")
    link = await TcpProxy(urlsplit(url).port or 0).start()
    settings = Settings(
        store_url=f"redis://127.0.0.1:{link.port}/0?socket_timeout=1",
        node_id="m1",
        lease_seconds=LEASE,
    )
    try:
        async with serve(settings) as server:
            room = await server.create_room("rollie", seats=2, room={"bots": 1, "bot_delay": 0})
            async with Client(server.ws_url, room["room"], name="ann") as me:
                await play_one(me)
                got = await scrape(server.url)
                assert (got["rollhouse_store_up"], got["rollhouse_lease_seconds"]) == (1, LEASE)
                assert got["rollhouse_lease_renewal_age_seconds"] < LEASE

                link.cut()
                view = await me.wait_for(lambda v: bool(v["you"]["legal"]), timeout=10)
                # its append fails (certain, or unknown and settled once Redis is back)
                sent = asyncio.create_task(me.send(view["you"]["legal"][-1]))

                async def down() -> bool:
                    got = await scrape(server.url)
                    return (
                        got["rollhouse_store_up"] == 0
                        and got["rollhouse_append_stalled_seconds"] > 0.5
                        and got["rollhouse_lease_renewal_age_seconds"] > LEASE
                    )

                assert await until(down)

                link.release()
                with contextlib.suppress(CommandRejected):  # room/unavailable if certain
                    await asyncio.wait_for(sent, 20)
                assert await until(lambda: _ready(server.url))
                await play_one(me)
            got = await scrape(server.url)
            assert got["rollhouse_store_up"] == 1
            assert got["rollhouse_append_stalled_seconds"] == 0
            assert got["rollhouse_lease_renewal_age_seconds"] < LEASE
    finally:
        await link.close()
        stop()


async def _ready(url: str) -> bool:
    async with httpx.AsyncClient(timeout=5) as http:
        return (await http.get(url + "/api/health/ready")).status_code == 200
