"""The Python SDK's people layer against a real server (issue 21): players and sessions,
the session file, a seat that follows its player, private tables and invite links,
chat and the host's actions, quick match and "my games"."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import stat
from pathlib import Path
from typing import Any

import pytest

from clients.sdk import (
    Account,
    Client,
    ClientError,
    CommandRejected,
    ConnectionLost,
    RequestRefused,
    SavedSessions,
    invite_link,
    list_rooms,
    parse_link,
)
from clients.sdk.saved import server_key
from tests.support.server import LiveServer

PASSWORD = "correct horse battery"


async def play_to_the_end(client: Client) -> dict[str, Any]:
    """Send the first legal command whenever there is one, until the game is over."""
    while True:
        view = await client.wait_for(
            lambda v: v["room"]["status"] == "finished" or bool(v["you"]["legal"]), timeout=30
        )
        if view["room"]["status"] == "finished":
            return view
        with contextlib.suppress(CommandRejected):  # a race with a bot: look again
            await client.send(view["you"]["legal"][0])


async def guest(server: LiveServer, name: str) -> Account:
    account = Account(server.url, keep=False)
    await account.guest(name)
    return account


def test_links_name_the_server_the_room_and_the_code() -> None:
    """invite_link builds the web client's table link; parse_link reads it back (and
    refuses a link without a room)."""
    link = invite_link("ws://127.0.0.1:8000/ws", "r-1", "a b/c")
    assert link == "http://127.0.0.1:8000/table.html?room=r-1&invite=a+b%2Fc"
    found = parse_link(link)
    assert (found.url, found.room, found.invite) == ("http://127.0.0.1:8000", "r-1", "a b/c")
    assert parse_link("https://h/table.html?room=r-2").invite is None
    for bad in ("http://h/table.html", "ftp://h/?room=r", "r-1"):
        with pytest.raises(ClientError) as info:
            parse_link(bad)
        assert info.value.code == "client/bad_link"


def test_saved_sessions_are_private_and_keyed_by_server(tmp_path: Path) -> None:
    """The session file is 0600 in a 0700 folder from its first byte; one entry per
    server (http and ws URLs alike); a damaged file reads as empty."""
    path = tmp_path / "home" / ".rollhouse" / "sessions.json"
    saved = SavedSessions(path)
    saved.save("http://127.0.0.1:1", "p-1.secret", {"id": "p-1"})
    saved.save("http://127.0.0.1:2", "p-2.secret")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert saved.load("ws://127.0.0.1:1/ws") == {"session": "p-1.secret", "player": {"id": "p-1"}}
    assert server_key("http://127.0.0.1:1/table.html?room=r&invite=x") == "ws://127.0.0.1:1/ws"
    saved.forget("http://127.0.0.1:1")
    assert saved.load("http://127.0.0.1:1") is None
    assert saved.load("http://127.0.0.1:2") is not None
    path.write_text("{not json")
    assert saved.load("http://127.0.0.1:2") is None
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind


async def test_guest_register_login_logout_everywhere(
    live_server: LiveServer, tmp_path: Path
) -> None:
    """A guest is made and kept in the 0600 file; whoami and rename; a username and
    password; a login from a second device; a wrong password is typed; logout ends one
    session, logout_everywhere every other."""
    path = tmp_path / "sessions.json"
    phone = Account(live_server.url, path=path)
    assert not phone.signed_in
    with pytest.raises(RequestRefused) as info:
        await phone.whoami()
    assert (info.value.code, info.value.status) == ("player/unauthorized", 401)
    made = await phone.guest("Ann")
    assert made["name"] == "Ann" and made["username"] is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    saved = json.loads(path.read_text())[server_key(live_server.url)]
    assert saved["session"] == phone.session and saved["player"]["id"] == made["id"]
    again = Account(live_server.ws_url, path=path)  # the same machine, later: the file
    assert (await again.whoami())["id"] == made["id"]
    assert (await again.rename("Ana"))["name"] == "Ana"
    assert (await phone.register("ana", PASSWORD))["username"] == "ana"
    with pytest.raises(RequestRefused) as info:
        await phone.register("ana2", PASSWORD)
    assert (info.value.code, info.value.status) == ("player/already_registered", 409)
    laptop = Account(live_server.url, keep=False)
    with pytest.raises(RequestRefused) as info:
        await laptop.login("ana", "not the password")
    assert info.value.code == "player/bad_credentials" and not laptop.signed_in
    assert (await laptop.login("ANA", PASSWORD))["id"] == made["id"]
    assert laptop.session != phone.session
    await laptop.logout()
    assert not laptop.signed_in
    assert (await phone.whoami())["id"] == made["id"]  # the other session lives on
    await laptop.login("ana", PASSWORD)
    await laptop.logout_everywhere()
    assert not laptop.signed_in
    with pytest.raises(RequestRefused) as info:
        await again.whoami()  # the phone's session ended too
    assert info.value.code == "player/unauthorized"
    fresh = await again.ensure_player("Ann again")  # the dead session forgotten: a new guest
    assert fresh["id"] != made["id"]
    assert json.loads(path.read_text())[server_key(live_server.url)]["session"] == again.session
    await again.logout()
    assert json.loads(path.read_text()) == {}


async def test_a_seat_follows_its_player_to_a_second_device(live_server: LiveServer) -> None:
    """A seat taken with a session comes back on a second client with the same session
    and no seat token; the first device is told room/replaced; a session the server does
    not know ends a client with player/unauthorized, without retries."""
    ann = await guest(live_server, "Ann")
    room = (await ann.create_room("rollie", 2))["room"]
    first = await ann.join(room)
    assert first.player == ann.player["id"] and first.seat == 0 and first.seat_token
    assert first.host == first.player and first.is_host
    second = await Account(live_server.url, ann.session, keep=False).join(room)
    assert (second.seat, second.player) == (0, first.player)
    assert second.seat_token is None  # the session brought it back, no token needed
    with pytest.raises(ConnectionLost) as lost:
        await first.wait_for(lambda _: False)
    assert lost.value.code == "room/replaced"
    stranger = Client(live_server.ws_url, room, session_token="p-0000000000000000.nothing")
    with pytest.raises(ConnectionLost) as info:
        await stranger.connect()
    assert info.value.code == "player/unauthorized" and stranger.reconnects == 0
    await stranger.close()
    for client in (first, second):
        await client.close()


async def test_version_1_takes_no_session_and_no_act(live_server: LiveServer) -> None:
    """version=1 speaks rollhouse.v1 as before: a session or an act is refused locally."""
    room = (await live_server.create_room("rollie", 2))["room"]
    with pytest.raises(ValueError):
        Client(live_server.ws_url, room, version=1, session_token="p-1.x")
    old = await Client(live_server.ws_url, room, version=1).connect()
    assert old.codec.name == "rollhouse.v1.msgpack" and old.player is None
    with pytest.raises(ClientError) as info:
        await old.chat("hi")
    assert info.value.code == "client/needs_v2"
    await old.close()


async def test_a_private_room_opens_only_with_its_invite(live_server: LiveServer) -> None:
    """A stranger without the code gets room/not_found on HTTP and on the socket, as for
    a room that does not exist; the invite link opens it; a new code revokes the old,
    and a revoked code opens nothing; only the host manages codes; the lobby never
    lists it."""
    ann, bea, cai = [await guest(live_server, n) for n in ("Ann", "Bea", "Cai")]
    made = await ann.create_room("rollie", 3, visibility="private")
    room, code = made["room"], made["invite"]
    assert made["visibility"] == "private" and made["host"] == ann.player["id"]
    assert room not in [r["room"] for r in await list_rooms(live_server.url)]
    for account in (bea, Account(live_server.url, keep=False)):
        with pytest.raises(RequestRefused) as info:
            await account.room(room)
        assert (info.value.code, info.value.status) == ("room/not_found", 404)
    for role in ("player", "spectator"):
        with pytest.raises(ConnectionLost) as lost:
            await bea.join(room, role=role)
        assert lost.value.code == "room/not_found"
    assert (await bea.room(room, invite=code))["room"] == room
    link = invite_link(live_server.url, room, code)
    seated = await bea.join_link(link)
    assert seated.seat == 0 and seated.view is not None
    with pytest.raises(RequestRefused) as info:
        await bea.new_invite(room)
    assert (info.value.code, info.value.status) == ("room/not_host", 403)
    fresh = await ann.new_invite(room)
    with pytest.raises(ConnectionLost) as lost:
        await cai.join_link(link)  # the old code
    assert lost.value.code == "room/not_found"
    watcher = await cai.join_link(invite_link(live_server.url, room, fresh), role="spectator")
    assert watcher.role == "spectator"
    await ann.revoke_invite(room)
    with pytest.raises(RequestRefused) as info:
        await Account(live_server.url, keep=False).room(room, invite=fresh)
    assert info.value.code == "room/not_found"
    assert (await bea.room(room))["room"] == room  # seated players keep their way in
    for client in (seated, watcher):
        await client.close()


async def test_chat_and_the_hosts_actions(live_server: LiveServer) -> None:
    """Chat reaches the table (spectators in their own channel) and shows in the view;
    the host locks, unlocks, removes a player and a spectator, hands the role on, hides
    a line and fills the seats with bots; anyone else is refused room/not_host;
    once the game runs, no host action may change it."""
    ann, bea, cai, dan = [await guest(live_server, n) for n in ("Ann", "Bea", "Cai", "Dan")]
    room = (await ann.create_room("rollie", 4, {"rounds": 2}, room={"bot_delay": 0}))["room"]
    host = await ann.join(room)
    player = await bea.join(room)
    watcher = await cai.join(room, role="spectator")
    said = await player.chat("hello table")
    aside = await watcher.chat("bea looks nervous")
    await host.wait_seq(aside)
    assert [line["text"] for line in host.chat_lines()] == ["hello table"]
    assert host.chat_lines("spectators") == []
    await watcher.wait_seq(aside)
    assert [line["text"] for line in watcher.chat_lines("spectators")] == ["bea looks nervous"]
    assert host.chat_lines()[0]["player"] == bea.player["id"]
    with pytest.raises(CommandRejected) as refused:
        await player.chat("\u202eevil")
    assert refused.value.code == "chat/bad_text"
    for act in (player.lock(), player.remove(seat=0), player.fill()):
        with pytest.raises(CommandRejected) as refused:
            await act
        assert refused.value.code == "room/not_host"
    await host.lock()
    await host.wait_for(lambda v: v["room"]["locked"])
    with pytest.raises(ConnectionLost) as lost:
        await dan.join(room)
    assert lost.value.code == "room/locked"
    await host.unlock()
    late = await dan.join(room)
    await host.remove(seat=late.seat)
    with pytest.raises(ConnectionLost) as lost:
        await late.wait_for(lambda _: False)
    assert lost.value.code == "room/removed"
    with pytest.raises(ConnectionLost) as lost:
        await dan.join(room)
    assert lost.value.code == "room/removed"
    await host.hide(said)
    await host.wait_for(lambda _: host.chat_lines() == [])
    await host.remove(player=cai.player["id"])  # a spectator, by player id
    with pytest.raises(ConnectionLost) as lost:
        await watcher.wait_for(lambda _: False)
    assert lost.value.code == "room/removed"
    await host.hand_host(bea.player["id"])
    await player.wait_for(lambda _: player.is_host)
    with pytest.raises(CommandRejected) as refused:
        await host.fill()
    assert refused.value.code == "room/not_host"
    await player.fill()
    await player.wait_for(lambda v: v["room"]["status"] != "waiting")
    with pytest.raises(CommandRejected) as refused:
        await player.lock()
    assert refused.value.code == "room/already_started"
    with pytest.raises(RequestRefused) as info:
        await ann.export(room)
    assert (info.value.code, info.value.status) == ("room/not_finished", 409)
    for client in (host, player, watcher):
        await client.close()


async def test_quick_match_and_my_games(live_server: LiveServer) -> None:
    """Two players quick-match into one two-seat table and play it out; each one's
    "my games" lists it with its result, a second page is empty, and the finished game
    exports; an account without a session is refused."""
    ann, bea = await guest(live_server, "Ann"), await guest(live_server, "Bea")
    clients = list(
        await asyncio.gather(
            ann.quick("rollie", 2, room={"clock": 0}), bea.quick("rollie", 2, room={"clock": 0})
        )
    )
    assert clients[0].room == clients[1].room
    assert sorted(c.seat for c in clients) == [0, 1]  # type: ignore[type-var]
    finals = await asyncio.wait_for(asyncio.gather(*map(play_to_the_end, clients)), 120)
    assert finals[0]["game"] == finals[1]["game"]
    for account in (ann, bea):
        games = await account.my_games()
        assert [g["room"] for g in games["rooms"]] == [clients[0].room]
        summary = games["rooms"][0]["summary"]
        assert summary["status"] == "finished" and summary["result"] is not None
        assert account.player["id"] in summary["players"]
        assert (await account.my_games(cursor=1))["rooms"] == []
    lines = await ann.export(clients[0].room)
    assert json.loads(lines[0])["format"] == "rollhouse.export/1"
    first = await ann.view_at(clients[0].room, at=1)
    assert first["seq"] == 1 and first["view"]["room"]["status"] == "waiting"
    assert (await ann.view_at(clients[0].room))["view"]["room"]["status"] == "finished"
    again = await ann.join(clients[0].room)  # resume from the list: the same seat
    assert again.seat == clients[0].seat and again.view["room"]["status"] == "finished"  # type: ignore[index]
    await again.close()
    with pytest.raises(RequestRefused) as info:
        await Account(live_server.url, keep=False).my_games()
    assert info.value.code == "player/unauthorized"
    for client in clients:
        await client.close()


async def test_the_readme_people_example_runs_as_written(
    live_server: LiveServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The README's second Python example (players, a private table, chat) runs against a
    real server and prints the refusals it promises."""
    monkeypatch.setenv("HOME", str(tmp_path))
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = re.findall(r"```python\n(.*?)```", readme, re.S)[1]
    namespace: dict[str, object] = {}
    exec(compile(block, "README.md", "exec"), namespace)
    await asyncio.wait_for(namespace["friends"](live_server.url), 30)  # type: ignore[operator]
    out = capsys.readouterr().out
    assert "refused: room/not_host" in out and "a stranger gets room/not_found" in out
    saved = tmp_path / ".rollhouse" / "sessions.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600


async def test_no_spectators_and_the_acts_in_the_history(live_server: LiveServer) -> None:
    """watch=False keeps spectators out (room/no_spectators, no retries); chat lines and
    host actions are act records of the history, a hidden line's text gone from it; a
    seated player's client forgets the invite code it came with."""
    ann, bea = await guest(live_server, "Ann"), await guest(live_server, "Bea")
    made = await ann.create_room("rollie", 3, visibility="private", watch=False)
    room = made["room"]
    with pytest.raises(ConnectionLost) as lost:
        await bea.join(room, role="spectator", invite=made["invite"])
    assert lost.value.code == "room/no_spectators"
    host = await ann.join(room)
    seated = await bea.join(room, invite=made["invite"])
    assert seated.session.invite is None and seated.session.hello().invite is None
    kept = await seated.chat("first")
    gone = await seated.chat("second")
    await host.lock()
    await host.hide(gone)
    entries = (await bea.history(room))["events"]
    acts = [(e["seq"], e["name"], e.get("act")) for e in entries if e["kind"] == "act"]
    assert [name for _, name, _ in acts] == ["invite", "chat", "chat", "lock", "hide"]
    assert acts[0][2] == {"type": "invite"}  # not even the code's digest
    assert acts[1] == (kept, "chat", {"type": "chat", "channel": "players", "text": "first"})
    assert "second" not in json.dumps(entries)
    with pytest.raises(RequestRefused) as info:
        await Account(live_server.url, keep=False).history(room)
    assert info.value.code == "room/not_found"
    for client in (host, seated):
        await client.close()
