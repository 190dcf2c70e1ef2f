"""Roll Player's data file: component counts, published facts, and validation errors."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest

from engine.roll_player.content import ACTIVE, CATALOG, PASSIVE, ContentError, parse


def raw() -> dict[str, Any]:
    """A fresh copy of the raw data file."""
    text = resources.files("engine.roll_player").joinpath("content", "base.json").read_text()
    return dict(json.loads(text))


def test_73_dice_ten_per_colour_and_13_gold() -> None:
    """Components: 73 dice, 10 of each class colour and 13 gold (pt-BR setup step 1)."""
    assert sum(CATALOG.dice) == 73
    assert CATALOG.dice == (10, 10, 10, 10, 10, 10, 13)


def test_counts_of_every_component() -> None:
    """6 races, 12 classes, 17 alignments, 16 backstories, 53 market cards."""
    assert len(CATALOG.races) == 6
    assert len(CATALOG.classes) == 12
    assert len(CATALOG.alignments) == 17
    assert len(CATALOG.backstories) == 16
    assert len(CATALOG.cards) == 53


def test_every_class_totals_12_stars_and_two_per_colour() -> None:
    """Each class card has two classes; every class's goals total 12 stars."""
    for klass in CATALOG.classes.values():
        assert sum(g.stars for g in klass.goals) == 12
    colours = [k.colour for k in CATALOG.classes.values()]
    assert sorted(set(colours)) == sorted(colours[::2]) and all(
        colours.count(c) == 2 for c in colours
    )


def test_market_kinds_and_piles() -> None:
    """8 weapons, 12 armor, 20 traits, 13 skills; 26 single-dot and 27 double-dot cards."""
    kinds = [c.kind for c in CATALOG.cards.values()]
    assert [kinds.count(k) for k in ("weapon", "armor", "trait", "skill")] == [8, 12, 20, 13]
    assert sum(c.pile == 1 for c in CATALOG.cards.values()) == 26


def test_published_facts_kept() -> None:
    """Reckless costs 6 (market example); Cleric WIS goal is exactly 18 for 4 stars."""
    assert CATALOG.cards["Reckless"].cost == 6
    wis = CATALOG.classes["Cleric"].goals[4]
    assert (wis.low, wis.high, wis.stars) == (18, 18, 4)
    assert CATALOG.classes["Monk"].goals[0].high is None


def test_abilities_stay_in_the_vocabulary() -> None:
    """Every skill effect is active; every class ability is active or passive vocabulary."""
    for card in CATALOG.cards.values():
        if card.kind == "skill":
            assert card.effect is not None and card.effect.kind in ACTIVE
    for klass in CATALOG.classes.values():
        assert klass.ability.kind in ACTIVE | PASSIVE


def test_goal_forms() -> None:
    """Attribute goals: exact N, range A-B inclusive, N+ at least N (Final Scoring)."""
    cleric = CATALOG.classes["Cleric"].goals
    assert cleric[4].met(18) and not cleric[4].met(17) and not cleric[4].met(19)
    assert cleric[0].met(14) and cleric[0].met(15) and not cleric[0].met(16)
    assert cleric[3].met(14) and cleric[3].met(30) and not cleric[3].met(13)


@pytest.mark.parametrize(
    ("path", "value", "names"),
    [
        (("market", 0, "cost"), -1, "Longsword"),
        (("market", 20, "arrow"), "sideways", "Steadfast"),
        (("market", 40, "effect", "kind"), "teleport", "Concentrate"),
        (("classes", 0, "goals", "STR"), ["fourteen", 2], "Cleric"),
        (("classes", 1, "goals", "STR"), ["17", 4], "Paladin"),
        (("alignments", 2, "grid"), [[1, 2]], "Eccentric"),
        (("backstories", 3, "wants"), [["pink", 1]] * 6, "Lost Soul"),
        (("market", 9, "colour"), "gold", "Vambraces"),
        (("races", 1, "mods"), {"LUCK": 1}, "Dwarf"),
        (("market", 0, "coast"), 3, "Longsword"),
        (("market", 41, "effect", "when"), "never", "Search"),
        (("market", 21, "score", "atr"), "STR", "Honorable"),
    ],
)
def test_bad_entry_names_itself(path: tuple[Any, ...], value: Any, names: str) -> None:
    """A bad entry fails validation with a ContentError naming that entry."""
    data = copy.deepcopy(raw())
    node: Any = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(ContentError, match=names):
        parse(data)


def test_duplicate_card_rejected() -> None:
    """Two market cards may not share a name."""
    data = raw()
    data["market"] = [*data["market"], data["market"][0]]
    with pytest.raises(ContentError, match="unique"):
        parse(data)
