"""Laws of Roll Player over random whole games (Hypothesis): dice and gold are
conserved, replay rebuilds the state, legal commands are accepted, decide only
rejects with typed rejections, the view hides the deck and the bag, games end."""

from __future__ import annotations

import contextlib
import random
from operator import is_
from typing import Any

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import replay
from engine.data import to_data
from engine.errors import Rejection
from engine.roll_player import GAME
from engine.roll_player.commands import (
    COMMANDS,
)
from engine.roll_player.events import (
    EVENTS,
)
from engine.roll_player.legal import is_awaited
from engine.roll_player.model import (
    State,
)
from tests.engine.roll_player_strategies import class_modes, play, policies, seats, seeds

FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def dice_count(s: State) -> int:
    """Dice in the bag, the pool, on Initiative cards, on sheets and waiting to be placed."""
    on_cards = sum(1 for c in s.initiative if c.die is not None)
    on_sheets = sum(len(row) for p in s.players for row in p.rows)
    waiting = sum(len(d) for d in s.starting)
    return sum(s.bag) + len(s.pool) + on_cards + on_sheets + waiting


def gold_count(s: State) -> int:
    """Gold in the supply (below 0: substitutes; gold never runs out), with the players
    and on Initiative cards."""
    return s.supply + sum(p.gold for p in s.players) + sum(c.gold for c in s.initiative)


def check(s: State) -> None:
    """The conservation laws."""
    assert dice_count(s) == 73
    assert gold_count(s) == 60
    assert all(p.gold >= 0 for p in s.players)
    assert all(len(row) <= 3 for p in s.players for row in p.rows)


@FAST
@given(seats, seeds, policies, class_modes)
def test_whole_games_conserve_dice_and_gold_and_replay(
    n: int, seed: int, policy: str, mode: str
) -> None:
    """73 dice and 60 gold are always accounted for; replay(events) equals the final state."""
    states: list[State] = []
    events = play(n, seed, policy, hook=states.append, mode=mode)
    for s in states:
        check(s)
    final = states[-1]
    assert GAME.is_over(final) and all(p.full() for p in final.players)
    assert replay(GAME, events) == final
    result = GAME.result(final)
    assert result is not None and len(result.scores) == n and result.winners


@FAST
@given(seats, seeds)
def test_events_round_trip_as_plain_data(n: int, seed: int) -> None:
    """Every event survives to_data / load unchanged (the log is plain data)."""
    for event in play(n, seed, "random"):
        assert EVENTS.load(to_data(event)) == event


def states_of(n: int, seed: int, every: int, mode: str = "draw") -> list[State]:
    """Every ``every``-th state of a random game."""
    states: list[State] = []
    play(n, seed, "random", hook=states.append, mode=mode)
    return states[::every]


@settings(max_examples=4, deadline=None)
@given(seats, seeds, class_modes)
def test_legal_and_timeout_commands_are_accepted(n: int, seed: int, mode: str) -> None:
    """Every seat's legal commands, and an awaited seat's timeout command, are accepted."""
    for s in states_of(n, seed, 9, mode):
        for seat in GAME.awaiting(s):
            timeout = GAME.timeout_command(s, seat)
            assert timeout is not None
            GAME.decide(s, timeout)
            for command in GAME.legal_commands(s, seat):
                assert COMMANDS.load(to_data(command)) == command
                GAME.decide(s, command)
        for seat in set(range(n)) - GAME.awaiting(s):
            assert GAME.timeout_command(s, seat) is None
            for command in GAME.legal_commands(s, seat):  # skills out of turn, weapon drops
                GAME.decide(s, command)


@FAST
@given(seats, seeds, class_modes)
def test_legal_inputs_name_what_legal_commands_read(n: int, seed: int, mode: str) -> None:
    """From one event to the next, a seat whose ``legal_inputs`` are the same objects has
    the same legal commands (a host keeps them then); ``is_awaited`` agrees with
    ``awaiting``."""
    events = play(n, seed, "random", mode=mode)
    state = GAME.create(events[0])
    for event in events[1:]:
        before, state = state, GAME.evolve(state, event)
        for seat in range(n):
            assert is_awaited(state, seat) == (seat in GAME.awaiting(state))
            kept, now = GAME.legal_inputs(before, seat), GAME.legal_inputs(state, seat)
            if len(kept) == len(now) and all(map(is_, kept, now)):
                assert GAME.legal_commands(state, seat) == GAME.legal_commands(before, seat)


NAMES = ["", "class", "Climb", "Helm", "Longsword", "Reckless", "Human", "Cleric", "up", "x"]
junk_ints = st.integers(min_value=-3, max_value=20)


@st.composite
def commands(draw: st.DrawFn) -> Any:
    """Any command type with arbitrary (often wrong) fields."""
    cls = draw(st.sampled_from(sorted(COMMANDS.by_tag.values(), key=lambda c: c.TYPE)))
    data: dict[str, Any] = {"type": cls.TYPE}
    for field in attrs.fields(cls):
        if field.name == "seat":
            data["seat"] = draw(st.integers(min_value=-1, max_value=4))
        elif field.type in ("int", int):
            data[field.name] = draw(junk_ints)
        elif field.type in ("bool", bool):
            data[field.name] = draw(st.booleans())
        elif field.type in ("str", str):
            data[field.name] = draw(st.sampled_from(NAMES))
        else:
            data[field.name] = draw(st.lists(junk_ints, max_size=9))
    if cls.TYPE == "buy":
        data["drop"] = draw(st.lists(st.sampled_from(NAMES), max_size=2))
    return COMMANDS.load(data)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([(2, 3), (3, 8), (4, 21)]), st.integers(0, 10**6), commands())
def test_decide_raises_only_rejections(game: tuple[int, int], pick: int, command: Any) -> None:
    """decide on arbitrary commands either returns events or raises a Rejection."""
    states = _cached_states(*game)
    s = states[pick % len(states)]
    with contextlib.suppress(Rejection):
        GAME.decide(s, command)


_CACHE: dict[tuple[int, int], list[State]] = {}


def _cached_states(n: int, seed: int) -> list[State]:
    if (n, seed) not in _CACHE:
        _CACHE[(n, seed)] = states_of(n, seed, 3)
    return _CACHE[(n, seed)]


@settings(max_examples=6, deadline=None)
@given(seats, seeds)
def test_view_hides_deck_order_and_bag(n: int, seed: int) -> None:
    """The view is the same whatever the deck's order and the bag's contents."""
    rng = random.Random(seed)
    for s in states_of(n, seed, 15):
        shuffled = list(s.deck)
        rng.shuffle(shuffled)
        bag = tuple(reversed(s.bag))
        other = attrs.evolve(s, deck=tuple(shuffled), bag=bag)
        for viewer in (None, *range(n)):
            assert GAME.view(s, viewer) == GAME.view(other, viewer)
            assert "deck" not in GAME.view(s, viewer)


@settings(max_examples=4, deadline=None)
@given(seats, seeds, class_modes)
def test_the_states_decide_hands_on_are_its_events_folded(n: int, seed: int, mode: str) -> None:
    """``decide_with_states`` gives ``decide``'s events and the state after each, equal to
    evolving them one by one (the room's fold takes those states instead of evolving)."""
    for s in states_of(n, seed, 5, mode):
        for seat in GAME.awaiting(s):
            for command in GAME.legal_commands(s, seat)[:3]:
                events, after = GAME.decide_with_states(s, command)
                assert events == GAME.decide(s, command)
                assert after is not None and len(after) == len(events)
                state = s
                for event, known in zip(events, after, strict=True):
                    state = GAME.evolve(state, event)
                    assert known == state
