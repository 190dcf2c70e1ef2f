"""``rollhouse bots`` against a real server: real websocket clients play a room to the end."""

from __future__ import annotations

import asyncio
import io

import httpx
import pytest

from clients.bots.cli import run_bots
from clients.cli import main
from tests.support.server import LiveServer


async def room_info(server: LiveServer, room: str) -> dict:  # type: ignore[type-arg]
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        reply = await http.get(f"/api/rooms/{room}")
        reply.raise_for_status()
        return reply.json()  # type: ignore[no-any-return]


async def test_two_bots_play_a_room_to_the_end(
    live_server: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """`rollhouse bots --count 2 --delay 0` fills a 2-seat room, finishes it, prints scores."""
    room = (await live_server.create_room(seats=2, options={"rounds": 2}))["room"]
    argv = ["bots", live_server.url, "--room", room, "--count", "2", "--delay", "0"]
    code = await asyncio.wait_for(asyncio.to_thread(main, [*argv, "--seed", "7"]), 60)
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    info = await room_info(live_server, room)
    assert info["status"] == "finished" and info["taken"] == 2
    result = info["result"]
    assert sorted(lines) == [
        f"seat {seat} bot-{seat + 1} (push): {result['scores'][seat]} points"
        + (", winner" if seat in result["winners"] else "")
        for seat in (0, 1)
    ]


async def test_more_bots_than_seats(live_server: LiveServer) -> None:
    """Bots beyond the free seats report the full room; the others still play; exit 1."""
    room = (await live_server.create_room(seats=2, options={"rounds": 1}))["room"]
    out = io.StringIO()
    code = await asyncio.wait_for(
        run_bots(live_server.ws_url, room, 3, policy="random", delay=0, seed=1, out=out), 60
    )
    text = out.getvalue()
    assert code == 1
    assert "bot-3: could not join" in text and "room/full" in text
    assert "seat 0 bot-1 (random):" in text and "seat 1 bot-2 (random):" in text
    assert (await room_info(live_server, room))["status"] == "finished"


async def test_unknown_policy_is_refused(live_server: LiveServer) -> None:
    """An unknown --policy exits with 2 before any move is made."""
    room = (await live_server.create_room(seats=2))["room"]
    out = io.StringIO()
    code = await asyncio.wait_for(run_bots(live_server.url, room, 2, policy="nope", out=out), 30)
    assert code == 2 and "unknown policy 'nope'" in out.getvalue()
    assert (await room_info(live_server, room))["seq"] <= 3  # setup and seating only
