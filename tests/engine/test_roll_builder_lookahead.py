"""Roll Builder's lookahead bot: it tries its choices on a copy of the state."""

from __future__ import annotations

import random

import attrs

from engine.core import SearchBot, choose
from engine.roll_builder.content import CITIES, VISIONARIES
from engine.roll_builder.lookahead import bot, candidates, value, visions, worth
from engine.roll_builder.model import Done, State, UseDie
from engine.roll_builder.scoring import total
from tests.engine.roll_builder_strategies import GAME, H, given, setup


def test_lookahead_bot_plays_legal_commands_through_a_whole_turn() -> None:
    """Through choose (the state) and as a plain Policy (the view), a legal command."""
    assert isinstance(bot, SearchBot) and GAME.policies["lookahead"] is bot
    state, rng = given(setup(dice=(5, 2))), random.Random(3)
    while state.turn == 1:
        legal = GAME.legal_commands(state, 0)
        assert bot(GAME.view(state, 0), 0, legal, rng) in legal
        command = choose(GAME, state, 0, bot, rng)
        assert command in legal
        for event in GAME.decide(state, command):
            state = GAME.evolve(state, event)
    assert state.turn == 2  # the bot finished its turn (solo: the next roll came)


def test_with_both_dice_unused_every_plan_uses_both() -> None:
    """A plan is a use of each die (three actions each: nine plans)."""
    state = given(setup(dice=(5, 2)))
    plans = candidates(state, 0, GAME.legal_commands(state, 0))
    assert len(plans) == 9
    assert all(len(p) == 2 and all(isinstance(c, UseDie) for c in p) for p in plans)


def test_value_at_the_end_is_the_score() -> None:
    """After turn 15 nothing is credited beyond the score."""
    state = given(setup())
    state = attrs.evolve(state, turn=15)
    assert value(state, 0) == total(state.players[0], None)
    assert value(attrs.evolve(state, turn=1), 0) > total(state.players[0], None)


HYPATIA_SPACES = [H(c, r) for r in range(1, 8) for c in range(0, 9)]


def _built(n: int, seats: int = 2, claimed: frozenset[str] = frozenset()) -> State:
    state = given(setup(seats=seats, city="highcrag", visionaries=("hypatia",)))
    p = attrs.evolve(state.players[0], buildings=tuple((h, 1) for h in HYPATIA_SPACES[:n]))
    return attrs.evolve(state.put(0, p), claimed=claimed)


GOAL = VISIONARIES["hypatia"].goal.at


def test_a_goal_met_counts_before_the_turn_ends() -> None:
    """Hypatia met on the copy is worth its corner (2) and bonus (3 points); once
    another seat claimed the corner, the bonus alone; solo, no corner (Visionaries:
    'when playing solo ... the corner value is ignored')."""
    assert visions(_built(GOAL), 0) == 5.0
    assert visions(_built(GOAL, claimed=frozenset({"hypatia"})), 0) == 3.0
    assert visions(_built(GOAL, seats=1), 0) == 3.0
    assert visions(_built(GOAL - 1), 0) == 0.0


def test_the_way_to_a_goal_is_credited_by_its_squared_share() -> None:
    """Half of the way to Hypatia's goal earns a quarter of its 5 (Highcrag's grey
    boxes, 0 of the way at the start, add nothing)."""
    assert GOAL % 2 == 0
    assert visions(_built(GOAL // 2), 0, partial=True) == 5.0 / 4


def test_favor_is_worth_the_tracks_average_space_until_the_track_is_full() -> None:
    """Resources: favor is converted onto the track; a full track takes no more."""
    city = CITIES["tidehaven"]
    p = given(setup()).players[0]
    assert worth(p)[3] == city.favor_track[-1] / (len(city.favor_track) - 1)
    full = attrs.evolve(p, favor=len(city.favor_track) - 1)
    assert worth(full)[3] == 0.0


def test_finishing_the_turn_on_a_copy_never_rolls() -> None:
    """The bot plans with what its seat sees: trying Done ends the turn, not the roll."""
    state = given(setup(dice=(5, 2)))
    for plan in candidates(state, 0, GAME.legal_commands(state, 0)):
        assert Done(0) not in plan
