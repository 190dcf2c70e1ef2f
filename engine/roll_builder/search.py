"""Roll Builder's search bot: it plans each turn with the pure engine.

The two dice are the turn's big choice. While a die is unused, the bot tries every
action for it and for the other die (nine plans, plus the die shifts it may use),
plays each plan out on a copy of the state with the ``greedy`` bot finishing the
turn, ends the turn on the copy (leftover favor and strength converted, the rest of
the pool lost) and values the city as it then stands (:func:`value`). Once the dice
are used it compares the greedy bot's next command with converting favor or
strength at once (a grey box that opens at converted favor opens in the same turn).

The copy never rolls the next turn's dice: the bot plans only with what its seat
sees, so it needs no hidden information; the view is public, but rebuilding a
state from it is more than the bot needs, so through the plain Policy call it plays
``greedy`` (see :class:`engine.core.SearchBot`); the server's rooms hand it the state.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import SearchBot
from engine.errors import Rejection
from engine.roll_builder.bots import greedy_policy
from engine.roll_builder.decide import decide
from engine.roll_builder.effects import city_of
from engine.roll_builder.evolve import evolve
from engine.roll_builder.hexmap import network
from engine.roll_builder.legal import buildable, legal_commands
from engine.roll_builder.model import (
    TURNS,
    Convert,
    Done,
    Player,
    Rolled,
    State,
    TurnFinished,
    UseDie,
)
from engine.roll_builder.scoring import total
from engine.roll_builder.view import _player

ACTIONS = ("road", "build", "wonder")
PROGRESS = 0.7
"""Worth of an innovation's points (plus 2 for its ability) per share of circles paid."""
ROOM = 0.0
"""Worth of each connected free land space (room to build), up to :data:`ROOM_CAP`."""
ROOM_CAP = 6
FRONTIER = 0.0
SAMPLES = 0
WONDER = 0.0
"""Worth of each filled wonder box beyond its points: it opens the boxes above."""
"""Rolls of the next turn the bot looks ahead on."""
"""Worth of each connected space whose gain is not yet marked."""


def value(p: Player, event: str | None, turn: int) -> float:
    """The city's score now plus what it has built toward (innovations paid in part,
    room to build, gains connected but not marked), the latter fading to 0 by the end."""
    score = float(total(p, event))
    left = max(0, TURNS - turn) / TURNS
    city = city_of(p)
    progress = 0.0
    for inv in city.innovations:
        if inv.id not in p.discovered:
            paid = sum(1 for i in range(len(inv.cost)) if (inv.id, i) in p.paid)
            progress += paid / len(inv.cost) * (inv.points + 2)
    reach = network(p.roads)
    unmarked = sum(
        1
        for h, s in city.spaces.items()
        if s.effect is not None and h not in p.marked and city.geometry.connected(h, reach)
    )
    room = min(ROOM_CAP, len(buildable(p)))
    wonder = WONDER * len(p.wonder)
    return score + left * (PROGRESS * progress + ROOM * room + FRONTIER * unmarked + wonder)


def _light_view(state: State, seat: int) -> dict[str, Any]:
    """The parts of the view the greedy bot reads: the dice and this seat's sheet."""
    return {
        "dice": list(state.dice),
        "players": {seat: _player(seat, state.players[seat], state.event)},
    }


def _apply(state: State, command: Any) -> State:
    for event in decide(state, command):
        state = evolve(state, event)
    return state


def _greedy_turn(state: State, seat: int, rng: random.Random) -> State:
    """The greedy bot plays the rest of the seat's turn; the turn is then ended."""
    for _ in range(200):
        legal = legal_commands(state, seat)
        if not legal:
            return state
        command = greedy_policy(_light_view(state, seat), seat, legal, rng)
        if isinstance(command, Done):
            break
        state = _apply(state, command)
    return evolve(state, TurnFinished(seat))


def finish(state: State, seat: int, rng: random.Random) -> float:
    """Finish the turn greedily on a copy, then play the next turn greedily on
    :data:`SAMPLES` rolls drawn at random; the mean value at the end of that turn."""
    ended = _greedy_turn(state, seat, rng)
    if ended.turn >= TURNS or not SAMPLES:
        return value(ended.players[seat], ended.event, ended.turn)
    out = 0.0
    for _ in range(SAMPLES):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        after = _greedy_turn(evolve(ended, Rolled(ended.turn + 1, dice)), seat, rng)
        out += value(after.players[seat], after.event, after.turn)
    return out / SAMPLES


def _try(state: State, seat: int, commands: list[Any], rng: random.Random) -> float:
    try:
        for command in commands:
            state = _apply(state, command)
    except Rejection:
        return float("-inf")
    return finish(state, seat, rng)


def _plans(legal: list[Any]) -> list[list[Any]]:
    """Every way to use the unused dice: one or two ``UseDie`` commands."""
    uses = [c for c in legal if isinstance(c, UseDie)]
    first = min(c.die for c in uses)
    plans: list[list[Any]] = []
    for a in (c for c in uses if c.die == first):
        seconds = [c for c in uses if c.die != first and (c.shift == 0 or a.shift == 0)]
        plans.extend([a, b] for b in seconds)
        if not seconds:
            plans.append([a])
    return plans


def search(state: State, seat: int, legal: list[Any], rng: random.Random) -> Any:
    """The first command of the best plan for the rest of this turn and the next."""
    if any(isinstance(c, UseDie) for c in legal):
        plans = _plans(legal)
    else:
        first = greedy_policy(_light_view(state, seat), seat, legal, rng)
        converts = [c for c in legal if isinstance(c, Convert)]
        most = {c.resource: c for c in converts}  # the largest amount of each resource
        plans = [[first], *([c] for c in most.values())]
        if len(plans) == 1:
            return first
    seed = rng.random()  # every plan meets the same rolls (common random numbers)
    scored = [(_try(state, seat, plan, random.Random(seed)), -i) for i, plan in enumerate(plans)]
    return plans[-max(scored)[1]][0]


bot = SearchBot(search=search, fallback=greedy_policy)
"""``plan``: the turn-planning bot (searches where the host gives it the state)."""
