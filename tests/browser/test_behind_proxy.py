"""The web client through deploy/haproxy.cfg in front of three nodes on one Redis.

The page knows one origin, the proxy's (as behind any load balancer). A player plays
a Rollie game against a hosted bot; the node running the room is SIGKILLed mid-game;
the page reconnects to its own origin, haproxy sends it to a surviving node, which
has taken the room over, and the game goes on to the end in the same page.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from tests.browser.conftest import NewPage
from tests.browser.helpers import FINAL, my_seat, play_one, table_url
from tests.support.haproxy import Haproxy, haproxy_binary
from tests.support.redis_server import start_redis
from tests.support.server import ServerProcess, free_port

pytestmark = [pytest.mark.timeout(180), pytest.mark.redis]


async def test_the_web_client_plays_through_haproxy_and_outlives_its_node(
    tmp_path: Path, new_page: NewPage
) -> None:
    haproxy_binary()  # skip (or fail under CI) before anything starts
    url, stop = start_redis(tmp_path / "redis", appendonly=True)
    port = free_port()
    origin = {"ROLLHOUSE_ORIGINS": f"http://127.0.0.1:{port}"}  # the page's origin: the proxy
    servers = [
        ServerProcess(url, tmp_path, args=("--node-id", f"n{i}", "--lease", "2"), env=origin)
        for i in range(3)
    ]
    front = Haproxy(tmp_path, port, [s.port for s in servers])
    try:
        for server in servers:
            await asyncio.to_thread(server.start)
        await asyncio.to_thread(front.start)
        async with httpx.AsyncClient(base_url=front.url, timeout=10) as http:
            # four rounds: the node dies after three of Ana's moves, so the game must not
            # end before them (two rounds ended within two of her moves in 18 of 300
            # simulated games; four gave her at least four moves in all 300)
            body = {"game": "rollie", "seats": 2, "options": {"rounds": 4},
                    "room": {"clock": 0, "bots": 1, "bot_delay": 0.1}}  # fmt: skip
            info = (await http.post("/api/rooms", json=body)).json()
        room, owner = info["room"], int(info["node"][1:])

        page = await new_page("Ana")
        await page.goto(table_url(front.url, room))
        seat = await my_seat(page)
        moves: list[str] = []
        while len([m for m in moves if m != "missed"]) < 3:  # bounded by play_one's waits
            moves.append(await play_one(page, seat))
            assert len(moves) < 60 and "over" not in moves
        servers[owner].kill()  # the node running the room dies mid-game
        for _ in range(400):
            move = await play_one(page, seat)
            moves.append(move)
            if move == "over":
                break
        assert moves[-1] == "over", moves[-20:]
        await page.wait_for_selector(FINAL)
        await page.wait_for_selector("[data-testid=connection-status][data-state=connected]")
        async with httpx.AsyncClient(base_url=front.url, timeout=10) as http:
            for _ in range(50):  # the room list's summary follows the log (published after it)
                final = (await http.get(f"/api/rooms/{room}")).json()
                if final["status"] == "finished":
                    break
                await asyncio.sleep(0.1)
        assert final["status"] == "finished" and final["node"] != f"n{owner}"
        scores = final["result"]["scores"]
        for s, score in enumerate(scores):
            total = await page.get_by_test_id(f"final-row-{s}").get_attribute("data-total")
            assert total == str(score)
    finally:
        front.stop()
        for server in servers:
            server.kill()
        stop()
