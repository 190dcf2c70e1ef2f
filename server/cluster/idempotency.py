"""``Idempotency-Key`` of ``POST /api/rooms`` kept in Redis, so a retry that reaches
another node (or this one after a restart) gets the room the first try made.

``{prefix}:idem:{key}`` holds ``pending`` while one node creates the room (``SET NX``,
for ``PENDING_SECONDS``), then the room id (for ``KEEP_SECONDS``). A request that finds
the key pending waits a little (bounded) for the room id; a creation that fails
deletes the key so the next retry may try again.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from protocol import errors as codes
from server.errors import RoomRefusal
from server.store import StoreUnavailable
from server.store.redis_conn import REDIS_ERRORS, Client

PENDING = b"pending"
PENDING_SECONDS = 30
KEEP_SECONDS = 24 * 3600
WAIT_SECONDS = 5.0


class IdempotencyKeys:
    def __init__(self, client: Client, prefix: str) -> None:
        self.client = client
        self.prefix = prefix

    def key(self, key: str) -> str:
        return f"{self.prefix}:idem:{key}"

    async def claim(self, key: str) -> str | None:
        """The room ``key`` made already, or None: then this request makes it (and must
        call :meth:`made` or :meth:`failed`)."""
        name = self.key(key)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_SECONDS
        try:
            while True:
                if await self.client.set(name, PENDING, nx=True, ex=PENDING_SECONDS):
                    return None
                found: Any = await self.client.get(name)
                if found is not None and found != PENDING:
                    return bytes(found).decode()
                if loop.time() > deadline:
                    raise RoomRefusal(
                        codes.UNAVAILABLE, "a creation with this Idempotency-Key is under way"
                    )
                await asyncio.sleep(0.05)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc

    async def made(self, key: str, room_id: str) -> None:
        try:
            await self.client.set(self.key(key), room_id.encode(), ex=KEEP_SECONDS)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc

    async def failed(self, key: str) -> None:
        with contextlib.suppress(*REDIS_ERRORS):  # else it lapses after PENDING_SECONDS
            await self.client.delete(self.key(key))
