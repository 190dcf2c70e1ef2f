"""End to end over real websockets against a real uvicorn server (in-memory store)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from clients.bots.play import play_seat
from clients.sdk import Client, CommandRejected
from tests.support.server import LiveServer

pytestmark = pytest.mark.timeout(120)


def bills_total(game_view: dict[str, Any]) -> int:
    """Bank + every Bet + every Wallet, in bills."""
    total = sum(game_view["bank"].values())
    for seat in game_view["seats"]:
        total += sum(seat["bet"].values()) + sum(seat["wallet"].values())
    return total


async def test_six_players_and_two_spectators_play_to_the_end(live_server: LiveServer) -> None:
    """A 6-player game ends; both spectators' final views equal every player's game view."""
    room = (await live_server.create_room("rollie", 6, room={"clock": 0}))["room"]
    watchers = [
        await Client(live_server.ws_url, room, role="spectator").connect() for _ in range(2)
    ]
    players = [
        await Client(
            live_server.ws_url, room, name=f"p{i}", encoding="json" if i % 2 else "msgpack"
        ).connect()
        for i in range(6)
    ]
    finals = await asyncio.gather(*(play_seat(p, "push", seed=i) for i, p in enumerate(players)))
    last = max(p.seq for p in players)
    for watcher in watchers:
        await watcher.wait_seq(last)
    assert finals[0]["game"]["phase"] == "over"
    for client in [*players, *watchers]:
        assert client.view is not None
        assert client.view["game"] == watchers[0].view["game"]  # type: ignore[index]
    assert bills_total(watchers[0].view["game"]) == 150  # type: ignore[index]
    for client in [*players, *watchers]:
        await client.close()


async def _race_for_last_bill(server: LiveServer) -> tuple[int, list[str], dict[str, Any]]:
    room = (
        await server.create_room("rollie", 4, options={"bills_per_value": 1}, room={"clock": 0})
    )["room"]
    players = [await Client(server.ws_url, room, name=f"p{i}").connect() for i in range(4)]
    try:
        while True:
            view = await players[0].wait_for(lambda v: v["game"]["phase"] in ("rolling", "over"))
            if view["game"]["phase"] == "over":
                return -1, [], view
            roller = players[view["game"]["first_player"]]
            await roller.send({"type": "roll"})
            view = await players[0].wait_seq(roller.seq)
            dice = view["game"]["dice"]
            numbers = [d for d in dice if d != "R"]
            if view["game"]["phase"] != "deciding" or not numbers:
                continue  # a Rollie, or two R: no decision this roll
            value = numbers[0]
            if view["game"]["bank"][str(value)] != 1:
                continue
            results = await asyncio.gather(
                *(p.send({"type": "take", "value": value}) for p in players), return_exceptions=True
            )
            winners = sum(1 for r in results if isinstance(r, int))
            codes = [r.code for r in results if isinstance(r, CommandRejected)]
            seq = max(r for r in results if isinstance(r, int))
            final = await players[0].wait_seq(seq)
            return winners, codes, final
    finally:
        for p in players:
            await p.close()


async def test_simultaneous_grabs_for_the_last_bill(live_server: LiveServer) -> None:
    """Four players grab the last bill at once, many times: one gets it, three get pile_empty."""
    races = 0
    for _ in range(12):
        winners, codes, final = await _race_for_last_bill(live_server)
        if winners == -1:
            continue
        races += 1
        assert winners == 1
        assert codes == ["rollie/pile_empty"] * 3
        assert bills_total(final["game"]) == 5
    assert races >= 6


async def test_rejoin_after_missing_patches_matches_a_spectator(live_server: LiveServer) -> None:
    """A player who drops mid-round, misses patches and rejoins ends with the spectator's view."""
    room = (await live_server.create_room("rollie", 3, room={"clock": 0}))["room"]
    watcher = await Client(live_server.ws_url, room, role="spectator").connect()
    players = [
        await Client(live_server.ws_url, room, name=n, reconnect=False).connect() for n in "abc"
    ]
    a, b, c = players
    while True:  # roll until the dice differ (a Rollie ends the round without decisions)
        view = await watcher.wait_for(
            lambda v: v["game"]["phase"] == "rolling" and v["room"]["status"] == "playing"
        )
        seq = await players[view["game"]["first_player"]].send({"type": "roll"})
        view = await watcher.wait_seq(seq)
        if view["game"]["phase"] == "deciding":
            break
    await c.wait_seq(watcher.seq)
    token, seat, left_at, left_view = c.seat_token, c.seat, c.seq, c.view
    await c.close()
    for p in (a, b):
        with pytest.raises(CommandRejected) as info:
            await p.send({"type": "take", "value": 3})
        assert info.value.code == "rollie/unknown_value"
        if p.seat in (a.view or {})["game"]["awaiting"]:
            await p.send({"type": "secure"})
    await watcher.wait_seq(max(a.seq, b.seq))
    back = Client(live_server.ws_url, room, seat_token=token)
    back.seq, back.view = left_at, left_view  # resume from where it left
    await back.connect()
    await back.wait_seq(watcher.seq)
    assert back.seat == seat
    assert back.view is not None and watcher.view is not None
    assert back.view["game"] == watcher.view["game"]
    assert back.events, "the missed patches were replayed, not a snapshot"
    for client in (a, b, back, watcher):
        await client.close()
