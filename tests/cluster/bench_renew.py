"""How long one node's lease renewal round takes for N rooms (one pipeline), and its Redis CPU.

    python -m tests.cluster.bench_renew

Starts a private redis-server on a free loopback port (never 6379); a few seconds.
"""

from __future__ import annotations

import asyncio
import tempfile
import time

import redis.asyncio as aioredis

from server.cluster.leases import Leases
from tests.support.redis_server import start_redis

ROUNDS = 5


async def _redis_cpu(client: aioredis.Redis) -> float:
    info = await client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


async def measure(url: str, sizes: tuple[int, ...] = (100, 1000, 5000)) -> None:
    client = aioredis.Redis.from_url(url)
    leases = Leases(client, "rollhouse", "n0", 3.0)
    try:
        for n in sizes:
            rooms = {f"r-{i}": (await leases.take(f"r-{i}")).epoch for i in range(n)}
            cpu = await _redis_cpu(client)
            started = time.perf_counter()
            for _ in range(ROUNDS):
                renewed = await leases.renew(rooms)
            took = (time.perf_counter() - started) / ROUNDS
            cpu = (await _redis_cpu(client) - cpu) / ROUNDS
            assert all(renewed.values())
            print(
                f"renew {n:5d} leases: {took * 1000:7.1f} ms per round (client + Redis), "
                f"Redis CPU {cpu * 1000:6.1f} ms per round"
            )
            await client.flushdb()
    finally:
        await client.aclose()


def main() -> None:
    url, stop = start_redis(tempfile.mkdtemp())
    try:
        asyncio.run(measure(url))
    finally:
        stop()


if __name__ == "__main__":
    main()
