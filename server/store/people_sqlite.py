"""Players and sessions in the SQLite database of the event store (the same file, the
same connection, the same worker thread: ``SqliteStore.people``).

Tables: ``players`` (``username`` UNIQUE, so the database itself refuses a second
holder), ``sessions`` (primary key player + session id: "sign out everywhere" is one
DELETE), ``player_rooms``, and the counters ``hits`` (two fixed windows per key) and
``attempts`` (count and last attempt per key). Every write that reads first runs in
one ``BEGIN IMMEDIATE`` transaction. Rows past their time (counters, sessions unused
for longer than the idle time) are swept every ``SWEEP_EVERY`` writes.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from server.store.base import check_page, check_room
from server.store.people_base import (
    Backoff,
    Registered,
    StoredPlayer,
    StoredSession,
    check_key,
    check_player_id,
    check_sid,
    page_of,
    roll,
    window_estimate,
)

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created_at REAL NOT NULL,
    username TEXT UNIQUE,
    password TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sessions (
    player TEXT NOT NULL,
    sid TEXT NOT NULL,
    digest TEXT NOT NULL,
    created_at REAL NOT NULL,
    last_seen REAL NOT NULL,
    PRIMARY KEY (player, sid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_last_seen ON sessions (last_seen);
CREATE TABLE IF NOT EXISTS player_rooms (
    player TEXT NOT NULL,
    room TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (player, room)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS player_rooms_newest ON player_rooms (player, at, room);
CREATE TABLE IF NOT EXISTS hits (
    key TEXT NOT NULL,
    span REAL NOT NULL,
    bucket INTEGER NOT NULL,
    current INTEGER NOT NULL,
    previous INTEGER NOT NULL,
    expires REAL NOT NULL,
    PRIMARY KEY (key, span)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS hits_expires ON hits (expires);
CREATE TABLE IF NOT EXISTS attempts (
    key TEXT PRIMARY KEY,
    count INTEGER NOT NULL,
    last REAL NOT NULL,
    expires REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS attempts_expires ON attempts (expires);
"""

SWEEP_EVERY = 256
"""Writes between two sweeps of the rows past their time."""


class SqlitePeople:
    """A PeopleStore in the event store's SQLite database.

    ``call`` runs a function on the store's worker thread (mapping sqlite3 errors to
    StoreUnavailable, refusing once the store is closed); ``db`` is the connection
    there."""

    def __init__(
        self,
        call: Callable[..., Awaitable[Any]],
        db: Callable[[], sqlite3.Connection],
    ) -> None:
        self._call = call
        self._db = db
        self._writes = 0

    async def create_player(self, player: StoredPlayer) -> bool:
        """Keep a new player unless the id is taken."""
        check_player_id(player.id)
        return bool(await self._call(self._create_player, player))

    async def player(self, player_id: str) -> StoredPlayer | None:
        """The player, or None."""
        return await self._call(self._player, "id", check_player_id(player_id))  # type: ignore[no-any-return]

    async def rename(self, player_id: str, name: str) -> bool:
        """Set the display name."""
        sql = "UPDATE players SET name = ? WHERE id = ?"
        return bool(await self._call(self._changed, sql, (name, check_player_id(player_id))))

    async def register(
        self, player_id: str, username: str, password: str, now: float
    ) -> Registered:
        """Username and password hash, unless registered already or the name is taken."""
        check_player_id(player_id)
        return await self._call(self._tx, self._register, player_id, username, password)  # type: ignore[no-any-return]

    async def by_username(self, username: str) -> StoredPlayer | None:
        """The player holding ``username``."""
        return await self._call(self._player, "username", username)  # type: ignore[no-any-return]

    async def set_password(self, player_id: str, password: str) -> None:
        """Replace a registered player's password hash."""
        sql = "UPDATE players SET password = ? WHERE id = ? AND username IS NOT NULL"
        await self._call(self._changed, sql, (password, check_player_id(player_id)))

    async def add_session(
        self, player_id: str, sid: str, session: StoredSession, idle: float, keep: int
    ) -> None:
        """Keep a session; drop the player's stale ones and all but ``keep``."""
        args = (check_player_id(player_id), check_sid(sid), session, idle, keep)
        await self._call(self._tx, self._add_session, *args)

    async def session(self, player_id: str, sid: str) -> StoredSession | None:
        """One session of the player, or None."""
        return await self._call(self._session, check_player_id(player_id), check_sid(sid))  # type: ignore[no-any-return]

    async def touch_session(self, player_id: str, sid: str, now: float, idle: float) -> bool:
        """Mark the session used at ``now``."""
        sql = "UPDATE sessions SET last_seen = ? WHERE player = ? AND sid = ?"
        args = (now, check_player_id(player_id), check_sid(sid))
        return bool(await self._call(self._changed, sql, args))

    async def end_session(self, player_id: str, sid: str) -> None:
        """Forget one session."""
        sql = "DELETE FROM sessions WHERE player = ? AND sid = ?"
        await self._call(self._changed, sql, (check_player_id(player_id), check_sid(sid)))

    async def end_sessions(self, player_id: str) -> None:
        """Forget every session of the player (one DELETE)."""
        sql = "DELETE FROM sessions WHERE player = ?"
        await self._call(self._changed, sql, (check_player_id(player_id),))

    async def add_room(self, player_id: str, room: str, at: float, keep: int) -> None:
        """Note a room the player joined (the first time counts)."""
        args = (check_player_id(player_id), check_room(room), at, keep)
        await self._call(self._tx, self._add_room, *args)

    async def rooms(
        self, player_id: str, cursor: int, limit: int
    ) -> tuple[list[tuple[str, float]], int | None]:
        """The player's rooms, newest first."""
        cursor, limit = check_page(cursor, limit)
        sql = (
            "SELECT room, at FROM player_rooms WHERE player = ? "
            "ORDER BY at DESC, room DESC LIMIT ? OFFSET ?"
        )
        rows = await self._call(self._rows, sql, (check_player_id(player_id), limit + 1, cursor))
        return page_of([(room, float(at)) for room, at in rows], cursor, limit)

    async def hit(self, key: str, window: float, now: float, add: int = 1) -> int:
        """Count attempts of ``key``; the attempts in the sliding window."""
        check_key(key, window)
        return await self._call(self._tx, self._hit, key, float(window), now, add)  # type: ignore[no-any-return]

    async def attempt(self, key: str, now: float, rule: Backoff) -> float:
        """0.0 and counted if an attempt may go now, else the seconds to wait."""
        return await self._call(self._tx, self._attempt, check_key(key), now, rule)  # type: ignore[no-any-return]

    async def forgive(self, key: str, everything: bool) -> None:
        """Uncount one attempt, or all."""
        if everything:
            sql, args = "DELETE FROM attempts WHERE key = ?", (check_key(key),)
        else:
            sql = "UPDATE attempts SET count = MAX(0, count - 1) WHERE key = ?"
            args = (check_key(key),)
        await self._call(self._changed, sql, args)

    # --- the worker thread side ---

    def _tx(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(conn, *args)`` in one write transaction."""
        conn = self._db()
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = fn(conn, *args)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return result

    def _changed(self, sql: str, args: tuple[Any, ...]) -> int:
        return self._db().execute(sql, args).rowcount

    def _rows(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return self._db().execute(sql, args).fetchall()

    def _create_player(self, p: StoredPlayer) -> int:
        sql = (
            "INSERT OR IGNORE INTO players (id, name, created_at, username, password) "
            "VALUES (?, ?, ?, ?, ?)"
        )
        return self._changed(sql, (p.id, p.name, p.created_at, p.username, p.password))

    def _player(self, column: str, value: str) -> StoredPlayer | None:
        sql = f"SELECT id, name, created_at, username, password FROM players WHERE {column} = ?"
        row = self._db().execute(sql, (value,)).fetchone()
        return None if row is None else StoredPlayer(*row)

    def _register(
        self, conn: sqlite3.Connection, player_id: str, username: str, password: str
    ) -> Registered:
        row = conn.execute("SELECT username FROM players WHERE id = ?", (player_id,)).fetchone()
        if row is None:
            return "unknown"
        if row[0] is not None:
            return "registered"
        try:
            conn.execute(
                "UPDATE players SET username = ?, password = ? WHERE id = ?",
                (username, password, player_id),
            )
        except sqlite3.IntegrityError:  # the UNIQUE index: another player holds it
            return "taken"
        return "ok"

    def _add_session(
        self,
        conn: sqlite3.Connection,
        player_id: str,
        sid: str,
        s: StoredSession,
        idle: float,
        keep: int,
    ) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO sessions (player, sid, digest, created_at, last_seen) "
            "VALUES (?, ?, ?, ?, ?)",
            (player_id, sid, s.digest, s.created_at, s.last_seen),
        )
        conn.execute(
            "DELETE FROM sessions WHERE player = ? AND (last_seen < ? OR sid NOT IN "
            "(SELECT sid FROM sessions WHERE player = ? ORDER BY last_seen DESC, sid DESC "
            "LIMIT ?))",
            (player_id, s.last_seen - idle, player_id, keep),
        )
        if self._swept():
            conn.execute("DELETE FROM sessions WHERE last_seen < ?", (s.last_seen - idle,))

    def _session(self, player_id: str, sid: str) -> StoredSession | None:
        sql = "SELECT digest, created_at, last_seen FROM sessions WHERE player = ? AND sid = ?"
        row = self._db().execute(sql, (player_id, sid)).fetchone()
        return None if row is None else StoredSession(*row)

    def _add_room(
        self, conn: sqlite3.Connection, player_id: str, room: str, at: float, keep: int
    ) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO player_rooms (player, room, at) VALUES (?, ?, ?)",
            (player_id, room, at),
        )
        conn.execute(
            "DELETE FROM player_rooms WHERE player = ? AND room NOT IN (SELECT room FROM "
            "player_rooms WHERE player = ? ORDER BY at DESC, room DESC LIMIT ?)",
            (player_id, player_id, keep),
        )

    def _hit(self, conn: sqlite3.Connection, key: str, span: float, now: float, add: int) -> int:
        sql = "SELECT bucket, current, previous FROM hits WHERE key = ? AND span = ?"
        found = conn.execute(sql, (key, span)).fetchone()
        stored: tuple[int | None, int, int] = found or (None, 0, 0)
        bucket, current, previous = roll(*stored, math.floor(now / span))
        current += add
        if add:
            conn.execute(
                "INSERT OR REPLACE INTO hits (key, span, bucket, current, previous, expires) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (key, span, bucket, current, previous, (bucket + 2) * span),
            )
            if self._swept():
                conn.execute("DELETE FROM hits WHERE expires < ?", (now,))
        return window_estimate(current, previous, bucket, span, now)

    def _attempt(self, conn: sqlite3.Connection, key: str, now: float, rule: Backoff) -> float:
        sql = "SELECT count, last FROM attempts WHERE key = ?"
        count, last = conn.execute(sql, (key,)).fetchone() or (0, 0.0)
        wait, count = rule.step(count, last, now)
        if wait == 0.0:
            conn.execute(
                "INSERT OR REPLACE INTO attempts (key, count, last, expires) VALUES (?, ?, ?, ?)",
                (key, count, now, now + rule.forget),
            )
            if self._swept():
                conn.execute("DELETE FROM attempts WHERE expires < ?", (now,))
        return wait

    def _swept(self) -> bool:
        """Whether this write is one that sweeps (one in ``SWEEP_EVERY``)."""
        self._writes += 1
        return self._writes % SWEEP_EVERY == 0
