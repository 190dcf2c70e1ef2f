"""Hosted bots, bot takeover of an absent player, idle unloading and reloading from the log."""

from __future__ import annotations

import asyncio

from clients.sdk import Client
from server.config import Settings
from tests.support.server import LiveServer, serve


async def test_hosted_bots_fill_seats_and_finish_a_game(live_server: LiveServer) -> None:
    """A room with bots for every seat plays itself to the end; the seats show as bots."""
    info = await live_server.create_room(
        "rollie", 3, options={"rounds": 2}, room={"bots": 3, "bot_delay": 0}
    )
    assert info["bots"] == 3 and info["status"] == "playing"
    watcher = await Client(live_server.ws_url, info["room"], role="spectator").connect()
    view = await watcher.wait_for(lambda v: v["room"]["status"] == "finished", timeout=30)
    assert all(seat["bot"] for seat in view["room"]["seats"])
    assert view["game"]["result"]["winners"]
    await watcher.close()


async def test_hosted_searching_bots_think_off_the_loop_and_play(live_server: LiveServer) -> None:
    """Roll Builder's lookahead bots search the state in a worker thread (the core asks
    the shell to think) and their moves reach the table: a whole turn goes by."""
    # seed 5: turn 1's searches take about 3 s here; seeds 1, 9, 10 and 11 took 7 to 17 s
    info = await live_server.create_room(
        "roll-builder",
        2,
        options={"seed": 5},
        room={"bots": 2, "bot_delay": 0, "bot_policy": "lookahead"},
    )
    watcher = await Client(live_server.ws_url, info["room"], role="spectator").connect()
    view = await watcher.wait_for(
        lambda v: v["game"]["turn"] >= 2 or v["room"]["status"] == "finished", timeout=60
    )
    assert view["game"]["turn"] >= 2
    assert all(p["score"] > 0 for p in view["game"]["players"])  # dice used: marks, boxes
    await watcher.close()


async def test_a_bot_plays_an_absent_player_until_they_return(live_server: LiveServer) -> None:
    """With takeover_after, a bot plays an absent player past the grace period until they return."""
    info = await live_server.create_room(
        "rollie", 2, options={"rounds": 3}, room={"clock": 0, "takeover_after": 0.2, "bot_delay": 0}
    )
    a = await Client(live_server.ws_url, info["room"], name="a").connect()
    b = await Client(live_server.ws_url, info["room"], name="b", reconnect=False).connect()
    token = b.seat_token
    await b.close()
    # a plays its own seat by hand; b's seat is taken over, so the game moves on.
    for _ in range(40):
        view = await a.wait_for(
            lambda v: a.seat in v["game"]["awaiting"] or v["room"]["status"] == "finished"
        )
        if view["room"]["status"] == "finished" or view["game"]["round"] >= 2:
            break
        await a.send({"type": "roll"} if view["game"]["phase"] == "rolling" else {"type": "secure"})
    assert view["game"]["round"] >= 2 or view["room"]["status"] == "finished"
    b_seat = 1 - (a.seat or 0)
    assert view["room"]["seats"][b_seat]["takeover"] and view["room"]["seats"][b_seat]["away"]
    back = await Client(live_server.ws_url, info["room"], seat_token=token).connect()
    if back.view is not None and back.view["room"]["status"] != "finished":
        returned = await back.wait_for(
            lambda v: (
                not v["room"]["seats"][b_seat]["takeover"] or v["room"]["status"] == "finished"
            )
        )
        assert (
            returned["room"]["status"] == "finished"
            or not returned["room"]["seats"][b_seat]["away"]
        )
    for c in (a, back):
        await c.close()


async def test_idle_rooms_unload_and_come_back_from_the_log() -> None:
    """An idle room leaves memory; asking for it again rebuilds the same state from its log."""
    async with serve(Settings(store_url="memory://", idle_unload_seconds=0.2)) as server:
        info = await server.create_room(
            "rollie", 2, options={"rounds": 1}, room={"bots": 2, "bot_delay": 0}
        )
        watcher = await Client(server.ws_url, info["room"], role="spectator").connect()
        final = await watcher.wait_for(lambda v: v["room"]["status"] == "finished", timeout=30)
        await watcher.close()
        rooms = server.services.rooms
        for _ in range(100):
            if info["room"] not in rooms.live:
                break
            await asyncio.sleep(0.05)
        assert info["room"] not in rooms.live
        listed = next(r for r in (await rooms.list())[0] if r["room"] == info["room"])
        assert listed["status"] == "finished"
        again = await Client(server.ws_url, info["room"], role="spectator").connect()
        assert again.view is not None
        assert again.view["game"] == final["game"]
        await again.close()


async def test_a_summary_behind_the_log_is_listed_from_the_log() -> None:
    """Issue 23: a server killed between an append and the summary's next write left the
    kept summary behind the log; the list folds such a room from its log and keeps that."""
    async with serve(Settings(store_url="memory://", idle_unload_seconds=0.2)) as server:
        info = await server.create_room(
            "rollie", 2, options={"rounds": 1}, room={"bots": 2, "bot_delay": 0}
        )
        watcher = await Client(server.ws_url, info["room"], role="spectator").connect()
        await watcher.wait_for(lambda v: v["room"]["status"] == "finished", timeout=30)
        await watcher.close()
        rooms, store = server.services.rooms, server.services.store
        for _ in range(100):
            if info["room"] not in rooms.live:
                break
            await asyncio.sleep(0.05)
        assert info["room"] not in rooms.live
        await store.save_summaries({info["room"]: info})  # as a kill before the write leaves it
        listed = next(r for r in (await rooms.list())[0] if r["room"] == info["room"])
        top = await store.last_seq(info["room"])
        assert (listed["status"], listed["seq"]) == ("finished", top) and info["seq"] < top
        kept = dict((await store.room_page(0, 10))[0])[info["room"]]
        assert kept is not None and kept["status"] == "finished"
