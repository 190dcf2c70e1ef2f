"""Roll Builder laws over random full games (solo and four players), by Hypothesis:
replay reproduces the state, ``decide`` raises only typed rejections and accepts
exactly the legal commands, roads stay connected to the network, every game lasts
exactly fifteen turns, events and views are plain data.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import replay
from engine.data import to_data
from engine.errors import BadOptions, Rejection
from engine.roll_builder.effects import city_of
from engine.roll_builder.hexmap import edge, edge_vertices
from engine.roll_builder.model import GameEnded, PlaceRoad, Player, Rolled, State
from tests.engine.roll_builder_strategies import GAME, junk_commands, random_command, tables

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def canonical(command: Any) -> Any:
    """``command`` with its road edge written the canonical way."""
    if isinstance(command, PlaceRoad):
        e = command.edge
        return PlaceRoad(command.seat, edge((e[0], e[1]), (e[2], e[3])))
    return command


def probe(state: State, junk: Any) -> None:
    """``decide`` either refuses ``junk`` with a Rejection or it was legal."""
    try:
        GAME.decide(state, junk)
    except Rejection:
        assert canonical(junk) not in GAME.legal_commands(
            state, junk.seat
        ) or junk.seat not in range(state.seats)
        return
    assert canonical(junk) in GAME.legal_commands(state, junk.seat)


def connected_to_start(p: Player) -> bool:
    """Every road reaches a starting road through shared corners."""
    start = city_of(p).start_roads
    reached = set(start)
    frontier = list(start)
    while frontier:
        corners = set(edge_vertices(frontier.pop()))
        for e in p.roads - reached:
            if corners & set(edge_vertices(e)):
                reached.add(e)
                frontier.append(e)
    return reached == set(p.roads)


def play(table: tuple[int, dict[str, Any], int], data: st.DataObject) -> None:
    """Play one random game, probing decide with junk at random steps."""
    seats, options, seed = table
    setup = GAME.setup(seats, options, seed)
    state = GAME.create(setup)
    events: list[Any] = [setup]
    rng = random.Random(seed)
    while not GAME.is_over(state):
        seat = rng.choice(sorted(GAME.awaiting(state)))
        if rng.random() < 0.2:
            probe(state, data.draw(junk_commands(seat)))
        command = random_command(state, seat, rng)
        new = GAME.decide(state, command)
        for e in new:
            assert GAME.events.load(to_data(e)) == e
            state = GAME.evolve(state, e)
        events.extend(new)
    assert replay(GAME, events) == state
    assert sum(isinstance(e, Rolled) for e in events) == 14 and state.turn == 15
    assert sum(isinstance(e, GameEnded) for e in events) == 1
    assert all(connected_to_start(p) for p in state.players)
    json.dumps(GAME.view(state, None))
    result = GAME.result(state)
    assert result is not None and len(result.scores) == seats


@SETTINGS
@given(tables(1), st.data())
def test_solo_games_obey_the_laws(
    table: tuple[int, dict[str, Any], int], data: st.DataObject
) -> None:
    """Random solo games: replay, typed rejections, connected roads, 15 turns."""
    play(table, data)


@settings(SETTINGS, max_examples=8)
@given(tables(4), st.data())
def test_four_player_games_obey_the_laws(
    table: tuple[int, dict[str, Any], int], data: st.DataObject
) -> None:
    """Random four-player games: replay, typed rejections, connected roads, 15 turns."""
    play(table, data)


@settings(SETTINGS, max_examples=40)
@given(tables(2), st.data())
def test_junk_commands_raise_only_rejections(
    table: tuple[int, dict[str, Any], int], data: st.DataObject
) -> None:
    """decide on any command raises only Rejection subclasses, and accepts exactly
    the commands legal_commands lists."""
    seats, options, seed = table
    state = GAME.create(GAME.setup(seats, options, seed))
    rng = random.Random(seed)
    for _ in range(data.draw(st.integers(0, 30))):
        seat = rng.choice(sorted(GAME.awaiting(state)))
        for e in GAME.decide(state, random_command(state, seat, rng)):
            state = GAME.evolve(state, e)
        if GAME.is_over(state):
            return
    for _ in range(10):
        probe(state, data.draw(junk_commands(data.draw(st.integers(0, 1)))))


@settings(SETTINGS, max_examples=20)
@given(tables(2), st.integers(0, 40))
def test_every_legal_command_is_accepted(
    table: tuple[int, dict[str, Any], int], steps: int
) -> None:
    """Each command legal_commands lists is accepted by decide."""
    seats, options, seed = table
    state = GAME.create(GAME.setup(seats, options, seed))
    rng = random.Random(seed)
    for _ in range(steps):
        seat = rng.choice(sorted(GAME.awaiting(state)))
        for e in GAME.decide(state, random_command(state, seat, rng)):
            state = GAME.evolve(state, e)
    for seat in GAME.awaiting(state):
        for command in GAME.legal_commands(state, seat):
            assert GAME.decide(state, command)


JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 9)
    | st.sampled_from(["random", "auto", "none", "tidehaven", "flood", "zenobia", ""]),
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(SETTINGS, max_examples=200)
@given(
    st.integers(-1, 8),
    st.dictionaries(st.sampled_from(["city", "event", "visionaries", "x"]), JSONISH, max_size=4),
)
def test_setup_refuses_bad_options_only_with_bad_options(
    seats: int, options: dict[str, Any]
) -> None:
    """setup on any plain-data options either sets up a table or raises BadOptions."""
    try:
        event = GAME.setup(seats, options, 1)
    except BadOptions:
        return
    assert 1 <= event.seats <= 6 and len(event.cities) == seats
