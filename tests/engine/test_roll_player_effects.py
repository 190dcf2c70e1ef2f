"""The ability vocabulary: every skill effect and class ability, used in a real turn.

Rulebook "Using Skill Cards" (move the token by the arrow, use the ability if you
wish, exhaust); class abilities are Rollhouse's designs (clients/web/rules/roll-player.md).
"""

from __future__ import annotations

import attrs
import pytest

from engine.errors import Rejection
from engine.roll_player import GAME
from engine.roll_player.commands import (
    Buy,
    Draft,
    Keep,
    UseSkill,
)
from engine.roll_player.events import (
    ActionDone,
    Adjusted,
    AlignmentMoved,
    Bought,
    CharismaTaken,
    CreditGained,
    Drafted,
    Flipped,
    GoldGained,
    Kept,
    Rerolled,
    SkillUsed,
    Swapped,
)
from engine.roll_player.model import (
    State,
)
from tests.engine.roll_player_strategies import dice, dice_phase, given, opening, rolled, then, when

POOL = dice("red2", "blue3", "white5", "gold6")
START = (dice("green1", "green2", "green3", "green4", "green5", "green6", "red6"),) * 3
ROWS = ((0, 0, 1, 1, 2, 2, 3),) * 3


def table(classes: tuple[str, ...] = ("Cleric", "Warrior", "Rogue"), market: bool = False) -> State:
    """Seat 0 to draft (or, with ``market``, seat 1 to buy first)."""
    events = [*opening(3, classes=classes, starting=START, rows=ROWS), *rolled(POOL)]
    if market:
        events += dice_phase([(0, 2, 4), (1, 1, 4), (2, 3, 4)])
    return given(*events)


def owning(state: State, seat: int, *cards: str) -> State:
    """``state`` with ``seat`` holding ``cards`` too."""
    p = state.players[seat]
    p = attrs.evolve(p, cards=(*p.cards, *cards))
    return attrs.evolve(state, players=(*state.players[:seat], p, *state.players[seat + 1 :]))


@pytest.mark.parametrize(
    ("skill", "command", "effect"),
    [
        ("Open Lock", UseSkill(1, "Open Lock", slot=0), Flipped(1, 0)),
        ("Sleight of Hand", UseSkill(1, "Sleight of Hand", slot=3), Flipped(1, 3)),
        ("Acrobatics", UseSkill(1, "Acrobatics", slot=0, other=9), Swapped(1, 0, 9)),
        ("Climb", UseSkill(1, "Climb", slot=1, delta=-1), Adjusted(1, 1, -1)),
        ("Pickpocket", UseSkill(1, "Pickpocket"), GoldGained(1, 2)),
        ("Intimidate", UseSkill(1, "Intimidate"), CharismaTaken(1)),
        ("Diplomacy", UseSkill(1, "Diplomacy", direction="up"), AlignmentMoved(1, "up")),
    ],
)
def test_skill_effects_in_another_players_turn(
    skill: str, command: UseSkill, effect: object
) -> None:
    """Skills work during another player's turn: arrow first, then the effect."""
    state = owning(table(), 1, skill)
    assert state.turn == 0
    assert when(state, command) == (SkillUsed(1, skill), effect)


def test_skill_used_only_to_move_the_token() -> None:
    """The ability is optional: naming no target moves the token and exhausts the card."""
    state = owning(table(), 1, "Open Lock")
    assert when(state, UseSkill(1, "Open Lock")) == (SkillUsed(1, "Open Lock"),)
    assert then(state, UseSkill(1, "Open Lock")).players[1].cell == 7


def test_reroll_skill_waits_for_keep_without_ending_a_turn() -> None:
    """Concentrate rerolls a die; its owner keeps a face; nobody's turn ends by it."""
    state = owning(table(), 0, "Concentrate")
    events = when(state, UseSkill(0, "Concentrate", slot=4))
    assert isinstance(events[1], Rerolled) and events[1].source == "Concentrate"
    state = then(state, UseSkill(0, "Concentrate", slot=4))
    with pytest.raises(Rejection) as exc:
        GAME.decide(state, Draft(0, 1, 4))
    assert exc.value.code == "roll_player/reroll_pending"
    assert when(state, Keep(0, True)) == (Kept(0, True),)


def test_negotiate_credit_pays_part_of_a_purchase() -> None:
    """Negotiate (market turn): 2 gold off this round's purchases."""
    state = owning(table(market=True), 1, "Negotiate")
    assert state.turn == 1
    assert when(state, UseSkill(1, "Negotiate")) == (SkillUsed(1, "Negotiate"), CreditGained(1, 2))
    state = then(state, UseSkill(1, "Negotiate"))
    card = state.market[0]
    events = when(state, Buy(1, card))
    assert isinstance(events[0], Bought) and events[0].credit == 2


@pytest.mark.parametrize(
    ("klass", "command", "effect"),
    [
        ("Rogue", UseSkill(0, "class", slot=0, other=9), Swapped(0, 0, 9)),
        ("Wizard", UseSkill(0, "class", slot=1, delta=1), Adjusted(0, 1, 1)),
        ("Barbarian", UseSkill(0, "class", slot=0), Flipped(0, 0)),
    ],
)
def test_active_class_abilities_exhaust(klass: str, command: UseSkill, effect: object) -> None:
    """Rollhouse's active class abilities: used like an arrowless skill, then exhausted."""
    state = table((klass, "Warrior", "Cleric"))
    assert when(state, command) == (SkillUsed(0, "class"), effect)
    state = then(state, command)
    assert state.players[0].cell == 4 and "class" in state.players[0].exhausted
    with pytest.raises(Rejection) as exc:
        GAME.decide(state, command)
    assert exc.value.code == "roll_player/exhausted"


def test_sorcerer_rerolls() -> None:
    """Mysterious (Sorcerer): reroll a die and keep either face."""
    state = table(("Sorcerer", "Warrior", "Cleric"))
    events = when(state, UseSkill(0, "class", slot=4))
    assert events[0] == SkillUsed(0, "class") and isinstance(events[1], Rerolled)


def test_passive_abilities_cannot_be_used() -> None:
    """A standing ability (Cleric's) is not used on demand."""
    with pytest.raises(Rejection) as exc:
        GAME.decide(table(), UseSkill(0, "class"))
    assert exc.value.code == "roll_player/not_owned"


@pytest.mark.parametrize(
    ("klass", "card", "cost"),
    [("Paladin", "Helm", 2), ("Ranger", "Climb", 2), ("Monk", "Weak", 1), ("Rogue", "Helm", 3)],
)
def test_discount_abilities(klass: str, card: str, cost: int) -> None:
    """Vigilant, Skilled, Enlightened: 1 gold off armor, skills, traits respectively."""
    events = [
        *opening(
            3, classes=("Cleric", klass, "Rogue"), market_deck=(card, "Cloak", "Boots", "Gloves")
        )
    ]
    state = given(*events, *rolled(POOL), *dice_phase([(0, 2, 4), (1, 1, 4), (2, 3, 4)]))
    assert when(state, Buy(1, card))[0] == Bought(1, card, cost, 0, 0)


def test_trait_arrow_moves_only_if_possible() -> None:
    """Buying a trait moves the token by its arrow, if possible (else it stays)."""
    deck = ("Honorable", "Cloak", "Boots", "Gloves")
    events = [*opening(3, market_deck=deck), *rolled(POOL), AlignmentMoved(1, "up")]
    state = given(*events, *dice_phase([(0, 2, 4), (1, 1, 4), (2, 3, 4)]))
    bought = when(state, Buy(1, "Honorable"))
    assert not any(isinstance(e, AlignmentMoved) for e in bought)


def test_action_done_only_after_keep_for_intelligence() -> None:
    """The Intelligence reroll ends the turn only when a face is kept."""
    state = given(*opening(3, starting=START, rows=ROWS), *rolled(POOL), Drafted(0, 1, 3, 0, 0))
    state = then(state, GAME.legal_commands(state, 0)[1])
    assert state.phase == "action"
    assert when(state, Keep(0, True))[-1] == ActionDone(0)


def test_skill_effect_starts_where_the_arrow_left_the_token() -> None:
    """Using Skill Cards: the token moves by the arrow, then the ability applies from there."""
    state = owning(table(), 1, "Diplomacy")
    with pytest.raises(Rejection) as exc:
        GAME.decide(state, UseSkill(1, "Diplomacy", direction="left"))
    assert exc.value.code == "roll_player/alignment_blocked"
    assert then(state, UseSkill(1, "Diplomacy", direction="up")).players[1].cell == 0


def test_legal_skill_targets_follow_the_arrow() -> None:
    """Legal Diplomacy moves are counted from where its arrow leaves the token."""
    state = owning(table(), 1, "Diplomacy")
    offered = [c.direction for c in GAME.legal_commands(state, 1) if isinstance(c, UseSkill)]
    assert sorted(offered) == ["", "down", "right", "up"]
