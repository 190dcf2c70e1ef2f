"""engine.frozen.replace: the same values attrs.evolve gives, validators and all."""

from __future__ import annotations

import attrs
import pytest

from engine.core import games
from engine.frozen import replace


@attrs.frozen
class Box:
    size: int = attrs.field(validator=attrs.validators.ge(0))
    label: str = "box"
    tags: tuple[str, ...] = attrs.field(default=(), converter=tuple)


@attrs.frozen
class Hidden:
    _secret: int
    shown: int = 0


def test_replace_is_attrs_evolve() -> None:
    """Changed fields take the new values, the others stay the same objects; converters
    and validators run as for attrs.evolve."""
    box = Box(3, tags=["a"])  # type: ignore[arg-type]
    assert replace(box, size=4) == attrs.evolve(box, size=4) == Box(4, "box", ("a",))
    assert replace(box, size=4).tags is box.tags
    assert replace(box, tags=["b", "c"]).tags == ("b", "c")
    assert replace(box) == box
    with pytest.raises(ValueError):
        replace(box, size=-1)
    with pytest.raises(TypeError):
        replace(box, colour="red")


def test_replace_falls_back_for_fields_with_another_init_name() -> None:
    """A private field (initialised as ``secret``) goes through attrs.evolve itself."""
    hidden = Hidden(1)
    assert replace(hidden, shown=2) == attrs.evolve(hidden, shown=2) == Hidden(1, 2)


def test_replace_matches_evolve_on_every_game_state() -> None:
    """Each game's first state, one field changed at a time, equals attrs.evolve's."""
    for game in games().values():
        state = game.create(game.setup(game.min_seats, {}, 1))
        for field in attrs.fields(type(state)):
            value = getattr(state, field.name)
            assert replace(state, **{field.name: value}) == attrs.evolve(
                state, **{field.name: value}
            )
