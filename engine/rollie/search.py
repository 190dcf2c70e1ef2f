"""Rollie's search bot: Monte Carlo rollouts to the end of the round.

A policy-improvement bot over ``push``: it compares ``push``'s choice with its
alternative (Secure against the best bill). For each it copies the state, re-draws
what it cannot see (the seed, so the dice to come, and the order of the face-down
Start tokens), plays the candidate, and lets every seat play on as ``push`` until
the round ends (or the game does). A rollout is worth the seat's margin over the
best other seat (:func:`_value`); every candidate meets the same re-drawn dice, and
the one with the best mean margin is played.

Rollie hides nothing else, so :func:`restore` rebuilds the exact table from any
seat's view: the bot searches wherever it is hosted, the server's rooms included.
"""

from __future__ import annotations

import random
from typing import Any

import attrs

from engine.core import SearchBot
from engine.errors import Rejection
from engine.rollie import bots
from engine.rollie.content import TABLE
from engine.rollie.decide import decide
from engine.rollie.evolve import evolve
from engine.rollie.legal import awaiting, legal_commands
from engine.rollie.model import (
    NO_BILLS,
    Claim,
    Counts,
    Roll,
    RoundEnded,
    Secure,
    State,
    Take,
    worth,
)
from engine.rollie.scoring import breakdown

ROLLOUTS = 16
"""Rollouts per candidate decision."""
HORIZON = "round"
"""How far a rollout plays: to the end of the ``round`` or of the ``game``."""


def _hide(state: State, rng: random.Random) -> State:
    """``state`` with the unseen parts re-drawn: future dice and the token pile."""
    face_down = list(state.face_down)
    rng.shuffle(face_down)
    return attrs.evolve(state, seed=rng.getrandbits(62), face_down=tuple(face_down))


def light_view(state: State) -> dict[str, Any]:
    """The parts of the view the ``push`` bot reads, built cheaply from the state."""

    def bills(counts: Counts) -> dict[str, int]:
        return {str(v): n for v, n in zip(TABLE.values, counts, strict=True)}

    return {
        "final_round": state.final_round or not state.face_down,
        "seats": [
            {"wallet": bills(w), "bet": bills(b)}
            for w, b in zip(state.wallets, state.bets, strict=True)
        ],
    }


def _quick(state: State, seat: int, rng: random.Random) -> Any:
    """The rollout policy: the ``push`` bot's choice."""
    legal = legal_commands(state, seat)
    if len(legal) == 1:
        return legal[0]
    return bots.push(light_view(state), seat, legal, rng)


def _value(state: State, seat: int) -> float:
    """At the end of the game: a win (shared wins split) plus a hundredth of the
    margin over the best other seat. Before it, that margin as things stand, with
    bonus places weighted by how much of the game is played and half of each Bet."""
    scores = breakdown(state.wallets, state.tokens)[0]
    if state.phase == "over":
        margin = scores[seat] - max(t for i, t in enumerate(scores) if i != seat)
        best = max(scores)
        win = 1 / scores.count(best) if scores[seat] == best else 0.0
        return win + margin / 100
    played = state.round / (state.round + len(state.face_down))
    totals = [
        worth(w) + played * (s - worth(w)) + worth(b) / 2
        for s, w, b in zip(scores, state.wallets, state.bets, strict=True)
    ]
    return (totals[seat] - max(t for i, t in enumerate(totals) if i != seat)) / 100


def _step(state: State, command: Any) -> tuple[State, bool]:
    """Apply ``command``; also say whether the round (or game) ended."""
    ended = False
    for event in decide(state, command):
        state = evolve(state, event)
        ended = ended or isinstance(event, RoundEnded)
    return state, ended


def rollout(state: State, seat: int, first: Any, rng: random.Random) -> float:
    """Play ``first`` for ``seat``, then quick play until the round ends."""
    try:
        state, ended = _step(state, first)
    except Rejection:
        return float("-inf")
    for _ in range(2000):
        if (ended and HORIZON == "round") or state.phase == "over":
            break
        waiting = sorted(awaiting(state))
        rng.shuffle(waiting)
        s = waiting[0]
        state, ended = _step(state, _quick(state, s, rng))
    return _value(state, seat)


def candidates(state: State, seat: int, legal: list[Any], rng: random.Random) -> list[Any]:
    """The ``push`` bot's choice and its alternative: Secure against the best bill."""
    first = bots.push(light_view(state), seat, legal, rng)
    if isinstance(first, Secure):
        takes = [c for c in legal if isinstance(c, Take)]
        other = bots.push(light_view(state), seat, takes, rng) if takes else None
    else:
        other = Secure(seat)
    return [first] if other is None else [first, other]


def search(state: State, seat: int, legal: list[Any], rng: random.Random) -> Any:
    """The candidate with the best mean rollout margin; every candidate meets the same
    re-drawn dice (common random numbers), so their difference is what counts."""
    if len(legal) == 1 or isinstance(legal[0], Roll):
        return legal[0]
    options = candidates(state, seat, legal, rng)
    if len(options) == 1:
        return options[0]
    seeds = [rng.getrandbits(32) for _ in range(ROLLOUTS)]
    totals = [
        sum(rollout(_hide(state, random.Random(k)), seat, c, random.Random(k + 1)) for k in seeds)
        for c in options
    ]
    return options[max(range(len(options)), key=lambda i: (totals[i], -i))]


def _counts(bills: dict[str, int]) -> Counts:
    return tuple(int(bills[str(v)]) for v in TABLE.values)


def restore(view: dict[str, Any], seat: int, rng: random.Random) -> State:
    """The table a Rollie view shows (the face-down tokens' order drawn at random)."""
    rows = view["seats"]
    shown = {t for r in rows for t in r["start_tokens"]} | set(view["face_up_tokens"])
    hidden = [t for t in TABLE.start_tokens if t not in shown][: view["face_down_tokens"]]
    rng.shuffle(hidden)
    claims = tuple(
        Claim(c["seat"], value=c["value"], token=c["token"], bet=NO_BILLS)
        for c in view.get("provisional", [])
    )
    dice = view["dice"]
    return State(
        seats=len(rows),
        bills_per_value=max(_counts(view["bank"])),
        seed=rng.getrandbits(62),
        draws=0,
        phase=view["phase"],
        round=view["round"],
        first_player=view["first_player"],
        bank=_counts(view["bank"]),
        bets=tuple(_counts(r["bet"]) for r in rows),
        wallets=tuple(_counts(r["wallet"]) for r in rows),
        tokens=tuple(tuple(r["start_tokens"]) for r in rows),
        face_up=tuple(view["face_up_tokens"]),
        face_down=tuple(hidden),
        in_play=frozenset(r["seat"] for r in rows if r["in_play"]),
        decided=frozenset(r["seat"] for r in rows if r["decided"]),
        dice=None if dice is None else (dice[0], dice[1]),
        exhausted=frozenset(view["exhausted"]),
        priority=view.get("priority", "arrival"),
        claims=claims,
        took_this_turn=any(r["decided"] and r["in_play"] for r in rows),  # took, not secured
    )


bot = SearchBot(search=search, fallback=bots.push, restore=restore)
"""``search``: the Monte Carlo bot, hosted anywhere through its view."""
