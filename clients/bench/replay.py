"""Recorded games replayed through fresh room cores (not a test): a command's instructions.

    python -m clients.bench.replay record FILE [--games rollie,roll-player,roll-builder]
                                               [--plays 3]
    PYTHONHASHSEED=0 valgrind --tool=callgrind --dump-instr=no --callgrind-out-file=OUT \\
        .venv/bin/python -m clients.bench.replay run FILE --game roll-player --plays 3
    python -m clients.bench.replay count FILE [--games ...] [--plays 3]

``record`` plays ``--plays`` games of each game as :mod:`clients.bench.core` does
(seeds 0, 1, ...; one awaited seat at a time, the game's first bot policy) and writes
every command each seat sent, in order, to FILE (JSON). ``run`` replays the first
``--plays`` recorded games of ``--game`` through fresh :class:`server.room.core.RoomCore`
instances with the same shell work as :mod:`clients.bench.core` (records made plain,
frames encoded), and no bot choosing: what is left is the room's own work per command.

Under ``valgrind --tool=callgrind`` the instruction counts do not move with the load of
the machine: the difference between ``run --plays 3`` and ``run --plays 1``, divided by
the commands between them (printed by ``run``), is the cost of a command without the
start-up. ``run`` prints the commands it replayed; ``count`` runs both under callgrind
(``PYTHONHASHSEED=0``, ``--dump-instr=no``) for every game and prints the instructions
per command and the ratio to Rollie's. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from clients.bench.core import SEATS, Stopwatch, _feed, new_core
from engine.core import get_game
from engine.data import to_data
from server.config import Settings
from server.room.io import CommandIn, Input

T0 = 1_800_000_000.0

Recorded = list[tuple[int, dict[str, Any]]]
"""One game's commands: (seat, the command as the seat sent it)."""


def record_game(name: str, seed: int) -> Recorded:
    """One whole game through a room core, the first bot choosing for each awaited seat."""
    game = get_game(name)
    core = new_core(game, SEATS.get(name, 4), seed)
    policy = next(iter(game.policies.values()))
    rng = random.Random(seed)
    watch = Stopwatch()
    out: Recorded = []
    for _ in range(5000):  # bounded: a game ends well before
        model = core.model
        if model.is_over:
            break
        awaited = sorted(s for s in model.game.awaiting(model.state) if core.views.commands.get(s))
        if not awaited:
            break
        seat = rng.choice(awaited)
        command = policy(core.views.game[seat], seat, core.views.commands[seat], rng)
        body = to_data(command)
        body.pop("seat", None)
        out.append((seat, body))
        _feed(core, CommandIn(seat + 1, f"c{len(out)}", body, T0), watch)
    return out


def replay_game(name: str, seed: int, commands: Recorded) -> int:
    """``commands`` through a fresh core for ``name``'s game ``seed``; how many were sent."""
    core = new_core(get_game(name), SEATS.get(name, 4), seed)
    watch = Stopwatch()
    for n, (seat, body) in enumerate(commands, start=1):
        inp: Input = CommandIn(seat + 1, f"c{n}", body, T0)
        _feed(core, inp, watch)
    assert core.model.is_over, "the recorded game did not end: the replay went another way"
    return len(commands)


def instructions(file: Path, game: str, plays: int) -> tuple[int, int]:
    """Instructions (callgrind's total) and commands of ``run`` for ``plays`` games."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "--dump-instr=no", f"--callgrind-out-file={out}",
             sys.executable, "-m", "clients.bench.replay", "run", str(file), "--game", game,
             "--plays", str(plays)],
            env={**os.environ, "PYTHONHASHSEED": "0"}, capture_output=True, text=True,
            check=True,
        )  # fmt: skip
        totals = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
    sent = re.search(r"(\d+) commands", done.stdout)
    assert totals is not None and sent is not None, done.stdout
    return int(totals.group(1)), int(sent.group(1))


def count(file: Path, games: list[str], plays: int) -> dict[str, float]:
    """Instructions per command of each game: ``plays`` games less one, per command."""
    per: dict[str, float] = {}
    for name in games:
        (one, sent_one), (many, sent_many) = (instructions(file, name, n) for n in (1, plays))
        per[name] = (many - one) / (sent_many - sent_one)
        ratio = f" ({per[name] / per['rollie']:.2f}x Rollie)" if "rollie" in per else ""
        print(f"{name}: {per[name]:,.0f} instructions per command over "
              f"{sent_many - sent_one} commands{ratio}", flush=True)  # fmt: skip
    return per


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("record", "run", "count"))
    parser.add_argument("file", type=Path)
    parser.add_argument("--games", default="rollie,roll-player,roll-builder")
    parser.add_argument("--game", default="roll-player", help="run: the game to replay")
    parser.add_argument("--plays", type=int, default=3)
    args = parser.parse_args(argv)
    get_game("rollie")  # every game's import and content check first
    if args.mode == "record":
        games = {name: [record_game(name, seed) for seed in range(args.plays)]
                 for name in args.games.split(",")}  # fmt: skip
        args.file.write_text(json.dumps(games))
        for name, played in games.items():
            print(f"{name}: {[len(g) for g in played]} commands")
        return 0
    if args.mode == "count":
        count(args.file, args.games.split(","), args.plays)
        return 0
    recorded = json.loads(args.file.read_text())[args.game]
    before = gc.get_threshold()
    gc.freeze()  # as `rollhouse serve` does after start-up, with its thresholds
    gc.set_threshold(*Settings().gc_thresholds)
    try:
        sent = sum(replay_game(args.game, seed, [(s, b) for s, b in recorded[seed]])
                   for seed in range(args.plays))  # fmt: skip
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
    print(f"{args.game}: {args.plays} games, {sent} commands")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
