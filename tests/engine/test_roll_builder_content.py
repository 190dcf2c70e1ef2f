"""Roll Builder content: the shipped sheets, events and visionaries are complete and
well-formed, bad files are refused naming the entry, and the bots land in the
score bands the sheets state.
"""

from __future__ import annotations

import copy
import random
import statistics
from typing import Any

import pytest

from engine.roll_builder.content import (
    ABILITY_KINDS,
    CITIES,
    EVENTS,
    VISIONARIES,
    Ability,
    City,
    parse_city,
    parse_event,
    parse_visionary,
)
from engine.roll_builder.content.loader import ContentError, read_json
from engine.roll_builder.hexmap import space_edges
from tests.engine.roll_builder_strategies import GAME

RULEBOOK_VISIONARIES = {
    "Hatshepsut", "Zenobia", "Artemisia", "Euclid", "Ramesses II",
    "Hypatia", "Enheduanna", "Tomyris", "Akhenaten",
}  # fmt: skip


# The Visionary cards as the rulebook prints them (seed 003, "VISIONARIES", the nine
# cards after the rules): goal, number, corner mark. Icons are words here.
PRINTED = [
    # id, metric, at, corner, the card's text
    ("hatshepsut", "wonder_boxes", 10, 4, "Fill 10 or more boxes or spaces of your [wonder]. 4"),
    ("zenobia", "stored_wealth", 10, 3, "Have 10 or more stored [wealth]. 3"),
    ("artemisia", "coast_cliff_roads", 10, 2, "Have 10 or more coastal or cliff roads. 2"),
    ("euclid", "building_cluster", 5, 3, "Place 5 of the same [building] in the same cluster. 3"),
    ("ramesses", "wonder_points", 5, 2, "Earn 5 or more bonus [points] from your [wonder]. 2"),
    ("hypatia", "buildings", 10, 2, "Place 10 or more [buildings]. 2"),
    ("enheduanna", "innovations", 3, 2, "Discover 3 or more Innovations. 2"),
    ("tomyris", "converted_strength", 10, 3, "Have 10 or more converted [strength]. 3"),
    ("akhenaten", "converted_favor", 10, 3, "Have 10 or more converted [favor]. 3"),
]
HARD = {"hatshepsut": 12, "hypatia": 20, "enheduanna": 5}
"""Our harder goals, played only with ``visionary_goals=hard``."""


@pytest.mark.parametrize(("ident", "metric", "at", "corner", "card"), PRINTED)
def test_visionaries_are_played_as_printed(
    ident: str, metric: str, at: int, corner: int, card: str
) -> None:
    """Visionaries (rulebook): every goal, its number and its corner mark as printed;
    the text a player reads says the same number."""
    v = VISIONARIES[ident]
    assert (v.goal.metric, v.goal.at, v.corner) == (metric, at, corner), card
    assert f" {at} " in v.text
    rulebook = GAME.setup(3, {"visionaries": [ident]}, seed=1)
    assert rulebook.visionary_goals == "rulebook"
    assert GAME.view(GAME.create(rulebook), None)["visionaries"][0]["goal"] == {
        "metric": metric,
        "at": at,
    }


@pytest.mark.parametrize(("ident", "metric", "at", "corner", "card"), PRINTED)
def test_harder_goals_are_an_option(
    ident: str, metric: str, at: int, corner: int, card: str
) -> None:
    """``visionary_goals=hard`` raises Hatshepsut to 12 wonder boxes, Hypatia to 20
    buildings and Enheduanna to 5 innovations, with texts to match; every other card
    and every corner stays as printed."""
    hard = GAME.setup(3, {"visionaries": [ident], "visionary_goals": "hard"}, seed=1)
    seen = GAME.view(GAME.create(hard), None)["visionaries"][0]
    goal = HARD.get(ident, at)
    assert (seen["goal"], seen["corner"]) == ({"metric": metric, "at": goal}, corner)
    assert f" {goal} " in seen["text"]


def test_enough_content() -> None:
    """Issue 6: at least two city sheets, six events and the nine named visionaries."""
    assert len(CITIES) >= 2 and len(EVENTS) >= 6
    assert {v.name for v in VISIONARIES.values()} == RULEBOOK_VISIONARIES


@pytest.mark.parametrize("city", sorted(CITIES))
def test_maps_are_well_formed(city: str) -> None:
    """Each map has land, water, coast and cliffs, partial edge spaces, features,
    starting roads on real edges, and full spaces with six drawable sides."""
    c = CITIES[city]
    g = c.geometry
    kinds = {g.kind(e) for e in g.edges}
    assert {"land", "water", "coast", "cliff"} <= kinds
    assert any(s.partial for s in c.spaces.values())
    assert any(s.effect for s in c.spaces.values()) and any(s.points for s in c.spaces.values())
    assert c.start_roads and c.start_roads <= g.edges
    for h, s in c.spaces.items():
        if not s.partial:
            assert set(space_edges(h)) <= g.edges
        if s.effect or s.points:
            assert s.terrain == "land"


@pytest.mark.parametrize("city", sorted(CITIES))
def test_sheet_parts_are_complete(city: str) -> None:
    """Each sheet has six buildings, a wonder with grey boxes that can open,
    innovations (one needing the innovation bonus), rising tracks and specials."""
    c = CITIES[city]
    assert [b.n for b in c.buildings] == [1, 2, 3, 4, 5, 6]
    grey = [b for b in c.boxes if b.opens is not None]
    assert grey and all(b.index > max(b.after, default=-1) for b in c.boxes)
    assert {b.n for b in c.boxes} == {1, 2, 3, 4, 5, 6}
    assert len(c.innovations) >= 5 and any("idea" in i.cost for i in c.innovations)
    assert list(c.favor_track) == sorted(c.favor_track) and c.strength_track[0] == 0
    assert c.specials and len(c.special_text) == len(c.specials)
    assert c.band[0] < c.band[1]


def _abilities(city: City) -> list[Ability]:
    out = list(city.specials)
    out += [a for i in city.innovations for a in ((i.ability,) if i.ability else ())]
    out += [a for b in city.buildings for a in b.effect.abilities]
    return out


def test_every_ability_kind_is_used() -> None:
    """Every kind of the ability vocabulary appears in the shipped content."""
    used = {a.kind for c in CITIES.values() for a in _abilities(c)}
    used |= {a.kind for e in EVENTS.values() for a in e.abilities}
    used |= {a.kind for v in VISIONARIES.values() for a in v.bonus.abilities}
    assert used == set(ABILITY_KINDS)


def _broken(path: list[Any], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(read_json("tidehaven.json"))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["innovations", 2, "cost", 1], "gold", "innovations[2].cost[1]: unknown resource 'gold'"),
        (["rows", 3], "L. Q.", "rows[3][1]: bad token 'Q.'"),
        (["start_roads", 0], [[0, 0], [5, 5]], "start_roads[0]: the two cells are not neighbours"),
        (["start_roads", 1], [[0, 0], [1, 0]], "cut off by the map border"),
        (["buildings", 0, "n"], 2, "buildings[0].n"),
        (["wonder", "boxes", 3, "after"], [7], "wonder.boxes[3].after"),
        (["specials", 0, "ability", "kind"], "fly", "specials[0].ability.kind"),
        (
            ["specials", 0, "ability", "where"],
            "coast",
            "specials[0].ability: unknown keys ['where']",
        ),
        (["tracks", "favor"], [0, 3, 2], "tracks.favor"),
        (
            ["legend", "f", "effect", "gain", "gold"],
            1,
            "legend.f.effect.gain: unknown keys ['gold']",
        ),
    ],
)
def test_bad_city_names_the_entry(path: list[Any], value: Any, message: str) -> None:
    """A malformed city file is refused with an error naming the bad entry."""
    with pytest.raises(ContentError) as info:
        parse_city(_broken(path, value), "tidehaven.json")
    assert message in str(info.value)


def test_bad_event_names_the_entry() -> None:
    """A malformed event is refused with an error naming the bad entry."""
    bad = {"id": "x", "name": "X", "target": 0, "text": "t", "abilities": []}
    with pytest.raises(ContentError, match=r"events.json\[9\].target"):
        parse_event(bad, "events.json[9]")


@pytest.mark.parametrize(
    "hard", [{"at": 10, "text": "t"}, {"at": 12}, {"at": 12, "text": "t", "metric": "roads"}]
)
def test_a_harder_goal_is_higher_and_says_so(hard: dict[str, Any]) -> None:
    """A visionary's ``hard`` goal is a higher number for the same goal, with its text."""
    card = {"id": "x", "name": "X", "text": "t", "goal": {"metric": "buildings", "at": 10},
            "corner": 2, "bonus": {"points": 3}, "hard": hard}  # fmt: skip
    with pytest.raises(ContentError, match=r"visionaries.json\[9\].hard"):
        parse_visionary(card, "visionaries.json[9]")


def _solo(city: str, policy: str, seed: int) -> int:
    state = GAME.create(GAME.setup(1, {"city": city, "event": "none"}, seed))
    rng = random.Random(seed)
    while not GAME.is_over(state):
        legal = GAME.legal_commands(state, 0)
        command = GAME.policies[policy](GAME.view(state, 0), 0, legal, rng)
        assert command in legal
        for e in GAME.decide(state, command):
            state = GAME.evolve(state, e)
    result = GAME.result(state)
    assert result is not None
    return result.scores[0]


@pytest.mark.parametrize("city", sorted(CITIES))
def test_bots_land_in_the_stated_band(city: str) -> None:
    """Balance: the greedy bot's average is inside the sheet's band; random play
    averages below it."""
    low, high = CITIES[city].band
    greedy = statistics.mean(_solo(city, "greedy", s) for s in range(6))
    rand = statistics.mean(_solo(city, "random", s) for s in range(4))
    assert low <= greedy <= high
    assert rand < low
