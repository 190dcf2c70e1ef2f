"""Quick match across three nodes on one real Redis (issue 21): 300 players ask at once,
spread over the nodes. Every player is held exactly one seat, no room is held more
seats than it has, every player's hello claims their seat, and every game starts.
Figures are printed, never asserted on time."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.cluster.conftest import LEASE
from tests.support.redis_server import start_redis
from tests.support.server import ServerProcess

pytestmark = pytest.mark.redis

PLAYERS = 300
SEATS = 4
V2 = "rollhouse.v2.json"


async def claim(server: ServerProcess, room: str, session: str) -> dict[str, Any]:
    """The player's hello to their room through ``server`` (again at once after
    ``room/moved``, as docs/protocol.md says): the welcome, with the room's status once
    it started (or after 30 s)."""
    for _ in range(20):
        answer = await _claim(server, room, session)
        if answer.get("code") != "room/moved":
            return answer
    return answer


async def _claim(server: ServerProcess, room: str, session: str) -> dict[str, Any]:
    async with websockets.connect(server.ws_url, subprotocols=[V2], open_timeout=30) as ws:  # type: ignore[list-item]
        await ws.send(
            json.dumps({"type": "hello", "room": room, "role": "player", "session": session})
        )
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if message["type"] in ("welcome", "error"):
                welcome = message
                break
        if welcome["type"] == "error":
            return welcome
        status = (welcome.get("view") or {}).get("room", {}).get("status")
        deadline = time.monotonic() + 30
        while status != "playing" and time.monotonic() < deadline:
            message = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if message["type"] == "patch":
                for op in message["ops"]:
                    if op.get("path") == ["room", "status"]:
                        status = op["value"]
        return {**welcome, "status": status}


async def test_300_quick_matches_on_three_nodes_seat_everyone_once(tmp_path: Path) -> None:
    """300 quick-match requests at once over three nodes: one seat each, no room overfilled,
    every hold claimed, every game started."""
    url, stop = start_redis(tmp_path / "redis", appendonly=True)
    env = {"ROLLHOUSE_GUESTS_PER_MINUTE": "1000", "ROLLHOUSE_CONNECTIONS_PER_ADDRESS": "1000"}
    servers = [
        ServerProcess(url, tmp_path, args=("--node-id", f"n{i}", "--lease", str(LEASE)), env=env)
        for i in range(3)
    ]
    try:
        for server in servers:
            server.start()
        limits = httpx.Limits(max_connections=400, max_keepalive_connections=0)  # no stale reuse
        async with httpx.AsyncClient(timeout=60, limits=limits) as http:
            made = await asyncio.gather(*(
                http.post(servers[i % 3].url + "/api/players", json={"name": f"p{i}"})
                for i in range(PLAYERS)
            ))  # fmt: skip
            assert [m.status_code for m in made] == [201] * PLAYERS, [
                m.text for m in made if m.status_code != 201
            ][:2]
            sessions = [m.json()["session"] for m in made]
            players = [m.json()["player"]["id"] for m in made]
            started = time.perf_counter()
            answers = await asyncio.gather(*(
                http.post(servers[(i + 1) % 3].url + "/api/match",
                          json={"game": "rollie", "seats": SEATS},
                          headers={"Authorization": f"Bearer {sessions[i]}"})
                for i in range(PLAYERS)
            ))  # fmt: skip
            matched = time.perf_counter() - started
        assert [a.status_code for a in answers] == [200] * PLAYERS, [
            a.text for a in answers if a.status_code != 200
        ][:3]
        holds = [(a.json()["room"], a.json()["seat"]) for a in answers]
        assert len(set(holds)) == PLAYERS  # no seat held twice
        per_room = Counter(room for room, _ in holds)
        assert max(per_room.values()) <= SEATS and all(s < SEATS for _, s in holds)
        claims = await asyncio.gather(*(
            claim(servers[(i + 2) % 3], holds[i][0], sessions[i]) for i in range(PLAYERS)
        ))  # fmt: skip
        assert [c["type"] for c in claims] == ["welcome"] * PLAYERS, [
            c for c in claims if c["type"] != "welcome"
        ][:3]
        assert [c["seat"] for c in claims] == [seat for _, seat in holds]
        assert {c["player"] for c in claims} == set(players)
        full = [room for room, n in per_room.items() if n == SEATS]
        assert all(
            c["status"] == "playing"
            for c, (room, _) in zip(claims, holds, strict=True)
            if room in full
        )
        print(
            f"\n{PLAYERS} quick matches over 3 nodes: {len(per_room)} rooms "
            f"({len(full)} full, seats held per room {sorted(Counter(per_room.values()).items())}), "
            f"matched in {matched:.2f} s ({PLAYERS / matched:.0f} matches/s); "
            f"every hold claimed, every full room playing"
        )
        assert len(full) >= PLAYERS // SEATS - 2  # the rooms are filled, not scattered
    finally:
        for server in servers:
            server.kill()
        stop()
