"""Rollie bots: ``policy(view, seat, legal_commands, rng) -> command``.

* ``push``: push your luck. Each bill is worth its face value plus what it adds to the
  seat's chances in the bonus races (moving up a place in a colour, counted from
  everybody's Wallet and Bet). Each distinct value in the Bet adds a 1/36 chance
  that the next roll crashes it (plus 1/36 for a double R). The bot takes the most
  valuable bill, preferring values already in its Bet (no new crash risk), and
  secures once the Bet's worth times the risk outweighs what one more bill adds, or
  the Bet passes a comfortable size; in the game's last round a Bet that is not
  secured is lost, so it secures early.
* ``random``: any legal command.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Policy
from engine.rollie.content import TABLE
from engine.rollie.model import Roll, Secure, Take

COMFORT = 45
"""A Bet worth this much is secured whatever the risk."""
LAST_ROUND_COMFORT = 10


def _held(view: dict[str, Any], seat: int, value: int) -> int:
    row = view["seats"][seat]
    return int(row["wallet"][str(value)]) + int(row["bet"][str(value)])


def _place_amount(value: int, count: int, others: list[int]) -> int:
    amounts = TABLE.bonuses.get(value, ())
    place = sum(1 for n in others if n >= count)  # ties counted against us
    return amounts[place] if count > 0 and place < len(amounts) else 0


def bill_worth(view: dict[str, Any], seat: int, value: int) -> float:
    """Face value plus the bonus gained by holding one more bill of ``value``."""
    mine = _held(view, seat, value)
    others = [_held(view, s, value) for s in range(len(view["seats"])) if s != seat]
    gain = _place_amount(value, mine + 1, others) - _place_amount(value, mine, others)
    return value + gain


def _bet(view: dict[str, Any], seat: int) -> dict[int, int]:
    return {int(v): n for v, n in view["seats"][seat]["bet"].items() if n}


def bet_worth(view: dict[str, Any], seat: int) -> float:
    """What securing the Bet is worth: faces plus bonus places it brings."""
    bet = _bet(view, seat)
    worth = 0.0
    for value, n in bet.items():
        wallet = int(view["seats"][seat]["wallet"][str(value)])
        others = [_held(view, s, value) for s in range(len(view["seats"])) if s != seat]
        worth += value * n + _place_amount(value, wallet + n, others)
        worth -= _place_amount(value, wallet, others)
    return worth


def push(view: dict[str, Any], seat: int, legal: list[Any], rng: random.Random) -> Any:
    """Push-your-luck: take valuable bills while the crash risk stays small, then secure."""
    for command in legal:
        if isinstance(command, Roll):
            return command
    takes = [c for c in legal if isinstance(c, Take)]
    secure = next((c for c in legal if isinstance(c, Secure)), None)
    bet = _bet(view, seat)
    worth = bet_worth(view, seat)
    risk = (len(bet) + 1) / 36 if bet else 0.0

    def score(command: Take) -> float:
        extra_risk = 0 if command.value in bet or not bet else worth / 36
        return bill_worth(view, seat, command.value) - extra_risk + rng.random() / 10

    best = max(takes, key=score, default=None)
    gain = score(best) if best is not None else 0.0
    comfort = LAST_ROUND_COMFORT if view["final_round"] else COMFORT
    if secure is not None and (
        best is None or worth >= comfort or worth * risk > max(gain, 0) * (1 - risk) or gain <= 0
    ):
        return secure
    return best if best is not None else legal[0]


def random_policy(view: dict[str, Any], seat: int, legal: list[Any], rng: random.Random) -> Any:
    """Any legal command, uniformly."""
    return rng.choice(legal)


policies: dict[str, Policy] = {"push": push, "random": random_policy}
