"""Rollie bots: ``policy(view, seat, legal_commands, rng) -> command``.

* ``push``: push your luck. Each distinct value in the Bet adds a 1/36 chance that
  the next roll crashes it (plus 1/36 for a double R). The bot secures once the
  Bet's worth times that risk outweighs what one more bill is likely to add, or the
  Bet passes a comfortable size; in the game's last round a Bet that is not secured
  is lost, so it secures early. It takes the most valuable bill, preferring values
  already in its Bet (they add no crash risk) and -5 bills only as a last resort.
* ``random``: any legal command.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Policy
from engine.rollie.model import Roll, Secure, Take

COMFORT = 35
"""A Bet worth this much is secured whatever the risk."""
LAST_ROUND_COMFORT = 8


def _bet(view: dict[str, Any], seat: int) -> dict[int, int]:
    return {int(v): n for v, n in view["seats"][seat]["bet"].items() if n}


def _take_score(value: int, bet: dict[int, int]) -> float:
    return value + (4 if value in bet else 0) - (12 if value < 0 else 0)


def push(view: dict[str, Any], seat: int, legal: list[Any], rng: random.Random) -> Any:
    """Push-your-luck: take high bills while the crash risk stays small, then secure."""
    for command in legal:
        if isinstance(command, Roll):
            return command
    takes = [c for c in legal if isinstance(c, Take)]
    secure = next((c for c in legal if isinstance(c, Secure)), None)
    bet = _bet(view, seat)
    worth = sum(v * n for v, n in bet.items())
    risk = (len(bet) + 1) / 36 if bet else 0.0
    comfort = LAST_ROUND_COMFORT if view["final_round"] else COMFORT
    best = max(takes, key=lambda c: _take_score(c.value, bet) + rng.random(), default=None)
    if secure is not None and (
        best is None
        or worth >= comfort
        or worth * risk > max(best.value, 0) * (1 - risk)
        or (best.value < 0 and worth > 0)
    ):
        return secure
    return best if best is not None else legal[0]


def random_policy(view: dict[str, Any], seat: int, legal: list[Any], rng: random.Random) -> Any:
    """Any legal command, uniformly."""
    return rng.choice(legal)


policies: dict[str, Policy] = {"push": push, "random": random_policy}
