"""Roll Player rounds: roll, dice and attribute actions (rulebook "Overview of a Round")."""

from __future__ import annotations

import attrs
import pytest

from engine.errors import Rejection
from engine.roll_player import GAME
from engine.roll_player.commands import (
    Act,
    Arrange,
    Draft,
    Keep,
    PlaceStart,
    SkipAction,
)
from engine.roll_player.events import (
    ActionDone,
    Adjusted,
    AlignmentMoved,
    CharismaTaken,
    DiceArranged,
    DiceRolled,
    Drafted,
    Flipped,
    Kept,
    Rerolled,
    Swapped,
)
from engine.roll_player.model import (
    State,
)
from tests.engine.roll_player_strategies import dice, die, given, opening, rolled, then, when

POOL = dice("red2", "blue3", "white5", "gold6")


def code(state: State, command: object) -> str:
    """The rejection code ``command`` meets."""
    with pytest.raises(Rejection) as exc:
        GAME.decide(state, command)
    return exc.value.code


def dice_turn(pool: tuple = POOL, **kw: object) -> State:
    """Three players, first roll arranged, seat 0 (the Start Player) to draft."""
    return given(*opening(3, **kw), *rolled(pool))  # type: ignore[arg-type]


def test_roll_phase_draws_one_die_per_initiative_card() -> None:
    """Roll Phase: the Start Player rolls 4 dice with three players, after starting dice."""
    state = given(*opening(3)[:-1])
    events = when(state, PlaceStart(2, (0, 0, 0, 1, 1, 1, 2)))
    roll = next(e for e in events if isinstance(e, DiceRolled))
    assert len(roll.dice) == 4 and roll.round == 1
    assert sum(then(state, PlaceStart(2, (0, 0, 0, 1, 1, 1, 2))).bag) == 73 - 21 - 4


def test_roll_without_ties_is_placed_lowest_first() -> None:
    """Roll Phase: the lowest die goes on card 1, the next on card 2, and so on."""
    state = given(*opening(3), DiceRolled(1, dice("white5", "red2", "gold6", "blue3")))
    (event,) = when_auto(state)
    assert event == DiceArranged(dice("red2", "blue3", "white5", "gold6"))


def when_auto(state: State) -> tuple:
    """The automatic events right after ``state`` (the last given event)."""
    from engine.roll_player.flow import Emitter, advance

    em = Emitter(state)
    advance(em)
    return tuple(em.events)


def test_three_player_roll_example_ties_placed_by_start_player() -> None:
    """Roll Phase example: Eric rolls green 6, red 1, gold 4, purple 6 and orders the 6s."""
    state = given(*opening(3), DiceRolled(1, dice("green6", "red1", "gold4", "purple6")))
    assert state.phase == "arrange" and GAME.awaiting(state) == {0}
    assert code(state, Arrange(1, (1, 2, 3, 0))) == "roll_player/not_your_turn"
    assert code(state, Arrange(0, (1, 3, 2, 0))) == "roll_player/bad_arrangement"
    assert code(state, Arrange(0, (1, 2, 3))) == "roll_player/bad_arrangement"
    state = then(state, Arrange(0, (1, 2, 3, 0)))
    on_cards = [c.die for c in state.initiative]
    assert on_cards == list(dice("red1", "gold4", "purple6", "green6"))
    assert [c.gold for c in state.initiative] == [0, 1, 1, 0]


def test_eric_picks_initiative_two_and_flips_a_blue_die() -> None:
    """Dice Phase example: Eric takes card 2's gold 4 into STR (+1+2 gold), flips a blue 1 to 6."""
    start = (dice("red3", "blue1", "green2", "green3", "white4", "white5", "black2"),) * 3
    rows = ((0, 2, 1, 1, 3, 3, 4),) * 3
    state = dice_turn(dice("green6", "red1", "gold4", "purple6"), starting=start, rows=rows)
    gold = state.players[0].gold
    events = when(state, Draft(0, 2, 0))
    assert events == (Drafted(0, 2, 0, 1, 2),)
    state = then(state, Draft(0, 2, 0))
    assert state.players[0].rows[0] == dice("red3", "gold4")
    assert state.players[0].gold == gold + 3
    assert when(state, Act(0, slot=6)) == (Flipped(0, 6), ActionDone(0))
    state = then(state, Act(0, slot=6))
    assert state.players[0].rows[2][0] == die("blue6")
    assert state.turn == 1 and state.phase == "dice"


def test_draft_rules() -> None:
    """Dice Phase: in seat order, an available card, a row with an empty space."""
    state = dice_turn()
    assert code(state, Draft(1, 1, 3)) == "roll_player/not_your_turn"
    assert code(state, Draft(0, 1, 0)) == "roll_player/row_full"
    assert code(state, Draft(0, 9, 3)) == "roll_player/initiative_taken"
    assert code(state, Act(0, slot=0)) == "roll_player/wrong_phase"
    state = then(then(state, Draft(0, 1, 3)), SkipAction(0))
    assert code(state, Draft(1, 1, 3)) == "roll_player/initiative_taken"


def test_final_space_of_a_row_gives_one_gold() -> None:
    """Collect Gold: 1 gold from the supply for the final space of an Attribute Row."""
    state = given(*opening(3, rows=((0, 0, 1, 1, 1, 2, 2),) * 3), *rolled(POOL))
    assert when(state, Draft(0, 1, 0)) == (Drafted(0, 1, 0, 0, 1),)
    assert when(state, Draft(0, 4, 2)) == (Drafted(0, 4, 2, 0, 3),)


def test_thief_takes_four_gold_per_gold_die() -> None:
    """Setup step 12's exception, 'A player with the Thief Class card takes 4 Gold for
    each gold die', holds in the Dice Phase too (Rollhouse decision; Gaining Gold:
    'in addition to gaining it by using special abilities from ... Class cards')."""
    state = dice_turn(classes=("Thief", "Warrior", "Cleric"))
    assert when(state, Draft(0, 4, 3)) == (Drafted(0, 4, 3, 0, 4),)


def acting(row: int, **kw: object) -> State:
    """Seat 0 has just placed the red 2 in ``row`` (starting dice: 7 green 1s)."""
    start = (dice("green1", "green2", "green3", "green4", "green5", "green6", "red6"),) * 3
    state = dice_turn(starting=start, rows=((0, 0, 1, 1, 2, 2, 3),) * 3, **kw)
    return then(state, Draft(0, 1, row))


def test_strength_flips_any_die() -> None:
    """Strength: turn any die on the sheet to its opposite face (1 <-> 6)."""
    state = acting(0)
    assert when(state, Act(0, slot=2)) == (Flipped(0, 2), ActionDone(0))
    assert then(state, Act(0, slot=2)).players[0].rows[0][2] == die("red5")
    assert code(state, Act(0, slot=17)) == "roll_player/bad_target"


def test_dexterity_swaps_two_dice_not_into_empty_space() -> None:
    """Dexterity: exchange two dice; a die may not move to an open space."""
    state = acting(1)
    assert when(state, Act(0, slot=0, other=9)) == (Swapped(0, 0, 9), ActionDone(0))
    after = then(state, Act(0, slot=0, other=9)).players[0]
    assert after.rows[0][0] == die("red6") and after.rows[3][0] == die("green1")
    assert code(state, Act(0, slot=0, other=10)) == "roll_player/bad_target"
    assert code(state, Act(0, slot=0, other=0)) == "roll_player/bad_target"


def test_constitution_plus_or_minus_one_without_wrapping() -> None:
    """Constitution: +1 or -1; a 6 cannot become a 1 nor a 1 a 6."""
    state = acting(2)
    assert when(state, Act(0, slot=0, delta=1)) == (Adjusted(0, 0, 1), ActionDone(0))
    assert code(state, Act(0, slot=0, delta=-1)) == "roll_player/bad_target"
    assert code(state, Act(0, slot=7, delta=1)) == "roll_player/bad_target"
    assert code(state, Act(0, slot=0, delta=2)) == "roll_player/bad_target"


def test_intelligence_rerolls_and_keeps_either() -> None:
    """Intelligence: reroll a die, keep the new or the original value; same space."""
    state = acting(3)
    events = when(state, Act(0, slot=4))
    assert len(events) == 1 and isinstance(events[0], Rerolled)
    state = then(state, Act(0, slot=4))
    assert GAME.awaiting(state) == {0}
    assert code(state, SkipAction(0)) == "roll_player/reroll_pending"
    assert when(state, Keep(0, False)) == (Kept(0, False), ActionDone(0))
    kept = then(state, Keep(0, True)).players[0].rows[1][1]
    assert kept == die(f"green{events[0].value}")
    assert code(then(state, Keep(0, False)), Keep(0, True)) == "roll_player/no_reroll"


def test_wisdom_moves_alignment_one_step_within_card() -> None:
    """Wisdom: move the tracking token up, down, left or right."""
    state = acting(4)
    assert when(state, Act(0, direction="up")) == (AlignmentMoved(0, "up"), ActionDone(0))
    assert then(state, Act(0, direction="left")).players[0].cell == 3
    assert code(state, Act(0, direction="north")) == "roll_player/unknown"


def test_wisdom_blocked_at_card_edge() -> None:
    """Wisdom: the token cannot leave the Alignment card."""
    state = given(*opening(3), *rolled(POOL), AlignmentMoved(0, "up"), Drafted(0, 1, 4, 0, 0))
    assert code(state, Act(0, direction="up")) == "roll_player/alignment_blocked"


def test_charisma_takes_a_token() -> None:
    """Charisma: take a Charisma token."""
    state = acting(5)
    assert when(state, Act(0)) == (CharismaTaken(0), ActionDone(0))
    assert then(state, Act(0)).players[0].charisma == 1


def test_one_attribute_action_per_turn() -> None:
    """Only one Attribute Action per player in the Dice Phase; it is optional."""
    state = then(acting(0), Act(0, slot=2))
    assert code(state, Act(0, slot=2)) == "roll_player/wrong_phase"
    assert then(acting(0), SkipAction(0)).turn == 1


def test_market_phase_in_initiative_order() -> None:
    """Market Phase: the lowest Initiative card buys first."""
    state = dice_turn()
    for seat, card in ((0, 2), (1, 1), (2, 4)):
        state = then(then(state, Draft(seat, card, 4)), SkipAction(seat))
    assert state.phase == "market" and state.queue == (1, 0, 2)


def test_gold_never_runs_out() -> None:
    """Gold (Rollhouse decision; the rulebook's '60 Gold' is a component count):
    a gain is paid in full even when the 60 coins are all in play."""
    state = given(*opening(3, rows=((0, 0, 1, 1, 1, 2, 2),) * 3), *rolled(POOL))
    rich = attrs.evolve(state.players[2], gold=state.players[2].gold + state.supply - 1)
    state = attrs.evolve(state, supply=1, players=(*state.players[:2], rich))
    assert when(state, Draft(0, 4, 2)) == (Drafted(0, 4, 2, 0, 3),)  # gold die + full row
    state = then(state, Draft(0, 4, 2))
    assert state.supply == -2 and GAME.view(state, 0)["supply"] == 0
    assert GAME.decide(then(state, SkipAction(0)), Draft(1, 1, 0)) == (Drafted(1, 1, 0, 0, 1),)
