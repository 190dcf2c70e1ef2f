"""Issue 24: what the lobby shows of a room: who sits where (``names``), and when a room
still waiting with nobody at it has expired (``expires_at``; a rematch nobody joined
leaves the lobby's list that way)."""

from __future__ import annotations

import httpx

from server.room import views
from tests.support.server import LiveServer


async def test_a_summary_names_the_seated_and_when_a_waiting_room_expires(
    live_server: LiveServer,
) -> None:
    made = await live_server.create_room("rollie", 3, room={"clock": 0, "bots": 1})
    assert made["names"] == ["bot 1", None, None]
    assert made["status"] == "waiting"
    assert made["expires_at"] == made["created_at"] + views.WAITING_EXPIRES
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as http:
        listed = (await http.get("/api/rooms")).json()["rooms"]
    row = next(r for r in listed if r["room"] == made["room"])
    assert row["names"] == ["bot 1", None, None] and row["expires_at"] == made["expires_at"]
    # a room that is not waiting does not expire
    full = await live_server.create_room("rollie", 2, room={"clock": 0, "bots": 2})
    assert full["status"] == "playing"
    assert full["expires_at"] is None
    assert full["names"] == ["bot 1", "bot 2"]
