"""Every registered game honours the engine contract the server relies on."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.core import Game, games, replay
from engine.data import to_data
from engine.errors import Rejection

GAMES = sorted(games())


def play(game: Game[Any], seats: int, seed: int, steps: int) -> tuple[Any, list[Any]]:
    """Play up to ``steps`` commands with the game's first policy, in a random arrival order."""
    rng = random.Random(seed)
    events = [game.setup(seats, {}, seed)]
    state = game.create(events[0])
    policy = next(iter(game.policies.values()))
    for _ in range(steps):
        if game.is_over(state):
            break
        seat = rng.choice(sorted(game.awaiting(state)))
        legal = game.legal_commands(state, seat)
        assert legal, f"{game.name}: awaited seat {seat} has no legal command"
        command = policy(game.view(state, seat), seat, legal, rng)
        new = game.decide(state, command)
        for event in new:
            state = game.evolve(state, event)
        events += new
    return state, events


@pytest.mark.parametrize("name", GAMES)
def test_games_are_registered_with_their_contract(name: str) -> None:
    """Each game names itself, its seats, its options and at least one bot policy."""
    game = games()[name]
    assert game.name == name and game.title
    assert 1 <= game.min_seats <= game.max_seats
    json.dumps(game.default_options())
    assert game.policies


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_play_replay_views_and_timeouts(name: str, seed: int) -> None:
    """Bot play is accepted, replay reproduces the state, views are plain JSON, timeouts are legal."""
    game = games()[name]
    seats = max(game.min_seats, min(3, game.max_seats))
    state, events = play(game, seats, seed, steps=60)
    assert replay(game, events) == state
    for event in events:
        assert game.events.load(to_data(event)) == event
        assert isinstance(game.public_name(event), str)
    spectator = game.view(state, None)
    json.dumps(spectator)
    for seat in range(seats):
        if game.public_view:
            assert game.view(state, seat) == spectator
        command = game.timeout_command(state, seat) if seat in game.awaiting(state) else None
        if command is not None:
            try:
                game.decide(state, command)
            except Rejection as exc:  # pragma: no cover - the failure message says which
                pytest.fail(f"{name}: timeout command for seat {seat} rejected: {exc.code}")


def test_games_are_listed_in_one_order_whatever_was_imported_first() -> None:
    """GET /api/games and the lobby's form follow games(): Rollie first, even in a process
    that imported Roll Builder before anything else (the full test suite does)."""
    import subprocess
    import sys

    code = "import engine.roll_builder, engine.roll_player; from engine.core import games; print(list(games()))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['rollie', 'roll-player', 'roll-builder']"
