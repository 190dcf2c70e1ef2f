"""SQLite backend specifics: schema guarantees, pragmas, paths, its one worker thread."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from server.store import StoreUnavailable, open_store
from server.store.sqlite import SqliteStore


def test_primary_key_refuses_a_duplicate_position(tmp_path: Path) -> None:
    """The events table itself refuses a second row at the same (room, seq)."""
    store = SqliteStore(str(tmp_path / "s.db"))
    asyncio.run(_append_and_close(store))
    conn = sqlite3.connect(tmp_path / "s.db")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO events (room, seq, data) VALUES ('r-1', 1, x'80')")
    conn.close()


async def _append_and_close(store: SqliteStore) -> None:
    await store.append("r-1", [{"n": 1}], 0)
    await store.close()


@pytest.mark.parametrize(("query", "level"), [("", 2), ("?synchronous=normal", 1)])
async def test_wal_mode_and_synchronous_level(tmp_path: Path, query: str, level: int) -> None:
    """The database is in WAL mode, synchronous=FULL by default, NORMAL on request."""
    store = open_store(f"sqlite:///{tmp_path / 's.db'}{query}")
    assert isinstance(store, SqliteStore)
    try:
        mode = await store._call(lambda: store._db().execute("PRAGMA journal_mode").fetchone())
        sync = await store._call(lambda: store._db().execute("PRAGMA synchronous").fetchone())
        assert (mode[0], sync[0]) == ("wal", level)
    finally:
        await store.close()


async def test_relative_url_creates_its_directory_under_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """sqlite:///a/b/x.db creates a/b/ under the working directory."""
    monkeypatch.chdir(tmp_path)
    store = open_store("sqlite:///a/b/x.db")
    await store.append("r-1", [{"n": 1}], 0)
    await store.close()
    assert (tmp_path / "a" / "b" / "x.db").is_file()


async def test_all_work_runs_on_one_worker_thread(tmp_path: Path) -> None:
    """Concurrent appends and reads of many rooms use a single worker thread, never the
    event loop's."""
    store = SqliteStore(str(tmp_path / "s.db"))
    threads: set[int] = set()
    db = store._db

    def watched() -> Any:
        threads.add(threading.get_ident())
        return db()

    store._db = watched  # type: ignore[method-assign]
    try:
        await asyncio.gather(*(store.append(f"r-{i}", [{"n": i}], 0) for i in range(100)))
        await asyncio.gather(*(store.read(f"r-{i}") for i in range(100)))
        assert len(threads) == 1 and threading.get_ident() not in threads
    finally:
        await store.close()


def test_unopenable_path_is_unavailable(tmp_path: Path) -> None:
    """A path that cannot be a database (a directory) raises StoreUnavailable at open."""
    (tmp_path / "dir.db").mkdir()
    with pytest.raises(StoreUnavailable):
        open_store(f"sqlite:///{tmp_path / 'dir.db'}")
