"""The JS SDK as a user gets it: ``npm pack`` of clients/js, installed from the tarball into
an empty folder, and a Node program (tests/clients/js/play_games.mjs) that plays a whole
Rollie, Roll Player and Roll Builder game against a real server, each with a socket dropped
mid-game while a command is unanswered, then resumed.

Needs ``node`` and ``npm`` (skipped without them, unless ROLLHOUSE_REQUIRE_NODE=1, as under
CI) and clients/js/node_modules (``npm ci``; the test runs it when it is missing): the
tarball's prepack step writes the .d.ts files with TypeScript.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import LiveServer

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clients" / "js"
SCRIPT = Path(__file__).resolve().parent / "js" / "play_games.mjs"
GAMES = ("rollie", "roll-player", "roll-builder")

pytestmark = pytest.mark.timeout(240)


def require_node() -> None:
    """Skip (or fail, under ROLLHOUSE_REQUIRE_NODE=1) without node and npm."""
    if shutil.which("node") and shutil.which("npm"):
        return
    message = "node and npm are not installed"
    if os.environ.get("ROLLHOUSE_REQUIRE_NODE") == "1":
        pytest.fail(message + " and ROLLHOUSE_REQUIRE_NODE=1")
    pytest.skip(message)


def npm(*args: str, cwd: Path) -> str:
    """Run npm quietly; its stdout (raises with its output when it fails)."""
    done = subprocess.run(
        ["npm", "--no-audit", "--no-fund", "--loglevel=error", *args],
        cwd=cwd, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"npm {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's folder with the packed SDK installed from its tarball."""
    require_node()
    if not (PACKAGE / "node_modules").exists():
        npm("ci", "--prefer-offline", cwd=PACKAGE)
    packs = tmp_path_factory.mktemp("pack")
    npm("pack", "--pack-destination", str(packs), cwd=PACKAGE)
    (tarball,) = packs.glob("rollhouse-client-*.tgz")
    user = tmp_path_factory.mktemp("user")
    (user / "package.json").write_text('{"name": "a-user", "private": true, "type": "module"}\n')
    npm("install", "--prefer-offline", str(tarball), cwd=user)
    shutil.copy(SCRIPT, user / SCRIPT.name)
    return user


async def play(user: Path, base_url: str, *games: str) -> list[dict[str, Any]]:
    """Run the Node program against the server (which keeps serving: it is in this loop)."""
    proc = await asyncio.create_subprocess_exec(
        "node", SCRIPT.name, base_url, *games, cwd=user,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 150)
    assert proc.returncode == 0, err.decode()
    return [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]


async def test_the_packed_sdk_plays_three_games_through_a_drop(
    installed: Path, live_server: LiveServer
) -> None:
    """Each game ends; after its dropped socket the client said hello with its last seq and
    came back to the seat, the command in flight was answered, and the mirror's room part
    is the server's at the end."""
    results = await play(installed, live_server.url, *GAMES)
    for r in results:
        print(f"js sdk: {r['game']}: seq {r['seq']}, {r['answered']} commands answered, "
              f"rejects {r['rejects']}, {r['reconnects']} reconnect(s), {r['ms']} ms")  # fmt: skip
    assert [r["game"] for r in results] == list(GAMES)
    for r in results:
        assert r["status"] == "finished", r
        assert r["dropped"] is not None and r["answered"] > 3, r
        assert r["reconnects"] >= 1 and r["dropped"]["last_seq"] == r["dropped"]["seq"], r
        assert r["welcomes"][0]["seq"] >= r["dropped"]["seq"], r
        assert r["room_part_agrees"], r
    # The server resumes with the missed patches when they encode smaller than a snapshot,
    # else sends a snapshot (both are a resume: docs/protocol.md 7). Solo Roll Builder always
    # comes back by patches (nothing moves while it is away but its own command); with a bot
    # moving meanwhile, Rollie and Roll Player may come back either way.
    builder = results[2]
    assert builder["welcomes"][0] == {"seq": builder["dropped"]["seq"], "snapshot": False}


async def test_the_readme_js_example_plays_a_game(installed: Path, live_server: LiveServer) -> None:
    """The README's JS quick example, run as written with the installed package, plays to the end."""
    block = re.search(r"```js\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert block is not None
    source = block.group(1).replace('"http://127.0.0.1:8000"', json.dumps(live_server.url))
    (installed / "readme.mjs").write_text(source)
    proc = await asyncio.create_subprocess_exec(
        "node", "readme.mjs", cwd=installed,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    assert out.decode().startswith("scores:")
