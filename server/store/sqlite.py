"""The SQLite event store: the embedded default for a single node.

All SQLite work runs on ONE dedicated worker thread (a single-thread executor),
which owns the connection; the event loop only waits. Appends go through the
group-commit :class:`~server.store.batch.Batcher`: the appends of every room issued
within one loop turn (or while the previous commit ran) are written in ONE
transaction, each checked on its own, so a wrong expected seq fails only its caller.

Schema: ``events(room, seq, data)`` with PRIMARY KEY (room, seq), so the database
itself refuses a duplicate position; ``rooms`` numbers rooms in creation order;
``snapshots`` keeps each room's latest snapshot; ``fences`` each room's fence epoch
(checked inside the append's transaction); ``replies`` the stored command answers;
``driven`` the rooms that time alone moves.

Outcomes: a batch that fails to start (``BEGIN IMMEDIATE`` refused, e.g. another
process holds the write lock past the busy timeout) certainly wrote nothing
(StoreUnavailable); a failure after it started is reported as StoreUnknown, and the
room settles it by reading the log.

Durability: WAL mode with ``synchronous=FULL`` by default: a commit is fsynced
before any caller's append returns, so an acknowledged event survives a power loss
or OS crash, not only a process crash ("durable before anyone sees its effect").
Group commit amortises the fsync over the whole batch. ``?synchronous=normal`` in
the URL trades that for speed: still safe against a process crash and never
corrupt, but the last commits may roll back after a power loss.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from server.store.base import (
    Record,
    check_limit,
    check_page,
    check_room,
    check_seq,
    pack,
    snapshot_beyond_log,
    unpack,
)
from server.store.batch import Append, Batcher, GroupCommitted
from server.store.errors import (
    StoreConflict,
    StoreError,
    StoreFenced,
    StoreUnavailable,
    StoreUnknown,
)
from server.store.match import SCHEMA as MATCH_SCHEMA
from server.store.match import SqliteMatches
from server.store.operator import SCHEMA as OPERATOR_SCHEMA
from server.store.operator import SqliteOperator
from server.store.people_sqlite import SCHEMA as PEOPLE_SCHEMA
from server.store.people_sqlite import SqlitePeople
from server.store.worker import Worker

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    room TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    room TEXT NOT NULL,
    seq INTEGER NOT NULL CHECK (seq >= 1),
    data BLOB NOT NULL,
    PRIMARY KEY (room, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    room TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fences (
    room TEXT PRIMARY KEY,
    epoch INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS replies (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    room TEXT NOT NULL,
    seat INTEGER NOT NULL,
    id TEXT NOT NULL,
    data BLOB NOT NULL,
    UNIQUE (room, seat, id)
);
CREATE TABLE IF NOT EXISTS driven (
    room TEXT PRIMARY KEY
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS summaries (
    room TEXT PRIMARY KEY,
    data BLOB NOT NULL
) WITHOUT ROWID;
"""

SYNCHRONOUS = ("full", "normal")

_HEAD = (
    "SELECT (SELECT epoch FROM fences WHERE room = ?), (SELECT MAX(seq) FROM events WHERE room = ?)"
)
"""A room's fence epoch and the seq its log ends at (None, None for a new room)."""
_ROWS_PER_INSERT = 256
"""An append of up to this many records is one INSERT (a statement is all or nothing)."""
_INSERTS = {
    n: "INSERT INTO events (room, seq, data) VALUES " + ", ".join(["(?, ?, ?)"] * n)
    for n in range(1, _ROWS_PER_INSERT + 1)
}


class SqliteStore(GroupCommitted):
    """An EventStore in one SQLite file, driven from one worker thread."""

    def __init__(self, path: str, *, synchronous: str = "full", max_batch: int = 512) -> None:
        if synchronous.lower() not in SYNCHRONOUS:
            raise StoreError(
                f"sqlite synchronous must be one of {SYNCHRONOUS}", code="store/bad_url"
            )
        self.path = path
        self._worker = Worker("rollhouse-sqlite")
        self._conn: sqlite3.Connection | None = None
        self._closed = False
        try:
            self._worker.call_blocking(self._connect, synchronous.upper())
        except (sqlite3.Error, OSError) as exc:
            self._worker.stop()
            raise StoreUnavailable(f"cannot open sqlite database {path!r}: {exc}") from exc
        self.batcher: Batcher[Append, int] = Batcher(self._flush, max_batch=max_batch)
        self.people = SqlitePeople(self._call, self._db)
        """Players and sessions, in the same database (server/store/people_sqlite.py)."""
        self.matches = SqliteMatches(self._call, self._db)
        """Quick match's queues and claims (server/store/match.py)."""
        self.operator = SqliteOperator(self._call, self._db)
        """The operator console's audit log, bans and node reports (server/store/operator.py)."""

    # --- the EventStore interface (event loop side) ---

    async def read(self, room: str, after: int = 0, limit: int | None = None) -> list[Record]:
        """Records with seq > ``after`` in order, at most ``limit``."""
        check_room(room)
        check_seq(after, "after")
        return await self._call(self._read, room, after, check_limit(limit))

    async def last_seq(self, room: str) -> int:
        """The room's last seq, 0 without a log."""
        return await self._call(self._last, check_room(room))

    async def last_seqs(self, rooms: Sequence[str]) -> dict[str, int]:
        """Each room's last seq, 0 without a log (one query)."""
        wanted = [check_room(room) for room in rooms]
        if not wanted:
            return {}
        return await self._call(self._last_seqs, wanted)

    async def list_rooms(self) -> list[str]:
        """Rooms in creation order."""
        return await self._call(self._list_rooms)

    async def save_summaries(self, summaries: Mapping[str, dict[str, Any]]) -> None:
        """Keep the rooms' lobby summaries (one transaction)."""
        rows = [(check_room(room), pack(data)) for room, data in summaries.items()]
        if rows:
            await self._call(self._save_summaries, rows)

    async def room_page(
        self, cursor: int, limit: int
    ) -> tuple[list[tuple[str, dict[str, Any] | None]], int | None]:
        """Rooms newest first, with their summaries."""
        cursor, limit = check_page(cursor, limit)
        return await self._call(self._room_page, cursor, limit)

    async def save_snapshot(self, room: str, seq: int, data: dict[str, Any]) -> None:
        """Keep the snapshot unless one with a higher seq is already stored."""
        check_room(room)
        check_seq(seq, "seq")
        await self._call(self._save_snapshot, room, seq, pack(data))

    async def load_snapshot(self, room: str) -> tuple[int, dict[str, Any]] | None:
        """The latest snapshot ``(seq, data)`` or None."""
        return await self._call(self._load_snapshot, check_room(room))

    async def fence(self, room: str) -> int:
        """Move the room's fence epoch on; returns the new epoch."""
        return await self._call(self._fence, check_room(room))

    async def save_reply(
        self,
        room: str,
        seat: int,
        cmd_id: str,
        data: dict[str, Any],
        keep: int,
        *,
        fence: int | None = None,
    ) -> None:
        """Keep one answer of ``seat`` (at most ``keep`` per seat)."""
        args = (check_room(room), seat, cmd_id, pack(data), keep, fence)
        await self._call(self._save_reply, *args)

    async def load_replies(self, room: str) -> list[tuple[int, str, dict[str, Any]]]:
        """Stored answers, oldest first per seat."""
        return await self._call(self._load_replies, check_room(room))

    async def set_driven(self, room: str, driven: bool) -> None:
        """Mark or unmark ``room`` as driven by time."""
        await self._call(self._set_driven, check_room(room), driven)

    async def driven_rooms(self) -> list[str]:
        """Rooms marked driven."""
        return await self._call(self._driven_rooms)

    async def close(self) -> None:
        """Flush pending appends, close the connection and stop the worker thread."""
        if self._closed:
            return
        self._closed = True
        await self.batcher.close()
        await self._worker.call(self._disconnect)
        self._worker.stop()

    # --- plumbing ---

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailable("the store is closed")

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        self._check_open()
        try:
            return await self._worker.call(fn, *args)
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"sqlite: {exc}") from exc

    async def _flush(self, items: list[Append]) -> list[int | BaseException]:
        return await self._worker.call(self._write_batch, items)

    # --- the worker thread side: everything below runs on the one sqlite thread ---

    def _connect(self, synchronous: str) -> None:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, isolation_level=None)  # we issue BEGIN/COMMIT
        try:
            conn.execute("PRAGMA busy_timeout = 5000")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA synchronous = {synchronous}")
            conn.executescript(SCHEMA + PEOPLE_SCHEMA + MATCH_SCHEMA + OPERATOR_SCHEMA)
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    def _disconnect(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreUnavailable("the store is closed")
        return self._conn

    def _write_batch(self, items: list[Append]) -> list[int | BaseException]:
        conn = self._db()
        outcomes: list[int | BaseException] = []
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:  # nothing was written
            return [StoreUnavailable(f"sqlite: cannot begin a write: {exc}")] * len(items)
        try:
            outcomes.extend(self._write_one(conn, item) for item in items)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            failed = StoreUnknown(f"sqlite commit failed: {exc}")
            kept: list[int | BaseException] = [
                o if isinstance(o, StoreConflict) else failed for o in outcomes
            ]
            return kept + [failed] * (len(items) - len(kept))
        return outcomes

    def _write_one(self, conn: sqlite3.Connection, item: Append) -> int | BaseException:
        """One room's append inside the batch's transaction: its fence and its log's end
        read in one query, its records written by one statement (all or none of them),
        so the room's other writes in the batch stand whatever this one does."""
        epoch, last = conn.execute(_HEAD, (item.room, item.room)).fetchone()
        if item.fence is not None and (epoch or 0) != item.fence:
            return StoreFenced(item.room, item.fence, epoch or 0)
        if (last or 0) != item.expected:
            return StoreConflict(item.room, item.expected, last or 0)
        n = len(item.blobs)
        if n > _ROWS_PER_INSERT:  # more than one statement: all or none through a savepoint
            return self._write_savepoint(conn, item)
        values: list[Any] = []
        for i, blob in enumerate(item.blobs, 1):
            values += (item.room, item.expected + i, blob)
        try:
            if item.expected == 0:
                self._enter_room(conn, item.room)
            conn.execute(_INSERTS[n], values)
        except sqlite3.IntegrityError:  # the primary key refused a duplicate position
            return StoreConflict(item.room, item.expected, self._last(item.room))
        return item.expected + n

    def _write_savepoint(self, conn: sqlite3.Connection, item: Append) -> int | BaseException:
        rows = [(item.room, item.expected + i, blob) for i, blob in enumerate(item.blobs, 1)]
        conn.execute("SAVEPOINT one_append")
        try:
            if item.expected == 0:
                self._enter_room(conn, item.room)
            conn.executemany("INSERT INTO events (room, seq, data) VALUES (?, ?, ?)", rows)
        except sqlite3.IntegrityError:  # the primary key refused a duplicate position
            conn.execute("ROLLBACK TO one_append")
            conn.execute("RELEASE one_append")
            return StoreConflict(item.room, item.expected, self._last(item.room))
        conn.execute("RELEASE one_append")
        return item.expected + len(rows)

    @staticmethod
    def _enter_room(conn: sqlite3.Connection, room: str) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO rooms (room, created_at) VALUES (?, ?)", (room, time.time())
        )

    def _epoch(self, room: str) -> int:
        row = self._db().execute("SELECT epoch FROM fences WHERE room = ?", (room,)).fetchone()
        return int(row[0]) if row else 0

    def _fence(self, room: str) -> int:
        conn = self._db()
        conn.execute("BEGIN IMMEDIATE")
        try:
            epoch = self._epoch(room) + 1
            conn.execute(
                "INSERT INTO fences (room, epoch) VALUES (?, ?) "
                "ON CONFLICT (room) DO UPDATE SET epoch = excluded.epoch",
                (room, epoch),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return epoch

    def _save_reply(
        self, room: str, seat: int, cmd_id: str, blob: bytes, keep: int, fence: int | None
    ) -> None:
        conn = self._db()
        conn.execute("BEGIN IMMEDIATE")
        try:
            if fence is not None and self._epoch(room) != fence:
                raise StoreFenced(room, fence, self._epoch(room))
            conn.execute(
                "INSERT OR IGNORE INTO replies (room, seat, id, data) VALUES (?, ?, ?, ?)",
                (room, seat, cmd_id, blob),
            )
            conn.execute(
                "DELETE FROM replies WHERE room = ? AND seat = ? AND n NOT IN "
                "(SELECT n FROM replies WHERE room = ? AND seat = ? ORDER BY n DESC LIMIT ?)",
                (room, seat, room, seat, keep),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _load_replies(self, room: str) -> list[tuple[int, str, dict[str, Any]]]:
        sql = "SELECT seat, id, data FROM replies WHERE room = ? ORDER BY n"
        return [(seat, i, unpack(b)) for seat, i, b in self._db().execute(sql, (room,))]

    def _set_driven(self, room: str, driven: bool) -> None:
        if driven:
            self._db().execute("INSERT OR IGNORE INTO driven (room) VALUES (?)", (room,))
        else:
            self._db().execute("DELETE FROM driven WHERE room = ?", (room,))

    def _driven_rooms(self) -> list[str]:
        return [r for (r,) in self._db().execute("SELECT room FROM driven ORDER BY room")]

    def _last(self, room: str) -> int:
        row = self._db().execute("SELECT MAX(seq) FROM events WHERE room = ?", (room,)).fetchone()
        return int(row[0] or 0)

    def _last_seqs(self, rooms: list[str]) -> dict[str, int]:
        out = dict.fromkeys(rooms, 0)
        for start in range(0, len(rooms), 500):  # under any build's bound on parameters
            chunk = rooms[start : start + 500]
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT room, MAX(seq) FROM events WHERE room IN ({marks}) GROUP BY room"
            out.update((room, int(seq)) for room, seq in self._db().execute(sql, chunk))
        return out

    def _read(self, room: str, after: int, limit: int | None) -> list[Record]:
        sql = "SELECT seq, data FROM events WHERE room = ? AND seq > ? ORDER BY seq LIMIT ?"
        rows = self._db().execute(sql, (room, after, -1 if limit is None else limit))
        return [Record(seq=seq, data=unpack(blob)) for seq, blob in rows]

    def _list_rooms(self) -> list[str]:
        return [r for (r,) in self._db().execute("SELECT room FROM rooms ORDER BY id")]

    def _save_snapshot(self, room: str, seq: int, blob: bytes) -> None:
        conn = self._db()
        conn.execute("BEGIN IMMEDIATE")
        try:
            last = self._last(room)
            if seq > last:
                raise snapshot_beyond_log(room, seq, last)
            conn.execute(
                "INSERT INTO snapshots (room, seq, data) VALUES (?, ?, ?) "
                "ON CONFLICT (room) DO UPDATE SET seq = excluded.seq, data = excluded.data "
                "WHERE excluded.seq >= snapshots.seq",
                (room, seq, blob),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _save_summaries(self, rows: list[tuple[str, bytes]]) -> None:
        conn = self._db()
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(
                "INSERT INTO summaries (room, data) VALUES (?, ?) "
                "ON CONFLICT (room) DO UPDATE SET data = excluded.data",
                rows,
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _room_page(
        self, cursor: int, limit: int
    ) -> tuple[list[tuple[str, dict[str, Any] | None]], int | None]:
        sql = (
            "SELECT r.room, s.data FROM rooms r LEFT JOIN summaries s ON s.room = r.room "
            "ORDER BY r.id DESC LIMIT ? OFFSET ?"
        )
        rows = self._db().execute(sql, (limit + 1, cursor)).fetchall()
        page = [(room, None if blob is None else unpack(blob)) for room, blob in rows[:limit]]
        return page, (cursor + limit if len(rows) > limit else None)

    def _load_snapshot(self, room: str) -> tuple[int, dict[str, Any]] | None:
        sql = "SELECT seq, data FROM snapshots WHERE room = ?"
        row = self._db().execute(sql, (room,)).fetchone()
        return None if row is None else (int(row[0]), unpack(row[1]))
