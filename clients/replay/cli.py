"""``rollhouse verify|export|import|replay``: a finished game's log, outside the server.

    rollhouse verify http://127.0.0.1:8000 ROOM     # check the dice against the seed, here
    rollhouse export http://127.0.0.1:8000 ROOM > game.jsonl
    rollhouse replay game.jsonl [--delay 0.3] [--at SEQ]
    rollhouse import http://127.0.0.1:8000 game.jsonl

``verify`` fetches the export and checks it on this machine (the commitment, the setup,
every roll, draw and shuffle re-decided through the engine: :mod:`engine.fairness`),
trusting nothing the server says; it prints the verdict and exits 0 when the dice are
the seed's, 1 when they are not, 2 when it cannot check. ``replay`` shows the game
in the terminal from an export, event by event, with the table at the end (or at
``--at``). ``import`` loads an export into a server as a finished, read-only room.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import httpx

from clients.sdk import http_url
from server.room import history


def add_parser(subparsers: Any) -> None:
    """Register ``verify``, ``export``, ``import`` and ``replay``."""
    verify = subparsers.add_parser("verify", help="check a finished game's dice against its seed")
    verify.add_argument("url")
    verify.add_argument("room")
    verify.set_defaults(func=run_verify)
    export = subparsers.add_parser("export", help="a finished game's log as JSON lines")
    export.add_argument("url")
    export.add_argument("room")
    export.set_defaults(func=run_export)
    load = subparsers.add_parser("import", help="load an export as a read-only room")
    load.add_argument("url")
    load.add_argument("file")
    load.set_defaults(func=run_import)
    replay = subparsers.add_parser("replay", help="replay an exported game in the terminal")
    replay.add_argument("file")
    replay.add_argument("--delay", type=float, default=0.0, help="seconds between events")
    replay.add_argument("--at", type=int, default=None, help="show the table at this seq")
    replay.set_defaults(func=run_replay)


def fetch_export(url: str, room: str) -> list[dict[str, Any]]:
    reply = httpx.get(f"{http_url(url)}/api/rooms/{room}/export", timeout=30)
    if reply.status_code != 200:
        error = reply.json().get("error", {})
        raise SystemExit(f"{error.get('code', reply.status_code)}: {error.get('message', '')}")
    return [json.loads(line) for line in reply.text.splitlines() if line.strip()]


def _log(lines: list[dict[str, Any]]) -> tuple[str, list[tuple[int, dict[str, Any]]]]:
    room = str(lines[0].get("room", "?"))
    return room, [(int(d.pop("seq")), d) for d in (dict(line) for line in lines[1:])]


def run_verify(args: argparse.Namespace) -> int:
    try:
        lines = fetch_export(args.url, args.room)
        room, log = _log(lines)
        verdict = history.fairness(room, log)
    except SystemExit as exc:
        print(f"cannot verify: {exc}")
        return 2
    if verdict.ok:
        print(f"dice verified: {verdict.checked} commands re-decided from the revealed seed")
        return 0
    print(f"NOT verified at seq {verdict.seq}: {verdict.problem}")
    return 1


def run_export(args: argparse.Namespace) -> int:
    for line in fetch_export(args.url, args.room):
        print(json.dumps(line))
    return 0


def run_import(args: argparse.Namespace) -> int:
    with open(args.file, "rb") as source:
        body = source.read()
    reply = httpx.post(f"{http_url(args.url)}/api/rooms/import", content=body, timeout=60)
    data = reply.json()
    if reply.status_code != 201:
        print(f"{data['error']['code']}: {data['error']['message']}")
        return 1
    print(data["room"])
    return 0


def run_replay(args: argparse.Namespace) -> int:
    with open(args.file) as source:
        lines = [json.loads(line) for line in source if line.strip()]
    replay(lines, args.at, args.delay)
    return 0


def replay(lines: list[dict[str, Any]], at: int | None = None, delay: float = 0.0) -> None:
    """Print an export's entries (up to ``at``), then the table there (also used by
    ``rollhouse games --replay``)."""
    from clients.terminal.render import Status, render, to_text

    room, log = _log(lines)
    entries, _ = history.events(room, log, 0, len(log))
    last = log[-1][0] if at is None else min(at, log[-1][0])
    for entry in entries:
        if entry["seq"] > last:
            break
        who = "" if entry.get("seat") is None else f" seat {entry['seat']}"
        by = f" ({entry['by']})" if entry.get("by") else ""
        print(f"{entry['seq']:>5}  {entry['name']}{who}{by}")
        if delay:
            time.sleep(delay)
    seq, view = history.view_at(room, log, last)
    print(
        to_text(
            render(
                view, None, Status(room=room, role="spectator", connection="replay"), time.time()
            )
        )
    )
    print(f"replayed {room} to seq {seq}")
