"""``rollhouse migrate-keys --store redis://...``: rename a Redis store's room keys to
the hash-tagged layout (server/store/redis_keys.py), so it can move to a Redis Cluster.

Stop every node first: a node running meanwhile would go on writing the old names.
A store already tagged is left as it is.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

import redis.asyncio as aioredis

from server.store.redis_keys import migrate
from server.store.url import redis_parts


def add_parser(sub: Any) -> None:  # what ArgumentParser.add_subparsers() returned
    p = sub.add_parser("migrate-keys", help="give a Redis store's room keys their hash tags")
    p.add_argument("--store", required=True, help="the store URL, redis://host:port/db")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    url, prefix = redis_parts(args.store)

    async def go() -> int:
        client = aioredis.Redis.from_url(url, socket_timeout=30)
        try:
            return await migrate(client, prefix)
        finally:
            await client.aclose()

    moved = asyncio.run(go())
    print(f"{moved} rooms renamed; store {prefix!r} uses the tagged key layout")
    return 0
