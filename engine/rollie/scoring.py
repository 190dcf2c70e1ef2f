"""End-of-game scoring: bonus token races, totals and winners.

A colour's race (content/rollie-decisions.md, from the rulebook's example):

* only players with at least one bill of the colour race; more bills rank higher;
* among players tied on a count, Start token holders come first, ordered by their
  highest token; one tied player without a token follows them; two or more tied
  players without a token are all excluded from the race;
* places are awarded down the table's amounts; places with nobody left stay unawarded.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Any

import attrs

from engine.core import Result
from engine.rollie.content import TABLE
from engine.rollie.model import Counts, State, worth


@attrs.frozen
class Bonus:
    """A bonus token won: colour ``value``, ``place`` (1-based), ``amount``."""

    value: int
    place: int
    amount: int


def race(counts: Sequence[int], tokens: Sequence[Sequence[int]]) -> list[int]:
    """Seats in finishing order for one colour (excluded seats left out)."""
    racing = sorted((s for s, n in enumerate(counts) if n > 0), key=lambda s: -counts[s])
    order: list[int] = []
    for _, group in groupby(racing, key=lambda s: counts[s]):
        tied = list(group)
        holders = sorted((s for s in tied if tokens[s]), key=lambda s: -max(tokens[s]))
        others = [s for s in tied if not tokens[s]]
        order += holders + (others if len(others) == 1 else [])
    return order


def bonuses(wallets: Sequence[Counts], tokens: Sequence[Sequence[int]]) -> list[list[Bonus]]:
    """The bonus tokens each seat wins."""
    won: list[list[Bonus]] = [[] for _ in wallets]
    for i, value in enumerate(TABLE.values):
        amounts = TABLE.bonuses.get(value, ())
        order = race([w[i] for w in wallets], tokens)
        for place, (seat, amount) in enumerate(zip(order, amounts, strict=False), start=1):
            won[seat].append(Bonus(value, place, amount))
    return won


def breakdown(
    wallets: Sequence[Counts], tokens: Sequence[Sequence[int]]
) -> tuple[tuple[int, ...], tuple[int, ...], list[dict[str, Any]]]:
    """(scores, winners, per-seat plain-data detail) for the given holdings."""
    won = bonuses(wallets, tokens)
    scores = tuple(worth(w) + sum(b.amount for b in won[s]) for s, w in enumerate(wallets))
    best = max(scores)
    winners = tuple(s for s, score in enumerate(scores) if score == best)
    seats = [
        {
            "seat": s,
            "bills": {str(v): w[i] for i, v in enumerate(TABLE.values)},
            "bills_total": worth(w),
            "start_tokens": sorted(tokens[s]),
            "bonuses": [{"value": b.value, "place": b.place, "amount": b.amount} for b in won[s]],
            "bonus_total": sum(b.amount for b in won[s]),
            "total": scores[s],
        }
        for s, w in enumerate(wallets)
    ]
    return scores, winners, seats


def result(state: State) -> Result | None:
    """Totals and winners once the game is over."""
    if state.phase != "over":
        return None
    scores, winners, seats = breakdown(state.wallets, state.tokens)
    position = [(s - state.opener) % state.seats for s in range(state.seats)]
    detail = {"rounds": state.round, "seats": seats, "groups": {"position": position}}
    return Result(scores, winners, detail)
