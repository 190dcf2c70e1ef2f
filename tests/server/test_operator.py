"""The operator console over HTTP and websockets: every route 401 without the token,
the console off without one configured, and each action doing what it says and
landing in the audit log (docs/protocol.md 12.3)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import websockets
from starlette.routing import Route

from server.api.operator import routes
from server.config import Settings
from tests.support.server import LiveServer, serve

TOKEN = "operator-token-for-tests-0123456789abcdef"
JSON = "rollhouse.v1.json"
AUTH = {"Authorization": f"Bearer {TOKEN}", "X-Operator": "ann"}
BANNED = "203.0.113.7"


@pytest.fixture
async def console_server() -> AsyncIterator[LiveServer]:
    settings = Settings(store_url="memory://", operator_token=TOKEN, trusted_proxies=("127.0.0.1",),
                        operator_wrong_tokens_per_minute=30)  # fmt: skip
    async with serve(settings) as server:
        yield server


def every_route() -> list[tuple[str, str]]:
    out = []
    for route in routes():
        assert isinstance(route, Route)
        path = re.sub(r"\{\w+\}", "r-x", route.path)
        out.extend((method, path) for method in sorted(route.methods or ()) if method != "HEAD")
    return out


async def call(server: LiveServer, method: str, path: str, **kw: Any) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        return await http.request(method, path, **kw)


async def test_every_console_route_is_401_without_the_token(console_server: LiveServer) -> None:
    """No token, another scheme or a wrong token: 401 operator/unauthorized on every route,
    with nothing done (the audit log stays empty)."""
    assert len(every_route()) == 13
    wrong = [{}, {"Authorization": "Bearer nope"}, {"Authorization": f"Basic {TOKEN}"}]
    for i, (method, path) in enumerate(every_route()):
        headers = wrong[i % len(wrong)]
        reply = await call(console_server, method, path, headers=headers, json={})
        assert reply.status_code == 401, (method, path, reply.text)
        assert reply.json()["error"]["code"] == "operator/unauthorized"
        assert reply.headers["WWW-Authenticate"] == "Bearer"
    assert await console_server.services.store.operator.audit_tail(10) == []


async def test_wrong_tokens_are_bounded_per_address(console_server: LiveServer) -> None:
    """Past the bound of requests without the right token in a minute, the address gets
    429 operator/rate_limited, the right token too."""
    limit = console_server.services.settings.operator_wrong_tokens_per_minute
    for _ in range(limit):
        reply = await call(console_server, "GET", "/api/operator/nodes")
        assert reply.status_code == 401
    reply = await call(console_server, "GET", "/api/operator/nodes", headers=AUTH)
    assert reply.status_code == 429
    assert reply.json()["error"]["code"] == "operator/rate_limited"
    assert int(reply.headers["Retry-After"]) >= 1


async def test_the_console_is_off_without_a_token(live_server: LiveServer) -> None:
    """No token configured: 404 operator/off, whatever the request carries."""
    reply = await call(live_server, "GET", "/api/operator/nodes", headers=AUTH)
    assert reply.status_code == 404
    assert reply.json()["error"]["code"] == "operator/off"


async def hello(server: LiveServer, room: str, name: str, **headers: str) -> Any:
    ws = await websockets.connect(server.ws_url, subprotocols=[JSON],  # type: ignore[list-item]
                                  additional_headers=headers)  # fmt: skip
    await ws.send(json.dumps({"type": "hello", "room": room, "role": "player", "name": name}))
    return ws


async def until_error(ws: Any) -> dict[str, Any]:
    """The next ``error`` message on ``ws``."""
    async with asyncio.timeout(10):
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "error":
                return message  # type: ignore[no-any-return]


async def test_closing_a_room_tells_its_players_why(console_server: LiveServer) -> None:
    """The players get room/closed with the reason and are closed 4000; a new hello is
    refused the same way; the room lists as closed; the audit log has it."""
    room = (await console_server.create_room("rollie", 2))["room"]
    ann, bob = await hello(console_server, room, "ann"), await hello(console_server, room, "bob")
    for ws in (ann, bob):
        assert json.loads(await ws.recv())["type"] == "welcome"
    reply = await call(console_server, "POST", f"/api/operator/rooms/{room}/close",
                       headers=AUTH, json={"reason": "stuck game"})  # fmt: skip
    assert reply.status_code == 200, reply.text
    for ws in (ann, bob):
        error = await until_error(ws)
        assert (error["code"], error["fatal"]) == ("room/closed", True)
        assert "stuck game" in error["message"]
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (4000, "room/closed")
    late = await hello(console_server, room, "cy")
    assert (await until_error(late))["code"] == "room/closed"
    await late.close()
    history = await call(console_server, "GET", f"/api/rooms/{room}/events")
    assert history.status_code == 200  # its log stays readable
    public = (await call(console_server, "GET", f"/api/rooms/{room}")).json()
    assert public["status"] == "closed"
    again = await call(console_server, "POST", f"/api/rooms/{room}/rematch")
    assert (again.status_code, again.json()["error"]["code"]) == (410, "room/closed")
    listed = await call(console_server, "GET", "/api/operator/rooms?status=closed", headers=AUTH)
    assert [r["room"] for r in listed.json()["rooms"]] == [room]
    shown = (await call(console_server, "GET", f"/api/operator/rooms/{room}", headers=AUTH)).json()
    assert shown["closed"] == "stuck game" and shown["events"][0]["act"]["type"] == "close"
    (entry,) = (await call(console_server, "GET", "/api/operator/audit", headers=AUTH)).json()[
        "audit"
    ]
    assert (entry["who"], entry["action"], entry["target"], entry["result"]) == (
        "ann", "close", room, "ok"
    )  # fmt: skip
    assert entry["from"] == "127.0.0.1" and entry["reason"] == "stuck game"


async def test_a_banned_address_is_refused_at_the_handshake_and_on_http(
    console_server: LiveServer,
) -> None:
    """A ban of an address: its open socket closed with server/banned, its handshakes
    refused 403 server/banned, its API requests too; other addresses and the console
    go on; lifted, it comes back."""
    room = (await console_server.create_room("rollie", 2))["room"]
    there = await hello(console_server, room, "eve", **{"X-Forwarded-For": BANNED})
    assert json.loads(await there.recv())["type"] == "welcome"
    body = {"kind": "address", "value": BANNED, "minutes": 5, "reason": "flooding"}
    reply = await call(console_server, "POST", "/api/operator/bans", headers=AUTH, json=body)
    assert reply.status_code == 200, reply.text
    error = await until_error(there)
    assert error["code"] == "server/banned" and "flooding" in error["message"]
    with pytest.raises(websockets.InvalidStatus) as refused:
        await hello(console_server, room, "eve", **{"X-Forwarded-For": BANNED})
    assert refused.value.response.status_code == 403
    assert json.loads(refused.value.response.body)["error"]["code"] == "server/banned"
    xff = {"X-Forwarded-For": BANNED}
    api = await call(console_server, "GET", "/api/rooms", headers=xff)
    assert (api.status_code, api.json()["error"]["code"]) == (403, "server/banned")
    assert (await call(console_server, "GET", "/api/rooms")).status_code == 200
    other = await hello(console_server, room, "bob")
    assert json.loads(await other.recv())["type"] == "welcome"
    await other.close()
    bans = (await call(console_server, "GET", "/api/operator/bans", headers=AUTH)).json()["bans"]
    assert [(b["kind"], b["value"], b["reason"]) for b in bans] == [("address", BANNED, "flooding")]
    lift = {"kind": "address", "value": BANNED}
    reply = await call(console_server, "POST", "/api/operator/bans/lift", headers=AUTH, json=lift)
    assert reply.status_code == 200
    assert (await call(console_server, "GET", "/api/rooms", headers=xff)).status_code == 200
    audit = (await call(console_server, "GET", "/api/operator/audit", headers=AUTH)).json()
    assert [e["action"] for e in audit["audit"]] == ["unban", "ban"]


async def test_a_notice_reaches_every_connection(console_server: LiveServer) -> None:
    """A maintenance notice arrives as a non-fatal server/notice error; the connection
    stays; the nodes, connections and audit views show what happened."""
    room = (await console_server.create_room("rollie", 2))["room"]
    ann = await hello(console_server, room, "ann")
    assert json.loads(await ann.recv())["type"] == "welcome"
    text = "restart at 10:00 UTC"
    reply = await call(console_server, "POST", "/api/operator/notice", headers=AUTH,
                       json={"text": text})  # fmt: skip
    assert reply.json()["told"] == 1
    error = await until_error(ann)
    assert (error["code"], error["message"], error["fatal"]) == ("server/notice", text, False)
    await ann.send(json.dumps({"type": "ping", "nonce": 7}))
    assert json.loads(await asyncio.wait_for(ann.recv(), 10))["type"] == "pong"
    nodes = await call(console_server, "GET", "/api/operator/nodes", headers=AUTH)
    assert nodes.headers["Cache-Control"] == "no-store"
    (node,) = nodes.json()["nodes"]
    assert (node["rooms"], node["connections"], node["lease_age"]) == (1, 1, None)
    by_address = await call(console_server, "GET", "/api/operator/connections", headers=AUTH)
    assert by_address.json()["addresses"][0]["address"] == "127.0.0.1"
    await ann.close()


async def test_remove_and_hide_and_bad_input(console_server: LiveServer) -> None:
    """Remove closes the named connection with room/removed; hide takes a chat line out;
    bad input is 400 and written as refused; an unknown room is 404."""
    room = (await console_server.create_room("rollie", 2))["room"]
    ann = await hello(console_server, room, "ann")
    assert json.loads(await ann.recv())["type"] == "welcome"
    shown = (await call(console_server, "GET", f"/api/operator/rooms/{room}", headers=AUTH)).json()
    (peer,) = shown["connections"]
    body = {"peer": peer["peer"], "reason": "abuse"}
    reply = await call(console_server, "POST", f"/api/operator/rooms/{room}/remove", headers=AUTH,
                       json=body)  # fmt: skip
    assert reply.json()["value"] == 1
    error = await until_error(ann)
    assert error["code"] == "room/removed" and "abuse" in error["message"]
    bad = await call(console_server, "POST", f"/api/operator/rooms/{room}/hide", headers=AUTH,
                     json={"seq": 1})  # fmt: skip
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "room/bad_action")
    none = await call(console_server, "POST", "/api/operator/rooms/r-none/close", headers=AUTH,
                      json={"reason": "x"})  # fmt: skip
    assert (none.status_code, none.json()["error"]["code"]) == (404, "room/not_found")
    empty = await call(console_server, "POST", "/api/operator/notice", headers=AUTH, json={})
    assert (empty.status_code, empty.json()["error"]["code"]) == (400, "http/bad_json")
    audit = (await call(console_server, "GET", "/api/operator/audit", headers=AUTH)).json()
    results = [(e["action"], e["result"]) for e in audit["audit"]]
    assert results == [("close", "room/not_found"), ("hide", "room/bad_action"), ("remove", "ok")]


async def test_a_banned_player_is_refused_at_hello_and_on_http(console_server: LiveServer) -> None:
    """A ban of a player id: their session opens nothing over HTTP (403 server/banned)
    and their hello is closed with server/banned; another player goes on."""
    made = (await call(console_server, "POST", "/api/players", json={"name": "mal"})).json()
    player, session = made["player"]["id"], made["session"]
    body = {"kind": "player", "value": player, "minutes": 1, "reason": "cheating"}
    reply = await call(console_server, "POST", "/api/operator/bans", headers=AUTH, json=body)
    assert reply.status_code == 200, reply.text
    me = await call(
        console_server, "GET", "/api/me", headers={"Authorization": f"Bearer {session}"}
    )
    assert (me.status_code, me.json()["error"]["code"]) == (403, "server/banned")
    room = (await console_server.create_room("rollie", 2))["room"]
    ws = await websockets.connect(console_server.ws_url, subprotocols=["rollhouse.v2.json"])  # type: ignore[list-item]
    await ws.send(json.dumps({"type": "hello", "room": room, "role": "player", "session": session}))
    error = await until_error(ws)
    assert error["code"] == "server/banned" and "cheating" in error["message"]
    other = (await call(console_server, "POST", "/api/players", json={"name": "ok"})).json()
    fine = await call(console_server, "GET", "/api/me",
                      headers={"Authorization": f"Bearer {other['session']}"})  # fmt: skip
    assert fine.status_code == 200


async def test_an_operator_hides_a_chat_line(console_server: LiveServer) -> None:
    """A chat line shown in the console is hidden by seq: it leaves the room's chat, and
    the audit log names it."""
    room = (await console_server.create_room("rollie", 2))["room"]
    ws = await websockets.connect(console_server.ws_url, subprotocols=["rollhouse.v2.json"])  # type: ignore[list-item]
    await ws.send(json.dumps({"type": "hello", "room": room, "role": "player", "name": "ann"}))
    assert json.loads(await ws.recv())["type"] == "welcome"
    await ws.send(json.dumps({"type": "act", "id": "c1", "act": {"type": "chat", "text": "spam"}}))
    async with asyncio.timeout(10):
        while json.loads(await ws.recv())["type"] != "ack":
            pass
    path = f"/api/operator/rooms/{room}"
    (line,) = (await call(console_server, "GET", path, headers=AUTH)).json()["chat"]
    assert line["text"] == "spam"
    hidden = await call(console_server, "POST", path + "/hide", headers=AUTH,
                        json={"seq": line["seq"]})  # fmt: skip
    assert hidden.status_code == 200, hidden.text
    assert (await call(console_server, "GET", path, headers=AUTH)).json()["chat"] == []
    (entry,) = (await call(console_server, "GET", "/api/operator/audit", headers=AUTH)).json()[
        "audit"
    ]
    assert (entry["action"], entry["seq"], entry["result"]) == ("hide", line["seq"], "ok")
    await ws.close()
