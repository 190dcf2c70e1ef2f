"""Shared helpers and Hypothesis strategies for the Roll Builder tests.

``given(*events)`` builds a state from events (the setup event first, as a replay
does); ``when(state, command)`` returns the events ``decide`` gives; ``H(col, row)``
is the axial hex of a map token. ``tables()`` draws a table (seats, options, seed)
and ``junk_commands(seat)`` draws commands that may or may not be legal.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from engine.core import Game, get_game
from engine.roll_builder.content import CITIES, EVENTS, VISIONARIES
from engine.roll_builder.hexmap import Hex, are_neighbours, edge, offset_to_axial
from engine.roll_builder.model import (
    Build,
    Done,
    FillWonder,
    MarkSpace,
    Pay,
    PlaceRoad,
    SetUp,
    State,
    UseDie,
    VisionaryGoals,
)

GAME: Game[State] = get_game("roll-builder")


def H(col: int, row: int) -> Hex:
    """The axial hex of the token at ``col`` in ``row`` of a city's ``rows``."""
    return offset_to_axial(col, row)


def E(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int, int, int]:
    """The edge between neighbouring map tokens ``a`` and ``b`` (each ``(col, row)``)."""
    assert are_neighbours(H(*a), H(*b)), (a, b)
    return edge(H(*a), H(*b))


def setup(
    seats: int = 1,
    dice: tuple[int, int] = (3, 4),
    city: str = "tidehaven",
    event: str | None = None,
    visionaries: tuple[str, ...] = (),
    seed: int = 7,
    visionary_goals: VisionaryGoals = "rulebook",
) -> SetUp:
    """A setup event with chosen dice."""
    return SetUp(seats, (city,) * seats, event, visionaries, dice, seed, visionary_goals)


def given(*events: Any) -> State:
    """The state after ``events`` (a SetUp first)."""
    state = GAME.create(events[0])
    for e in events[1:]:
        state = GAME.evolve(state, e)
    return state


def when(state: State, command: Any) -> tuple[Any, ...]:
    """The events ``command`` causes in ``state``."""
    return GAME.decide(state, command)


def then(state: State, command: Any) -> State:
    """The state after ``command`` is decided and applied."""
    for e in GAME.decide(state, command):
        state = GAME.evolve(state, e)
    return state


def tables(seats: int) -> st.SearchStrategy[tuple[int, dict[str, Any], int]]:
    """A table of ``seats``: options (cities, event, visionaries) and a seed; an event
    listed for some cities only comes with one of them."""
    options = st.sampled_from(["none", "auto", *sorted(EVENTS)]).flatmap(
        lambda event: st.fixed_dictionaries(
            {
                "city": st.sampled_from(_cities_for(event)),
                "event": st.just(event),
                "visionaries": st.integers(0, 5),
            }
        )
    )
    return st.tuples(st.just(seats), options, st.integers(0, 2**32))


def _cities_for(event: str) -> list[str]:
    listed = EVENTS[event].cities if event in EVENTS else ()
    return sorted(listed) if listed else ["random", *sorted(CITIES)]


MAP_EDGES = sorted({e for c in CITIES.values() for e in c.geometry.edges})
MAP_HEXES = sorted({h for c in CITIES.values() for h in c.spaces})


def junk_commands(seat: int) -> st.SearchStrategy[Any]:
    """Commands with fields that may be out of range, illegal now, or fine."""
    small = st.integers(-2, 9)
    hexes = st.tuples(small, small) | st.sampled_from(MAP_HEXES)
    edges = st.tuples(small, small, small, small) | st.sampled_from(MAP_EDGES)
    return st.one_of(
        st.builds(
            UseDie,
            st.just(seat),
            st.integers(-1, 2),
            st.sampled_from(["road", "build", "wonder", "fly"]),
            st.integers(-2, 2),
        ),
        st.builds(PlaceRoad, st.just(seat), edges),
        st.builds(Build, st.just(seat), hexes, st.integers(-1, 8)),
        st.builds(FillWonder, st.just(seat), st.integers(-1, 20)),
        st.builds(MarkSpace, st.just(seat), hexes),
        st.builds(
            Pay,
            st.just(seat),
            st.sampled_from(["shipwrights", "academy", "stonecutters", "sky_bridge", "nope"]),
            st.integers(-1, 5),
            st.sampled_from(["food", "supplies", "wealth", "favor", "strength", "idea", "gold"]),
        ),
        st.builds(Done, st.integers(-1, 4)),
    )


def random_command(state: State, seat: int, rng: random.Random) -> Any:
    """A legal command, finishing the turn about one time in twelve."""
    legal = GAME.legal_commands(state, seat)
    others = [c for c in legal if not isinstance(c, Done)]
    if others and rng.random() > 1 / 12:
        return rng.choice(others)
    return Done(seat)


def all_visionaries() -> tuple[str, ...]:
    """Every visionary id."""
    return tuple(sorted(VISIONARIES))
