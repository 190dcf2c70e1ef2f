"""Roll Player's Market Phase, skills, cleanup and the end (rulebook III, IV, "Using Skill Cards")."""

from __future__ import annotations

import attrs
import pytest

from engine.errors import Rejection
from engine.roll_player import GAME
from engine.roll_player.commands import (
    Buy,
    DiscardCard,
    Draft,
    DropWeapon,
    EndMarketTurn,
    Refresh,
    SkipAction,
    UseSkill,
)
from engine.roll_player.content import CATALOG
from engine.roll_player.events import (
    ActionDone,
    AlignmentMoved,
    Bought,
    CharismaTaken,
    CleanedUp,
    DiceRolled,
    Drafted,
    GameEnded,
    MarketDiscarded,
    MarketTurnEnded,
    SkillUsed,
    WeaponDropped,
)
from engine.roll_player.model import (
    State,
)
from tests.engine.roll_player_strategies import (
    deck,
    dice,
    dice_phase,
    given,
    opening,
    rolled,
    then,
    when,
)

POOL = dice("red2", "blue3", "white5", "gold6")
EXAMPLE_MARKET = ("Reckless", "Gloves", "Quarterstaff", "Helm")


def code(state: State, command: object) -> str:
    """The rejection code ``command`` meets."""
    with pytest.raises(Rejection) as exc:
        GAME.decide(state, command)
    return exc.value.code


def market_deck(top: tuple[str, ...]) -> tuple[str, ...]:
    """A deck with ``top`` first, the rest after."""
    return (*top, *(c for c in deck(3) if c not in top))


def owning(state: State, seat: int, *cards: str, gold: int = 0) -> State:
    """``state`` with ``seat`` also holding ``cards`` and ``gold`` more (given, not bought)."""
    p = state.players[seat]
    p = attrs.evolve(p, cards=(*p.cards, *cards), gold=p.gold + gold)
    players = (*state.players[:seat], p, *state.players[seat + 1 :])
    return attrs.evolve(state, players=players, supply=state.supply - gold)


def market(
    top: tuple[str, ...] = EXAMPLE_MARKET,
    classes: tuple[str, ...] = ("Wizard", "Warrior", "Rogue"),
    extra: tuple = (),
) -> State:
    """Eric (0, Start Player) takes card 2, Isaac (1) card 1 with a Charisma token, Claire (2) card 3."""
    return given(
        *opening(3, classes=classes, market_deck=market_deck(top)),
        *rolled(POOL),
        *extra,
        Drafted(0, 2, 3, 0, 0),
        ActionDone(0),
        Drafted(1, 1, 5, 0, 0),
        CharismaTaken(1),
        ActionDone(1),
        Drafted(2, 3, 3, 0, 0),
        ActionDone(2),
    )


def test_market_phase_example() -> None:
    """Market example: Isaac pays Reckless with a token + 5 gold; Eric discards Gloves; Claire buys."""
    state = market()
    assert state.queue == (1, 0, 2) and len(state.market) == 4
    isaac = state.players[1].gold
    assert when(state, Buy(1, "Reckless", charisma=1)) == (
        Bought(1, "Reckless", 5, 1, 0),
        AlignmentMoved(1, "right"),
        MarketTurnEnded(1),
    )
    state = then(state, Buy(1, "Reckless", charisma=1))
    assert state.players[1].gold == isaac - 5 and state.players[1].charisma == 0
    assert state.players[1].cell == 5 and state.turn == 0
    assert when(state, DiscardCard(0, "Gloves")) == (
        MarketDiscarded(0, "Gloves", 2),
        MarketTurnEnded(0),
    )
    state = then(state, DiscardCard(0, "Gloves"))
    assert state.market == ("Quarterstaff", "Helm") and state.discard == ("Gloves",)
    state = then(state, Buy(2, "Quarterstaff"))
    assert "Quarterstaff" in state.players[2].cards


def test_buying_needs_gold_and_turn() -> None:
    """Pay the cost to the supply; only in your Market Phase turn; a card in the market."""
    state = market()
    assert code(state, Buy(0, "Helm")) == "roll_player/not_your_turn"
    assert code(state, Buy(1, "Famous")) == "roll_player/not_in_market"
    assert code(state, Buy(1, "Reckless")) == "roll_player/cannot_afford"
    assert code(state, Buy(1, "Helm", charisma=2)) == "roll_player/cannot_afford"
    assert code(state, EndMarketTurn(1)) == "roll_player/must_choose"


def test_two_hands_of_weapons() -> None:
    """A player may not have more than two hands of weapons; drop one to the discard pile."""
    top = ("Quarterstaff", "Longsword", "Helm", "Cloak")
    state = owning(market(top), 1, "Ancient Spear")
    assert code(state, Buy(1, "Longsword")) == "roll_player/hands_full"
    assert code(state, Buy(1, "Longsword", drop=("Tower Shield",))) == "roll_player/not_owned"
    events = when(state, Buy(1, "Longsword", drop=("Ancient Spear",)))
    assert events[0] == WeaponDropped(1, "Ancient Spear")
    assert then(
        state, DropWeapon(2, "Longsword") if False else DropWeapon(1, "Ancient Spear")
    ).discard == ("Ancient Spear",)
    assert code(state, DropWeapon(0, "Ancient Spear")) == "roll_player/not_owned"


def test_bard_buys_two_cards() -> None:
    """Charming (Bard): two purchases in a Market Phase, then the turn ends."""
    top = ("Helm", "Cloak", "Gloves", "Boots")
    state = owning(market(top, classes=("Wizard", "Bard", "Rogue")), 1, gold=20)
    state = then(state, Buy(1, "Helm", charisma=1))
    assert state.turn == 1 and state.players[1].buys == 1
    assert code(state, DiscardCard(1, "Cloak")) == "roll_player/no_more_buys"
    events = when(state, Buy(1, "Cloak"))
    assert events[-1] == MarketTurnEnded(1)
    assert when(state, EndMarketTurn(1)) == (MarketTurnEnded(1),)


def test_class_discounts_and_charitable() -> None:
    """Rollhouse abilities: Warrior pays 1 less for weapons; Cleric takes 3 for a discard."""
    top = ("Longsword", "Cloak", "Gloves", "Boots")
    state = market(top, classes=("Cleric", "Warrior", "Rogue"))
    assert when(state, Buy(1, "Longsword"))[0] == Bought(1, "Longsword", 2, 0, 0)
    state = then(state, Buy(1, "Longsword"))
    assert when(state, DiscardCard(0, "Cloak"))[0] == MarketDiscarded(0, "Cloak", 3)


def test_skill_moves_token_exhausts_and_works_in_any_turn() -> None:
    """Using Skill Cards: move the token by the arrow, use the ability, exhaust; any turn."""
    state = owning(market(), 2, "Climb", "Search")
    assert state.turn == 1
    events = when(state, UseSkill(2, "Climb", slot=0, delta=1))
    assert events[0] == SkillUsed(2, "Climb") and len(events) == 2
    state2 = then(state, UseSkill(2, "Climb", slot=0, delta=1))
    assert state2.players[2].cell == 1 and "Climb" in state2.players[2].exhausted
    assert code(state2, UseSkill(2, "Climb", slot=0, delta=1)) == "roll_player/exhausted"
    assert code(state, UseSkill(2, "Search", card="Helm")) == "roll_player/not_now"
    assert code(state, UseSkill(1, "Climb")) == "roll_player/not_owned"


def test_skill_blocked_when_token_cannot_move() -> None:
    """A skill whose arrow leads off the Alignment card cannot be used."""
    state = owning(market(extra=(AlignmentMoved(2, "up"),)), 2, "Climb")
    assert code(state, UseSkill(2, "Climb")) == "roll_player/alignment_blocked"


def test_druid_salvages_from_discard_pile_in_own_turn() -> None:
    """Attuned (Druid): add a card from the market discard pile to the market."""
    state = then(market(classes=("Wizard", "Warrior", "Druid")), Buy(1, "Helm"))
    state = then(state, DiscardCard(0, "Gloves"))
    events = when(state, UseSkill(2, "class", card="Gloves"))
    assert events[0] == SkillUsed(2, "class")
    state = then(state, UseSkill(2, "class", card="Gloves"))
    assert "Gloves" in state.market and state.discard == ()


def finished_market(extra: tuple = ()) -> State:
    """The example market played out but for Claire, who has Climb."""
    state = owning(market(extra=extra), 2, "Climb")
    state = then(state, Buy(1, "Reckless", charisma=1))
    state = then(state, DiscardCard(0, "Gloves"))
    return state


def test_cleanup() -> None:
    """Cleanup steps 1-6: tokens, one refresh, die to bag, new market, gold, Start Player left."""
    extra = (CharismaTaken(0),)
    state = finished_market(extra)
    state = then(state, UseSkill(2, "Climb"))
    state = then(state, Buy(2, "Quarterstaff"))
    assert state.phase == "refresh" and GAME.awaiting(state) == {2}
    bag = sum(state.bag)
    events = when(state, Refresh(2, "Climb"))
    assert isinstance(events[1], CleanedUp) and isinstance(events[2], DiceRolled)
    after = then(state, Refresh(2, "Climb"))
    assert after.players[2].exhausted == frozenset() and after.players[0].charisma == 0
    assert after.start == 1 and after.round == 2
    assert sum(after.bag) == bag + 1 - 4
    assert len(after.market) == 4 and "Helm" in after.discard
    assert [c.gold for c in after.initiative] == [0, 1, 1, 0]


def test_market_deck_reshuffled_when_depleted() -> None:
    """Cleanup 4: when the deck runs out, shuffle the discard pile into a new deck."""
    short = (*EXAMPLE_MARKET, "Longsword", "Cloak")
    state = given(
        *opening(3, market_deck=short),
        *rolled(POOL),
        *dice_phase([(0, 2, 3), (1, 1, 3), (2, 3, 3)]),
    )
    state = then(
        then(then(state, DiscardCard(1, "Reckless")), DiscardCard(0, "Gloves")), Buy(2, "Helm")
    )
    assert state.market[:2] == ("Longsword", "Cloak") and len(state.market) == 4
    assert state.discard == () and len(state.deck) == 1
    assert {*state.market[2:], *state.deck} == {"Reckless", "Gloves", "Quarterstaff"}


def test_game_ends_after_round_filling_every_sheet() -> None:
    """End of the Game: after the round in which all sheets are full; cleanup skipped."""
    full = (0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5)
    start = tuple(dice(*(["green3"] * 17)) for _ in range(2))
    state = given(
        *opening(2, classes=("Cleric", "Warrior"), starting=start, rows=(full, full)),
        *rolled(dice("red1", "red2", "red3")),
        *dice_phase([(0, 1, 5), (1, 2, 5)]),
    )
    assert state.phase == "market"
    state = then(state, DiscardCard(0, state.market[0]))
    events = when(state, DiscardCard(1, state.market[0]))
    assert isinstance(events[-1], GameEnded)
    over = then(state, DiscardCard(1, state.market[0]))
    assert GAME.is_over(over) and GAME.awaiting(over) == frozenset()
    assert code(over, SkipAction(0)) == "game/over"
    result = GAME.result(over)
    assert result is not None and result.scores == events[-1].scores
    assert result.detail["players"][0]["class"] == "Cleric"


def test_reckless_price_is_published() -> None:
    """The market example's Reckless costs 6."""
    assert CATALOG.cards["Reckless"].cost == 6


def test_draft_unavailable_outside_dice_phase() -> None:
    """Commands of another phase are refused with wrong_phase."""
    assert code(market(), Draft(1, 4, 0)) == "roll_player/wrong_phase"
