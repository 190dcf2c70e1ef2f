"""The terminal client's people layer (issue 21): slash commands, typing them in the live
table, and against a real server: login, register, whoami, logout, play --new --private
with its invite link, --quick, the host's commands and chat, and "my games"."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest

from clients.sdk import Account, Client, CommandRejected, ConnectionLost, invite_link
from clients.terminal.account import Resume, command, listing
from clients.terminal.cli import Options, options_from, session
from clients.terminal.keys import Hint, lines_of
from clients.terminal.live import LiveTable
from clients.terminal.render import Status, chat_text, render, to_text
from clients.terminal.slash import DoAct, InviteOp, ShowChat, slash_for_line
from tests.support.server import LiveServer

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery"
VIEW: dict[str, Any] = {
    "room": {"seats": [{"seat": 0, "player": "p-1"}, {"seat": 1, "player": None}]},
    "chat": {
        "players": [{"seq": 4, "name": "ann", "seat": 0, "text": "hi <b>"}],
        "spectators": [{"seq": 6, "name": "cy", "seat": None, "text": "psst"}],
    },
}


def test_slash_commands_become_acts() -> None:
    """Each slash command maps to its act (a seat's player for /host) or a hint."""
    assert slash_for_line("/say  good luck ", None) == DoAct(
        {"type": "chat", "text": "good luck"}, "said"
    )
    assert slash_for_line("/lock", None).act == {"type": "lock", "on": True}  # type: ignore[union-attr]
    assert slash_for_line("/unlock", None).act == {"type": "lock", "on": False}  # type: ignore[union-attr]
    assert slash_for_line("/fill random", None).act == {"type": "fill", "policy": "random"}  # type: ignore[union-attr]
    assert slash_for_line("/kick 1", None).act == {"type": "remove", "seat": 1}  # type: ignore[union-attr]
    assert slash_for_line("/kick p-9", None).act == {"type": "remove", "player": "p-9"}  # type: ignore[union-attr]
    assert slash_for_line("/host 0", VIEW).act == {"type": "host", "player": "p-1"}  # type: ignore[union-attr]
    assert slash_for_line("/hide 4", None).act == {"type": "hide", "seq": 4}  # type: ignore[union-attr]
    assert slash_for_line("/invite", None) == InviteOp(False)
    assert slash_for_line("/revoke", None) == InviteOp(True)
    assert slash_for_line("/chat", None) == ShowChat()
    for line in ("/say", "/host 1", "/host x", "/kick ann", "/hide x", "/dance"):
        assert isinstance(slash_for_line(line, VIEW), Hint), line


def test_chat_shows_as_text_and_slash_commands_are_typed_in_the_live_table() -> None:
    """The frame shows the chat lines as text (markup stays literal, spectators marked);
    '/' and 't' start a command on the status line, Backspace and Esc edit it, and other
    keys are the game's again once it is gone."""
    frame = to_text(render(VIEW, None, Status(room="r-1", typing="/say hi"), 0.0))
    assert "[4] ann: hi <b>" in frame and "[6] (spectators) cy: psst" in frame
    assert "/say hi_" in frame
    evil = {"seq": 9, "name": "x\x1b[2J", "seat": 1, "text": "a\nb\x07"}
    assert chat_text(evil) == "[9] x\ufffd[2J: a / b\ufffd"
    client = Client("ws://127.0.0.1:9/ws", "r-1")
    table = LiveTable(client, "r-1")
    assert table.key("t") and table.typing == "/say "
    for key in "yo\x7f\x7f\x7f":
        table.key(key)
    assert table.typing == "/say"
    table.key("\x1b")
    assert table.typing is None
    table.key("/")
    table.key("\x7f")
    assert table.typing is None
    assert table.key("?") and table.help
    assert not table.key("q")


def test_a_link_brings_its_room_and_invite() -> None:
    """play with a table link joins its room with its code; --private means a new room."""
    args = argparse.Namespace(
        url="http://h:1/table.html?room=r-2&invite=abc", room="", role="player", name=None,
        token=None, quick=False, new=False, private=False, unlisted=False, game="rollie",
        seats=2, bots=0,
    )  # fmt: skip
    options = options_from(args)
    assert (options.url, options.room, options.invite, options.new) == (
        "http://h:1", "r-2", "abc", False
    )  # fmt: skip
    args.url, args.private = "http://h:1", True
    options = options_from(args)
    assert options.new and options.visibility == "private"


async def run(options: Options, lines: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = await asyncio.wait_for(session(options, lines=lines_of(lines), out=out), 60)
    return code, out.getvalue()


async def account_command(
    path: Path, url: str, action: str, password: str = PASSWORD, **args: Any
) -> tuple[int | Resume, str]:
    out = io.StringIO()
    namespace = argparse.Namespace(action=action, url=url, **args)
    done = await command(namespace, Account(url, path=path), out, lambda _: password)
    return done, out.getvalue()


async def test_register_whoami_login_logout(live_server: LiveServer, tmp_path: Path) -> None:
    """register makes a guest and names it; whoami says who; logout forgets; a wrong
    password is refused with its code; login signs in again; logout --everywhere."""
    path, url = tmp_path / "sessions.json", live_server.url
    code, out = await account_command(path, url, "whoami")
    assert code == 1 and "not signed in" in out
    code, out = await account_command(path, url, "register", username="ann", name="Ann")
    assert code == 0 and "registered Ann (p-" in out and "username ann" in out
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    code, out = await account_command(path, url, "whoami")
    assert code == 0 and out.startswith("Ann (p-") and "username ann" in out
    code, out = await account_command(path, url, "logout", everywhere=False)
    assert (code, out) == (0, "signed out\n")
    code, out = await account_command(path, url, "login", "wrong password", username="ann")
    assert code == 1 and "(player/bad_credentials)" in out
    code, out = await account_command(path, url, "login", username="ann")
    assert code == 0 and "signed in as Ann" in out
    code, out = await account_command(path, url, "logout", everywhere=True)
    assert (code, out) == (0, "signed out everywhere\n")
    assert json.loads(path.read_text()) == {}


async def test_a_private_table_its_link_and_a_stranger(
    live_server: LiveServer, tmp_path: Path
) -> None:
    """play --new --private makes the player a guest host and prints the invite link;
    /say, /lock and /unlock work; a friend joins with the link; a stranger with the bare
    room id is told room/not_found; /invite prints a new link."""
    ann = Options(
        live_server.url, name="Ann", new=True, visibility="private", seats=3,
        sessions_path=tmp_path / "ann.json", tokens_path=tmp_path / "ann-tokens.json",
    )  # fmt: skip
    code, out = await run(ann, ["/say welcome", "/lock", "/unlock", "/chat", "/invite", "quit"])
    assert code == 0, out
    assert "playing as Ann (p-" in out and "created private room r-" in out
    link = out.split("invite link: ")[1].split()[0]
    room = link.split("room=")[1].split("&")[0]
    assert "> /say welcome: said (seq" in out
    assert "> /lock: seats locked (seq" in out and "> /unlock: seats open (seq" in out
    assert "] Ann: welcome" in out  # /chat
    assert "> /invite: invite link (the old one stops working): http://" in out
    fresh = out.split("invite link (the old one stops working): ")[1].split()[0]
    stranger = Options(
        live_server.url, room, sessions_path=tmp_path / "cy.json", tokens_path=tmp_path / "t.json"
    )
    code, out = await run(stranger, ["quit"])
    assert code == 1 and "room/not_found" in out
    friend = options_from(
        argparse.Namespace(
            url=fresh, room="", role="player", name="Bea", token=None, quick=False, new=False,
            private=False, unlisted=False, game="rollie", seats=2, bots=0,
        )
    )  # fmt: skip
    friend = attrs.evolve(
        friend, sessions_path=tmp_path / "bea.json", tokens_path=tmp_path / "bea-tokens.json"
    )
    code, out = await run(friend, ["/say hi ann", "quit"])
    assert code == 0 and f"joined room {room} (rollie) at seat 1" in out
    assert "> /say hi ann: said (seq" in out


async def test_quick_match_from_two_terminals(live_server: LiveServer, tmp_path: Path) -> None:
    """Two --quick players (guests made on the spot) land at the same table."""
    outs = await asyncio.gather(
        *(
            run(
                Options(live_server.url, name=name, quick=True, seats=2,
                        sessions_path=tmp_path / f"{name}.json",
                        tokens_path=tmp_path / f"{name}-tokens.json"),
                ["quit"],
            )
            for name in ("Ann", "Bea")
        )
    )  # fmt: skip
    rooms = set()
    for code, out in outs:
        assert code == 0, out
        assert "quick match: room r-" in out
        rooms.add(out.split("quick match: room ")[1].split(",")[0])
    assert len(rooms) == 1


async def test_the_hosts_commands(live_server: LiveServer, tmp_path: Path) -> None:
    """The host kicks a player, hands the role on (and then may not lock), and a new
    host fills the seats with bots: the game starts."""
    path = tmp_path / "ann.json"
    ann = Account(live_server.url, path=path)
    await ann.guest("Ann")
    room = (await ann.create_room("rollie", 4, room={"bot_delay": 0}))["room"]
    bea, cai = Account(live_server.url, keep=False), Account(live_server.url, keep=False)
    await bea.guest("Bea")
    await cai.guest("Cai")
    kicked = await bea.join(room)
    assert kicked.seat == 0
    stays = await cai.join(room)
    options = Options(live_server.url, room, sessions_path=path, tokens_path=tmp_path / "t.json")
    code, out = await run(options, [f"/kick {kicked.seat}", f"/host {stays.seat}", "/lock", "quit"])
    assert code == 0, out
    assert "> /kick 0: seat 0 removed (seq" in out
    assert f"> /host {stays.seat}: seat {stays.seat} is the host (seq" in out
    assert "> /lock: refused: " in out and "(room/not_host)" in out
    with pytest.raises(ConnectionLost) as lost:
        await kicked.wait_for(lambda _: False)
    assert lost.value.code == "room/removed"
    await stays.wait_for(lambda _: stays.is_host)
    await stays.fill()
    await stays.wait_for(lambda v: v["room"]["status"] == "playing")
    with pytest.raises(CommandRejected):
        await stays.lock()
    await stays.close()


async def play_to_the_end(client: Client) -> None:
    while True:
        view = await client.wait_for(
            lambda v: v["room"]["status"] == "finished" or bool(v["you"]["legal"]), timeout=30
        )
        if view["room"]["status"] == "finished":
            return
        with contextlib.suppress(CommandRejected):
            await client.send(view["you"]["legal"][0])


async def test_my_games_lists_replays_and_resumes(
    live_server: LiveServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """games lists the player's rooms, newest first, with status and result; --replay
    replays a finished one; --resume opens a room at the player's seat."""
    path, url = tmp_path / "ann.json", live_server.url
    ann = Account(url, path=path)
    await ann.guest("Ann")
    done = await ann.create_room("rollie", 2, {"rounds": 1}, room={"bots": 1, "bot_delay": 0})
    client = await ann.join(done["room"])
    await asyncio.wait_for(play_to_the_end(client), 60)
    await client.close()
    waiting = (await ann.create_room("rollie", 3))["room"]
    seat = await ann.join(waiting)
    await seat.close()
    code, out = await account_command(path, url, "games", resume=None, replay=None, limit=20)
    assert code == 0
    first, second = out.splitlines()
    assert first.startswith(f"  1. {waiting}") and "waiting" in first and "(you host)" in first
    assert second.startswith(f"  2. {done['room']}") and "finished" in second
    assert "scores " in second and "seat" in second
    capsys.readouterr()
    code, _ = await account_command(path, url, "games", resume=None, replay="2", limit=20)
    assert code == 0 and f"replayed {done['room']} to seq" in capsys.readouterr().out
    code, _ = await account_command(path, url, "games", resume="1", replay=None, limit=20)
    assert code == Resume(waiting)
    resumed = Options(url, waiting, sessions_path=path, tokens_path=tmp_path / "t.json")
    code, out = await run(resumed, ["quit"])
    assert code == 0 and f"room {waiting} (rollie) at seat {seat.seat}" in out
    code, out = await account_command(path, url, "games", resume="9", replay=None, limit=20)
    assert code == 1 and "no game '9'" in out
    assert listing([], None) == ["no games yet: rollhouse play URL --quick"]


async def test_the_commands_run_from_a_shell(live_server: LiveServer, tmp_path: Path) -> None:
    """`rollhouse register` reads the password from stdin, keeps the session in
    ~/.rollhouse/sessions.json (0600); `rollhouse whoami` then knows the player."""
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}

    async def cli(*args: str, stdin: bytes = b"") -> tuple[int, str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "clients.cli", *args, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, cwd=ROOT, env=env,
        )  # fmt: skip
        out, _ = await asyncio.wait_for(proc.communicate(stdin), 60)
        return proc.returncode or 0, out.decode()

    url = live_server.url
    code, out = await cli("register", url, "--username", "dee", "--name", "Dee", stdin=PASSWORD.encode() + b"\n")  # fmt: skip
    assert code == 0 and "registered Dee" in out, out
    saved = tmp_path / ".rollhouse" / "sessions.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    code, out = await cli("whoami", url)
    assert code == 0 and "Dee (p-" in out and "username dee" in out
    link = invite_link(url, "r-00000000", "x")
    code, out = await cli("play", link, stdin=b"quit\n")
    assert code == 1 and "room/not_found" in out


async def test_a_slash_command_typed_in_the_live_table(live_server: LiveServer) -> None:
    """In the live table, '/lock' then Enter locks the host's room; the outcome lands on
    the status line; a chat line typed after 't' shows in the chat panel."""
    ann = Account(live_server.url, keep=False)
    await ann.guest("Ann")
    room = (await ann.create_room("rollie", 2))["room"]
    client = await ann.join(room)
    table = LiveTable(client, room, ann)
    for key in "/lock\r":
        table.key(key)
    await asyncio.wait_for(asyncio.gather(*table.tasks), 10)
    assert table.message.startswith("seats locked (seq") and table.typing is None
    for key in "thello there\r":
        table.key(key)
    await asyncio.wait_for(asyncio.gather(*table.tasks), 10)
    await client.wait_for(lambda v: bool(v["chat"]["players"]))
    assert "Ann: hello there" in to_text(table.frame(0.0))
    await client.close()
