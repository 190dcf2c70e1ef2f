"""The terminal client against a real server: scripted play, token resume, watching."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import pty
import sys
import termios
from pathlib import Path

from clients.bots.play import play_seat
from clients.sdk import Client
from clients.terminal.cli import Options, session
from clients.terminal.keys import lines_of
from clients.terminal.live import LiveTable
from tests.support.server import LiveServer, free_port

ROOT = Path(__file__).resolve().parents[2]


async def run_session(options: Options, lines: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = await asyncio.wait_for(session(options, lines=lines_of(lines), out=out), 30)
    return code, out.getvalue()


async def test_scripted_play_in_a_subprocess_rolls(live_server: LiveServer, tmp_path: Path) -> None:
    """`rollhouse play` with piped stdin joins, prints and saves its token, and rolls."""
    room = (await live_server.create_room(seats=2, options={"rounds": 3}))["room"]
    bot = Client(live_server.ws_url, room, name="bot")
    await bot.connect()
    playing = asyncio.create_task(play_seat(bot, delay=0))
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "clients.cli", "play", live_server.url, "--room", room,
        "--name", "ann", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, cwd=ROOT, env=env,
    )  # fmt: skip
    try:
        script = b"roll\nsecure\nroll\nsecure\nroll\nquit\n"
        stdout, _ = await asyncio.wait_for(proc.communicate(script), 60)
    finally:
        if proc.returncode is None:
            proc.kill()
        playing.cancel()
        with contextlib.suppress(BaseException):
            await playing
        await bot.close()
    out = stdout.decode()
    assert proc.returncode == 0, out
    assert f"joined room {room} (rollie) at seat" in out
    assert "> roll: accepted (seq" in out
    token = out.split("seat token: ")[1].split()[0]
    saved = json.loads((tmp_path / ".rollhouse" / "tokens.json").read_text())
    assert saved == {f"{live_server.ws_url}#{room}": token}
    assert "Rollie" in out and "Seat 0" in out  # the table printed at exit


async def test_saved_token_resumes_the_seat(live_server: LiveServer, tmp_path: Path) -> None:
    """A second run reuses the saved token (same seat); a stale saved token joins afresh."""
    room = (await live_server.create_room(seats=3))["room"]
    path = tmp_path / "tokens.json"
    options = Options(live_server.url, room, name="ann", tokens_path=path)
    code, out = await run_session(options, ["quit"])
    assert code == 0 and f"joined room {room} (rollie) at seat 0" in out
    code, out = await run_session(options, ["quit"])
    assert code == 0 and f"resumed room {room} (rollie) at seat 0" in out
    path.write_text(json.dumps({f"{live_server.ws_url}#{room}": "stale"}))
    code, out = await run_session(options, ["quit"])
    assert code == 0 and f"joined room {room} (rollie) at seat 1" in out
    assert json.loads(path.read_text())[f"{live_server.ws_url}#{room}"] != "stale"


async def test_explicit_bad_token_and_unknown_room_fail(
    live_server: LiveServer, tmp_path: Path
) -> None:
    """A wrong --token or an unknown room ends with exit code 1 and the server's reason."""
    room = (await live_server.create_room(seats=2))["room"]
    path = tmp_path / "tokens.json"
    code, out = await run_session(
        Options(live_server.url, room, token="nope", tokens_path=path), []
    )
    assert code == 1 and "room/bad_seat_token" in out
    code, out = await run_session(Options(live_server.url, "r-missing", tokens_path=path), [])
    assert code == 1 and "room/not_found" in out


async def test_unreachable_server_fails_plainly(tmp_path: Path) -> None:
    """Nobody listening: exit code 1 and a 'cannot reach' line, no traceback."""
    url = f"http://127.0.0.1:{free_port()}"
    code, out = await run_session(Options(url, "r-1", tokens_path=tmp_path / "t.json"), [])
    assert code == 1 and "cannot reach ws://127.0.0.1:" in out


async def test_watch_in_line_mode(live_server: LiveServer) -> None:
    """A spectator sees the table, is told it cannot act, and quits on 'quit'."""
    room = (await live_server.create_room(seats=2))["room"]
    options = Options(live_server.url, room, role="spectator")
    code, out = await run_session(options, ["take 5", "quit"])
    assert code == 0 and f"watching room {room} (rollie)" in out
    assert "spectators cannot act" in out
    assert "watching" in out and "Start tokens" in out and "waiting" in out


async def test_tty_mode_keys_and_terminal_restored(live_server: LiveServer, tmp_path: Path) -> None:
    """On a TTY: cbreak keys work without Enter (? shows help, q quits) and the mode is restored."""
    room = (await live_server.create_room(seats=2))["room"]
    master, slave = pty.openpty()
    before = termios.tcgetattr(slave)
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "clients.cli", "play", live_server.url, "--room", room,
        stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=env,
    )  # fmt: skip
    screen = bytearray()
    seen = asyncio.Event()
    wanted = [b"press ? for the keys"]

    def readable() -> None:
        with contextlib.suppress(OSError):
            screen.extend(os.read(master, 65536))
        if wanted and wanted[0] in screen:
            seen.set()

    loop = asyncio.get_running_loop()
    loop.add_reader(master, readable)
    try:
        await asyncio.wait_for(seen.wait(), 30)
        seen.clear()
        wanted[0], screen[:] = b"show or hide this help", b""
        os.write(master, b"?")
        await asyncio.wait_for(seen.wait(), 30)
        os.write(master, b"q")
        assert await asyncio.wait_for(proc.wait(), 30) == 0
        assert termios.tcgetattr(slave) == before
    finally:
        loop.remove_reader(master)
        if proc.returncode is None:
            proc.kill()
        os.close(master)
        os.close(slave)


async def test_status_line_follows_a_dropped_connection(live_server: LiveServer) -> None:
    """A dropped socket reads as 'reconnecting (1)', then 'connected (reconnected 1x)'."""
    room = (await live_server.create_room(seats=2))["room"]
    client = Client(live_server.ws_url, room, name="ann", backoff=(0.2, 1.0))
    await client.connect()
    try:
        live = LiveTable(client, room)
        assert live.status(0).connection == "connected"
        await client.drop()
        seen: set[str] = set()
        async with asyncio.timeout(20):
            while client.reconnects == 0 or live.status(0).connection.startswith("reconn"):
                seen.add(live.status(0).connection)
                await asyncio.sleep(0.01)
        assert "reconnecting (1)" in seen
        assert live.status(0).connection == "connected (reconnected 1x)"
        assert client.seat == 0 and client.view is not None
    finally:
        await client.close()
