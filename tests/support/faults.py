"""Fault injection for black-box tests: a store that stalls, dies or is locked.

- :class:`RedisProcess`: a redis-server on a fixed 127.0.0.1 port with its AOF in
  one directory, which a test can freeze (SIGSTOP/SIGCONT, :meth:`~RedisProcess.pause`),
  kill (SIGKILL) and start again on the same port and the same AOF.
- :class:`SqliteWriteLock`: a second sqlite3 connection, in a thread, that holds
  the database's write lock (``BEGIN IMMEDIATE``) for some seconds, then rolls back.
- :func:`read_log` and friends: open the store directly (``server.store.open_store``)
  to read a room's log after the fact, as the protocol sees it: record data, seqs,
  the ``(seat, cmd)`` of the last event of each command (server/roomlog.py).

Every wait here is bounded; nothing touches port 6379.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import httpx

from server.store import Record, open_store
from tests.support.redis_server import free_port, launch_redis

T = TypeVar("T")

STOP_TIMEOUT = 5.0


class RedisProcess:
    """A redis-server a test can pause, kill and restart where its clients expect it."""

    def __init__(
        self,
        directory: Path,
        *,
        appendfsync: str = "always",
        socket_timeout: float | None = 1.0,
    ) -> None:
        self.directory = directory
        self.appendfsync = appendfsync
        self.socket_timeout = socket_timeout
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The plain redis URL (db 0)."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def store_url(self) -> str:
        """The store URL for ``rollhouse serve --store``, with the client's socket timeout."""
        if self.socket_timeout is None:
            return self.url
        return f"{self.url}?socket_timeout={self.socket_timeout:g}"

    def start(self) -> None:
        """Start (or restart) on the same port, replaying the same AOF."""
        url, self.process = launch_redis(
            self.directory, port=self.port, appendonly=True, appendfsync=self.appendfsync
        )
        assert url == self.url

    def _signal(self, signum: signal.Signals) -> None:
        assert self.process is not None and self.process.poll() is None, "redis is not running"
        os.kill(self.process.pid, signum)

    def freeze(self) -> None:
        """SIGSTOP: the port still accepts connections, nothing is answered."""
        self._signal(signal.SIGSTOP)

    def thaw(self) -> None:
        """SIGCONT: carry on with everything that queued up meanwhile."""
        self._signal(signal.SIGCONT)

    async def pause(self, seconds: float) -> None:
        """Freeze for ``seconds``, then thaw (thawed even if the wait is cancelled)."""
        self.freeze()
        try:
            await asyncio.sleep(seconds)
        finally:
            self.thaw()

    def kill(self) -> None:
        """SIGKILL, as a crash: only what reached the AOF survives."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, signal.SIGCONT)  # a frozen process dies too
            self.process.kill()
            self.process.wait(STOP_TIMEOUT)

    async def crash(self, down_for: float) -> None:
        """SIGKILL, stay down ``down_for`` seconds, start again on the same AOF."""
        self.kill()
        await asyncio.sleep(down_for)
        await asyncio.to_thread(self.start)

    def stop(self) -> None:
        """Terminate (thawing first); idempotent."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGCONT)
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT)


class SqliteWriteLock:
    """Hold a SQLite database's write lock from a second connection, in a thread.

    ``BEGIN IMMEDIATE`` takes the write lock (in WAL mode readers go on; every other
    writer waits out its busy timeout, then fails with "database is locked").
    """

    def __init__(self, path: Path | str, seconds: float) -> None:
        self.path = str(path)
        self.seconds = seconds
        self.acquired = threading.Event()
        self.released = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._hold, name="sqlite-write-lock", daemon=True)

    def _hold(self) -> None:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=10)
            try:
                conn.execute("BEGIN IMMEDIATE")
                self.acquired.set()
                time.sleep(self.seconds)
                conn.execute("ROLLBACK")
            finally:
                conn.close()
        except BaseException as exc:  # reported by hold()
            self.error = exc
        finally:
            self.acquired.set()
            self.released.set()

    async def hold(self) -> None:
        """Take the lock, hold it ``seconds``, roll back; returns once released."""
        self._thread.start()
        await asyncio.to_thread(self.acquired.wait, 15)
        await asyncio.to_thread(self.released.wait, self.seconds + 15)
        if self.error is not None:
            raise self.error
        assert self.released.is_set(), "the lock holder did not finish"


def sqlite_path(store_url: str) -> Path:
    """The database file of a ``sqlite:///...`` store URL (as server/store/url.py reads it)."""
    assert store_url.startswith("sqlite:///")
    return Path(store_url[len("sqlite:///") :].split("?", 1)[0])


# -- reading the log after the fact --------------------------------------------------


async def read_log(store_url: str, room: str) -> list[Record]:
    """A room's whole log, read through a store of our own."""
    store = open_store(store_url)
    try:
        return await store.read(room)
    finally:
        await store.close()


async def last_seq(store_url: str, room: str) -> int:
    """The room's last seq, read through a store of our own."""
    store = open_store(store_url)
    try:
        return await store.last_seq(room)
    finally:
        await store.close()


def commands_in(records: Iterable[Record]) -> dict[tuple[int, str], list[int]]:
    """``(seat, cmd) -> seqs`` of the event records closing a client command."""
    logged: dict[tuple[int, str], list[int]] = {}
    for record in records:
        data = record.data
        if data.get("k") == "event" and data.get("cmd") is not None:
            logged.setdefault((data["seat"], data["cmd"]), []).append(record.seq)
    return logged


def game_events(records: Iterable[Record]) -> list[dict[str, Any]]:
    """The game events of the log, in order (``{"type": ..., ...}``)."""
    return [r.data["e"] for r in records if r.data.get("k") == "event"]


def is_finished(records: Iterable[Record]) -> bool:
    """Whether the log holds the end of the game (Rollie's ``game_ended``)."""
    return any(e.get("type") == "game_ended" for e in game_events(records))


def seat_tokens(records: Iterable[Record]) -> dict[int, str | None]:
    """``seat -> token hash`` of the seats the log holds (None for a hosted bot).

    ``seated`` takes a seat, ``unseated`` gives it back (a token that never reached
    its player); ``left``/``returned``/``takeover`` keep the holder.
    """
    held: dict[int, str | None] = {}
    for record in records:
        kind = record.data.get("k")
        if kind == "seated":
            held[record.data["seat"]] = record.data["token"]
        elif kind == "unseated":
            held.pop(record.data["seat"], None)
    return held


def token_hash(token: str) -> str:
    """What a ``seated`` record keeps of a seat token (its SHA-256)."""
    return hashlib.sha256(token.encode()).hexdigest()


# -- bounded polling -----------------------------------------------------------------


async def eventually(
    probe: Callable[[], Awaitable[T | None]], timeout: float, interval: float = 0.2
) -> T | None:
    """Call ``probe`` until it returns something truthy or ``timeout`` passes; the last value.

    Store or HTTP failures while the fault lasts count as "not yet".
    """
    deadline = time.monotonic() + timeout
    value: T | None = None
    for _ in range(int(timeout / interval) + 2):
        try:
            value = await probe()
        except Exception:  # the store or the server is still down: not yet
            value = None
        if value or time.monotonic() >= deadline:
            return value
        await asyncio.sleep(interval)
    return value


async def room_summary(base_url: str, room: str) -> dict[str, Any] | None:
    """GET /api/rooms/{id} (which loads the room), or None when it does not answer 200."""
    async with httpx.AsyncClient(base_url=base_url, timeout=3) as http:
        reply = await http.get(f"/api/rooms/{room}")
        return reply.json() if reply.status_code == 200 else None


async def health(base_url: str) -> dict[str, Any] | None:
    """GET /api/health, or None when it does not answer 200."""
    async with httpx.AsyncClient(base_url=base_url, timeout=3) as http:
        reply = await http.get("/api/health")
        return reply.json() if reply.status_code == 200 else None


def report(kind: str, fault: str, **counts: int) -> None:
    """Append this run's counts to ``$ROLLHOUSE_RELIABILITY_REPORT`` (see docs/reliability.md)."""
    target = os.environ.get("ROLLHOUSE_RELIABILITY_REPORT")
    if target:
        with open(target, "a") as out:
            out.write(json.dumps({"kind": kind, "fault": fault, **counts}) + "\n")
