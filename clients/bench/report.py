"""Figures and the table of ``rollhouse bench``, from the load generators' raw results."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile ``q`` (0-100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, round(q / 100 * len(ordered) + 0.5 - 1e-9))
    return round(ordered[min(rank, len(ordered)) - 1], 2)


def _merge(results: list[dict[str, Any]], key: str) -> Counter[str]:
    total: Counter[str] = Counter()
    for result in results:
        total.update(result[key])
    return total


def summarise(raw: dict[str, Any]) -> dict[str, Any]:
    """One target's figures from :func:`clients.bench.run.measure`'s raw data."""
    results: list[dict[str, Any]] = raw["results"]
    seconds = max(r["seconds"] for r in results)
    acked = sum(r["acked"] for r in results)
    ack_ms = [x for r in results for x in r["ack_ms"]]
    patch_ms = [x for r in results for x in r["patch_ms"]]
    connections = raw["connections"]
    grown = raw["rss_after_kib"] - raw["rss_before_kib"]
    rate = sum(r["acked"] / r["seconds"] for r in results)
    server_cores = raw["cpu_percent"]["server"] / 100
    return {
        "commands_per_second": round(rate, 1),
        "commands_per_server_cpu_second": round(rate / server_cores) if server_cores else None,
        "acked": acked,
        "seconds": round(seconds, 3),
        "ack_ms": {"p50": percentile(ack_ms, 50), "p99": percentile(ack_ms, 99)},
        "last_patch_ms": {"p50": percentile(patch_ms, 50), "p99": percentile(patch_ms, 99)},
        "last_patch_missing": sum(r["patch_missing"] for r in results),
        "memory_per_connection_kib": round(grown / connections, 1) if connections else None,
        "server_rss_kib": {"before": raw["rss_before_kib"], "after": raw["rss_after_kib"]},
        "connections": connections,
        "games_completed": sum(r["games"] for r in results),
        "rejected": dict(_merge(results, "rejected")),
        "errors": dict(_merge(results, "errors")),
        "late_sends": sum(r.get("late", 0) for r in results),
        "cpu_percent": raw["cpu_percent"],
    }


def _pair(figure: dict[str, float | None]) -> str:
    p50, p99 = figure["p50"], figure["p99"]
    return "-" if p50 is None or p99 is None else f"{p50:.1f} / {p99:.1f}"


def _cpu(cpu: dict[str, float]) -> str:
    names = ["server", "load", *sorted(set(cpu) - {"server", "load", "bench", "others"}), "others"]
    return " ".join(f"{name} {cpu[name]:.0f}%" for name in names if name in cpu)


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _row(name: str, row: dict[str, Any], bare: dict[str, Any] | None) -> str:
    kib = row["memory_per_connection_kib"]
    per_cpu = row["commands_per_server_cpu_second"]
    ratios = (row["ratio_to_bare"], row["ratio_per_server_cpu"]) if bare else (1.0, 1.0)
    games = str(row["games_completed"]) if bare else "-"
    return (
        f"{name:<7} {row['commands_per_second']:>10.0f} {_ratio(ratios[0]):>6}"
        f" {per_cpu if per_cpu is not None else '-':>9} {_ratio(ratios[1]):>6}"
        f" {_pair(row['ack_ms']):>15} {_pair(row['last_patch_ms']):>17}"
        f" {kib if kib is not None else '-':>8} {games:>5}   {_cpu(row['cpu_percent'])}"
    )


def render(summary: dict[str, Any]) -> str:
    """The human table."""
    length = (
        f"{summary['seconds']:g} s per store"
        if summary["seconds"] is not None
        else f"{summary['games']} games per store"
    )
    bare = summary["bare"]
    game = summary.get("game", "rollie")
    players = bare["connections"] // summary["rooms"] - 1 if summary["rooms"] else 0
    load = summary["machine"].get("load_average") or {}
    paced = f", paced at {summary['rate']:g} commands/s" if summary.get("rate") else ""
    lines = [
        f"rollhouse bench: {summary['rooms']} {game} rooms x ({players} bots + 1 spectator),"
        f" {length}{paced}, {summary['encoding']}, {summary['workers']} load-generator"
        f" process(es), {summary['machine']['cpus']} CPUs, load average"
        f" {_load(load.get('before'))} before, {_load(load.get('after'))} after",
        f"{'target':<7} {'commands/s':>10} {'/bare':>6} {'/srv-cpu-s':>9} {'/bare':>6}"
        f" {'ack p50/p99 ms':>15} {'patch p50/p99 ms':>17} {'KiB/conn':>8} {'games':>5}"
        "   CPU over the window (% of one core)",
    ]
    lines += [_row(store, row, bare) for store, row in summary["stores"].items()]
    lines.append(_row("bare", bare, None))
    rows = [*summary["stores"].items(), ("bare", bare)]
    rejected = [f"{name} {row['rejected']}" for name, row in rows if row["rejected"]]
    if rejected:
        lines.append("rejected (game races such as rollie/pile_empty): " + "; ".join(rejected))
    trouble = [
        f"  {name}: errors {row['errors']},"
        f" last patch not seen for {row['last_patch_missing']} commands"
        for name, row in rows
        if row["errors"] or row["last_patch_missing"]
    ]
    if trouble:
        lines += ["not clean:", *trouble]
    halves = [(name, row["half_rate"]) for name, row in rows if "half_rate" in row]
    if halves:
        lines.append("paced at half of each target's own commands/s:")
        lines.append(f"{'target':<7} {'rate':>8} {'commands/s':>10} {'patch p50/p99 ms':>17}"
                     f" {'p99/bare':>8} {'late':>6}")  # fmt: skip
        for name, half in halves:
            lines.append(
                f"{name:<7} {half['rate']:>8.0f} {half['commands_per_second']:>10.0f}"
                f" {_pair(half['last_patch_ms']):>17} {_ratio(half.get('p99_to_bare')):>8}"
                f" {half['late_sends']:>6}"
            )
    return "\n".join(lines)


def _load(value: Any) -> str:
    return "-" if not value else "/".join(f"{x:.2f}" for x in value)
