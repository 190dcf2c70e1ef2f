"""Roll Builder, second reading: conversions during a turn, wealth that finds no free
storage circle, the load-time content check, and goals met mid-turn.

Rulebook sections cited are from seeds/003_e1cec197291f3fef.txt.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from engine.roll_builder.content import CITIES, EVENTS, VISIONARIES, Ability
from engine.roll_builder.content.check import bounds, check_content, playable, reachable
from engine.roll_builder.content.loader import ContentError
from engine.roll_builder.model import (
    Convert,
    Converted,
    Done,
    FillWonder,
    Pay,
    PlaceRoad,
    Rolled,
    State,
    VisionaryCompleted,
    WonderFilled,
)
from tests.engine.roll_builder_strategies import GAME, E, given, setup, then, when

FOOD, SUPPLIES, WEALTH, FAVOR, STRENGTH, IDEA = range(6)


def edit(state: State, seat: int = 0, **changes: Any) -> State:
    """``state`` with fields of ``seat``'s player changed (a given sheet)."""
    return state.put(seat, attrs.evolve(state.players[seat], **changes))


def code_of(state: State, command: Any) -> str:
    """The rejection code ``command`` gets in ``state``."""
    with pytest.raises(Exception) as info:
        when(state, command)
    return str(getattr(info.value, "code", type(info.value).__name__))


HIGHCRAG = given(setup(city="highcrag"))

# -- Resources: "they can be converted permanently into points by crossing off spaces"


def test_convert_during_the_turn() -> None:
    """Resources: favor and strength 'must be used immediately' and may be converted
    at once; the track moves now, not at the end of the turn."""
    state = edit(HIGHCRAG, pool=(0, 0, 0, 3, 2, 0))
    assert when(state, Convert(0, "favor", 2)) == (Converted(0, "favor", 2),)
    p = then(state, Convert(0, "favor", 2)).players[0]
    assert (p.favor, p.pool[FAVOR]) == (2, 1)
    p = then(then(state, Convert(0, "strength")), Done(0)).players[0]
    assert (p.favor, p.strength) == (3, 2)  # what is left still converts at the end


def test_a_tier_opening_at_4_converted_favor_opens_in_the_same_turn() -> None:
    """Wonder Action: grey boxes 'must be made available according to the rules of that
    wonder'; the Sky Temple's third tier opens at 4 converted favor, so converting
    mid-turn opens it in the same turn."""
    base = frozenset(range(11))  # the first two tiers are filled
    state = edit(HIGHCRAG, favor=2, pool=(0, 0, 0, 2, 0, 0), wonder=base, wonders=(0,))
    assert code_of(state, FillWonder(0, 11)) == "roll_builder/box_unavailable"
    state = then(state, Convert(0, "favor", 2))
    assert when(state, FillWonder(0, 11)) == (WonderFilled(0, 11, bonus=True),)


@pytest.mark.parametrize(
    ("changes", "command", "code"),
    [
        ({"pool": (0, 0, 0, 1, 0, 0)}, Convert(0, "favor", 2), "roll_builder/not_convertible"),
        ({"pool": (1, 0, 0, 0, 0, 0)}, Convert(0, "food"), "roll_builder/not_convertible"),
        ({"pool": (0, 0, 0, 0, 1, 0)}, Convert(0, "strength", 0), "roll_builder/not_convertible"),
        (
            {"pool": (0, 0, 0, 2, 0, 0), "favor": 9},
            Convert(0, "favor", 2),
            "roll_builder/track_full",
        ),
    ],
)
def test_convert_rejections(changes: dict[str, Any], command: Convert, code: str) -> None:
    """Resources: only favor and strength convert, from this turn's pool, one track
    space each, left to right until the track is full."""
    assert code_of(edit(HIGHCRAG, **changes), command) == code


def test_legal_conversions() -> None:
    """legal_commands lists every amount that fits the pool and the track."""
    state = edit(HIGHCRAG, pool=(0, 0, 0, 2, 1, 0), favor=9)
    converts = [c for c in GAME.legal_commands(state, 0) if isinstance(c, Convert)]
    assert converts == [Convert(0, "favor", 1), Convert(0, "strength", 1)]


# -- Resources: wealth "can be used immediately, or stored"


def test_wealth_beyond_storage_can_be_spent_at_once() -> None:
    """Resources: 'Wealth can be used immediately, or stored'. With every storage
    circle marked, new wealth stays in hand for this turn, and is spent first."""
    storage = CITIES["tidehaven"].storage
    state = edit(given(setup(dice=(3, 4))), wealth=storage, pool=(0, 0, 0, 0, 0, 0), builds=(3,))
    state = then(state, _build_market(state))  # a Market gains 2 wealth
    p = state.players[0]
    assert (p.wealth, p.pool[WEALTH]) == (storage, 2)
    state = then(state, Pay(0, "charter", 0, "wealth"))
    assert (state.players[0].wealth, state.players[0].pool[WEALTH]) == (storage, 1)
    p = then(state, Done(0)).players[0]
    assert (p.wealth, p.pool[WEALTH]) == (storage, 0)  # unstorable wealth is not kept


def _build_market(state: State) -> Any:
    from engine.roll_builder.legal import buildable
    from engine.roll_builder.model import Build

    return Build(0, buildable(state.players[0])[0], 3)


def test_stored_wealth_is_spent_when_none_is_in_hand() -> None:
    """Resources: 'Stored wealth can be crossed off and spent on a future turn'."""
    state = edit(given(setup()), wealth=3)
    assert then(state, Pay(0, "charter", 0, "wealth")).players[0].wealth == 2


# -- Events / Visionaries: "if a specific Visionary does not work with a specific map,
#    adjust set-up as necessary"


def test_every_card_works_where_it_is_dealt() -> None:
    """The shipped content passes the load-time check (it ran at import)."""
    check_content(CITIES, EVENTS, VISIONARIES)
    for city in CITIES.values():
        for event in EVENTS.values():
            assert playable(city, event) == []
        for v in VISIONARIES.values():
            assert reachable(v.goal, city)


def test_check_finds_a_goal_beyond_the_sheet() -> None:
    """Visionaries: Akhenaten (10 converted favor) on a favor track of 9 spaces
    (Highcrag's before this check) cannot be completed: the load refuses it."""
    short = attrs.evolve(CITIES["highcrag"], favor_track=(0, 1, 2, 4, 6, 8, 10, 13, 16, 20))
    assert bounds(short)["converted_favor"] == 9
    with pytest.raises(ContentError, match=r"akhenaten.*highcrag"):
        check_content({"highcrag": short}, {}, VISIONARIES)
    limited = {"akhenaten": attrs.evolve(VISIONARIES["akhenaten"], cities=("tidehaven",))}
    check_content({"highcrag": short, "tidehaven": CITIES["tidehaven"]}, {}, limited)


def test_check_finds_an_event_that_breaks_a_city() -> None:
    """Events: 'some events do not work with certain City sheets'. A Flood forbidding
    coast roads all game kills Tidehaven's fishing fleets and its lamp row."""
    old = attrs.evolve(EVENTS["flood"], abilities=(Ability("forbid_road", where="coast"),))
    problems = playable(CITIES["tidehaven"], old)
    assert any("road_gain on coast" in p for p in problems)
    assert any("wonder box 13 can never open" in p for p in problems)
    with pytest.raises(ContentError, match=r"flood.*tidehaven"):
        check_content(CITIES, {"flood": old}, {})


def test_the_flood_recedes_after_turn_10() -> None:
    """Our Flood: no coast road on turns 1 to 10; from turn 11 the coast is open again."""
    state = edit(given(setup(event="flood")), roads_left=1)
    assert code_of(state, PlaceRoad(0, E((6, 4), (7, 4)))) == "roll_builder/road_forbidden"
    tenth = edit(attrs.evolve(state, turn=10), roads_left=1)
    assert code_of(tenth, PlaceRoad(0, E((6, 4), (7, 4)))) == "roll_builder/road_forbidden"
    later = edit(attrs.evolve(state, turn=11), roads_left=1)
    assert when(later, PlaceRoad(0, E((6, 4), (7, 4))))


def test_the_flood_is_dealt_only_with_tidehaven() -> None:
    """Events: 'if the Event has no impact on the City sheet, adjust your set-up'. On
    Highcrag the Flood changed no score (docs/balance.md), so it is not dealt there."""
    from engine.errors import BadOptions

    assert EVENTS["flood"].cities == ("tidehaven",)
    with pytest.raises(BadOptions):
        GAME.setup(1, {"city": "highcrag", "event": "flood"}, seed=1)
    assert all(
        GAME.setup(1, {"city": "highcrag", "event": "random"}, seed=s).event != "flood"
        for s in range(30)
    )


def test_setup_deals_only_fitting_cards() -> None:
    """Setup refuses an event or visionary listed for other cities."""
    import engine.roll_builder.setup as setup_module
    from engine.errors import BadOptions

    only = attrs.evolve(VISIONARIES["akhenaten"], cities=("tidehaven",))
    patched = {**VISIONARIES, "akhenaten": only}
    original = setup_module.VISIONARIES
    setup_module.VISIONARIES = patched  # type: ignore[assignment]
    try:
        with pytest.raises(BadOptions):
            GAME.setup(2, {"city": "highcrag", "visionaries": ["akhenaten"]}, seed=1)
        for seed in range(20):
            dealt = GAME.setup(2, {"city": "highcrag", "visionaries": 5}, seed=seed).visionaries
            assert "akhenaten" not in dealt
    finally:
        setup_module.VISIONARIES = original  # type: ignore[assignment]


# -- Visionaries: "If, on a turn, any player completes the goal"


def test_a_goal_met_mid_turn_but_not_at_its_end_does_not_count() -> None:
    """Visionaries are checked when the turn ends: Zenobia's 10 stored wealth, held
    mid-turn and spent before the end, is not completed."""
    state = given(setup(seats=1, visionaries=("zenobia",)))
    state = edit(state, wealth=10)
    state = then(state, Pay(0, "charter", 0, "wealth"))
    events = when(state, Done(0))
    assert not any(isinstance(e, VisionaryCompleted) for e in events)
    assert any(isinstance(e, Rolled) for e in events)


def test_a_goal_held_at_the_end_of_the_turn_counts() -> None:
    """Visionaries: a goal still met when the turn ends is completed on that turn."""
    state = edit(given(setup(seats=1, visionaries=("zenobia",))), wealth=10)
    assert VisionaryCompleted(0, "zenobia", 0) in when(state, Done(0))
