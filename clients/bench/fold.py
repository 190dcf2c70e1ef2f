"""Folding a room's log in process (not a test): what loading costs per record.

    python -m clients.bench.fold [--games rollie,roll-player,roll-builder] [--repeat 5]

Per game: one game is played by the engine with the game's first bot policy (6 seats
for Rollie, 4 for the others, seed 7) and written as the log the store would return:
the ``created`` record, a ``seated`` record per seat and one ``event`` record per
event, passed through msgpack. That log is folded through :class:`server.room.rebuild.
Rebuilder` (what :meth:`server.room.rooms.Rooms.get` runs on a load), and the model it
reaches is snapshotted and read back through :func:`server.room.model.snapshots.model_from`.
Printed: records, the best of ``--repeat`` fold times (total and per record) and the
best snapshot read. One process, no sockets: the figures are the CPU a load costs
between two turns of the event loop. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from typing import Any

from engine.core import Game, get_game
from engine.data import to_data
from server.room.model.records import created_record, seated_record, to_plain
from server.room.model.snapshots import model_from, snapshot_of
from server.room.rebuild import Rebuilder
from server.store.base import pack, unpack

SEATS = {"rollie": 6}


def played_log(game: Game[Any], seats: int, seed: int) -> list[tuple[int, dict[str, Any]]]:
    """A whole game played by its first policy, as ``(seq, data)`` records from a store."""
    rng = random.Random(seed)
    setup = game.setup(seats, {}, seed)
    state = game.create(setup)
    policy = next(iter(game.policies.values()))
    plain = [to_plain(created_record(game, seats, {}, seed, 0.0, 1.0, {}, salt="s"))]
    plain += [to_plain(seated_record(s, f"bot {s + 1}", None, "", 1.0)) for s in range(seats)]
    while not game.is_over(state):
        seat = rng.choice(sorted(game.awaiting(state)))
        legal = game.legal_commands(state, seat)
        command = policy(game.view(state, seat), seat, legal, rng)
        for event in game.decide(state, command):
            state = game.evolve(state, event)
            plain.append({"k": "event", "e": to_data(event), "at": 2.0, "seat": None})
    return [(seq, unpack(pack(data))) for seq, data in enumerate(plain, start=1)]


def measure(name: str, repeat: int) -> dict[str, Any]:
    game = get_game(name)
    log = played_log(game, SEATS.get(name, 4), 7)
    folds, reads = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        builder = Rebuilder("r-fold", log[0][1])
        builder.fold(log[1:])
        folds.append(time.perf_counter() - started)
    snapshot = unpack(pack(snapshot_of(builder.model, [])))
    base = Rebuilder("r-fold", log[0][1]).model
    for _ in range(repeat):
        started = time.perf_counter()
        model_from(base, snapshot)
        reads.append(time.perf_counter() - started)
    return {
        "game": name,
        "records": len(log),
        "fold_ms": round(min(folds) * 1e3, 2),
        "fold_us_per_record": round(min(folds) / len(log) * 1e6, 1),
        "snapshot_read_ms": round(min(reads) * 1e3, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="rollie,roll-player,roll-builder")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = [measure(name, args.repeat) for name in args.games.split(",")]
    if args.json:
        print(json.dumps({"load_average": os.getloadavg(), "games": rows}))
        return 0
    print(f"folding a log in process; load average {os.getloadavg()}")
    print(f"{'game':13} {'records':>7} {'fold ms':>8} {'us/record':>9} {'snapshot read ms':>16}")
    for r in rows:
        print(f"{r['game']:13} {r['records']:>7} {r['fold_ms']:>8} {r['fold_us_per_record']:>9}"
              f" {r['snapshot_read_ms']:>16}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
