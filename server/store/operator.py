"""The operator console's shared state, on every backend (:mod:`server.operator`
decides; this only keeps):

- the **audit log**: every operator action (who, what, when, from where, how it
  went), appended and read newest first; the oldest go past :data:`AUDIT_KEEP`;
- **bans** of an address or a player until a time, with the entry that made them:
  ``ban`` sets one (a later ban of the same target replaces it), ``unban`` lifts it,
  ``bans`` lists those still in force at ``now``;
- **node reports**: what each node says of itself (rooms, connections, lease age,
  version...) every few seconds; ``reports`` lists those fresher than ``ttl``.

Each operation is one atomic step on one key (one hash tag on Redis: cluster-safe), one
transaction on SQLite, one synchronous call in memory. Values are plain JSON maps;
time comes from the caller (``now``).
"""

from __future__ import annotations

import json
import sqlite3
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import redis.asyncio as aioredis

from server.store.errors import StoreError

AUDIT_KEEP = 10_000
"""Audit entries kept (the oldest go first)."""
KINDS = ("address", "player")
"""What a ban names."""
FORGET_NODES = 86_400.0
"""Seconds after which a silent node's report is deleted (``reports`` does it)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS operator_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS operator_bans (
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    until REAL NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (kind, value)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS operator_nodes (
    node TEXT PRIMARY KEY,
    at REAL NOT NULL,
    data TEXT NOT NULL
) WITHOUT ROWID;
"""

Plain = dict[str, Any]


class OperatorStore(Protocol):
    """The audit log, the bans and the node reports, shared by every node of one store."""

    async def audit(self, entry: Plain) -> None:
        """Append ``entry`` to the audit log."""

    async def audit_tail(self, limit: int) -> list[Plain]:
        """The newest ``limit`` entries, newest first."""

    async def ban(self, kind: str, value: str, until: float, entry: Plain) -> None:
        """Ban ``value`` (an address or a player id) until ``until`` (unix seconds)."""

    async def unban(self, kind: str, value: str) -> None:
        """Lift the ban of ``value`` (nothing if none)."""

    async def bans(self, now: float) -> list[Plain]:
        """The bans in force at ``now``: each ``{kind, value, until, ...entry}``."""

    async def report(self, node: str, report: Plain, now: float) -> None:
        """Keep what ``node`` says of itself, as of ``now``."""

    async def reports(self, now: float, ttl: float) -> list[Plain]:
        """The reports made within ``ttl`` seconds of ``now`` (each with ``node``, ``at``)."""


def check_ban(kind: str, value: str) -> None:
    if kind not in KINDS or not isinstance(value, str) or not 1 <= len(value) <= 200:
        raise StoreError(f"a ban names an address or a player: {kind!r}", code="store/bad_key")


def _ban(kind: str, value: str, until: float, entry: Plain) -> Plain:
    return {**entry, "kind": kind, "value": value, "until": until}


class MemoryOperator:
    """An OperatorStore in this process (tests, one node)."""

    def __init__(self) -> None:
        self.log: deque[Plain] = deque(maxlen=AUDIT_KEEP)
        self.banned: dict[tuple[str, str], Plain] = {}
        self.nodes: dict[str, Plain] = {}

    async def audit(self, entry: Plain) -> None:
        self.log.append(dict(entry))

    async def audit_tail(self, limit: int) -> list[Plain]:
        return [dict(e) for e in list(self.log)[::-1][: max(0, limit)]]

    async def ban(self, kind: str, value: str, until: float, entry: Plain) -> None:
        check_ban(kind, value)
        self.banned[(kind, value)] = _ban(kind, value, until, entry)

    async def unban(self, kind: str, value: str) -> None:
        self.banned.pop((kind, value), None)

    async def bans(self, now: float) -> list[Plain]:
        for key in [k for k, b in self.banned.items() if b["until"] <= now]:
            del self.banned[key]
        return [dict(b) for b in self.banned.values()]

    async def report(self, node: str, report: Plain, now: float) -> None:
        self.nodes[node] = {**report, "node": node, "at": now}

    async def reports(self, now: float, ttl: float) -> list[Plain]:
        for node in [n for n, r in self.nodes.items() if r["at"] <= now - FORGET_NODES]:
            del self.nodes[node]
        return [dict(r) for r in self.nodes.values() if r["at"] > now - ttl]


class SqliteOperator:
    """An OperatorStore in the event store's SQLite database (its worker thread)."""

    def __init__(
        self, call: Callable[..., Awaitable[Any]], db: Callable[[], sqlite3.Connection]
    ) -> None:
        self._call, self._db = call, db

    async def audit(self, entry: Plain) -> None:
        await self._call(self._append, json.dumps(entry))

    async def audit_tail(self, limit: int) -> list[Plain]:
        sql = "SELECT data FROM operator_audit ORDER BY id DESC LIMIT ?"
        return [json.loads(r[0]) for r in await self._call(self._rows, sql, (max(0, limit),))]

    async def ban(self, kind: str, value: str, until: float, entry: Plain) -> None:
        check_ban(kind, value)
        sql = (
            "INSERT INTO operator_bans (kind, value, until, data) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (kind, value) DO UPDATE SET until = excluded.until, data = excluded.data"
        )
        data = json.dumps(_ban(kind, value, until, entry))
        await self._call(self._write, sql, (kind, value, until, data))

    async def unban(self, kind: str, value: str) -> None:
        sql = "DELETE FROM operator_bans WHERE kind = ? AND value = ?"
        await self._call(self._write, sql, (kind, value))

    async def bans(self, now: float) -> list[Plain]:
        await self._call(self._write, "DELETE FROM operator_bans WHERE until <= ?", (now,))
        rows = await self._call(self._rows, "SELECT data FROM operator_bans", ())
        return [json.loads(r[0]) for r in rows]

    async def report(self, node: str, report: Plain, now: float) -> None:
        sql = (
            "INSERT INTO operator_nodes (node, at, data) VALUES (?, ?, ?) "
            "ON CONFLICT (node) DO UPDATE SET at = excluded.at, data = excluded.data"
        )
        data = json.dumps({**report, "node": node, "at": now})
        await self._call(self._write, sql, (node, now, data))

    async def reports(self, now: float, ttl: float) -> list[Plain]:
        forget = "DELETE FROM operator_nodes WHERE at <= ?"
        await self._call(self._write, forget, (now - FORGET_NODES,))
        sql = "SELECT data FROM operator_nodes WHERE at > ? ORDER BY node"
        return [json.loads(r[0]) for r in await self._call(self._rows, sql, (now - ttl,))]

    def _append(self, data: str) -> None:
        db = self._db()
        with db:  # one transaction: the entry in, the oldest past the bound out
            cursor = db.execute("INSERT INTO operator_audit (data) VALUES (?)", (data,))
            last = int(cursor.lastrowid or 0)
            db.execute("DELETE FROM operator_audit WHERE id <= ?", (last - AUDIT_KEEP,))

    def _write(self, sql: str, args: tuple[Any, ...]) -> None:
        db = self._db()
        with db:
            db.execute(sql, args)

    def _rows(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return list(self._db().execute(sql, args).fetchall())


class RedisOperator:
    """An OperatorStore on the event store's Redis: a capped stream for the audit log,
    a hash of bans, a hash of node reports (each its own key under one hash tag)."""

    def __init__(
        self,
        client: aioredis.Redis,
        prefix: str,
        guard: Callable[[Awaitable[Any]], Awaitable[Any]],
    ) -> None:
        self._client = client
        self._guard = guard
        tag = f"{prefix}:{{operator}}"
        self.audit_key, self.bans_key, self.nodes_key = (
            f"{tag}:audit",
            f"{tag}:bans",
            f"{tag}:nodes",
        )

    async def audit(self, entry: Plain) -> None:
        fields: Any = {"e": json.dumps(entry)}
        await self._guard(self._client.xadd(self.audit_key, fields, maxlen=AUDIT_KEEP))

    async def audit_tail(self, limit: int) -> list[Plain]:
        if limit <= 0:
            return []
        rows = await self._guard(self._client.xrevrange(self.audit_key, count=limit))
        return [json.loads(fields[b"e"]) for _, fields in rows]

    async def ban(self, kind: str, value: str, until: float, entry: Plain) -> None:
        check_ban(kind, value)
        data = json.dumps(_ban(kind, value, until, entry))
        await self._guard(self._client.hset(self.bans_key, f"{kind}:{value}", data))

    async def unban(self, kind: str, value: str) -> None:
        await self._guard(self._client.hdel(self.bans_key, f"{kind}:{value}"))

    async def bans(self, now: float) -> list[Plain]:
        found = await self._guard(self._client.hgetall(self.bans_key))
        live: list[Plain] = []
        over: list[Any] = []
        for field, data in found.items():
            ban = json.loads(data)
            if ban["until"] > now:
                live.append(ban)
            else:
                over.append(field)
        if over:
            await self._guard(self._client.hdel(self.bans_key, *over))
        return live

    async def report(self, node: str, report: Plain, now: float) -> None:
        data = json.dumps({**report, "node": node, "at": now})
        await self._guard(self._client.hset(self.nodes_key, node, data))

    async def reports(self, now: float, ttl: float) -> list[Plain]:
        found = await self._guard(self._client.hgetall(self.nodes_key))
        out = [json.loads(d) for d in found.values()]
        gone = [r["node"] for r in out if r["at"] <= now - FORGET_NODES]
        if gone:
            await self._guard(self._client.hdel(self.nodes_key, *gone))
        cut = now - min(ttl, FORGET_NODES)
        return sorted((r for r in out if r["at"] > cut), key=lambda r: str(r["node"]))
