"""The trusted loader (what the server folds its own log and snapshots with) builds the
same values as the strict one, for every game's events and states, and for every field
type ``engine.data`` supports."""

from __future__ import annotations

import random
from typing import Any, Literal

import attrs
import pytest

from engine.core import games
from engine.data import from_data, to_data, trusted_data
from tests.engine.test_contract import GAMES, play


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_trusted_loads_equal_strict_loads_through_whole_games(name: str, seed: int) -> None:
    """Every event of a played game, and the state every 10 events, load equal both ways."""
    game = games()[name]
    seats = random.Random(seed).randint(game.min_seats, min(4, game.max_seats))
    _, events = play(game, seats, seed, steps=400)
    state = game.create(events[0])
    for i, event in enumerate(events):
        data = to_data(event)
        loaded = game.events.trusted(data)
        assert loaded == game.events.load(data) == event
        assert type(loaded) is type(event)
        if i:
            state = game.evolve(state, event)
        if i % 10 == 0 or i == len(events) - 1:
            plain = to_data(state)
            assert trusted_data(type(state), plain) == from_data(type(state), plain) == state


@attrs.frozen
class Inner:
    a: int
    b: str = "x"


@attrs.frozen
class Outer:
    TYPE = "outer"
    n: int
    flag: bool
    name: str | None
    kind: Literal["a", "b"]
    items: tuple[int, ...]
    pair: tuple[Inner, int]
    inners: tuple[Inner, ...]
    maybe: Inner | None
    marks: frozenset[int]
    by_seat: dict[int, Inner]
    by_name: dict[str, int]
    anything: Any
    later: tuple[str, ...] = ()


def sample() -> Outer:
    return Outer(
        n=3,
        flag=True,
        name=None,
        kind="b",
        items=(1, 2),
        pair=(Inner(1, "y"), 5),
        inners=(Inner(2), Inner(3, "z")),
        maybe=Inner(4),
        marks=frozenset({3, 1}),
        by_seat={0: Inner(5), 2: Inner(6, "w")},
        by_name={"k": 1},
        anything={"free": [1, "form"]},
        later=("q",),
    )


@pytest.mark.parametrize(
    "value",
    [sample(), attrs.evolve(sample(), maybe=None, name="n", marks=frozenset(), by_seat={})],
)
def test_every_field_type_loads_as_strictly(value: Outer) -> None:
    data = to_data(value)
    assert trusted_data(Outer, data) == from_data(Outer, data) == value
    assert isinstance(trusted_data(Outer, data).pair[0], Inner)


def test_a_missing_field_takes_its_default_or_fails() -> None:
    """Older records without a later field load; a missing required field is an error."""
    data = to_data(sample())
    del data["later"]
    assert trusted_data(Outer, data).later == ()
    del data["n"]
    with pytest.raises(KeyError):
        trusted_data(Outer, data)
