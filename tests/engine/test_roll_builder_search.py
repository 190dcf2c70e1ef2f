"""Roll Builder's plan bot: it searches on a copy of the state and plays legal commands."""

from __future__ import annotations

import random

from engine.core import SearchBot, choose
from engine.roll_builder.scoring import total
from engine.roll_builder.search import bot, value
from tests.engine.roll_builder_strategies import GAME, given, setup


def test_plan_bot_plays_legal_commands_through_a_whole_turn() -> None:
    """Through choose (the state) and as a plain Policy (the view), a legal command."""
    assert isinstance(bot, SearchBot) and GAME.policies["plan"] is bot
    state, rng = given(setup(dice=(5, 2))), random.Random(3)
    while state.turn == 1:
        legal = GAME.legal_commands(state, 0)
        assert bot(GAME.view(state, 0), 0, legal, rng) in legal
        command = choose(GAME, state, 0, bot, rng)
        assert command in legal
        for event in GAME.decide(state, command):
            state = GAME.evolve(state, event)
    assert state.turn == 2  # the plan bot finished its turn (solo: the next roll came)


def test_value_is_the_score_plus_fading_progress() -> None:
    """At the end of the game the value is the score itself."""
    p = given(setup()).players[0]
    assert value(p, None, 15) == total(p, None) <= value(p, None, 1)
