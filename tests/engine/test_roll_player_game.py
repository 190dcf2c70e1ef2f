"""Roll Player honours the engine contract: registry, clocks, timeouts, bots, view."""

from __future__ import annotations

import random

import pytest

from engine.core import get_game, replay
from engine.errors import NotASeat
from engine.roll_player import GAME
from engine.roll_player.commands import (
    Act,
    Keep,
    PlaceStart,
    Refresh,
    SkipAction,
)
from engine.roll_player.events import (
    Drafted,
    SetUp,
)
from engine.roll_player.model import (
    State,
)
from tests.engine.roll_player_strategies import dice, given, opening, play, rolled, then

POOL = dice("red2", "blue3", "white5", "gold6")


def test_registered_as_roll_player() -> None:
    """The game is reachable by name with its title, seats and two bot policies."""
    game = get_game("roll-player")
    assert game is GAME and game.title == "Roll Player"
    assert (game.min_seats, game.max_seats) == (2, 4)
    assert list(game.policies) == ["goal", "random", "search"]
    assert game.default_options() == {"class_mode": "draw"}
    assert game.public_name(Drafted(0, 1, 0, 0, 0)) == "drafted"


def test_not_a_seat() -> None:
    """A command for a seat not at the table is refused."""
    with pytest.raises(NotASeat):
        GAME.decide(given(SetUp(2, 1, "draw", 0, ())), SkipAction(5))


def test_sequential_setup_awaits_one_seat() -> None:
    """Sheets are chosen one seat at a time; only that seat's clock runs."""
    state = given(SetUp(3, 1, "draw", 1, ()))
    assert GAME.awaiting(state) == {1}
    assert GAME.timeout_command(state, 0) is None
    assert GAME.timeout_command(state, 1) is not None


def test_starting_placement_is_simultaneous() -> None:
    """All players place their starting dice at once; each clock runs until placed."""
    state = given(*opening(3)[:-3])
    assert GAME.awaiting(state) == {0, 1, 2}
    state = then(state, PlaceStart(1, (0, 0, 0, 1, 1, 1, 2)))
    assert GAME.awaiting(state) == {0, 2}
    timeout = GAME.timeout_command(state, 0)
    assert isinstance(timeout, PlaceStart)


def test_timeouts_skip_the_action_and_keep_the_old_face() -> None:
    """A clock running out skips the attribute action, or keeps the original face."""
    state = then(
        given(*opening(3), *rolled(POOL)),
        GAME.legal_commands(given(*opening(3), *rolled(POOL)), 0)[0],
    )
    assert GAME.timeout_command(state, 0) == SkipAction(0)
    state = given(*opening(3), *rolled(POOL), Drafted(0, 1, 3, 0, 0))
    state = then(state, Act(0, slot=0))
    assert GAME.timeout_command(state, 0) == Keep(0, False)
    assert GAME.legal_commands(state, 0) == [Keep(0, True), Keep(0, False)]


def test_refresh_awaits_only_seats_with_exhausted_cards() -> None:
    """Cleanup refresh waits only for seats with something to refresh."""
    states: list[State] = []
    play(2, 3, "goal", hook=states.append)
    refresh = [s for s in states if s.phase == "refresh"]
    assert refresh, "the goal bot uses skills, so some cleanup waits for a refresh"
    for s in refresh:
        assert GAME.awaiting(s) == {i for i, p in enumerate(s.players) if p.exhausted} - s.done
        for seat in GAME.awaiting(s):
            assert Refresh(seat, "") in GAME.legal_commands(s, seat)


@pytest.mark.parametrize("policy", ["goal", "random"])
def test_bots_pick_legal_commands(policy: str) -> None:
    """Each policy returns one of the legal commands it is given."""
    states: list[State] = []
    play(3, 11, "random", hook=states.append)
    rng = random.Random(1)
    for s in states[::4]:
        for seat in GAME.awaiting(s):
            legal = GAME.legal_commands(s, seat)
            assert GAME.policies[policy](GAME.view(s, seat), seat, legal, rng) in legal


def test_goal_bot_beats_random() -> None:
    """The goal policy plays toward its goals: over 6 two-player games it outscores random."""
    goal = [r for seed in range(6) for r in _scores(seed, ("goal", "random"))]
    assert sum(goal[0::2]) > sum(goal[1::2]) + 30


def _scores(seed: int, names: tuple[str, str]) -> tuple[int, ...]:
    from clients.simulate.cli import play_game

    return play_game(GAME, 2, names, seed).result.scores


def test_spectator_sees_what_seats_see() -> None:
    """Nothing in Roll Player is private to a seat: every view shows the same facts."""
    state = given(*opening(3), *rolled(POOL))
    seat_view = GAME.view(state, 0)
    spectator = GAME.view(state, None)
    assert seat_view == spectator
    assert GAME.public_view
    assert "bag" not in spectator and spectator["bag_count"] == 73 - 21 - 4


def test_view_names_the_awaited_seats_and_the_winners() -> None:
    """The view says whose clock runs and, once over, the winners with the engine's tie-breaks."""
    seen: list[bool] = []
    events = play(
        2,
        11,
        hook=lambda s: seen.append(GAME.view(s, None)["awaiting"] == sorted(GAME.awaiting(s))),
    )
    assert seen and all(seen)
    state = replay(GAME, events)
    result = GAME.result(state)
    assert result is not None and GAME.view(state, None)["winners"] == list(result.winners)
