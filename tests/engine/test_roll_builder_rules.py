"""Roll Builder rules as tables: given events (or a sheet) / when a command / then
events or a rejection code. Each test cites the rulebook section (seed 003).

Tidehaven map notes used below (offset ``(col, row)`` tokens): the starting roads
run (3,3)-(4,3), (4,3)-(4,4), (3,3)-(3,4) and the coast road (6,5)-(6,4); (4,3)
holds a bonus building action, (4,2) an idea, (3,4) three points, (5,5) two points;
(5,3) is a lake; (1,2)-(2,2) is a cliff; (7,1)-(7,2) is open sea.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from engine.roll_builder.content import Ability
from engine.roll_builder.hexmap import space_edges
from engine.roll_builder.model import (
    Build,
    Built,
    DieUsed,
    Discovered,
    Done,
    FillWonder,
    MarkSpace,
    Paid,
    Pay,
    PlaceRoad,
    RoadPlaced,
    SpaceMarked,
    State,
    UseDie,
    WonderFilled,
)
from tests.engine.roll_builder_strategies import E, H, given, setup, then, when


def edit(state: State, seat: int = 0, **changes: Any) -> State:
    """``state`` with fields of ``seat``'s player changed (a given sheet)."""
    return state.put(seat, attrs.evolve(state.players[seat], **changes))


def code_of(state: State, command: Any) -> str:
    """The rejection code ``command`` gets in ``state``."""
    with pytest.raises(Exception) as info:
        when(state, command)
    return str(getattr(info.value, "code", type(info.value).__name__))


FRESH = given(setup(dice=(3, 4)))
ROADS5 = edit(FRESH, roads_left=5)

REJECTIONS = [
    # (rulebook section, state, command, code)
    (
        "Road Action: roads run along one of the six edges",
        ROADS5,
        PlaceRoad(0, (0, 0, 5, 5)),
        "roll_builder/no_such_edge",
    ),
    (
        "Road Action: roads cut off by the map edge are not available",
        ROADS5,
        PlaceRoad(0, E((0, 0), (1, 0))),
        "roll_builder/no_such_edge",
    ),
    (
        "Road Action: roads must be connected to an existing road",
        ROADS5,
        PlaceRoad(0, E((1, 1), (2, 1))),
        "roll_builder/not_connected",
    ),
    (
        "Road Action: one road per edge",
        ROADS5,
        PlaceRoad(0, E((3, 3), (4, 3))),
        "roll_builder/road_taken",
    ),
    (
        "Road Action: city restriction, no roads between water spaces",
        ROADS5,
        PlaceRoad(0, E((7, 1), (7, 2))),
        "roll_builder/road_forbidden",
    ),
    (
        "Road Action: city restriction, cliffs",
        ROADS5,
        PlaceRoad(0, E((1, 2), (2, 2))),
        "roll_builder/road_forbidden",
    ),
    (
        "Road Action: that many roads, no more",
        FRESH,
        PlaceRoad(0, E((4, 3), (4, 2))),
        "roll_builder/no_roads_left",
    ),
    ("Turn Structure: two action dice", FRESH, UseDie(0, 2, "road"), "roll_builder/no_such_die"),
    (
        "Turn Structure: Road, Building and Wonder actions",
        FRESH,
        UseDie(0, 0, "fly"),
        "roll_builder/bad_action",
    ),  # type: ignore[arg-type]
    (
        "Visionary Euclid: the +/-1 needs the ability",
        FRESH,
        UseDie(0, 0, "road", 1),
        "roll_builder/bad_shift",
    ),
    (
        "Building Action: the die number picks the building",
        edit(FRESH, builds=(3,)),
        Build(0, H(3, 3), 4),
        "roll_builder/no_build_action",
    ),
    (
        "Building Action: six buildings",
        edit(FRESH, builds=(0,)),
        Build(0, H(3, 3), 7),
        "roll_builder/no_such_building",
    ),
    (
        "Building Action: a land space",
        edit(FRESH, builds=(3,)),
        Build(0, H(5, 3), 3),
        "roll_builder/not_buildable",
    ),
    (
        "Building Action: not on partial spaces",
        edit(FRESH, builds=(3,)),
        Build(0, H(0, 3), 3),
        "roll_builder/not_buildable",
    ),
    (
        "Building Action: a connected space",
        edit(FRESH, builds=(3,)),
        Build(0, H(1, 1), 3),
        "roll_builder/not_connected",
    ),
    (
        "Building Action: one building mark per space",
        edit(FRESH, builds=(3,), buildings=((H(3, 3), 1),)),
        Build(0, H(3, 3), 3),
        "roll_builder/space_taken",
    ),
    (
        "Building Action: on the map",
        edit(FRESH, builds=(3,)),
        Build(0, (40, 40), 3),
        "roll_builder/no_such_space",
    ),
    (
        "Wonder Action: the die number picks the box",
        edit(FRESH, wonders=(3,)),
        FillWonder(0, 3),
        "roll_builder/no_wonder_action",
    ),
    (
        "Wonder Action: an available box, per the wonder's rules",
        edit(FRESH, wonders=(3,)),
        FillWonder(0, 8),
        "roll_builder/box_unavailable",
    ),
    (
        "Wonder Action: each box once",
        edit(FRESH, wonders=(3,), wonder=frozenset({2})),
        FillWonder(0, 2),
        "roll_builder/box_filled",
    ),
    (
        "Wonder Action: the wonder's boxes",
        edit(FRESH, wonders=(3,)),
        FillWonder(0, 18),
        "roll_builder/no_such_box",
    ),
    (
        "Road Action: mark a connected space",
        FRESH,
        MarkSpace(0, H(1, 1)),
        "roll_builder/not_connected",
    ),
    (
        "Road Action: mark to gain resources (points need no mark)",
        FRESH,
        MarkSpace(0, H(3, 4)),
        "roll_builder/nothing_to_mark",
    ),
    (
        "Road Action: mark with a small X, once",
        edit(FRESH, marked=frozenset({H(4, 3)})),
        MarkSpace(0, H(4, 3)),
        "roll_builder/already_marked",
    ),
    (
        "Innovations: matching resources",
        edit(FRESH, pool=(0, 0, 0, 1, 0, 0)),
        Pay(0, "fisheries", 0, "favor"),
        "roll_builder/cannot_pay",
    ),
    (
        "Innovations: the bonus circle requires the innovation bonus",
        edit(FRESH, pool=(1, 0, 0, 0, 0, 0)),
        Pay(0, "lens", 2, "food"),
        "roll_builder/cannot_pay",
    ),
    (
        "Innovations: spend what you have",
        FRESH,
        Pay(0, "fisheries", 0, "food"),
        "roll_builder/not_enough",
    ),
    (
        "Innovations: the city's innovations",
        FRESH,
        Pay(0, "nope", 0, "food"),
        "roll_builder/no_such_innovation",
    ),
    (
        "Innovations: the cost circles",
        edit(FRESH, pool=(1, 0, 0, 0, 0, 0)),
        Pay(0, "fisheries", 5, "food"),
        "roll_builder/no_such_circle",
    ),
    (
        "Innovations: cross off a circle once",
        edit(FRESH, pool=(1, 0, 0, 0, 0, 0), paid=frozenset({("fisheries", 0)})),
        Pay(0, "fisheries", 0, "food"),
        "roll_builder/circle_paid",
    ),
    (
        "Turn Structure: wait for all players",
        edit(FRESH, done=True),
        UseDie(0, 0, "road"),
        "roll_builder/already_done",
    ),
    ("Set-Up: players at the table", FRESH, Done(3), "game/no_such_seat"),
]


@pytest.mark.parametrize(
    ("rule", "state", "command", "code"), REJECTIONS, ids=[r[0] for r in REJECTIONS]
)
def test_rejections(rule: str, state: State, command: Any, code: str) -> None:
    """Each command the rulebook forbids is refused with its stable code."""
    assert code_of(state, command) == code


def test_die_gives_that_many_roads() -> None:
    """Road Action: crossing off a die gives that many roads to place."""
    assert when(FRESH, UseDie(0, 1, "road")) == (DieUsed(0, 1, "road", 4),)
    state = then(FRESH, UseDie(0, 1, "road"))
    assert state.players[0].roads_left == 4
    assert code_of(state, UseDie(0, 1, "build")) == "roll_builder/die_used"


def test_roads_in_parts_with_effects_between() -> None:
    """Order of Effects: place two roads, gain what they connect, then place the rest."""
    state = then(FRESH, UseDie(0, 1, "road"))
    state = then(state, PlaceRoad(0, E((4, 3), (4, 2))))
    state = then(state, PlaceRoad(0, E((4, 3), (5, 2))))
    assert code_of(state, MarkSpace(0, H(6, 2))) == "roll_builder/not_connected"
    state = then(state, PlaceRoad(0, E((5, 2), (5, 3))))
    state = then(state, MarkSpace(0, H(6, 2)))
    assert state.players[0].wealth == 2
    state = then(state, PlaceRoad(0, E((5, 2), (6, 2))))
    assert state.players[0].roads_left == 0


def test_corner_touch_connects() -> None:
    """Road Action: a space touched by a road, even at a corner, is connected."""
    idea = H(4, 2)
    assert not any(idea in (e[:2], e[2:]) for e in FRESH.players[0].roads)
    assert when(FRESH, MarkSpace(0, idea)) == (SpaceMarked(0, idea),)
    assert then(FRESH, MarkSpace(0, idea)).players[0].pool[5] == 1


def test_road_accepts_either_orientation() -> None:
    """Road Action: an edge is the same edge named from either side."""
    a, b = H(4, 3), H(4, 2)
    state = edit(FRESH, roads_left=1)
    assert when(state, PlaceRoad(0, (*a, *b))) == when(state, PlaceRoad(0, (*b, *a)))


def test_building_gains_at_once_and_on_marked_spaces() -> None:
    """Building Action: mark the building; gain its resources immediately; used
    spaces may be built on."""
    state = edit(given(setup(dice=(1, 4))), marked=frozenset({H(4, 3)}))
    state = then(state, UseDie(0, 0, "build"))
    assert when(state, Build(0, H(4, 3), 1)) == (Built(0, H(4, 3), 1, bonus=False),)
    state = then(state, Build(0, H(4, 3), 1))
    assert state.players[0].pool[0] == 2 and state.players[0].buildings == ((H(4, 3), 1),)


def test_bonus_building_action_builds_any() -> None:
    """Bonus Actions: a map bonus building action places a building of your choice."""
    state = then(FRESH, MarkSpace(0, H(4, 3)))
    assert state.players[0].builds == (0,)
    assert when(state, Build(0, H(3, 3), 6)) == (Built(0, H(3, 3), 6, bonus=True),)


def test_building_ability_lasts_the_turn() -> None:
    """Building Action: abilities on buildings last the current turn only (Harbor)."""
    state = then(given(setup(dice=(6, 2))), UseDie(0, 0, "build"))
    state = then(state, Build(0, H(3, 3), 6))
    state = edit(state, roads_left=1)
    before = state.players[0].wealth
    state = then(state, PlaceRoad(0, E((6, 4), (7, 4))))
    assert state.players[0].wealth == before + 1  # Harbor: coast road +1 wealth
    assert state.players[0].pool[0] == 1  # Tidehaven fishing fleets: +1 food
    state = then(state, Done(0))
    assert state.players[0].turn_abilities == ()


def test_wonder_fill_gains() -> None:
    """Wonder Action: fill an available box numbered like the die; gain its bonus."""
    state = then(FRESH, UseDie(0, 0, "wonder"))
    assert when(state, FillWonder(0, 2)) == (WonderFilled(0, 2, bonus=False),)
    state = then(state, FillWonder(0, 2))
    assert state.players[0].wonder == frozenset({2}) and state.players[0].wealth == 2


def test_grey_box_opens_by_its_rule() -> None:
    """Wonder Action: grey boxes become available by the wonder's rule (six coast roads)."""
    state = edit(FRESH, wonders=(1,), wonder=frozenset({0, 6}))
    assert code_of(state, FillWonder(0, 12)) == "roll_builder/box_unavailable"
    coast = [
        E((6, 4), (7, 4)),
        E((5, 3), (4, 3)),
        E((5, 3), (5, 2)),
        E((5, 3), (6, 3)),
        E((5, 3), (6, 4)),
    ]
    state = edit(state, roads=state.players[0].roads | set(coast))
    assert when(state, FillWonder(0, 12)) == (WonderFilled(0, 12, bonus=False),)
    assert then(state, FillWonder(0, 12)).players[0].bonus == (("Wonder box 13", 1),)


def test_food_lost_favor_converted_at_turn_end() -> None:
    """Resources: food and supplies don't roll over; favor and strength convert
    onto their tracks left to right."""
    state = edit(FRESH, pool=(2, 2, 0, 3, 1, 1))
    player = then(state, Done(0)).players[0]
    assert player.pool == (0, 0, 0, 0, 0, 0)
    assert (player.favor, player.strength) == (3, 1)


def test_full_track_drops_the_rest() -> None:
    """Resources: one track space per resource; a full track takes no more."""
    state = edit(FRESH, favor=11, pool=(0, 0, 0, 5, 0, 0))
    assert then(state, Done(0)).players[0].favor == 12


def test_wealth_is_stored_and_spent() -> None:
    """Resources: wealth is stored; stored wealth can be spent later."""
    state = edit(FRESH, wealth=3)
    state = then(state, Pay(0, "shipwrights", 2, "wealth"))
    assert state.players[0].wealth == 2


def test_innovation_discovered_when_all_circles_paid() -> None:
    """Innovations: cross off every cost circle, in any order, to discover it."""
    state = edit(FRESH, pool=(2, 2, 0, 0, 0, 0), wealth=1)
    state = then(state, Pay(0, "fisheries", 4, "wealth"))
    state = then(state, Pay(0, "fisheries", 3, "supplies"))
    state = then(state, Pay(0, "fisheries", 2, "supplies"))
    state = then(state, Pay(0, "fisheries", 0, "food"))
    assert when(state, Pay(0, "fisheries", 1, "food")) == (
        Paid(0, "fisheries", 1, "food"),
        Discovered(0, "fisheries"),
    )


def test_circles_stay_crossed_across_turns() -> None:
    """Innovations: circles crossed on one turn stay crossed on later turns."""
    state = then(edit(FRESH, pool=(1, 0, 0, 0, 0, 0)), Pay(0, "fisheries", 0, "food"))
    state = then(state, Done(0))
    assert ("fisheries", 0) in state.players[0].paid and state.turn == 2


def test_innovation_bonus_pays_any_circle() -> None:
    """Innovations: the innovation bonus crosses off any cost circle."""
    state = edit(FRESH, pool=(0, 0, 0, 0, 0, 2))
    state = then(state, Pay(0, "admiralty", 0, "idea"))
    assert state.players[0].pool[5] == 1


def test_discovery_effect_and_ability() -> None:
    """Innovations: a discovered innovation gives its effect (Trade Charter: a
    bonus building action and 3 wealth) and ability (Shipwrights: water roads)."""
    state = edit(FRESH, pool=(0, 1, 0, 1, 0, 1), wealth=3)
    for circle, res in enumerate(("wealth", "wealth", "wealth", "favor", "idea", "supplies")):
        state = then(state, Pay(0, "charter", circle, res))
    assert state.players[0].builds == (0,) and state.players[0].wealth == 3
    state = edit(state, discovered=("shipwrights",), roads_left=1)
    sea = edit(state, roads=state.players[0].roads | {E((6, 3), (7, 4))})
    assert when(sea, PlaceRoad(0, E((6, 3), (7, 3))))  # water-water now allowed


def test_ring_of_six_roads() -> None:
    """Road Abilities: six roads around a space (Tidehaven: +2 wealth, first 4 rings)."""
    sides = [e for e in space_edges(H(4, 4)) if e not in FRESH.players[0].roads]
    state = edit(FRESH, roads=FRESH.players[0].roads | set(sides[:-1]), roads_left=1)
    state = then(state, PlaceRoad(0, sides[-1]))
    assert state.players[0].wealth == 2
    assert when(edit(state, roads_left=1), PlaceRoad(0, E((4, 3), (4, 2)))) == (
        RoadPlaced(0, E((4, 3), (4, 2))),
    )


def test_turn_bonuses() -> None:
    """Turn Bonuses: after turns 5, 10 and 15 an innovation bonus, a building action
    and a wonder action."""
    from engine.roll_builder.model import Rolled

    base = given(setup())
    assert given(setup(), Rolled(5, (1, 1))).players[0].pool[5] == 1
    assert given(setup(), Rolled(10, (1, 1))).players[0].builds == (0,)
    assert given(setup(), Rolled(15, (1, 1))).players[0].wonders == (0,)
    assert base.players[0].pool == (0, 0, 0, 0, 0, 0)


def test_die_shift_once_a_turn() -> None:
    """Visionary Euclid / War College: treat one die as one more or less, once a turn."""
    state = edit(FRESH, abilities=(Ability("die_shift"),))
    assert when(state, UseDie(0, 0, "road", 1)) == (DieUsed(0, 0, "road", 4, shifted=True),)
    state = then(state, UseDie(0, 0, "road", 1))
    assert code_of(state, UseDie(0, 1, "road", -1)) == "roll_builder/bad_shift"
    six = edit(given(setup(dice=(6, 1))), abilities=(Ability("die_shift"),))
    assert code_of(six, UseDie(0, 0, "road", 1)) == "roll_builder/bad_shift"
