"""Roll Builder turn flow, scoring, events, visionaries, options, clocks and view.

Rule tests cite the rulebook section (seed 003); helpers live in
``roll_builder_strategies.py``.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from engine.core import get_game, rng_for
from engine.errors import BadOptions, GameOver
from engine.roll_builder.content import EVENTS
from engine.roll_builder.errors import RoadForbidden
from engine.roll_builder.model import (
    Build,
    Done,
    GameEnded,
    PlaceRoad,
    Rolled,
    State,
    TurnFinished,
    UseDie,
    VisionaryCompleted,
    VisionaryGoals,
)
from engine.roll_builder.scoring import items, total
from tests.engine.roll_builder_strategies import GAME, E, H, given, setup, then, when


def edit(state: State, seat: int = 0, **changes: Any) -> State:
    """``state`` with fields of ``seat``'s player changed."""
    return state.put(seat, attrs.evolve(state.players[seat], **changes))


def at_turn(turn: int, **kw: Any) -> State:
    """A table whose dice were rolled for ``turn``."""
    return given(setup(**kw), Rolled(turn, (2, 5))) if turn > 1 else given(setup(**kw))


def test_registered() -> None:
    """The game is registered as roll-builder with its title and two bots."""
    game = get_game("roll-builder")
    assert (game.name, game.title) == ("roll-builder", "Roll Builder")
    assert set(game.policies) == {"greedy", "random", "plan", "lookahead"}


def test_turn_waits_for_every_player() -> None:
    """Turn Structure: roll again only when all players are ready."""
    state = given(setup(seats=2))
    assert GAME.awaiting(state) == frozenset({0, 1})
    assert when(state, Done(0)) == (TurnFinished(0),)
    state = then(state, Done(0))
    assert GAME.awaiting(state) == frozenset({1})
    events = when(state, Done(1))
    dice = rng_for(state.seed, state.draws)
    assert events == (TurnFinished(1), Rolled(2, (dice.randint(1, 6), dice.randint(1, 6))))


def test_fifteen_turns_then_scoring() -> None:
    """How to Play: fifteen turns, then the game is scored and over."""
    state = at_turn(15)
    assert when(state, Done(0)) == (TurnFinished(0), GameEnded())
    state = then(state, Done(0))
    assert GAME.is_over(state) and GAME.awaiting(state) == frozenset()
    with pytest.raises(GameOver):
        when(state, Done(0))
    assert GAME.legal_commands(state, 0) == []


def test_clock_runs_out_into_done() -> None:
    """A seat whose clock runs out is done, forfeiting unused dice."""
    state = given(setup(seats=2))
    assert GAME.timeout_command(state, 1) == Done(1)
    assert GAME.timeout_command(then(state, Done(1)), 1) is None


def test_fresh_sheet_scores_connected_points() -> None:
    """Scoring, Road Network: points on spaces touched by roads score (Tidehaven's
    starting roads reach a 3 and a 2)."""
    player = given(setup()).players[0]
    assert total(player, None) == 5
    assert [(i.category, i.points) for i in items(player, None) if i.points] == [
        ("roads", 3),
        ("roads", 2),
    ]


def test_every_category_scores() -> None:
    """Scoring: buildings, road network, innovations, resources, wonder and bonus,
    item by item."""
    player = attrs.evolve(
        given(setup()).players[0],
        buildings=((H(3, 3), 1), (H(2, 3), 1)),
        discovered=("fisheries", "academy"),
        wealth=7,
        favor=4,
        strength=3,
        wonder=frozenset({0, 1, 11}),
        bonus=(("Wonder box 12", 2),),
    )
    cats = GAME.result(attrs.evolve(given(setup(), GameEnded()), players=(player,)))
    assert cats is not None
    assert cats.detail["categories"][0] == {
        "buildings": 2,
        "roads": 5,
        "innovations": 2 + 6,
        "resources": 3 + 4 + 3,
        "wonder": 3,
        "bonus": 2 + 2,  # box bonus + Academy: 1 per innovation
    }
    assert cats.scores == (32,)


def test_ties_are_shared() -> None:
    """How to Play: ties are shared."""
    result = GAME.result(given(setup(seats=3), GameEnded()))
    assert result is not None and result.winners == (0, 1, 2)


@pytest.mark.parametrize(("wealth", "survives"), [(0, False), (2, True)])
def test_solo_city_survives_by_beating_the_target(wealth: int, survives: bool) -> None:
    """Events: beat the event's target to survive (score must be higher)."""
    event = EVENTS["flood"]
    state = given(setup(event="flood"), GameEnded())
    base = total(state.players[0], "flood")
    state = edit(state, bonus=(("test", event.target - base),), wealth=wealth)
    result = GAME.result(state)
    assert result is not None
    assert result.detail["survived"] is survives
    assert result.winners == ((0,) if survives else ())


def test_event_rules() -> None:
    """Events: each event's rule changes play (Flood, Famine, Raiders, Exodus)."""
    flood = edit(given(setup(event="flood")), roads_left=1)
    with pytest.raises(RoadForbidden):
        when(flood, PlaceRoad(0, E((6, 4), (7, 4))))
    famine = then(
        then(given(setup(event="famine", dice=(1, 1))), UseDie(0, 0, "build")), Build(0, H(3, 3), 1)
    )
    assert famine.players[0].pool[0] == 1
    raided = edit(given(setup(event="raiders")), wealth=5)
    assert GAME.evolve(raided, Rolled(4, (1, 1))).players[0].wealth == 2
    assert given(setup(event="exodus")).players[0].roads_left == 3


def test_visionary_corner_to_first_turn_only() -> None:
    """Visionaries: the first to complete gets the corner points; everyone who
    completes it gets the bonus; same-turn completers all get the corner."""
    state = given(setup(seats=3, visionaries=("zenobia",)))
    state = edit(edit(state, 0, wealth=10), 1, wealth=12)
    state = then(then(state, Done(0)), Done(1))
    events = when(state, Done(2))
    assert [e for e in events if isinstance(e, VisionaryCompleted)] == [
        VisionaryCompleted(0, "zenobia", 3),
        VisionaryCompleted(1, "zenobia", 3),
    ]
    state = then(edit(then(state, Done(2)), 2, wealth=10), Done(0))
    state = then(state, Done(1))
    assert VisionaryCompleted(2, "zenobia", 0) in when(state, Done(2))
    assert len(state.players[0].abilities) == 2  # Zenobia: wealth pays food and supplies


def test_visionary_solo_ignores_corner() -> None:
    """Visionaries: solo, the corner value is ignored but the bonus is gained."""
    state = edit(
        given(setup(visionaries=("hypatia",))),
        buildings=tuple((H(c, r), 1) for r in (2, 3, 4, 5) for c in range(1, 6)),
    )
    events = when(state, Done(0))
    assert VisionaryCompleted(0, "hypatia", 0) in events
    state = then(state, Done(0))
    assert state.players[0].bonus == (("Hypatia", 3),)


@pytest.mark.parametrize(("goals", "completed"), [("rulebook", True), ("hard", False)])
def test_hypatia_at_the_printed_ten_buildings(goals: VisionaryGoals, completed: bool) -> None:
    """Visionaries: Hypatia as printed, "Place 10 or more [buildings]": ten buildings
    complete it; with the option ``visionary_goals=hard`` they do not (20 do)."""
    spaces = [H(c, r) for r in (2, 3, 4, 5) for c in range(1, 6)]
    for n, done in ((10, completed), (20, True)):
        table = given(setup(visionaries=("hypatia",), visionary_goals=goals))
        state = edit(table, buildings=tuple((h, 1) for h in spaces[:n]))
        events = when(state, Done(0))
        assert (VisionaryCompleted(0, "hypatia", 0) in events) == done, (goals, n)


def test_a_set_up_event_from_before_the_option_plays_the_harder_goals() -> None:
    """A set-up event written before ``visionary_goals`` existed (no such field in the
    log) was played with the harder goals, then the only ones: it loads as ``hard``."""
    data = {"type": "set_up", "seats": 2, "cities": ["tidehaven"] * 2, "event": None,
            "visionaries": ["hypatia"], "dice": [3, 4], "seed": 7}  # fmt: skip
    assert GAME.events.load(data).visionary_goals == "hard"
    assert GAME.events.trusted(data).visionary_goals == "hard"
    assert GAME.setup(2, {}, seed=7).visionary_goals == "rulebook"


def test_options_are_validated() -> None:
    """Room options: unknown or malformed options are refused as BadOptions."""
    for seats, options in [
        (0, {}),
        (7, {}),
        (1, {"city": "atlantis"}),
        (2, {"city": ["tidehaven"]}),
        (1, {"event": "meteor"}),
        (1, {"visionaries": 6}),
        (1, {"visionaries": ["zenobia", "zenobia"]}),
        (1, {"colour": "red"}),
        (1, {"visionary_goals": "easy"}),
        (1, {"visionary_goals": True}),
    ]:
        with pytest.raises(BadOptions):
            GAME.setup(seats, options, 1)


def test_setup_draws_event_solo_and_visionaries() -> None:
    """Set-Up: solo draws an event by default; visionaries are drawn when asked."""
    solo = GAME.setup(1, {}, 5)
    assert solo.event in EVENTS and solo.visionaries == ()
    multi = GAME.setup(
        4, {"visionaries": 3, "city": ["tidehaven", "highcrag", "highcrag", "tidehaven"]}, 5
    )
    assert multi.event is None and len(set(multi.visionaries)) == 3
    assert multi.cities[1] == "highcrag" and all(1 <= d <= 6 for d in multi.dice)
    assert GAME.setup(4, {}, 5) == GAME.setup(4, {}, 5)


def test_view_draws_the_sheet() -> None:
    """The view carries the hex map, roads, wonder, tracks, dice and who is done."""
    state = then(given(setup(seats=2)), Done(1))
    view = GAME.view(state, 0)
    me = view["players"][0]
    assert view["dice"] == [3, 4] and view["awaiting"] == [0] and view["rolls"] == [[3, 4]]
    assert len(me["map"]["spaces"]) == 72 and len(me["map"]["roads"]) == 4
    assert {"q", "r", "terrain", "partial", "connected", "building", "marked"} <= set(
        me["map"]["spaces"][0]
    )
    assert len(me["wonder"]["boxes"]) == 18 and sum(b["grey"] for b in me["wonder"]["boxes"]) == 6
    assert me["tracks"]["favor"]["crossed"] == 0 and view["players"][1]["done"] is True
    assert "seed" not in str(view)
