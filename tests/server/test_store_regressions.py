"""A store that loses acknowledged writes is seen and counted, not papered over.

No store of ours should ever do it; a misconfigured Redis can (a failover or restart
its settings did not cover: deploy/README.md). The room that finds its log shorter
than what it acknowledged reloads from the log as it is, and the node counts it in
``rollhouse_store_regressions_total{what="log"}`` (the alert
``RollhouseStoreLostWrites``, deploy/monitoring/alerts.yml). Here a server on SQLite
has the tail of a room's log deleted behind its back.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
from pathlib import Path

import httpx
import pytest

from clients.bots.play import choose
from clients.sdk import Client, CommandRejected, create_room
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(120)

SERIES = 'rollhouse_store_regressions_total{what="log"}'


async def _play_one(players: list[Client], rng: random.Random) -> None:
    """One legal command from whichever player has one (acknowledged)."""
    for _attempt in range(100):
        for player in players:
            view = player.view or {}
            command = choose("rollie", "push", view, rng) if view else None
            if command is not None:
                with contextlib.suppress(CommandRejected):
                    await player.send(command)
                    return
        await asyncio.sleep(0.05)
    raise AssertionError("nobody had a legal command for 5 s")


def _regressions(url: str) -> float:
    for line in httpx.get(url + "/metrics").text.splitlines():
        if line.startswith(SERIES + " "):
            return float(line.split()[-1])
    return 0.0


async def test_a_log_that_went_back_is_counted(tmp_path: Path) -> None:
    db = tmp_path / "regress.db"
    server = ServerProcess(f"sqlite:///{db}", tmp_path)
    server.start()
    players: list[Client] = []
    try:
        made = await create_room(server.url, "rollie", 2, room={"clock": 0})
        room = made["room"]
        players = [await Client([server.ws_url], room, name=f"p{i}").connect() for i in range(2)]
        rng = random.Random(1)
        for _ in range(4):
            await _play_one(players, rng)
        assert _regressions(server.url) == 0
        top = max(p.seq for p in players)
        with contextlib.closing(sqlite3.connect(db)) as conn, conn:
            conn.execute("DELETE FROM events WHERE room = ? AND seq > ?", (room, top - 2))
        with contextlib.suppress(Exception):  # the room cannot take it: the log moved
            await _play_one(players, rng)
        for _attempt in range(100):
            if _regressions(server.url) >= 1:
                break
            await asyncio.sleep(0.05)
        assert _regressions(server.url) == 1
        logged = (tmp_path / f"server-{server.port}.log").read_text()
        assert "its log went back" in logged
    finally:
        for player in players:
            await player.close()
        server.stop()
