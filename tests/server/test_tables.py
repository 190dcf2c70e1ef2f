"""Tables people share, over HTTP and websockets against a real server (issue 21): a
private room does not exist for a stranger on any route, its invite link opens it, a
removed player stays out, a player's seat follows their session, quick match seats a
player, "my games" lists the room, chat travels and a hidden line is gone everywhere."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import websockets

from tests.support.server import LiveServer

V2 = "rollhouse.v2.json"


def auth(session: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {session}"}


async def guest(http: httpx.AsyncClient, name: str) -> tuple[str, str]:
    made = (await http.post("/api/players", json={"name": name})).json()
    return made["player"]["id"], made["session"]


class Socket:
    """A raw v2 JSON websocket: what a client written from docs/protocol.md sees."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.view: dict[str, Any] | None = None

    @classmethod
    async def hello(cls, server: LiveServer, **hello: Any) -> tuple[Socket, dict[str, Any]]:
        ws = await websockets.connect(server.ws_url, subprotocols=[V2])  # type: ignore[list-item]
        sock = cls(ws)
        await ws.send(json.dumps({"type": "hello", **hello}))
        first = await sock.next("welcome", "error")
        if first["type"] == "welcome":
            sock.view = first["view"]
        return sock, first

    async def next(self, *types: str) -> dict[str, Any]:
        while True:
            message = json.loads(await self.ws.recv())
            if message["type"] in types:
                return message

    async def act(self, act_id: str, **act: Any) -> dict[str, Any]:
        await self.ws.send(json.dumps({"type": "act", "id": act_id, "act": act}))
        while True:
            message = await self.next("ack", "reject")
            if message["id"] == act_id:
                return message

    async def close(self) -> None:
        await self.ws.close()


@pytest.fixture
async def http(live_server: LiveServer) -> Any:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as client:
        yield client


async def test_a_private_room_is_found_only_with_its_invite(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    """A stranger gets exactly what a room that does not exist gets, on every route and on
    the websocket; the invite code opens them all; the lobby never lists it."""
    _, ann = await guest(http, "Ann")
    made = await http.post(
        "/api/rooms", json={"game": "rollie", "seats": 2, "room": {"visibility": "private"}},
        headers=auth(ann),
    )  # fmt: skip
    assert made.status_code == 201
    room, code = made.json()["room"], made.json()["invite"]
    assert "access" not in made.json()
    paths = ["", "/events", "/view", "/verify", "/export"]
    for suffix in paths:
        hidden = await http.get(f"/api/rooms/{room}{suffix}")
        missing = await http.get(f"/api/rooms/r-00000000{suffix}")
        assert (hidden.status_code, hidden.json()["error"]["code"]) == (
            missing.status_code, missing.json()["error"]["code"]
        ) == (404, "room/not_found")  # fmt: skip
    assert room not in [r["room"] for r in (await http.get("/api/rooms")).json()["rooms"]]
    for suffix in ("", "/events", "/view", "/verify"):
        assert (await http.get(f"/api/rooms/{room}{suffix}?invite={code}")).status_code == 200
    assert (await http.get(f"/api/rooms/{room}", headers=auth(ann))).status_code == 200
    sock, refused = await Socket.hello(live_server, room=room, role="spectator")
    assert (refused["type"], refused["code"]) == ("error", "room/not_found")
    await sock.close()
    _, bea = await guest(http, "Bea")
    sock, welcome = await Socket.hello(
        live_server, room=room, role="player", session=bea, invite=code
    )
    assert welcome["type"] == "welcome" and welcome["seat"] == 0 and welcome["player"]
    await sock.close()


async def test_a_seat_follows_its_player_and_the_host_removes_a_player(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    """Bea takes a seat with her session, opens the room on a second device and has her
    seat back without a token; the host removes her; neither her session nor her seat
    token lets her back in."""
    _, ann = await guest(http, "Ann")
    _, bea = await guest(http, "Bea")
    room = (
        await http.post("/api/rooms", json={"game": "rollie", "seats": 3}, headers=auth(ann))
    ).json()["room"]
    host, _ = await Socket.hello(live_server, room=room, role="player", session=ann)
    first, welcome = await Socket.hello(live_server, room=room, role="player", session=bea)
    token, seat = welcome["seat_token"], welcome["seat"]
    second, again = await Socket.hello(live_server, room=room, role="player", session=bea)
    assert (again["seat"], again["seat_token"]) == (seat, None)
    replaced = await first.next("error")
    assert replaced["code"] == "room/replaced"
    reply = await host.act("r1", type="remove", seat=seat)
    assert reply["type"] == "ack"
    assert (await second.next("error"))["code"] == "room/removed"
    for hello in ({"session": bea}, {"seat_token": token}):
        sock, refused = await Socket.hello(live_server, room=room, role="player", **hello)
        assert refused["code"] == "room/removed"
        await sock.close()
    listed = (await http.get("/api/me/rooms", headers=auth(bea))).json()["rooms"]
    assert [r["room"] for r in listed] == [room]
    await host.close()


async def test_chat_reaches_the_table_and_a_hidden_line_is_gone_everywhere(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    """A player's line reaches a spectator's view; a spectator's line stays among
    spectators; the host hides a line: it leaves every view, the history and the export."""
    _, ann = await guest(http, "Ann")
    _, cai = await guest(http, "Cai")
    room = (
        await http.post(
            "/api/rooms", json={"game": "rollie", "seats": 2, "room": {"bots": 1, "bot_delay": 0}},
            headers=auth(ann),
        )
    ).json()["room"]  # fmt: skip
    host, _ = await Socket.hello(live_server, room=room, role="player", session=ann)
    watcher, _ = await Socket.hello(live_server, room=room, role="spectator", session=cai)
    said = await host.act("c1", type="chat", text="bonne chance")
    assert said["type"] == "ack"
    whisper = await watcher.act("c2", type="chat", text="ann is ahead")
    assert whisper["type"] == "ack"
    refused = await host.act("c3", type="chat", text="<b>hi</b>")
    assert (refused["type"], refused["code"]) == ("reject", "chat/bad_text")
    view = (await http.get(f"/api/rooms/{room}/view")).json()["view"]
    assert [c["text"] for c in view["chat"]["players"]] == ["bonne chance"]
    assert [c["text"] for c in view["chat"]["spectators"]] == ["ann is ahead"]
    assert (await host.act("h1", type="hide", seq=said["seq"]))["type"] == "ack"
    view = (await http.get(f"/api/rooms/{room}/view")).json()["view"]
    assert view["chat"]["players"] == []
    events = (await http.get(f"/api/rooms/{room}/events?limit=500")).json()["events"]
    assert "bonne chance" not in json.dumps(events)
    assert "ann is ahead" in json.dumps(events)
    await host.close()
    await watcher.close()


async def test_quick_match_seats_players_and_fills_a_room(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    """Two players quick-match a two-seat Rollie table: the same room, seats 0 and 1 held;
    their hellos claim them and the game starts; a third gets a new room; asking twice
    gives the same seat; the lobby's open public room of that size is matched first."""
    players = [await guest(http, name) for name in ("Ann", "Bea", "Cai")]
    lobby = (await http.post("/api/rooms", json={"game": "rollie", "seats": 2})).json()["room"]
    answers = []
    for _, session in players:
        reply = await http.post(
            "/api/match", json={"game": "rollie", "seats": 2}, headers=auth(session)
        )
        assert reply.status_code == 200, reply.text
        answers.append(reply.json())
    assert [a["room"] for a in answers[:2]] == [lobby, lobby]
    assert sorted(a["seat"] for a in answers[:2]) == [0, 1]
    assert answers[2]["room"] != lobby
    again = await http.post(
        "/api/match", json={"game": "rollie", "seats": 2}, headers=auth(players[2][1])
    )
    assert (again.json()["room"], again.json()["seat"]) == (answers[2]["room"], answers[2]["seat"])
    socks = []
    for (_, session), answer in zip(players[:2], answers, strict=False):
        sock, welcome = await Socket.hello(live_server, room=lobby, role="player", session=session)
        assert welcome["seat"] == answer["seat"]
        socks.append(sock)
    info = (await http.get(f"/api/rooms/{lobby}")).json()
    assert info["status"] == "playing"
    assert (await http.post("/api/match", json={"game": "rollie", "seats": 2})).status_code == 401
    for sock in socks:
        await sock.close()


async def test_a_v1_client_plays_a_public_room_and_never_sees_v2(
    live_server: LiveServer,
) -> None:
    """A v1 connection gets no player in its welcome and refuses v2's act as before."""
    room = (await live_server.create_room("rollie", 2))["room"]
    async with websockets.connect(live_server.ws_url, subprotocols=["rollhouse.v1.json"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "hello", "room": room, "role": "player", "name": "old"}))
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome" and "player" not in welcome
        await ws.send(json.dumps({"type": "act", "id": "a", "act": {"type": "chat", "text": "x"}}))
        while (message := json.loads(await ws.recv()))["type"] != "error":
            pass
        assert message["code"] == "protocol/unknown_type"


async def test_guessing_invite_codes_is_bounded_per_address(
    live_server: LiveServer, http: httpx.AsyncClient
) -> None:
    """Thirty wrong codes a minute from one address (HTTP and websocket counted together);
    past them the right code is refused too, so a guess learns nothing; counted in
    /metrics."""
    _, ann = await guest(http, "Ann")
    made = await http.post(
        "/api/rooms", json={"game": "rollie", "seats": 2, "room": {"visibility": "private"}},
        headers=auth(ann),
    )  # fmt: skip
    room, code = made.json()["room"], made.json()["invite"]
    for i in range(20):
        wrong = await http.get(f"/api/rooms/{room}?invite=guess-{i:04d}")
        assert wrong.status_code == 404
    for i in range(10):
        sock, refused = await Socket.hello(live_server, room=room, role="spectator", invite=f"g{i}")
        assert refused["code"] == "room/not_found"
        await sock.close()
    for _ in range(50):  # the websocket's counts land in the background
        if (await http.get(f"/api/rooms/{room}?invite={code}")).status_code == 429:
            break
    limited = await http.get(f"/api/rooms/{room}?invite={code}")
    assert (limited.status_code, limited.json()["error"]["code"]) == (429, "http/rate_limited")
    sock, refused = await Socket.hello(live_server, room=room, role="spectator", invite=code)
    assert refused["code"] == "room/rate_limited"
    await sock.close()
    assert 'rollhouse_limit_refusals_total{limit="invite"}' in (await http.get("/metrics")).text
    assert (await http.get(f"/api/rooms/{room}", headers=auth(ann))).status_code == 200
