"""``rollhouse simulate``: play whole games with the game's bots, in-process.

Generic over every registered game (:func:`engine.core.get_game`): it asks the game
which seats it awaits, each awaited seat's bot picks among ``legal_commands`` from
the seat's view, and the commands of seats awaited together (simultaneous play)
reach the game in a random arrival order. A command made stale by an earlier
arrival (e.g. the last bill of a pile is gone) is refused and that seat chooses
again, as a real client would.

Seats alternate between the listed policies; the assignment rotates by one seat each
game so no policy keeps the same position. A game-specific extra comes from
``result().detail`` (e.g. Rollie's ``rounds``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from clients import progress
from engine.core import Game, Result, apply, choose, games, get_game
from engine.errors import Rejection


@attrs.frozen
class GameRun:
    """One simulated game: its result, the commands applied and refused."""

    result: Result
    policies: tuple[str, ...]
    applied: int
    refused: int


class Stuck(RuntimeError):
    """The game awaits nobody, or runs past the command limit, without ending."""


def play_game(
    game: Game[Any],
    players: int,
    names: Sequence[str],
    seed: int,
    options: dict[str, Any] | None = None,
    limit: int = 1_000_000,
) -> GameRun:
    """Play one game to its end with the bots ``names`` (one per seat)."""
    rng = random.Random(seed)
    state = game.create(game.setup(players, options or game.default_options(), seed))
    applied = refused = 0
    while not game.is_over(state):
        waiting = sorted(game.awaiting(state))
        if not waiting or applied > limit:
            raise Stuck(f"{game.name}: stuck after {applied} commands")
        # every awaited seat decides on the same view; arrivals come in random order
        queue = [(seat, _choose(game, state, seat, names[seat], rng)) for seat in waiting]
        rng.shuffle(queue)
        for seat, command in queue:
            while seat in game.awaiting(state) and command is not None:
                try:
                    events = game.decide(state, command)
                except Rejection:
                    refused += 1
                    command = _choose(game, state, seat, names[seat], rng)
                    continue
                state = apply(game, state, events)
                applied += 1
                break
    result = game.result(state)
    assert result is not None
    return GameRun(result, tuple(names), applied, refused)


def _choose(game: Game[Any], state: Any, seat: int, name: str, rng: random.Random) -> Any:
    return choose(game, state, seat, game.policies[name], rng)


def seat_policies(names: Sequence[str], players: int, game_index: int) -> tuple[str, ...]:
    """Seats alternate between ``names``, rotated by one seat per game."""
    return tuple(names[(seat + game_index) % len(names)] for seat in range(players))


def simulate(
    game_name: str,
    players: int,
    count: int,
    seed: int,
    names: Sequence[str] | None = None,
    options: dict[str, Any] | None = None,
    on_game: Callable[[GameRun], None] | None = None,
) -> dict[str, Any]:
    """Play ``count`` games and summarise them as plain data (``on_game`` is told of
    each game as it ends: the progress bar)."""
    game = get_game(game_name)
    names = list(names or game.policies)
    unknown = [n for n in names if n not in game.policies]
    if unknown:
        raise ValueError(f"unknown policies {unknown}; {game_name} has {sorted(game.policies)}")
    started = time.perf_counter()
    runs = []
    for i in range(count):
        runs.append(play_game(game, players, seat_policies(names, players, i), seed + i, options))
        if on_game is not None:
            on_game(runs[-1])
    elapsed = time.perf_counter() - started
    return summarise(game_name, players, seed, runs, elapsed)


def summarise(
    game_name: str, players: int, seed: int, runs: Sequence[GameRun], elapsed: float
) -> dict[str, Any]:
    """Games, means, win rate per policy and commands per second."""
    applied = sum(r.applied for r in runs)
    per_policy: dict[str, dict[str, float]] = {}
    for run in runs:
        for seat, name in enumerate(run.policies):
            row = per_policy.setdefault(name, {"seats": 0, "wins": 0.0, "score": 0.0})
            row["seats"] += 1
            row["score"] += run.result.scores[seat]
            if seat in run.result.winners:
                row["wins"] += 1 / len(run.result.winners)  # a shared win counts its share
    summary: dict[str, Any] = {
        "game": game_name,
        "players": players,
        "seed": seed,
        "games": len(runs),
        "mean_commands": _mean([r.applied for r in runs]),
        "mean_refused": _mean([r.refused for r in runs]),
        "mean_score": _mean([s for r in runs for s in r.result.scores]),
        "policies": {
            name: {
                "seats": int(row["seats"]),
                "win_rate": round(row["wins"] / row["seats"], 4),
                "mean_score": round(row["score"] / row["seats"], 2),
            }
            for name, row in per_policy.items()
        },
        "commands_applied": applied,
        "seconds": round(elapsed, 4),
        "commands_per_second": round(applied / elapsed) if elapsed > 0 else None,
        "games_per_second": round(len(runs) / elapsed, 2) if elapsed > 0 else None,
    }
    rounds = [r.result.detail.get("rounds") for r in runs]
    if rounds and all(isinstance(n, int) for n in rounds):
        summary["mean_rounds"] = _mean([int(n) for n in rounds if n is not None])
    groups = summarise_groups(runs)
    if groups:
        summary["groups"] = groups
    rates = summarise_rates(runs)
    if rates:
        summary["rates"] = rates
    return summary


def summarise_rates(runs: Sequence[GameRun]) -> dict[str, dict[str, dict[str, Any]]]:
    """For each ``detail["rates"]`` name and label: seats dealt it and the share of
    them for which it held (e.g. a visionary completed)."""
    seen: dict[str, dict[str, list[bool]]] = {}
    for run in runs:
        for name, by_label in (run.result.detail.get("rates") or {}).items():
            for label, flags in by_label.items():
                seen.setdefault(name, {}).setdefault(str(label), []).extend(map(bool, flags))
    return {
        name: {
            label: {"seats": len(flags), "rate": round(sum(flags) / len(flags), 4)}
            for label, flags in sorted(by_label.items())
        }
        for name, by_label in seen.items()
    }


def summarise_groups(runs: Sequence[GameRun]) -> dict[str, dict[str, dict[str, Any]]]:
    """Scores per label of each group the games report (``detail["groups"]``).

    For each label: seats, mean score, the p10-p90 band, and the survival rate when
    the games report ``detail["survived_by_seat"]`` (solo targets).
    """
    scores: dict[str, dict[str, list[int]]] = {}
    wins: dict[str, dict[str, float]] = {}
    survived: dict[str, dict[str, list[bool]]] = {}
    for run in runs:
        detail = run.result.detail
        lived = detail.get("survived_by_seat")
        mixed = len(set(run.policies)) > 1
        for group, labels in (detail.get("groups") or {}).items():
            for seat, raw in enumerate(labels):
                label = f"{raw} ({run.policies[seat]})" if mixed else str(raw)
                scores.setdefault(group, {}).setdefault(str(label), []).append(
                    run.result.scores[seat]
                )
                share = 1 / len(run.result.winners) if seat in run.result.winners else 0.0
                tally = wins.setdefault(group, {})
                tally[str(label)] = tally.get(str(label), 0.0) + share
                if isinstance(lived, list):
                    survived.setdefault(group, {}).setdefault(str(label), []).append(
                        bool(lived[seat])
                    )
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for group, by_label in scores.items():
        out[group] = {}
        for label, values in sorted(by_label.items()):
            row: dict[str, Any] = {
                "seats": len(values),
                "win_rate": round(wins[group][label] / len(values), 4),
                "mean_score": _mean(values),
                "p10": _quantile(values, 0.1),
                "p90": _quantile(values, 0.9),
            }
            lived_here = survived.get(group, {}).get(label)
            if lived_here:
                row["survival_rate"] = round(sum(lived_here) / len(lived_here), 4)
            out[group][label] = row
    return out


def _quantile(values: Sequence[int], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


def _mean(values: Sequence[float]) -> float:
    return round(statistics.fmean(values), 3) if values else 0.0


def render(summary: dict[str, Any]) -> str:
    """A short human summary."""
    lines = [
        f"{summary['games']} games of {summary['game']} with {summary['players']} players"
        f" (seed {summary['seed']}), seats alternating between {', '.join(summary['policies'])}",
        f"  mean commands per game: {summary['mean_commands']}",
    ]
    if "mean_rounds" in summary:
        lines.append(f"  mean rounds: {summary['mean_rounds']}")
    lines.append(f"  mean score: {summary['mean_score']}")
    for name, row in summary["policies"].items():
        lines.append(
            f"  {name:>10}: win rate {row['win_rate']:.1%} (fair share"
            f" {1 / summary['players']:.1%}), mean score {row['mean_score']} over"
            f" {row['seats']} seats"
        )
    for group, by_label in summary.get("groups", {}).items():
        lines.append(f"  by {group}:")
        for label, row in by_label.items():
            line = (
                f"    {label:>14}: mean {row['mean_score']}, band p10-p90 {row['p10']:g}-{row['p90']:g}"
                f", win rate {row['win_rate']:.1%} over {row['seats']} seats"
            )
            if "survival_rate" in row:
                line += f", survived {row['survival_rate']:.0%}"
            lines.append(line)
    for name, by_label in summary.get("rates", {}).items():
        lines.append(f"  {name} reached:")
        for label, row in by_label.items():
            lines.append(f"    {label:>14}: {row['rate']:.0%} of {row['seats']} seats")
    lines.append(
        f"  {summary['commands_applied']} commands applied in {summary['seconds']} s:"
        f" {summary['commands_per_second']} commands/s, {summary['games_per_second']} games/s"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """The subcommand: simulate and print the summary (text or one JSON object)."""
    try:
        game = get_game(args.game)
    except KeyError:
        print(f"unknown game {args.game!r}; known: {sorted(games())}")
        return 2
    if not game.min_seats <= args.players <= game.max_seats:
        print(f"{game.title} seats {game.min_seats} to {game.max_seats} players")
        return 2
    names = [n for n in args.policies.split(",") if n] if args.policies else None
    playing = ", ".join(names or game.policies)
    title = f"simulate {args.game}"
    try:
        options = {**game.default_options(), **parse_options(args.option)}
        with progress.bar(title, args.games, progress.wanted(args.json)) as shown:
            started, applied = time.perf_counter(), 0

            def on_game(run: GameRun) -> None:
                nonlocal applied
                applied += run.applied
                rate = applied / max(time.perf_counter() - started, 1e-9)
                shown.now(f"{args.players} players: {playing}; {rate:,.0f} commands/s")
                shown.advance()

            summary = simulate(
                args.game, args.players, args.games, args.seed, names, options, on_game
            )
    except (ValueError, Rejection) as exc:
        print(exc)
        return 2
    print(json.dumps(summary) if args.json else render(summary))
    return 0


def add_parser(subparsers: Any) -> None:
    """Register ``simulate`` on the ``rollhouse`` command line."""
    parser = subparsers.add_parser(
        "simulate", help="play whole games with bots and summarise them", description=__doc__
    )
    parser.add_argument("game", help="a registered game, e.g. rollie")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--policies", default="", help="comma-separated bot names (default: all of the game's)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option (VALUE read as JSON when it parses, else as text); repeatable",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``["rounds=3", "city=highcrag"]`` -> ``{"rounds": 3, "city": "highcrag"}``."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--option takes NAME=VALUE, got {pair!r}")
        try:
            options[name] = json.loads(text)
        except ValueError:
            options[name] = text
    return options
