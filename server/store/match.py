"""Quick match's shared state, on every backend: queues of open rooms and claims
(:mod:`server.match` decides; this only keeps).

- a **queue** (per game and table size) holds room ids with a score (the room's
  creation time): ``queue_first`` is the oldest, ``queue_add``/``queue_remove`` keep it;
- a **claim** is a key holding a value until a time: ``claim`` sets it unless it holds a
  live value and answers what it holds now (the caller's value when the claim is
  theirs), ``release`` deletes it if it still holds the caller's value.

Each operation is one atomic step: one Lua script on one key on Redis (cluster-safe:
every key of a queue or a claim is tagged by itself), one transaction on SQLite, one
synchronous call in memory. Time comes from the caller (``now``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import redis.asyncio as aioredis

from server.store.people_base import check_key

SCHEMA = """
CREATE TABLE IF NOT EXISTS match_queue (
    key TEXT NOT NULL,
    room TEXT NOT NULL,
    score REAL NOT NULL,
    PRIMARY KEY (key, room)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS match_queue_oldest ON match_queue (key, score, room);
CREATE TABLE IF NOT EXISTS match_claims (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    until REAL NOT NULL
) WITHOUT ROWID;
"""


class MatchStore(Protocol):
    """Queues of open rooms and claims, shared by every node of one store."""

    async def queue_first(self, key: str) -> str | None:
        """The oldest room of the queue ``key`` (None: empty)."""

    async def queue_add(self, key: str, room: str, score: float) -> None:
        """Put ``room`` in the queue (its first score stays)."""

    async def queue_remove(self, key: str, room: str) -> None:
        """Take ``room`` out of the queue."""

    async def claim(self, key: str, value: str, ttl: float, now: float) -> str:
        """Set ``key`` to ``value`` until ``now + ttl`` unless it holds a live value;
        what it holds now."""

    async def release(self, key: str, value: str) -> None:
        """Delete ``key`` if it holds ``value``."""


class MemoryMatches:
    """A MatchStore in this process (tests, one node)."""

    def __init__(self) -> None:
        self.queues: dict[str, dict[str, float]] = {}
        self.claims: dict[str, tuple[str, float]] = {}

    async def queue_first(self, key: str) -> str | None:
        queue = self.queues.get(check_key(key))
        return min(queue, key=lambda r: (queue[r], r)) if queue else None

    async def queue_add(self, key: str, room: str, score: float) -> None:
        self.queues.setdefault(check_key(key), {}).setdefault(room, score)

    async def queue_remove(self, key: str, room: str) -> None:
        self.queues.get(check_key(key), {}).pop(room, None)

    async def claim(self, key: str, value: str, ttl: float, now: float) -> str:
        held = self.claims.get(check_key(key))
        if held is not None and held[1] > now:
            return held[0]
        self.claims[key] = (value, now + ttl)
        return value

    async def release(self, key: str, value: str) -> None:
        held = self.claims.get(check_key(key))
        if held is not None and held[0] == value:
            del self.claims[key]


class SqliteMatches:
    """A MatchStore in the event store's SQLite database (its worker thread)."""

    def __init__(
        self, call: Callable[..., Awaitable[Any]], db: Callable[[], sqlite3.Connection]
    ) -> None:
        self._call, self._db = call, db

    async def queue_first(self, key: str) -> str | None:
        sql = "SELECT room FROM match_queue WHERE key = ? ORDER BY score, room LIMIT 1"
        row = await self._call(self._one, sql, (check_key(key),))
        return None if row is None else str(row[0])

    async def queue_add(self, key: str, room: str, score: float) -> None:
        sql = "INSERT OR IGNORE INTO match_queue (key, room, score) VALUES (?, ?, ?)"
        await self._call(self._write, sql, (check_key(key), room, score))

    async def queue_remove(self, key: str, room: str) -> None:
        sql = "DELETE FROM match_queue WHERE key = ? AND room = ?"
        await self._call(self._write, sql, (check_key(key), room))

    async def claim(self, key: str, value: str, ttl: float, now: float) -> str:
        return str(await self._call(self._claim, check_key(key), value, now + ttl, now))

    async def release(self, key: str, value: str) -> None:
        sql = "DELETE FROM match_claims WHERE key = ? AND value = ?"
        await self._call(self._write, sql, (check_key(key), value))

    def _one(self, sql: str, args: tuple[Any, ...]) -> Any:
        return self._db().execute(sql, args).fetchone()

    def _write(self, sql: str, args: tuple[Any, ...]) -> None:
        db = self._db()
        with db:
            db.execute(sql, args)

    def _claim(self, key: str, value: str, until: float, now: float) -> str:
        db = self._db()
        with db:  # one transaction: read and write together
            db.execute(
                "INSERT INTO match_claims (key, value, until) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value, until = excluded.until "
                "WHERE match_claims.until <= ?",
                (key, value, until, now),
            )
            row = db.execute("SELECT value FROM match_claims WHERE key = ?", (key,)).fetchone()
        return str(row[0])


_CLAIM = """
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""


class RedisMatches:
    """A MatchStore on the event store's Redis: a sorted set per queue, a key per
    claim (whose expiry is Redis's own: a claim is short, and Redis's clock is the one
    every node shares)."""

    def __init__(
        self,
        client: aioredis.Redis,
        prefix: str,
        guard: Callable[[Awaitable[Any]], Awaitable[Any]],
    ) -> None:
        self.prefix = prefix
        self._client = client
        self._guard = guard
        self._claim = client.register_script(_CLAIM)
        self._release = client.register_script(_RELEASE)

    def _queue(self, key: str) -> str:
        return f"{self.prefix}:{{mq:{check_key(key)}}}"

    def _claimed(self, key: str) -> str:
        return f"{self.prefix}:{{mc:{check_key(key)}}}"

    async def queue_first(self, key: str) -> str | None:
        first = await self._guard(self._client.zrange(self._queue(key), 0, 0))
        return None if not first else _text(first[0])

    async def queue_add(self, key: str, room: str, score: float) -> None:
        await self._guard(self._client.zadd(self._queue(key), {room: score}, nx=True))

    async def queue_remove(self, key: str, room: str) -> None:
        await self._guard(self._client.zrem(self._queue(key), room))

    async def claim(self, key: str, value: str, ttl: float, now: float) -> str:
        ms = max(1, int(ttl * 1000))
        return _text(await self._guard(self._claim(keys=[self._claimed(key)], args=[value, ms])))

    async def release(self, key: str, value: str) -> None:
        await self._guard(self._release(keys=[self._claimed(key)], args=[value]))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
