"""Crash test: SIGKILL the server mid-game, restart it, and lose nothing acknowledged.

For the SQLite and the Redis store: three SDK clients play Rollie with the push
policy against a server in a child process; the server is killed with SIGKILL
mid-game and restarted on the same port; the clients reconnect by themselves and
finish the game; every acknowledged command is in the log exactly once, at the
sequence number its ack named.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clients.bots.play import play_seat
from clients.sdk import Client, create_room
from server.store import open_store
from tests.support.faults import report
from tests.support.redis_server import start_redis
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(180)


class RecordingClient(Client):
    """A client that remembers the id and ack seq of every command it got acked."""

    acked: list[tuple[str, int]]

    async def send(self, command: dict[str, Any], cmd_id: str | None = None) -> int:
        cmd_id = cmd_id or self.next_id()
        seq = await super().send(command, cmd_id)
        self.acked.append((cmd_id, seq))
        return seq


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'crash.db'}"
        return
    url, stop = start_redis(tmp_path)
    try:
        yield url
    finally:
        stop()


async def test_sigkill_mid_game_loses_nothing_acknowledged(store_url: str, tmp_path: Path) -> None:
    """Killed mid-game and restarted: the game finishes and every ack is in the log exactly once."""
    server = ServerProcess(store_url, tmp_path)
    server.start()
    try:
        info = await create_room(server.url, "rollie", 3, room={"clock": 0})
        players = []
        for i in range(3):
            client = RecordingClient(server.ws_url, info["room"], name=f"p{i}", backoff=(0.05, 0.5))
            client.acked = []
            players.append(await client.connect())
        games = [
            asyncio.create_task(play_seat(p, "push", delay=0.01, seed=i))
            for i, p in enumerate(players)
        ]
        await players[0].wait_for(lambda _: players[0].seq >= 25, timeout=60)
        server.kill()
        await asyncio.sleep(0.3)
        server.start()
        finals = await asyncio.wait_for(asyncio.gather(*games), 120)
        assert all(view["room"]["status"] == "finished" for view in finals)
        assert sum(p.reconnects for p in players) >= 3
        for p in players:
            await p.close()
    finally:
        server.stop()
    store = open_store(store_url)
    try:
        records = await store.read(info["room"])
    finally:
        await store.close()
    assert [r.seq for r in records] == list(range(1, len(records) + 1))
    logged: dict[tuple[int, str], list[int]] = {}
    for r in records:
        if r.data.get("cmd") is not None:
            logged.setdefault((r.data["seat"], r.data["cmd"]), []).append(r.seq)
    acked = [(p.seat, cmd_id, seq) for p in players for cmd_id, seq in p.acked]
    assert acked, "the clients had commands acknowledged"
    report(
        "players through a server SIGKILL",
        "sigkill-" + store_url.split(":")[0],
        acked=len(acked),
        acked_found_in_log=sum(1 for s, c, _ in acked if (s, c) in logged),
        lost=sum(1 for s, c, _ in acked if (s, c) not in logged),
        duplicated=sum(1 for seqs in logged.values() if len(seqs) > 1),
    )
    for seat, cmd_id, seq in acked:
        assert logged.get((seat, cmd_id)) == [seq], (seat, cmd_id)
