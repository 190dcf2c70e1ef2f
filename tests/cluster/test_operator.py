"""The operator console across nodes, on a real redis-server: an action asked of one
node for a room another node runs reaches that node; node-wide actions reach every
node; the audit log is one for the cluster."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.support.redis_server import start_redis
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(120)

TOKEN = "cluster-operator-token-0123456789abcdefgh"
AUTH = {"Authorization": f"Bearer {TOKEN}", "X-Operator": "ops"}
JSON = "rollhouse.v1.json"
BANNED = "198.51.100.23"


@pytest.fixture
def two_nodes(tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Nodes n0 and n1 on one redis-server, with the console on, trusting 127.0.0.1 as
    a proxy (so a test can speak for another address)."""
    url, stop = start_redis(tmp_path / "redis")
    env = {"ROLLHOUSE_OPERATOR_TOKEN": TOKEN, "ROLLHOUSE_TRUST_PROXY": "127.0.0.1"}
    servers = [
        ServerProcess(url, tmp_path, args=("--node-id", f"n{i}", "--lease", "2"), env=env)
        for i in range(2)
    ]
    try:
        for server in servers:
            server.start()
        yield servers
    finally:
        for server in servers:
            server.kill()
        stop()


async def hello(server: ServerProcess, room: str, name: str, **headers: str) -> Any:
    ws = await websockets.connect(server.ws_url, subprotocols=[JSON],  # type: ignore[list-item]
                                  additional_headers=headers)  # fmt: skip
    await ws.send(json.dumps({"type": "hello", "room": room, "role": "player", "name": name}))
    return ws


async def next_of(ws: Any, kind: str) -> dict[str, Any]:
    async with asyncio.timeout(15):
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == kind:
                return message  # type: ignore[no-any-return]


async def test_actions_on_one_node_reach_the_node_that_runs_the_room(
    two_nodes: list[ServerProcess],
) -> None:
    """Asked of n1: n0's room is inspected there, a relayed spectator removed, the room
    closed (its players, local and relayed, told why), a notice reaches both nodes' sockets, a ban is refused at n0's
    handshake, n0 drains; the audit log read from n0 shows what n1 did."""
    n0, n1 = two_nodes
    async with httpx.AsyncClient(timeout=15) as http:
        made = await http.post(n0.url + "/api/rooms", json={"game": "rollie", "seats": 2})
        room = made.json()["room"]
        local, relayed = await hello(n0, room, "ann"), await hello(n1, room, "bob")
        for ws in (local, relayed):
            await next_of(ws, "welcome")

        nodes = (await http.get(n1.url + "/api/operator/nodes", headers=AUTH)).json()["nodes"]
        assert sorted(n["node"] for n in nodes) == ["n0", "n1"]
        assert all(n["lease_age"] is not None and n["lease_age"] < 2 for n in nodes)
        watcher = await websockets.connect(n1.ws_url, subprotocols=[JSON])  # type: ignore[list-item]
        await watcher.send(json.dumps({"type": "hello", "room": room, "role": "spectator"}))
        await next_of(watcher, "welcome")
        shown = (await http.get(n1.url + f"/api/operator/rooms/{room}", headers=AUTH)).json()
        assert shown["node"] == "n0" and len(shown["connections"]) == 3
        (spectator,) = [c for c in shown["connections"] if c["role"] == "spectator"]
        removed = await http.post(n1.url + f"/api/operator/rooms/{room}/remove", headers=AUTH,
                                  json={"peer": spectator["peer"], "reason": "spam"})  # fmt: skip
        assert removed.json()["value"] == 1, removed.text
        error = await next_of(watcher, "error")  # relayed back through n1
        assert error["code"] == "room/removed" and "spam" in error["message"]

        told = await http.post(n1.url + "/api/operator/notice", headers=AUTH,
                               json={"text": "maintenance soon"})  # fmt: skip
        assert told.json()["told"] == 2, told.text
        for ws in (local, relayed):
            notice = await next_of(ws, "error")
            assert (notice["code"], notice["message"]) == ("server/notice", "maintenance soon")

        closed = await http.post(n1.url + f"/api/operator/rooms/{room}/close", headers=AUTH,
                                 json={"reason": "cheating reported"})  # fmt: skip
        assert closed.status_code == 200, closed.text
        for ws in (local, relayed):
            error = await next_of(ws, "error")
            assert error["code"] == "room/closed" and "cheating reported" in error["message"]

        ban = {"kind": "address", "value": BANNED, "minutes": 10, "reason": "bot farm"}
        banned = await http.post(n1.url + "/api/operator/bans", headers=AUTH, json=ban)
        assert banned.json()["value"]["nodes"] == {"n0": 1, "n1": 1}, banned.text
        with pytest.raises(websockets.InvalidStatus) as refused:
            await hello(n0, room, "eve", **{"X-Forwarded-For": BANNED})
        assert json.loads(refused.value.response.body)["error"]["code"] == "server/banned"

        nobody = await http.post(n1.url + "/api/operator/nodes/n9/drain", headers=AUTH)
        assert (nobody.status_code, nobody.json()["error"]["code"]) == (400, "room/bad_action")
        drained = await http.post(n1.url + "/api/operator/nodes/n0/drain", headers=AUTH)
        assert drained.status_code == 200, drained.text
        for _ in range(100):
            if (await http.get(n0.url + "/api/health")).status_code == 503:
                break
            await asyncio.sleep(0.1)
        assert (await http.get(n0.url + "/api/health")).json().get("draining") is True

        audit = (await http.get(n0.url + "/api/operator/audit", headers=AUTH)).json()["audit"]
        assert [(e["action"], e["node"], e["who"], e["result"]) for e in audit] == [
            ("drain", "n1", "ops", "ok"),
            ("drain", "n1", "ops", "room/bad_action"),
            ("ban", "n1", "ops", "ok"),
            ("close", "n1", "ops", "ok"),
            ("notice", "n1", "ops", "ok"),
            ("remove", "n1", "ops", "ok"),
        ]
