"""The ability vocabulary, kind by kind, as the engine interprets it (rulebook:
Special, Road, and other Abilities; Events; Visionaries). Content ids are the
shipped sheets'; see ``content/README.md`` for the kinds.
"""

from __future__ import annotations

from typing import Any

import attrs

from engine.roll_builder.content import Ability
from engine.roll_builder.effects import active, add_gain, after_road
from engine.roll_builder.hexmap import space_edges
from engine.roll_builder.model import (
    Build,
    FillWonder,
    MarkSpace,
    Pay,
    PlaceRoad,
    Rolled,
    State,
    UseDie,
)
from engine.roll_builder.scoring import by_category
from tests.engine.roll_builder_strategies import E, H, given, setup, then, when


def edit(state: State, seat: int = 0, **changes: Any) -> State:
    """``state`` with fields of ``seat``'s player changed."""
    return state.put(seat, attrs.evolve(state.players[seat], **changes))


def test_build_gain() -> None:
    """build_gain: Fisheries makes each Farm gain 1 wealth."""
    state = edit(given(setup(dice=(1, 1))), discovered=("fisheries",))
    state = then(then(state, UseDie(0, 0, "build")), Build(0, H(3, 3), 1))
    assert state.players[0].wealth == 1 and state.players[0].pool[0] == 2


def test_build_gain_any_starts_after_its_building() -> None:
    """build_gain (any): a Guildhall's ability counts the buildings after it, this turn."""
    state = given(setup(dice=(6, 2), city="highcrag"))
    state = then(then(state, UseDie(0, 0, "build")), Build(0, H(2, 2), 6))
    assert state.players[0].wealth == 0
    state = then(then(state, UseDie(0, 1, "build")), Build(0, H(3, 2), 2))
    assert state.players[0].wealth == 1 + 1  # the Mine's own wealth + the Guildhall's


def test_wonder_gain() -> None:
    """wonder_gain: the Lighthouse Lens gains 1 favor per wonder box filled."""
    state = edit(given(setup(dice=(1, 1))), discovered=("lens",))
    state = then(then(state, UseDie(0, 0, "wonder")), FillWonder(0, 0))
    assert state.players[0].pool[3] == 1


def test_substitute() -> None:
    """substitute: with Zenobia's bonus, wealth crosses off a food circle."""
    ability = Ability("substitute", resource="food", pay="wealth")
    state = edit(given(setup()), abilities=(ability,), wealth=1)
    assert when(state, Pay(0, "fisheries", 0, "wealth"))
    plain = edit(given(setup()), wealth=1)
    assert (
        plain != state
        and _code(plain, Pay(0, "fisheries", 0, "wealth")) == "roll_builder/cannot_pay"
    )


def test_ring_gain_limit_and_ring_points() -> None:
    """ring_gain stops after its limit (Tidehaven: 4 rings); ring_points (Ramesses II)
    scores each ringed space."""
    p = attrs.evolve(given(setup()).players[0], roads=frozenset())
    rings = [H(c, r) for c, r in ((1, 1), (3, 1), (1, 3), (2, 5), (4, 6))]
    for e in sorted({e for h in rings for e in space_edges(h)}):
        p = after_road(attrs.evolve(p, roads=p.roads | {e}), e, active(p, None))
    assert p.wealth == 4 * 2  # five rings, paid for the first four
    ramesses = attrs.evolve(p, abilities=(Ability("ring_points", points=1),))
    assert by_category(ramesses, None)["roads"] == by_category(p, None)["roads"] + 5


def test_allow_from_a_marked_space_lasts_the_turn() -> None:
    """allow (on a map space): the Dockyard lets roads cross water on the turn it is marked."""
    state = given(setup())
    dock, sea = H(6, 1), E((7, 1), (7, 2))
    near = frozenset(space_edges(dock))
    state = edit(state, roads=state.players[0].roads | near, roads_left=1)
    assert _code(state, PlaceRoad(0, sea)) == "roll_builder/road_forbidden"
    marked = then(state, MarkSpace(0, dock))
    assert when(marked, PlaceRoad(0, sea))
    next_turn = given(setup(), Rolled(2, (1, 1)))
    assert next_turn.players[0].turn_abilities == ()


def test_gain_adjust_only_touches_gains() -> None:
    """gain_adjust: Famine takes 1 from each food gain, never below zero, and
    leaves other resources alone."""
    famine = (Ability("gain_adjust", resource="food", delta=-1),)
    p = given(setup()).players[0]
    assert add_gain(p, (1, 2, 0, 0, 0, 0), famine).pool[:2] == (0, 2)
    assert add_gain(p, (3, 0, 0, 0, 0, 0), famine).pool[0] == 2


def test_storage_caps_wealth() -> None:
    """Wealth storage: wealth beyond the sheet's circles is lost."""
    p = given(setup()).players[0]
    assert add_gain(p, (0, 0, 99, 0, 0, 0), ()).wealth == 24


def test_end_points_per_metric() -> None:
    """end_points: Highcrag's watchfires score 1 per 3 coast or cliff roads."""
    state = given(setup(city="highcrag"))
    cliffs = frozenset(state.players[0].roads) | {
        E((4, 1), (5, 1)),
        E((4, 2), (5, 2)),
        E((5, 2), (5, 3)),
    }
    p = attrs.evolve(state.players[0], roads=cliffs)
    assert by_category(p, None)["bonus"] == 1


def test_festival_golden_age_plague() -> None:
    """Events: Festival gives favor on turn 3, Golden Age 2 per innovation, Plague
    an idea on turn 2 and one favor less per gain."""
    festival = given(setup(event="festival"), Rolled(2, (1, 1)), Rolled(3, (1, 1)))
    assert festival.players[0].pool[3] == 2
    golden = attrs.evolve(given(setup(event="golden_age")).players[0], discovered=("fisheries",))
    assert by_category(golden, "golden_age")["bonus"] == 2
    plague = given(setup(event="plague"), Rolled(2, (4, 4)))
    assert plague.players[0].pool[5] == 1
    plague = then(then(plague, UseDie(0, 0, "build")), Build(0, H(3, 3), 4))
    assert plague.players[0].pool[3] == 1


def _code(state: State, command: Any) -> str:
    try:
        when(state, command)
    except Exception as exc:
        return str(getattr(exc, "code", type(exc).__name__))
    return "accepted"
