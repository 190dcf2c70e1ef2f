"""Rollie's search bot: it restores the table from a view and plays legal commands."""

from __future__ import annotations

import random

from engine.core import SearchBot, choose
from engine.rollie import game
from engine.rollie.search import bot, restore


def played_states(seed: int, priority: str = "arrival") -> list[object]:
    """Every state of one game played by the push bot."""
    rng = random.Random(seed)
    state = game.create(game.setup(3, {"priority": priority}, seed))
    states = [state]
    while not game.is_over(state):
        seat = sorted(game.awaiting(state))[0]
        command = choose(game, state, seat, game.policies["push"], rng)
        for event in game.decide(state, command):
            state = game.evolve(state, event)
        states.append(state)
    return states


def test_restore_rebuilds_what_the_view_shows() -> None:
    """restore(view) is a table whose view is the same view (hidden parts re-drawn)."""
    rng = random.Random(1)
    for priority in ("arrival", "turn"):
        for state in played_states(3, priority)[::7]:
            shown = game.view(state, 0)
            assert game.view(restore(shown, 0, rng), 0) == shown
            for seat in range(3):
                assert game.legal_commands(restore(shown, seat, rng), seat) == (
                    game.legal_commands(state, seat)  # type: ignore[arg-type]
                )


def test_search_plays_a_legal_command_from_the_view_or_the_state() -> None:
    """As a Policy (the server's call) and through choose (simulate), a legal command."""
    assert isinstance(bot, SearchBot) and game.policies["search"] is bot
    rng = random.Random(2)
    for state in played_states(4)[:40:5]:
        for seat in sorted(game.awaiting(state)):  # type: ignore[arg-type]
            legal = game.legal_commands(state, seat)  # type: ignore[arg-type]
            assert bot(game.view(state, seat), seat, legal, rng) in legal  # type: ignore[arg-type]
            assert choose(game, state, seat, bot, rng) in legal
