"""Roll Player's search bot: drafts searched by rollouts, legal commands throughout."""

from __future__ import annotations

import random

from engine.core import SearchBot, choose, get_game
from engine.roll_player.commands import (
    Draft,
)
from engine.roll_player.search import bot


def test_search_bot_plays_legal_commands_until_its_first_draft() -> None:
    """Through choose (the state) and as a plain Policy (the view), a legal command."""
    game = get_game("roll-player")
    assert isinstance(bot, SearchBot) and game.policies["search"] is bot
    rng = random.Random(5)
    state = game.create(game.setup(2, game.default_options(), 11))
    drafted = False
    for _ in range(200):
        seat = min(game.awaiting(state))
        legal = game.legal_commands(state, seat)
        assert bot(game.view(state, seat), seat, legal, rng) in legal
        command = choose(game, state, seat, bot, rng)
        assert command in legal
        drafted = drafted or isinstance(command, Draft)
        for event in game.decide(state, command):
            state = game.evolve(state, event)
        if drafted:
            break
    assert drafted
