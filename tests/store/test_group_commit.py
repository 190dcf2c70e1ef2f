"""Group commit in the durable backends: concurrent rooms share flushes."""

from __future__ import annotations

import asyncio
from typing import Any

from server.store import open_store


async def test_concurrent_rooms_share_flushes(durable_url: str) -> None:
    """200 rooms appending at once are written in far fewer flushes than appends."""
    store: Any = open_store(durable_url)
    try:
        await asyncio.gather(*(store.append(f"r-{i}", [{"n": i}], 0) for i in range(200)))
        assert store.batcher.items == 200
        assert store.batcher.flushes <= 2  # one loop turn (max_batch is 512)
    finally:
        await store.close()


async def test_serial_appends_flush_one_by_one(durable_url: str) -> None:
    """An awaited append is flushed on its own: group commit adds no waiting for company."""
    store: Any = open_store(durable_url)
    try:
        for n in range(5):
            await store.append("r-1", [{"n": n}], n)
        assert (store.batcher.flushes, store.batcher.items) == (5, 5)
    finally:
        await store.close()
