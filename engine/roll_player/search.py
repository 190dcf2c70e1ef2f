"""Roll Player's search bot: Monte Carlo rollouts of the round for each die draft.

The Dice Phase draft (which Initiative card, which row) is the game's key decision:
it fixes a die, the gold, the attribute action and the seat's place in the Market.
For it the bot keeps the ``goal`` bot's best few drafts, and for each plays the rest
of the round on copies of the state (every seat played by ``goal``), with what the
seat cannot see re-drawn first: the seed (so the dice to come) and the order of the
market deck. A rollout is worth the seat's margin, in estimated final stars, over
the best other seat (:func:`worth`). Every other decision is the ``goal`` bot's.

Only hosts that hold the state (``rollhouse simulate``) let it search; through the
plain Policy call it plays ``goal`` (see :class:`engine.core.SearchBot`).
"""

from __future__ import annotations

import random
from typing import Any

import attrs

from engine.core import SearchBot, get_game
from engine.errors import Rejection
from engine.roll_player.bots import _projected, _value, estimate, goal_policy, player_from_view
from engine.roll_player.commands import (
    Draft,
)
from engine.roll_player.model import (
    Player,
    State,
)
from engine.roll_player.scoring import armor_stars, trait_stars

CANDIDATES = 4
"""Drafts (the goal bot's best) compared by rollouts."""
ROLLOUTS = 4
"""Rollouts per candidate."""


def worth(p: Player) -> float:
    """Estimated final stars: the goal bot's estimate plus armor, traits and skills."""
    traits = sum(trait_stars(_projected(p), c.score) for c in p.owned("trait") if c.score)
    skills = len(p.owned("skill"))
    return estimate(p) + sum(armor_stars(p).values()) + traits + 1.0 * skills


def _margin(state: State, seat: int) -> float:
    values = [worth(p) for p in state.players]
    return values[seat] - max(v for i, v in enumerate(values) if i != seat)


def _hide(state: State, rng: random.Random) -> State:
    deck = list(state.deck)
    rng.shuffle(deck)
    return attrs.evolve(state, seed=rng.getrandbits(62), deck=tuple(deck))


def rollout(state: State, seat: int, first: Any, rng: random.Random) -> float:
    """Play ``first``, then the ``goal`` bot for everyone until the next round."""
    game = get_game("roll-player")
    start = state.start
    try:
        for event in game.decide(state, first):
            state = game.evolve(state, event)
        for _ in range(200):
            if game.is_over(state) or state.start != start:
                break
            s = min(game.awaiting(state))
            legal = game.legal_commands(state, s)
            command = goal_policy(game.view(state, s), s, legal, rng)
            for event in game.decide(state, command):
                state = game.evolve(state, event)
    except Rejection:
        return float("-inf")
    return _margin(state, seat)


def search(state: State, seat: int, legal: list[Any], rng: random.Random) -> Any:
    """Rollouts for the draft; the goal bot for everything else."""
    game = get_game("roll-player")
    view = game.view(state, seat)
    drafts = [c for c in legal if isinstance(c, Draft)]
    if len(drafts) < 2:
        return goal_policy(view, seat, legal, rng)
    me = player_from_view(view, seat)
    ranked = sorted(drafts, key=lambda c: -(_value(me, view, c) or 0.0))[:CANDIDATES]
    seeds = [rng.getrandbits(32) for _ in range(ROLLOUTS)]
    totals = [
        sum(rollout(_hide(state, random.Random(k)), seat, c, random.Random(k + 1)) for k in seeds)
        for c in ranked
    ]
    return ranked[max(range(len(ranked)), key=lambda i: (totals[i], -i))]


bot = SearchBot(search=search, fallback=goal_policy)
"""``search``: the draft-searching bot."""
