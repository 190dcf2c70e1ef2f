"""The HTTP API: health, games, rooms (create, list, one), metrics, and their error codes."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from clients.sdk import Client, CommandRejected
from tests.support.server import LiveServer


async def post(server: LiveServer, body: Any) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.url) as http:
        return await http.post("/api/rooms", json=body)


async def get(server: LiveServer, path: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.url) as http:
        return await http.get(path)


async def test_health_and_games(live_server: LiveServer) -> None:
    """Health answers ok; the games list names Rollie with its seats, options and bot policies."""
    assert (await get(live_server, "/api/health")).json()["ok"] is True
    games = {g["name"]: g for g in (await get(live_server, "/api/games")).json()["games"]}
    rollie = games["rollie"]
    assert (rollie["min_seats"], rollie["max_seats"]) == (2, 6)
    assert rollie["options"]["bills_per_value"] == 30
    assert "push" in rollie["policies"]


async def test_create_list_and_show_a_room(live_server: LiveServer) -> None:
    """A created room is listed with its status and counts, and shown on its own."""
    created = (
        await post(live_server, {"game": "rollie", "seats": 3, "options": {"rounds": 3}})
    ).json()
    assert created["status"] == "waiting" and created["seats"] == 3
    watcher = await Client(live_server.ws_url, created["room"], role="spectator").connect()
    rooms = (await get(live_server, "/api/rooms")).json()["rooms"]
    listed = next(r for r in rooms if r["room"] == created["room"])
    assert (listed["game"], listed["spectators"], listed["taken"]) == ("rollie", 1, 0)
    one = (await get(live_server, f"/api/rooms/{created['room']}")).json()
    assert one["options"] == {"rounds": 3}
    await watcher.close()


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"game": "chess", "seats": 2}, 404, "room/unknown_game"),
        ({"game": "rollie", "seats": 9}, 400, "room/bad_options"),
        (
            {"game": "rollie", "seats": 2, "options": {"bills_per_value": "many"}},
            400,
            "room/bad_options",
        ),
        ({"game": "rollie", "seats": 2, "options": {"colour": 1}}, 400, "room/bad_options"),
        ({"game": "rollie", "seats": 2, "room": {"clock": -1}}, 400, "room/bad_options"),
        (
            {"game": "rollie", "seats": 2, "room": {"bots": 1, "bot_policy": "psychic"}},
            400,
            "room/bad_options",
        ),
        ({"game": "rollie", "seats": 2, "extra": True}, 400, "room/bad_options"),
        ([1, 2], 400, "http/bad_json"),
    ],
)
async def test_create_room_errors(
    live_server: LiveServer, body: Any, status: int, code: str
) -> None:
    """Bad room requests get a status, a stable code, and create nothing."""
    before = len((await get(live_server, "/api/rooms")).json()["rooms"])
    reply = await post(live_server, body)
    assert (reply.status_code, reply.json()["error"]["code"]) == (status, code)
    assert len((await get(live_server, "/api/rooms")).json()["rooms"]) == before


async def test_unknown_room_is_404(live_server: LiveServer) -> None:
    """A room id nobody created is room/not_found."""
    reply = await get(live_server, "/api/rooms/r-missing")
    assert (reply.status_code, reply.json()["error"]["code"]) == (404, "room/not_found")


async def test_metrics_count_commands_and_rejections(live_server: LiveServer) -> None:
    """/metrics shows rooms, connections, commands, rejections by code and latency histograms."""
    room = (await live_server.create_room("rollie", 2, room={"clock": 0}))["room"]
    a, b = [await Client(live_server.ws_url, room).connect() for _ in range(2)]
    view = await a.wait_for(lambda v: v["room"]["status"] == "playing")
    roller, other = (a, b) if view["game"]["first_player"] == a.seat else (b, a)
    await roller.send({"type": "roll"})
    with pytest.raises(CommandRejected) as refused:  # the code depends on the dice rolled
        await other.send({"type": "take", "value": 3})
    text = (await get(live_server, "/metrics")).text
    assert "rollhouse_rooms_live 1" in text
    assert "rollhouse_connections 2" in text
    assert 'rollhouse_commands_total{game="rollie"} 1' in text
    assert f'rollhouse_rejections_total{{code="{refused.value.code}"}} 1' in text
    assert "rollhouse_append_seconds_count" in text and "rollhouse_fanout_seconds_bucket" in text
    await a.close()
    await b.close()


async def test_the_room_list_pages_newest_first_and_follows_the_rooms(tmp_path: Any) -> None:
    """GET /api/rooms: pages of ``limit`` from ``cursor``, newest first, every room once,
    from the store's summary index (a restarted server lists the same, with each room's
    last status, without loading a room)."""
    from server.config import Settings
    from tests.support.server import serve

    url = f"sqlite:///{tmp_path}/list.db"
    async with serve(Settings(store_url=url)) as server:
        made = [(await server.create_room("rollie", 2))["room"] for _ in range(12)]
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
            bad = await http.get("/api/rooms", params={"cursor": "x"})
            assert bad.status_code == 400
            assert await pages(http) == list(reversed(made))
        watcher = await Client(server.ws_url, made[0], role="spectator").connect()
        await watcher.close()
    async with serve(Settings(store_url=url)) as again:
        async with httpx.AsyncClient(base_url=again.url, timeout=10) as http:
            assert await pages(http) == list(reversed(made))
            first = (await http.get("/api/rooms", params={"limit": 1})).json()["rooms"][0]
        assert first["room"] == made[-1] and first["status"] == "waiting"
        assert again.services.rooms.live == {}


async def pages(http: httpx.AsyncClient) -> list[str]:
    seen: list[str] = []
    cursor: int | None = 0
    for _ in range(20):  # bounded
        reply = (await http.get("/api/rooms", params={"cursor": cursor, "limit": 5})).json()
        assert len(reply["rooms"]) <= 5
        seen += [r["room"] for r in reply["rooms"]]
        cursor = reply["next"]
        if cursor is None:
            return seen
    raise AssertionError("the pages did not end")
