"""Roll Player final scoring, item by item, and the tie-breaks (rulebook "Final Scoring")."""

from __future__ import annotations

import pytest

from engine.roll_player.content import CATALOG
from engine.roll_player.model import (
    Die,
    Player,
)
from engine.roll_player.scoring import (
    armor_stars,
    attribute_scores,
    backstory_matches,
    breakdown,
    trait_stars,
    winners,
)
from tests.engine.roll_player_strategies import dice


def sheet(*rows: str) -> tuple[tuple[Die, ...], ...]:
    """Six rows from space-separated die specs."""
    return tuple(dice(*r.split()) for r in rows)


CLERIC_ROWS = sheet(
    "white5 white5 white5",  # STR 15: 14-15 -> 2
    "red6 red6 red5",  # DEX 17: 16-17 -> 2
    "blue5 blue5 blue5",  # CON 15: 15-16 -> 2
    "green1 green1 green1",  # INT 3: 14+ -> 0
    "black6 black6 black6",  # WIS 18: exactly 18 -> 4
    "gold6 gold6 gold2",  # CHA 14: 14+ -> 1
)


def cleric(**kw: object) -> Player:
    """A Human Cleric with the sheet above."""
    base: dict[str, object] = {
        "gold": 0,
        "race": "Human",
        "klass": "Cleric",
        "colour": "white",
        "alignment": "Hermit",
        "backstory": "Brawler",
        "rows": CLERIC_ROWS,
    }
    return Player(**(base | kw))  # type: ignore[arg-type]


def test_cleric_with_four_chain_armor_scores_8() -> None:
    """Armor example: a Cleric (white) with four Chain pieces earns 7 + 1 class bonus = 8."""
    p = cleric(cards=("Gorget", "Vambraces", "Helm", "Tunic"))
    assert armor_stars(p) == {"chain": 8}


def test_only_the_any_card_reading_makes_the_cleric_example_work() -> None:
    """Armor Cards: 'for their character being the Class color specified on the Armor
    card' read as *every* card of the set would make the example impossible: no four
    Chain cards are all white, so the bonus needs just one card of the colour."""
    from engine.roll_player.content import CATALOG

    chain = [c for c in CATALOG.cards.values() if c.kind == "armor" and c.set == "chain"]
    assert len(chain) >= 4 and sum(1 for c in chain if c.colour == "white") < 4


def test_armor_set_without_class_colour_has_no_bonus() -> None:
    """The class-colour bonus is per set, and only for a set matching the class colour."""
    p = cleric(cards=("Vambraces", "Leggings", "Cowl", "Gloves", "Greaves"))
    assert armor_stars(p) == {"chain": 3, "mystic": 1, "leather": 3}
    assert armor_stars(cleric(cards=("Gorget", "Helm")))["chain"] == 3 + 1


def test_attribute_goals_exact_range_and_plus() -> None:
    """Attribute goals: 14-15, 16-17, 15-16 ranges, 18 exact, 14+ at least."""
    assert breakdown(cleric())["goals"] == {
        "STR": 2,
        "DEX": 2,
        "CON": 2,
        "INT": 0,
        "WIS": 4,
        "CHA": 1,
    }


def test_race_and_weapon_modifiers_adjust_totals() -> None:
    """Totals adjust for the race bonus or penalty and for weapon cards."""
    p = cleric(race="Dwarf", cards=("Tower Shield", "Blessed Mace"))
    assert attribute_scores(p) == (15, 17, 15 + 2 + 2, 3, 18 + 1, 14 - 2)
    goals = breakdown(p)["goals"]
    assert goals["CON"] == 0 and goals["WIS"] == 0 and goals["CHA"] == 0


def test_class_colour_dice_one_star_each() -> None:
    """Class Color Dice: each die of the class colour is worth one star."""
    assert breakdown(cleric())["class_dice"] == 3


@pytest.mark.parametrize(("cell", "stars"), [(4, 3), (0, -1), (3, 0)])
def test_alignment_stars_under_token(cell: int, stars: int) -> None:
    """Alignment Card: add or subtract the stars under the tracking token (Hermit)."""
    assert breakdown(cleric(cell=cell))["alignment"] == stars


@pytest.mark.parametrize(
    ("matches", "stars"), [(0, 0), (1, 0), (2, 1), (3, 1), (4, 3), (5, 3), (6, 6)]
)
def test_backstory_0_1_3_6(matches: int, stars: int) -> None:
    """Backstory Card: 0-1 matches 0, 2-3 give 1, 4-5 give 3, all 6 give 6 stars."""
    wants = CATALOG.backstories["Brawler"]
    rows = []
    for r, (colour, space) in enumerate(wants):
        row = [Die("gold", 1)] * 3
        row[space - 1] = Die(colour if r < matches else "gold", 1)
        rows.append(tuple(row))
    p = cleric(rows=tuple(rows))
    assert backstory_matches(p) == matches
    assert breakdown(p)["backstory"] == stars


def test_traits_add_their_stars() -> None:
    """Trait Cards: each trait's condition adds its stars."""
    p = cleric(cards=("Courageous", "Weak", "Famous", "Greedy", "Dedicated", "Gloves"), gold=7)
    traits = breakdown(p)["traits"]
    assert traits == {"Courageous": 0, "Weak": 3, "Famous": 4, "Greedy": 2, "Dedicated": 1}
    card = CATALOG.cards["Honest"].score
    assert card is not None and trait_stars(cleric(cell=3), card) == 3


def test_total_is_the_sum_of_items() -> None:
    """The total adds every category."""
    b = breakdown(cleric(cards=("Gorget",), cell=4))
    assert b["total"] == 11 + 3 + 3 + b["backstory"] + 2


def test_tie_break_gold_then_fewest_class_dice_then_shared() -> None:
    """Ties: most gold wins; then fewest class-colour dice; then a shared victory."""
    a, b = cleric(gold=3), cleric(gold=2)
    assert winners((a, b))[1] == (0,)
    tied = winners((cleric(gold=3), cleric(gold=3)))
    assert tied[1] == (0, 1)


def test_fewest_class_dice_breaks_a_gold_tie() -> None:
    """Second tie-break: the tied player with fewer class-colour dice wins."""
    rows_more = (dice("white5", "white5", "white5"), *CLERIC_ROWS[1:])
    rows_fewer = (dice("red5", "white5", "white5"), *CLERIC_ROWS[1:])
    more = cleric(rows=rows_more, gold=4)
    fewer = cleric(rows=rows_fewer, gold=4, cards=("Greedy",))
    (ta, tb), best = winners((more, fewer))
    assert ta == tb and best == (1,)
