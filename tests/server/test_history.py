"""The public log: history API, view at a seq, dice verified, export, import, no secrets."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from clients.cli import main
from clients.sdk import Client, ConnectionLost
from server.room import history
from tests.support.redis_server import start_redis
from tests.support.server import LiveServer, ServerProcess, serve

pytestmark = pytest.mark.timeout(120)
ALL_BOTS = {"clock": 0, "bot_delay": 0}
GAMES = [("rollie", 2, {"rounds": 2}), ("roll-player", 2, {}), ("roll-builder", 1, {})]


async def finished(url: str, game: str, seats: int, options: dict[str, Any]) -> str:
    """A room of hosted bots played to the end; its id."""
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        body = {
            "game": game,
            "seats": seats,
            "options": options,
            "room": {**ALL_BOTS, "bots": seats},
        }
        room = (await http.post("/api/rooms", json=body)).json()["room"]
        for _ in range(600):
            if (await http.get(f"/api/rooms/{room}")).json()["status"] == "finished":
                return str(room)
            await asyncio.sleep(0.1)
    raise AssertionError(f"{game} did not finish")


async def export_lines(server: LiveServer, room: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
        reply = await http.get(f"/api/rooms/{room}/export")
    assert reply.status_code == 200 and reply.headers["content-type"] == "application/x-ndjson"
    return [json.loads(line) for line in reply.text.splitlines()]


def as_log(lines: list[dict[str, Any]]) -> tuple[str, list[tuple[int, dict[str, Any]]]]:
    rows = [dict(line) for line in lines[1:]]
    return lines[0]["room"], [(row.pop("seq"), row) for row in rows]


async def test_events_page_through_the_whole_log(live_server: LiveServer) -> None:
    """Pages of `limit` entries, `next` to go on, every seq once, in order; bounds checked."""
    room = await finished(live_server.url, "rollie", 2, {"rounds": 1})
    seqs: list[int] = []
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as http:
        after: int | None = 0
        while after is not None:
            page = (
                await http.get(f"/api/rooms/{room}/events", params={"from": after, "limit": 4})
            ).json()
            assert len(page["events"]) <= 4
            seqs += [e["seq"] for e in page["events"]]
            after = page["next"]
        last = (await http.get(f"/api/rooms/{room}")).json()["seq"]
        assert seqs == list(range(1, last + 1))
        for query, code in [({"limit": 0}, 400), ({"limit": 501}, 400), ({"from": -1}, 400),
                            ({"from": "x"}, 400)]:  # fmt: skip
            reply = await http.get(f"/api/rooms/{room}/events", params=query)
            assert (reply.status_code, reply.json()["error"]["code"]) == (code, "http/bad_query")
        for path in ("events", "view", "verify", "export"):
            reply = await http.get(f"/api/rooms/r-nothere/{path}")
            assert (reply.status_code, reply.json()["error"]["code"]) == (404, "room/not_found")


async def test_view_at_a_seq_is_the_spectators_view_then(live_server: LiveServer) -> None:
    """The view at seq N is what a spectator's mirror held at N (patches from the events API
    applied in order reach the same view)."""
    from protocol.patch import apply

    room = await finished(live_server.url, "rollie", 2, {"rounds": 1})
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as http:
        entries = (await http.get(f"/api/rooms/{room}/events", params={"limit": 500})).json()[
            "events"
        ]
        view = entries[0]["view"]
        for entry in entries[1:]:
            view = apply(view, entry["ops"])
            if entry["seq"] % 5 == 0:
                at = (await http.get(f"/api/rooms/{room}/view", params={"at": entry["seq"]})).json()
                assert at == {"seq": entry["seq"], "view": view}
        async with Client(live_server.ws_url, room, role="spectator") as watcher:
            assert watcher.view is not None
            assert {k: v for k, v in watcher.view.items()} == view


@pytest.mark.parametrize(("game", "seats", "options"), GAMES)
async def test_real_games_verify_and_tampered_logs_do_not(
    live_server: LiveServer,
    game: str,
    seats: int,
    options: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`rollhouse verify` passes a real game; one changed die face or a wrong seed fails."""
    room = await finished(live_server.url, game, seats, options)
    assert await asyncio.to_thread(main, ["verify", live_server.url, room]) == 0
    assert "dice verified" in capsys.readouterr().out
    lines = await export_lines(live_server, room)
    name, log = as_log(lines)
    assert history.fairness(name, log).ok
    wrong_seed = [(s, {**d, "seed": d["seed"] + 1} if s == 1 else d) for s, d in log]
    assert (
        history.fairness(name, wrong_seed).problem
        == "the revealed seed does not match the room's commitment"
    )
    changed = _change_a_die(game, log)
    verdict = history.fairness(name, changed)
    assert not verdict.ok and verdict.seq is not None
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as http:
        tampered = [lines[0], *({"seq": s, **d} for s, d in changed)]
        body = "".join(json.dumps(line) + "\n" for line in tampered)
        reply = await http.post("/api/rooms/import", content=body)
        assert (reply.status_code, reply.json()["error"]["code"]) == (400, "http/bad_import")
        assert (await http.get(f"/api/rooms/{room}/verify")).json()["ok"] is True


async def test_imports_that_do_not_rebuild_a_game_are_refused(live_server: LiveServer) -> None:
    """An export cut to its header, or with an event of the wrong shape after the last
    command (which the dice check never reaches), is a 400 and creates nothing."""
    room = await finished(live_server.url, "rollie", 2, {"rounds": 1})
    lines = await export_lines(live_server, room)
    last = len(lines) - 1
    stray = {"seq": last + 1, "k": "event", "e": {"type": "rolled", "dice": "six"}, "at": 1.0}
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as http:
        before = (await http.get("/api/rooms")).json()["rooms"]
        for body in ([lines[0]], [*lines, stray]):
            text = "".join(json.dumps(line) + "\n" for line in body)
            reply = await http.post("/api/rooms/import", content=text)
            assert (reply.status_code, reply.json()["error"]["code"]) == (400, "http/bad_import")
        assert (await http.get("/api/rooms")).json()["rooms"] == before


def _change_a_die(
    game: str, log: list[tuple[int, dict[str, Any]]]
) -> list[tuple[int, dict[str, Any]]]:
    """The log with one die face of one roll changed."""
    out = [(s, json.loads(json.dumps(d))) for s, d in log]
    for _, data in out:
        event = data.get("e") or {}
        for key in ("dice", "faces", "rolled"):
            value = event.get(key)
            if isinstance(value, list) and value and isinstance(value[0], int | str):
                value[0] = 2 if value[0] != 2 else 3
                return out
            if (
                isinstance(value, list)
                and value
                and isinstance(value[0], dict)
                and "value" in value[0]
            ):
                value[0]["value"] = 2 if value[0]["value"] != 2 else 3
                return out
    raise AssertionError(f"no die in a {game} log")


async def test_no_secret_before_the_end(live_server: LiveServer) -> None:
    """A live game shows the seed's commitment, never the seed, salt or setup; the end shows them."""
    info = await live_server.create_room("rollie", 2, options={"rounds": 1}, room={"clock": 0})
    room = info["room"]
    assert info["seed_commitment"] and info["seed"] is None and info["seed_salt"] is None
    players = [await Client(live_server.ws_url, room, name=n).connect() for n in "ab"]
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as http:
        page = (await http.get(f"/api/rooms/{room}/events")).json()["events"]
        created = page[0]
        assert created["commit"] == info["seed_commitment"]
        assert not {"seed", "salt", "setup"} & set(created)
        assert all("event" not in e and "command" not in e for e in page)
        assert (await http.get(f"/api/rooms/{room}/export")).status_code == 409
        assert (await http.get(f"/api/rooms/{room}/verify")).json()["ok"] is False
        text = json.dumps(page)
    seed = live_server.services.rooms.live[room].model.seed
    assert str(seed) not in text
    for p in players:
        assert p.seat_token not in text
        await p.close()


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
async def test_seat_tokens_stay_out_of_the_log_and_the_export(backend: str, tmp_path: Path) -> None:
    """The SQLite file and the Redis keys hold no seat token; the export not even its digest."""
    if backend == "sqlite":
        store, stop = f"sqlite:///{tmp_path / 'log.db'}", None
    else:
        url, stop = start_redis(tmp_path / "redis")
        store = url
    server = ServerProcess(store, tmp_path)
    server.start()
    try:
        body = {"game": "rollie", "seats": 2, "options": {"rounds": 1},
                "room": {"clock": 0, "takeover_after": 0, "bot_delay": 0}}  # fmt: skip
        room = httpx.post(server.url + "/api/rooms", json=body, timeout=10).json()["room"]
        tokens = []
        for name in "ab":  # join, then leave: takeover bots finish the game
            client = await Client(server.ws_url, room, name=name, reconnect=False).connect()
            tokens.append(client.seat_token)
            await client.close()
        for _ in range(300):
            if (
                httpx.get(f"{server.url}/api/rooms/{room}", timeout=10).json()["status"]
                == "finished"
            ):
                break
            await asyncio.sleep(0.1)
        export = httpx.get(f"{server.url}/api/rooms/{room}/export", timeout=10).text
    finally:
        server.stop()
    if backend == "sqlite":
        stored = b"".join(p.read_bytes() for p in tmp_path.glob("log.db*"))
    else:
        client = redis.Redis.from_url(store)
        stored = b"".join(client.dump(key) or b"" for key in client.keys("*"))
        client.close()
        assert stop is not None
        stop()
    import hashlib

    for token in tokens:
        assert token and token.encode() not in stored
        assert token not in export and hashlib.sha256(token.encode()).hexdigest() not in export


async def test_an_import_is_a_finished_read_only_room(
    live_server: LiveServer, tmp_path: Path
) -> None:
    """`rollhouse export` then `rollhouse import` into another server: the same final view,
    nobody can take a seat; `rollhouse replay` shows it in the terminal."""
    room = await finished(live_server.url, "rollie", 2, {"rounds": 1})
    path = tmp_path / "game.jsonl"
    path.write_text(
        "".join(json.dumps(line) + "\n" for line in await export_lines(live_server, room))
    )
    async with serve() as other:
        code = await asyncio.to_thread(main, ["import", other.url, str(path)])
        assert code == 0
        copy = next(
            r
            for r in (await httpx.AsyncClient(base_url=other.url).get("/api/rooms")).json()["rooms"]
        )
        assert copy["status"] == "finished" and copy["imported_from"] == room
        async with Client(other.ws_url, copy["room"], role="spectator") as watcher:
            theirs = watcher.view
        async with Client(live_server.ws_url, room, role="spectator") as original:
            assert theirs is not None and original.view is not None
            assert theirs["game"] == original.view["game"]
        with pytest.raises(ConnectionLost) as info:
            await Client(other.ws_url, copy["room"], name="intruder", reconnect=False).connect()
        assert info.value.code == "room/full"
    assert await asyncio.to_thread(main, ["replay", str(path)]) == 0
