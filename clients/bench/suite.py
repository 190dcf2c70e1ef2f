"""``rollhouse bench-all``: every benchmark of the node, one after the other, and each
figure beside its target (not a test: figures are printed, never asserted).

It runs, each as its own process with ``--json``, with nothing of its own in between:

1. ``rollhouse bench --open-loop`` (Rollie, the three stores and the bare server, then
   each again paced at half the rate it reached), and ``rollhouse bench --rate 500``
   (every target paced at 500 commands/s: the tail against the bare server's);
2. ``rollhouse bench --game roll-player`` and ``--game roll-builder``;
3. ``python -m clients.bench.idle`` (10,000 idle connections);
4. ``python -m clients.bench.resume``, flat out and ``--rate 300``;
5. ``python -m clients.bench.load`` (a long room loading under traffic);
6. ``python -m clients.bench.fold`` and ``python -m clients.bench.rooms``;
7. ``python -m clients.bench.core``, alone and ``--together`` (the room core's CPU per
   command, in process);
8. ``python -m clients.bench.audience`` (one Rollie room, 6 players, 5,000 spectators:
   deliveries per server CPU second against a bare broadcast of the same frames).

``--seconds`` is the window of each ``rollhouse bench`` target (default 10); the whole
run takes about ten minutes on two cores. The machine's load average is taken before
and after each part. With ``--json`` one object holds every part's own output, the
load averages and the target table; without, the target table is printed. On a
terminal a progress bar (on stderr) shows the part that runs and the time left. Run
it on a quiet machine: every other process shares the cores the figures are about.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from clients import progress
from clients.bench.game import PLAYERS

Parts = dict[str, Any]


def parts(seconds: float) -> list[tuple[str, list[str], float]]:
    """Each part's name, its command line (after ``python -m``) and about how many
    seconds it takes on two cores (the progress bar's weights)."""
    window = ["--seconds", f"{seconds:g}", "--json"]
    target = seconds + 4  # one bench target: its window and its processes' start
    return [
        ("rollie", ["clients.cli", "bench", "--open-loop", *window], 4 * (2 * target)),
        ("rollie_500", ["clients.cli", "bench", "--rate", "500", *window], 4 * target),
        ("roll-player", ["clients.cli", "bench", "--game", "roll-player", *window], 4 * target),
        ("roll-builder", ["clients.cli", "bench", "--game", "roll-builder", *window], 4 * target),
        ("idle", ["clients.bench.idle", "--json"], 32),
        ("resume", ["clients.bench.resume", "--json"], 140),
        ("resume_paced", ["clients.bench.resume", "--rate", "300", "--json"], 130),
        ("load", ["clients.bench.load", "--json"], 20),
        ("fold", ["clients.bench.fold", "--json"], 2),
        ("rooms", ["clients.bench.rooms", "--json"], 8),
        ("core", ["clients.bench.core", "--json"], 17),
        ("core_together", ["clients.bench.core", "--together", "--json"], 16),
        ("audience", ["clients.bench.audience", "--json"], 70),
    ]


def run_part(module_args: Sequence[str]) -> dict[str, Any]:
    """One part as its own process; its JSON (or, if it failed, the end of its stderr as
    ``error``), with its wall time and the load average. A failed part leaves its
    figures out; the others still run."""
    before, started = os.getloadavg(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", *module_args], capture_output=True, text=True, check=False
    )
    part: dict[str, Any] = {
        "seconds": round(time.perf_counter() - started, 1),
        "load_average": {"before": before, "after": os.getloadavg()},
    }
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        part["error"] = f"exit {done.returncode}: {done.stderr[-2000:]}"
    else:
        part["output"] = json.loads(lines[-1])
    return part


# -- the targets of the performance issue, each from the parts' figures --------------------


def _stores(result: Parts, game: str) -> dict[str, Any]:
    return dict(result[game]["output"]["stores"])


def _sdk_ms(row: dict[str, Any], viewers: int) -> float | None:
    """The load generator's CPU per command per viewer it mirrors (bots' choices included)."""
    rate, load = row["commands_per_second"], row["cpu_percent"].get("load")
    return round(load / 100 / rate / viewers * 1000, 3) if rate and load else None


Target = tuple[str, str, Callable[[Parts], Any], Callable[[Any], bool]]


def _at_most(limit: float) -> Callable[[Any], bool]:
    return lambda value: value is not None and value <= limit


def _at_least(limit: float) -> Callable[[Any], bool]:
    return lambda value: value is not None and value >= limit


def _below(limit: float) -> Callable[[Any], bool]:
    return lambda value: value is not None and value < limit


def _cpu_ratio(game: str, store: str, result: Parts) -> Any:
    return _stores(result, game)[store]["ratio_per_server_cpu"]


def _half_p99(store: str, result: Parts) -> Any:
    return _stores(result, "rollie")[store]["half_rate"]["p99_to_bare"]


def _paced_p99(store: str, result: Parts) -> Any:
    """Our ack p99 over the bare server's, both paced at 500 commands/s."""
    out = result["rollie_500"]["output"]
    ours, theirs = out["stores"][store]["ack_ms"]["p99"], out["bare"]["ack_ms"]["p99"]
    return round(ours / theirs, 2) if ours and theirs else None


def _resume_p99(part: str, store: str, result: Parts) -> Any:
    return _by_store(result[part]["output"]["runs"], store)["resume_ms"]["p99"]


def _stall(store: str, result: Parts) -> Any:
    return _snapshotted(result, store)["ping_worst_during_load_ms"]


def _load(store: str, result: Parts) -> str:
    run = _snapshotted(result, store)
    return f"{run['server_load_ms']} ({run['records']})"


def _idle(result: Parts) -> dict[str, Any]:
    return dict(result["idle"]["output"])


def _core_us(part: str, game: str, result: Parts) -> Any:
    return next(g for g in result[part]["output"]["games"] if g["game"] == game)["us_per_command"]


def targets() -> list[Target]:
    """(figure, target, how to read it from the parts, whether it meets the target)."""
    printed: Callable[[Any], bool] = lambda _: True  # noqa: E731 - a figure with no target
    rows: list[Target] = []
    for store, ratio in (("memory", 0.6), ("sqlite", 0.5), ("redis", 0.5)):
        rows.append((f"Rollie commands per server CPU s / bare, {store}", f">= {ratio}x",
                     partial(_cpu_ratio, "rollie", store), _at_least(ratio)))  # fmt: skip
    for store in ("memory", "sqlite", "redis"):
        rows.append((f"p99 at half saturation / bare's, {store}", "<= 2x",
                     partial(_half_p99, store), _at_most(2.0)))  # fmt: skip
    for store in ("memory", "sqlite", "redis"):
        rows.append((f"ack p99 at 500 commands/s / bare's, {store}", "<= 1.2x",
                     partial(_paced_p99, store), _at_most(1.2)))  # fmt: skip
    for game in ("roll-player", "roll-builder"):
        for store in ("memory", "sqlite", "redis"):
            rows.append((f"{game} commands per server CPU s / bare, {store}", ">= 0.3x",
                         partial(_cpu_ratio, game, store), _at_least(0.3)))  # fmt: skip
    rows += [
        ("idle: KiB per connection (10,000)", "<= 20",
         lambda r: _idle(r)["memory"]["kib_per_connection"], _at_most(20)),
        ("idle: server CPU per join / bare's", "<= 2x",
         lambda r: round(_idle(r)["memory"]["server_cpu_ms_per_join"]
                         / _idle(r)["bare"]["server_cpu_ms_per_join"], 2), _at_most(2.0)),
        ("idle: a spectator's ping p99, with / without them open", "<= 1.5x",
         lambda r: round(_idle(r)["memory"]["ping_ms_with"]["p99"]
                         / _idle(r)["memory"]["ping_ms_without"]["p99"], 2), _at_most(1.5)),
        ("idle: presence frames for 10,000 joins", "(500,000 if one per join)",
         lambda r: _idle(r)["memory"]["presence_frames_received"], printed),
    ]  # fmt: skip
    for part, pace in (("resume", "flat out"), ("resume_paced", "300 commands/s")):
        for store in ("memory", "sqlite", "redis"):
            rows.append((f"resume p99 ms, 20 rooms {pace}, {store}", "< 5",
                         partial(_resume_p99, part, store), _below(5)))  # fmt: skip
    for store in ("sqlite", "redis"):
        rows.append((f"worst stall of other rooms while a long room loads, ms, {store}",
                     "<= 10", partial(_stall, store), _at_most(10)))  # fmt: skip
        rows.append((f"a long room's load, server ms (records), {store}", "(printed)",
                     partial(_load, store), printed))  # fmt: skip
    rows += [
        ("a 10,000-event room's load, ms: snapshot read + 500 records folded", "< 50",
         _projected_load, _below(50)),
        ("GET /api/rooms page of 10,000 rooms, worst p50 ms", "< 50",
         lambda r: max(p["p50_ms"] for run in r["rooms"]["output"]["runs"] for p in run["pages"]),
         _below(50)),
        ("SDK CPU ms per mirrored command (Rollie, memory)", "<= 0.25",
         lambda r: _sdk_ms(_stores(r, "rollie")["memory"], PLAYERS["rollie"] + 1),
         _at_most(0.25)),
    ]  # fmt: skip
    for part, how in (("core", "one at a time"), ("core_together", "every awaited seat at once")):
        for game in ("rollie", "roll-player", "roll-builder"):
            rows.append((f"room core in process, us per command, {game}, {how}", "(printed)",
                         partial(_core_us, part, game), printed))  # fmt: skip
    rows += [
        ("a big audience (5,000 spectators): deliveries per server CPU s / bare", ">= 0.6x",
         lambda r: r["audience"]["output"]["ratio_per_server_cpu"], _at_least(0.6)),
        ("a big audience: patch p99 ms to the last spectator (bare's)", "(printed)",
         _audience_p99, printed),
    ]  # fmt: skip
    return rows


def _audience_p99(result: Parts) -> str:
    out = result["audience"]["output"]
    ours, bare = (out[k]["patch_to_last_spectator_ms"]["p99"] for k in ("ours", "bare"))
    return f"{ours} ({bare})"


def _by_store(runs: list[dict[str, Any]], store: str) -> dict[str, Any]:
    return next(run for run in runs if run["store"] == store)


def _snapshotted(result: Parts, store: str) -> dict[str, Any]:
    runs = result["load"]["output"]["runs"]
    return next(r for r in runs if r["store"] == store and r["snapshot_every"])


def _projected_load(result: Parts) -> float:
    """The most a load folds after a snapshot (500 records, at the slowest game's rate
    per record) plus that game's snapshot read: no game's room reaches 10,000 events."""
    games = result["fold"]["output"]["games"]
    worst = max(g["fold_us_per_record"] * 500 / 1000 + g["snapshot_read_ms"] for g in games)
    return round(float(worst), 2)


def table(result: Parts) -> list[dict[str, Any]]:
    out = []
    for name, target, read, meets in targets():
        try:
            value = read(result)
        except (KeyError, TypeError, ZeroDivisionError, StopIteration) as exc:
            value, met = f"({type(exc).__name__})", False
        else:
            met = meets(value)
        out.append({"figure": name, "target": target, "measured": value, "met": met})
    return out


def render(result: Parts, rows: list[dict[str, Any]]) -> str:
    lines = ["parts (wall s, load average before -> after):"]
    for name, part in result.items():
        load = part["load_average"]
        failed = f"   FAILED: {part['error'].splitlines()[-1]}" if "error" in part else ""
        lines.append(f"  {name:<13} {part['seconds']:>6.1f} s   {load['before'][0]:.2f} ->"
                     f" {load['after'][0]:.2f}{failed}")  # fmt: skip
    width = max(len(r["figure"]) for r in rows)
    lines.append("")
    lines.append(f"{'figure':<{width}}  {'target':<12} {'measured':>12}  met")
    for r in rows:
        mark = "yes" if r["met"] else "NO"
        if r["target"].startswith("("):
            mark = ""
        lines.append(f"{r['figure']:<{width}}  {r['target']:<12} {r['measured']!s:>12}  {mark}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """The subcommand."""
    result: Parts = {}
    plan = parts(args.seconds)
    total = sum(expected for _, _, expected in plan)
    with progress.bar("bench-all", total, progress.wanted(args.json)) as shown:
        for name, module_args, expected in plan:
            if not args.json and not shown.shown:
                print(f"running {name}: python -m {' '.join(module_args)}", flush=True)
            shown.now(f"{name}: python -m {' '.join(module_args[:-1])}")
            result[name] = run_part(module_args)
            shown.advance(expected)
    rows = table(result)
    if args.json:
        print(json.dumps({"parts": result, "targets": rows}))
    else:
        print(render(result, rows))
    return 0


def add_parser(subparsers: Any) -> None:
    """Register ``bench-all`` on the ``rollhouse`` command line."""
    parser = subparsers.add_parser(
        "bench-all",
        help="every benchmark of the node in one run, each figure beside its target",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="window per rollhouse bench target (default 10)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)
