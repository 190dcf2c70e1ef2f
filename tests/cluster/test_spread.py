"""Players and spectators of one room spread over three nodes play one game."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from clients.bots.play import play_seat
from clients.sdk import Client, CommandRejected, create_room
from engine.core import get_game
from server.cluster.index import Index
from server.room.model.records import created_record, to_plain
from server.store.url import open_store
from tests.cluster.conftest import metric
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(240)

Nodes = tuple[str, list[ServerProcess]]


def bills_total(game_view: dict[str, Any]) -> int:
    total = sum(game_view["bank"].values())
    for seat in game_view["seats"]:
        total += sum(seat["bet"].values()) + sum(seat["wallet"].values())
    return total


@pytest.mark.parametrize("game", ["rollie", "roll-player", "roll-builder"])
async def test_players_on_three_nodes_play_one_game(shared_nodes: Nodes, game: str) -> None:
    """A room made on n0, played from n1 and n2 (relayed), watched from all three: one history."""
    _, servers = shared_nodes
    seats = 2
    info = await create_room(servers[0].url, game, seats, room={"clock": 0})
    room = info["room"]
    watchers = [await Client(s.ws_url, room, role="spectator").connect() for s in servers]
    players = [
        await Client(servers[1 + i % 2].ws_url, room, name=f"p{i}").connect() for i in range(seats)
    ]
    for relay in servers[1:]:  # a relay node knows its relayed connections' roles
        assert metric(relay, "rollhouse_spectators") >= 1
    finals = await asyncio.wait_for(
        asyncio.gather(*(play_seat(p, "", seed=i) for i, p in enumerate(players))), 180
    )
    assert all(f["room"]["status"] == "finished" for f in finals)
    last = max(p.seq for p in players)
    for watcher in watchers:  # relayed frames may trail the players' own by a few reads
        try:
            await watcher.wait_seq(last, timeout=30)
        except TimeoutError:
            seqs = [(w.url, w.seq, w.reconnects) for w in watchers]
            raise AssertionError(f"a spectator stopped short of seq {last}: {seqs}") from None
    views = [w.view for w in watchers]
    assert all(v == views[0] for v in views)
    histories = [w.events for w in watchers]
    assert histories[0] and all(h == histories[0] for h in histories[1:])
    for client in [*players, *watchers]:
        await client.close()
    assert metric(servers[1], "rollhouse_forwarded_total", direction="in", kind="cmd") == 0
    assert metric(servers[0], "rollhouse_forwarded_total", direction="in", kind="cmd") > 0
    assert metric(servers[1], "rollhouse_forwarded_total", direction="out", kind="cmd") > 0
    assert metric(servers[1], "rollhouse_relay_seconds_count") > 0  # the relay timed them
    assert metric(servers[0], "rollhouse_forwarded_total", direction="out", kind="cmd") == 0


async def test_race_for_the_last_bill_across_nodes(shared_nodes: Nodes) -> None:
    """Four players on three nodes grab the last bill at once: one winner, bills conserved."""
    _, servers = shared_nodes
    races = 0
    for attempt in range(12):
        info = await create_room(
            servers[attempt % 3].url, "rollie", 4, {"bills_per_value": 1}, {"clock": 0}
        )
        room = info["room"]
        players = [
            await Client(servers[i % 3].ws_url, room, name=f"p{i}").connect() for i in range(4)
        ]
        try:
            outcome = await _race(players)
        finally:
            for p in players:
                await p.close()
        if outcome is None:
            continue
        winners, codes, final = outcome
        races += 1
        assert winners == 1
        assert codes == ["rollie/pile_empty"] * 3
        assert bills_total(final["game"]) == 5
        if races >= 4:
            break
    assert races >= 3


async def _race(players: list[Client]) -> tuple[int, list[str], dict[str, Any]] | None:
    while True:
        view = await players[0].wait_for(lambda v: v["game"]["phase"] in ("rolling", "over"))
        if view["game"]["phase"] == "over":
            return None
        roller = players[view["game"]["first_player"]]
        await roller.send({"type": "roll"})
        view = await players[0].wait_seq(roller.seq)
        numbers = [d for d in view["game"]["dice"] if d != "R"]
        if view["game"]["phase"] != "deciding" or not numbers:
            continue
        value = numbers[0]
        if view["game"]["bank"][str(value)] != 1:
            continue
        for p in players:  # every player sees the deciding roll before grabbing
            await p.wait_seq(players[0].seq)
        results = await asyncio.gather(
            *(p.send({"type": "take", "value": value}) for p in players), return_exceptions=True
        )
        winners = sum(1 for r in results if isinstance(r, int))
        codes = [r.code for r in results if isinstance(r, CommandRejected)]
        seq = max(r for r in results if isinstance(r, int))
        return winners, codes, await players[0].wait_seq(seq)


async def test_every_node_lists_every_room_and_names_its_owner(shared_nodes: Nodes) -> None:
    """GET /api/rooms (paginated) on any node lists rooms made anywhere; info names the owner."""
    _, servers = shared_nodes
    made = [(await create_room(s.url, "rollie", 2))["room"] for s in servers]
    async with httpx.AsyncClient(timeout=10) as http:
        for server in servers:
            seen: list[str] = []
            cursor: int | None = 0
            for _page in range(100):
                body = (
                    await http.get(server.url + "/api/rooms", params={"cursor": cursor, "limit": 2})
                ).json()
                seen += [r["room"] for r in body["rooms"]]
                cursor = body["next"]
                if cursor is None:
                    break
            assert set(made) <= set(seen)
            assert len(seen) == len(set(seen))
            for i, room in enumerate(made):
                info = (await http.get(f"{server.url}/api/rooms/{room}")).json()
                assert info["node"] == f"n{i}"
                assert info["game"] == "rollie"
            ready = await http.get(server.url + "/api/health/ready")
            assert ready.status_code == 200 and ready.json()["node"] in {"n0", "n1", "n2"}
            assert (await http.get(server.url + "/api/health/live")).status_code == 200


async def test_an_idempotency_key_holds_across_nodes(shared_nodes: Nodes) -> None:
    """The same Idempotency-Key on three nodes (one after another, then all at once): one room."""
    _, servers = shared_nodes
    body = {"game": "rollie", "seats": 2}
    async with httpx.AsyncClient(timeout=10) as http:

        async def create(server: ServerProcess, key: str) -> dict[str, Any]:
            reply = await http.post(
                server.url + "/api/rooms", json=body, headers={"Idempotency-Key": key}
            )
            assert reply.status_code == 201, reply.text
            return reply.json()  # type: ignore[no-any-return]

        rooms = {(await create(s, "retry-1"))["room"] for s in servers}
        assert len(rooms) == 1
        at_once = await asyncio.gather(*(create(s, "race-1") for s in servers))
        assert len({r["room"] for r in at_once}) == 1
        assert {r["node"] for r in at_once} == {at_once[0]["node"]}
        assert (await create(servers[0], "other"))["room"] not in rooms


async def test_a_room_not_indexed_yet_is_listed_and_described_in_full(shared_nodes: Nodes) -> None:
    """A room whose first record is in the log but whose owner has not indexed it (the
    moments after its creation, or a creator that died in between) is listed and
    described with its whole summary by every node, never as a bare id."""
    url, servers = shared_nodes
    store = open_store(url)
    room = "r-" + secrets.token_hex(4)
    created = created_record(get_game("rollie"), 3, {}, 7, 0.0, time.time(), {}, salt="s")
    try:
        await store.append(room, [to_plain(created)], 0)
    finally:
        await store.close()
    async with httpx.AsyncClient(timeout=10) as http:
        for server in servers:
            listed = (await http.get(server.url + "/api/rooms", params={"limit": 500})).json()
            (entry,) = [r for r in listed["rooms"] if r["room"] == room]
            assert (entry["status"], entry["game"], entry["seats"]) == ("waiting", "rollie", 3)
            assert all("status" in r and "game" in r for r in listed["rooms"])
        info = (await http.get(f"{servers[1].url}/api/rooms/{room}")).json()
        assert (info["status"], info["seats"]) == ("waiting", 3)
        assert info["node"] is None  # nobody runs it until someone joins
    client = aioredis.Redis.from_url(url)
    try:  # the first listing filled the gap in the index
        filled = await Index(client, "rollhouse").get(room)
    finally:
        await client.aclose()
    assert filled is not None and filled["status"] == "waiting"
