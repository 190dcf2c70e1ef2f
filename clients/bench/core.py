"""The room core in process (not a test): the CPU a command costs between socket reads.

    python -m clients.bench.core [--games rollie,roll-player,roll-builder] [--plays 8]
                                 [--together] [--repeat 3]

Per game: whole games (6 seats for Rollie, 4 for the others, as ``rollhouse bench``
plays them) through one :class:`server.room.core.RoomCore` with every seat joined and one
spectator, all on msgpack. Each seat plays the game's first bot policy from its own
view, chosen before the clock starts. What is timed is what the room actor does for a
command: the core deciding it (until the append), the core folding the durable write
(views, patches, acks, timers) and the shell's work on the outputs: the records made
plain for the store, and every frame encoded the way :class:`server.room.Room` encodes
them (a change's shared ops once per codec). No sockets, no store, no event loop: the
figures are the room's own share of a command, the part that ``rollhouse bench``
cannot separate from the network.

``--together`` sends every awaited seat's command at once, as one batch (the room's
``Commands``), the way simultaneous play reaches a busy room; refusals (``pile_empty``
races) are part of it. Printed: commands, and microseconds per command in all and per
stage, the best of ``--repeat`` runs. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import time
from typing import Any

from engine.core import Game, get_game
from engine.data import to_data
from protocol.codec import MSGPACK, MSGPACK_SUBPROTOCOL, OpPieces
from protocol.messages import Patch
from server.config import Settings
from server.room.core import CoreSettings, RoomCore
from server.room.io import (
    Append,
    CommandIn,
    Commands,
    Input,
    Join,
    Output,
    SaveReply,
    Send,
    TimerFired,
    WriteDone,
)
from server.room.model.fold import rebuild
from server.room.model.records import created_record, to_plain

SEATS = {"rollie": 6}
SPECTATOR = 1000
T0 = 1_800_000_000.0


class Stopwatch:
    """Seconds spent per stage."""

    def __init__(self) -> None:
        self.decide = self.fold = self.shell = 0.0
        self.commands = 0


def _shell(outputs: list[Output], watch: Stopwatch) -> Input | None:
    """What the room actor does with outputs: records made plain, frames encoded."""
    started = time.perf_counter()
    pieces: OpPieces = {}
    nxt: Input | None = None
    for out in outputs:
        if isinstance(out, Send):
            if out.frame is not None:  # as the room's Peers.send does
                pass
            elif type(out.message) is Patch:
                MSGPACK.encode_patch(out.message, pieces)
            else:
                MSGPACK.encode(out.message)
        elif isinstance(out, Append):
            [to_plain(r) for r in out.records]
            nxt = WriteDone(T0)
        elif isinstance(out, SaveReply):
            nxt = WriteDone(T0)
    watch.shell += time.perf_counter() - started
    return nxt


def _feed(core: RoomCore, inp: Input, watch: Stopwatch) -> None:
    """``inp`` and every write it leads to, timed by stage."""
    started = time.perf_counter()
    outputs = core.handle(inp)
    watch.decide += time.perf_counter() - started
    while True:
        nxt = _shell(outputs, watch)
        if nxt is None:
            return
        started = time.perf_counter()
        outputs = core.handle(nxt)
        watch.fold += time.perf_counter() - started


def new_core(game: Game[Any], seats: int, seed: int) -> RoomCore:
    created = created_record(game, seats, {}, seed, 0.0, T0, {"bot_delay": 0.5}, salt="bench")
    core = RoomCore(rebuild("r-bench", [(1, created)]), settings=CoreSettings())
    for seat in range(seats):  # seated as the shell would, through the core
        core.handle(Join(seat + 1, MSGPACK_SUBPROTOCOL, "player", f"p{seat}", None, None,
                         f"token-{seat}", T0))  # fmt: skip
        core.handle(WriteDone(T0))
    core.handle(Join(SPECTATOR, MSGPACK_SUBPROTOCOL, "spectator", None, None, None, "", T0))
    core.handle(TimerFired("presence", T0 + 1.0))  # the arrivals told: no timer left armed
    assert core.model.started and core.seated.keys() == set(range(seats)), "seats not taken"
    return core


def play(name: str, seed: int, together: bool, watch: Stopwatch) -> None:
    """One whole game through the core; the moves are chosen off the clock."""
    game = get_game(name)
    seats = SEATS.get(name, 4)
    core = new_core(game, seats, seed)
    policy = next(iter(game.policies.values()))
    rng = random.Random(seed)
    n = 0
    for _ in range(5000):  # bounded: a game ends well before
        model = core.model
        if model.is_over:
            return
        awaited = sorted(s for s in model.game.awaiting(model.state) if core.views.commands.get(s))
        if not awaited:
            return
        movers = awaited if together else [rng.choice(awaited)]
        batch = []
        for seat in movers:
            legal = core.views.commands[seat]
            command = policy(core.views.game[seat], seat, legal, rng)
            body = to_data(command)
            body.pop("seat", None)
            n += 1
            batch.append(CommandIn(seat + 1, f"c{n}", body, T0))
        inp: Input = batch[0] if len(batch) == 1 else Commands(tuple(batch), T0)
        _feed(core, inp, watch)
        watch.commands += len(batch)


def measure(name: str, plays: int, together: bool, repeat: int) -> dict[str, Any]:
    best: Stopwatch | None = None
    for _ in range(repeat):
        watch = Stopwatch()
        gc.collect()
        for seed in range(plays):
            play(name, seed, together, watch)
        total = watch.decide + watch.fold + watch.shell
        if best is None or total < best.decide + best.fold + best.shell:
            best = watch
    assert best is not None and best.commands
    per = 1e6 / best.commands
    return {
        "game": name,
        "commands": best.commands,
        "together": together,
        "us_per_command": round((best.decide + best.fold + best.shell) * per, 1),
        "decide_us": round(best.decide * per, 1),
        "fold_us": round(best.fold * per, 1),
        "shell_us": round(best.shell * per, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="rollie,roll-player,roll-builder")
    parser.add_argument("--plays", type=int, default=8, help="games played per repeat")
    parser.add_argument("--together", action="store_true",
                        help="every awaited seat's command in one batch")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    get_game("rollie")  # every game's import and content check, before any clock
    before = gc.get_threshold()
    gc.freeze()  # as `rollhouse serve` does after start-up, with its thresholds
    gc.set_threshold(*Settings().gc_thresholds)
    try:
        rows = [measure(name, args.plays, args.together, args.repeat)
                for name in args.games.split(",")]  # fmt: skip
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
    if args.json:
        print(json.dumps({"load_average": os.getloadavg(), "games": rows}))
        return 0
    print(f"the room core in process, us per command; load average {os.getloadavg()}")
    print(f"{'game':13} {'commands':>8} {'all':>7} {'decide':>7} {'fold':>7} {'shell':>7}")
    for r in rows:
        print(f"{r['game']:13} {r['commands']:>8} {r['us_per_command']:>7} {r['decide_us']:>7}"
              f" {r['fold_us']:>7} {r['shell_us']:>7}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
