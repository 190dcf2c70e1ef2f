"""Quick match's shared state, on every backend: queues of open rooms and claims
(:mod:`server.match` decides; this only keeps).

- a **queue** (per game and table size) holds room ids with a score (the room's
  creation time) and tickets (the seats quick match may still hold there):
  ``queue_take`` takes a ticket of the oldest room that has one (the room leaves the
  queue with its last ticket), ``queue_add``/``queue_remove`` keep it;
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
    tickets INTEGER NOT NULL,
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

    async def queue_take(self, key: str) -> str | None:
        """A ticket of the oldest room of the queue ``key`` that has one (None: none)."""

    async def queue_add(self, key: str, room: str, score: float, tickets: int) -> None:
        """Put ``room`` in the queue with ``tickets`` (its first score stays)."""

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
        self.queues: dict[str, dict[str, list[float]]] = {}
        """queue -> room -> [score, tickets]"""
        self.claims: dict[str, tuple[str, float]] = {}

    async def queue_take(self, key: str) -> str | None:
        queue = self.queues.get(check_key(key))
        if not queue:
            return None
        room = min(queue, key=lambda r: (queue[r][0], r))
        queue[room][1] -= 1
        if queue[room][1] <= 0:
            del queue[room]
        return room

    async def queue_add(self, key: str, room: str, score: float, tickets: int) -> None:
        if tickets > 0:
            entry = self.queues.setdefault(check_key(key), {}).setdefault(room, [score, 0])
            entry[1] = tickets

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

    async def queue_take(self, key: str) -> str | None:
        found = await self._call(self._take, check_key(key))
        return None if found is None else str(found)

    async def queue_add(self, key: str, room: str, score: float, tickets: int) -> None:
        sql = (
            "INSERT INTO match_queue (key, room, score, tickets) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (key, room) DO UPDATE SET tickets = excluded.tickets"
        )
        if tickets > 0:
            await self._call(self._write, sql, (check_key(key), room, score, tickets))

    async def queue_remove(self, key: str, room: str) -> None:
        sql = "DELETE FROM match_queue WHERE key = ? AND room = ?"
        await self._call(self._write, sql, (check_key(key), room))

    async def claim(self, key: str, value: str, ttl: float, now: float) -> str:
        return str(await self._call(self._claim, check_key(key), value, now + ttl, now))

    async def release(self, key: str, value: str) -> None:
        sql = "DELETE FROM match_claims WHERE key = ? AND value = ?"
        await self._call(self._write, sql, (check_key(key), value))

    def _take(self, key: str) -> str | None:
        db = self._db()
        with db:  # one transaction: the oldest with a ticket, one ticket fewer
            row = db.execute(
                "SELECT room, tickets FROM match_queue WHERE key = ? ORDER BY score, room LIMIT 1",
                (key,),
            ).fetchone()
            if row is None:
                return None
            if row[1] <= 1:
                db.execute("DELETE FROM match_queue WHERE key = ? AND room = ?", (key, row[0]))
            else:
                db.execute(
                    "UPDATE match_queue SET tickets = tickets - 1 WHERE key = ? AND room = ?",
                    (key, row[0]),
                )
        return str(row[0])

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
_TAKE = """
local first = redis.call('ZRANGE', KEYS[1], 0, 0)
if #first == 0 then return false end
local left = redis.call('HINCRBY', KEYS[2], first[1], -1)
if left <= 0 then
  redis.call('ZREM', KEYS[1], first[1])
  redis.call('HDEL', KEYS[2], first[1])
end
return first[1]
"""
_ADD = """
redis.call('ZADD', KEYS[1], 'NX', ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1
"""
_REMOVE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""


class RedisMatches:
    """A MatchStore on the event store's Redis: a sorted set and a hash of tickets per
    queue (one hash tag: one slot), a key per claim (whose expiry is Redis's own: a
    claim is short, and Redis's clock is the one every node shares)."""

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
        self._take = client.register_script(_TAKE)
        self._add = client.register_script(_ADD)
        self._remove = client.register_script(_REMOVE)

    def _queue(self, key: str) -> list[str]:
        tag = f"{self.prefix}:{{mq:{check_key(key)}}}"
        return [tag, tag + ":tickets"]

    def _claimed(self, key: str) -> str:
        return f"{self.prefix}:{{mc:{check_key(key)}}}"

    async def queue_take(self, key: str) -> str | None:
        found = await self._guard(self._take(keys=self._queue(key)))
        return None if found is None else _text(found)

    async def queue_add(self, key: str, room: str, score: float, tickets: int) -> None:
        if tickets > 0:
            await self._guard(self._add(keys=self._queue(key), args=[score, room, tickets]))

    async def queue_remove(self, key: str, room: str) -> None:
        await self._guard(self._remove(keys=self._queue(key), args=[room]))

    async def claim(self, key: str, value: str, ttl: float, now: float) -> str:
        ms = max(1, int(ttl * 1000))
        return _text(await self._guard(self._claim(keys=[self._claimed(key)], args=[value, ms])))

    async def release(self, key: str, value: str) -> None:
        await self._guard(self._release(keys=[self._claimed(key)], args=[value]))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
