"""Shared Hypothesis strategies for the engine tests (one file, as attrs does)."""

from __future__ import annotations

import random
from typing import Any

import attrs
from hypothesis import strategies as st

from engine.core import Game, apply
from engine.errors import Rejection


@attrs.frozen
class Table:
    """A room to play: seat count, options and the seed."""

    seats: int
    options: dict[str, Any]
    seed: int


def rollie_tables(max_bills: int = 30) -> st.SearchStrategy[Table]:
    """2-6 seats, few or many bills (few bills exercise the empty-pile rules)."""
    return st.builds(
        Table,
        seats=st.integers(2, 6),
        options=st.fixed_dictionaries(
            {},
            optional={
                "bills_per_value": st.integers(1, max_bills),
                "rounds": st.integers(1, 7),
                "priority": st.sampled_from(["arrival", "turn"]),
            },
        ),
        seed=st.integers(0, 2**32),
    )


def junk_command(rng: random.Random, seats: int) -> Any:
    """A Rollie command that is often wrong: bad seat, bad value, wrong phase."""
    from engine.rollie.model import Roll, Secure, Take

    seat = rng.choice([*range(seats), -1, seats, 99, True, "0", None])
    value = rng.choice([-5, 0, 2, 5, 10, 1, 3, -1, "R", None, True, 2.0])
    kind = rng.choice([Roll, Take, Secure, object])
    if kind is Take:
        return Take(seat, value)
    if kind is object:
        return object()
    return kind(seat)


@attrs.frozen
class Played:
    """A whole game: its events, final state and the number of commands applied."""

    events: tuple[Any, ...]
    state: Any
    applied: int
    rejected: int


def play(
    game: Game[Any],
    table: Table,
    rng: random.Random,
    junk: float = 0.0,
    limit: int = 100_000,
    check: Any = None,
    policy: Any = None,
) -> Played:
    """Play a game with random legal commands, random arrival order among awaited
    seats, and a ``junk`` share of random (mostly illegal) commands. ``check(state)``
    runs after every applied command; ``policy`` (a bot) replaces the
    uniform choice among legal commands."""
    events: list[Any] = [game.setup(table.seats, table.options, table.seed)]
    state = game.create(events[0])
    applied = rejected = 0
    while not game.is_over(state) and applied < limit:
        if rng.random() < junk:
            command = junk_command(rng, table.seats)
        else:
            seat = rng.choice(sorted(game.awaiting(state)))
            legal = game.legal_commands(state, seat)
            if policy is None:
                command = rng.choice(legal)
            else:
                command = policy(game.view(state, seat), seat, legal, rng)
        try:
            new = game.decide(state, command)
        except Rejection:
            rejected += 1
            continue
        events += new
        state = apply(game, state, new)
        applied += 1
        if check is not None:
            check(state)
    return Played(tuple(events), state, applied, rejected)


def rngs() -> st.SearchStrategy[random.Random]:
    """Seeded generators for the random choices inside a game (cheap to draw)."""
    return st.integers(0, 2**32).map(random.Random)
