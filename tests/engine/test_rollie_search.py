"""Rollie's search bot: it restores the table from a view and plays legal commands."""

from __future__ import annotations

import random

from engine.core import SearchBot, choose
from engine.rollie import GAME
from engine.rollie.search import bot, restore


def played_states(seed: int, priority: str = "arrival") -> list[object]:
    """Every state of one game played by the push bot."""
    rng = random.Random(seed)
    state = GAME.create(GAME.setup(3, {"priority": priority}, seed))
    states = [state]
    while not GAME.is_over(state):
        seat = sorted(GAME.awaiting(state))[0]
        command = choose(GAME, state, seat, GAME.policies["push"], rng)
        for event in GAME.decide(state, command):
            state = GAME.evolve(state, event)
        states.append(state)
    return states


def test_restore_rebuilds_what_the_view_shows() -> None:
    """restore(view) is a table whose view is the same view (hidden parts re-drawn)."""
    rng = random.Random(1)
    for priority in ("arrival", "turn"):
        for state in played_states(3, priority)[::7]:
            shown = GAME.view(state, 0)
            assert GAME.view(restore(shown, 0, rng), 0) == shown
            for seat in range(3):
                assert GAME.legal_commands(restore(shown, seat, rng), seat) == (
                    GAME.legal_commands(state, seat)  # type: ignore[arg-type]
                )


def test_search_plays_a_legal_command_from_the_view_or_the_state() -> None:
    """As a Policy (the server's call) and through choose (simulate), a legal command."""
    assert isinstance(bot, SearchBot) and GAME.policies["search"] is bot
    rng = random.Random(2)
    for state in played_states(4)[:40:5]:
        for seat in sorted(GAME.awaiting(state)):  # type: ignore[arg-type]
            legal = GAME.legal_commands(state, seat)  # type: ignore[arg-type]
            assert bot(GAME.view(state, seat), seat, legal, rng) in legal  # type: ignore[arg-type]
            assert choose(GAME, state, seat, bot, rng) in legal
