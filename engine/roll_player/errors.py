"""Roll Player's rejections, each with a stable code.

Exception tree (below :class:`engine.errors.Rejection`)::

    Rejection
    ├── GameOver, NotASeat, InvalidCommand, BadOptions   (engine)
    └── RollPlayerRejection     roll_player/rejected
        ├── NotYourTurn         roll_player/not_your_turn      another seat decides now
        ├── WrongPhase          roll_player/wrong_phase        not this phase's decision
        ├── AlreadyDone         roll_player/already_done       simultaneous decision already made
        ├── UnknownName         roll_player/unknown            no such race/class/card/skill/direction
        ├── RaceTaken           roll_player/race_taken         sheet chosen by another seat
        ├── ClassUnavailable    roll_player/class_unavailable  not on the drawn card / card taken
        ├── BadPlacement        roll_player/bad_placement      starting dice rows wrong
        ├── BadArrangement      roll_player/bad_arrangement    not a value-ordered permutation
        ├── InitiativeTaken     roll_player/initiative_taken   card gone or not in play
        ├── RowFull             roll_player/row_full           no empty space in that row
        ├── BadTarget           roll_player/bad_target         slot empty, same die, value would wrap
        ├── AlignmentBlocked    roll_player/alignment_blocked  the token cannot move that way
        ├── RerollPending       roll_player/reroll_pending     keep or discard the reroll first
        ├── NoReroll            roll_player/no_reroll          nothing to keep
        ├── NotOwned            roll_player/not_owned          skill or weapon not yours
        ├── Exhausted           roll_player/exhausted          card already used this round
        ├── NotNow              roll_player/not_now            the card's timing forbids it
        ├── NotInMarket         roll_player/not_in_market      card not in the market / discard
        ├── CannotAfford        roll_player/cannot_afford      not enough gold and tokens
        ├── HandsFull           roll_player/hands_full         more than two hands of weapons
        ├── NoMoreBuys          roll_player/no_more_buys       purchase limit reached
        └── MustChoose          roll_player/must_choose        buy or discard before ending
"""

from __future__ import annotations

from engine.errors import Rejection


class RollPlayerRejection(Rejection):
    """A command Roll Player's rules refuse."""

    code = "roll_player/rejected"


class NotYourTurn(RollPlayerRejection):
    """Another seat has this decision."""

    code = "roll_player/not_your_turn"


class WrongPhase(RollPlayerRejection):
    """The command belongs to another phase."""

    code = "roll_player/wrong_phase"


class AlreadyDone(RollPlayerRejection):
    """This seat already made the current simultaneous decision."""

    code = "roll_player/already_done"


class UnknownName(RollPlayerRejection):
    """No race, class, card, skill or direction has this name."""

    code = "roll_player/unknown"


class RaceTaken(RollPlayerRejection):
    """Another seat has this character sheet."""

    code = "roll_player/race_taken"


class ClassUnavailable(RollPlayerRejection):
    """The class is not on this seat's card, or its card is taken."""

    code = "roll_player/class_unavailable"


class BadPlacement(RollPlayerRejection):
    """Starting dice: one row per die, at most three per row."""

    code = "roll_player/bad_placement"


class BadArrangement(RollPlayerRejection):
    """The pool must go on the Initiative cards from lowest to highest value."""

    code = "roll_player/bad_arrangement"


class InitiativeTaken(RollPlayerRejection):
    """That Initiative card holds no die now."""

    code = "roll_player/initiative_taken"


class RowFull(RollPlayerRejection):
    """The row has no empty space."""

    code = "roll_player/row_full"


class BadTarget(RollPlayerRejection):
    """The effect's target is not possible (empty slot, same die, a wrapped face)."""

    code = "roll_player/bad_target"


class AlignmentBlocked(RollPlayerRejection):
    """The token is at the edge of the card in that direction."""

    code = "roll_player/alignment_blocked"


class RerollPending(RollPlayerRejection):
    """Choose which face of the rerolled die to keep first."""

    code = "roll_player/reroll_pending"


class NoReroll(RollPlayerRejection):
    """No rerolled die waits for a choice."""

    code = "roll_player/no_reroll"


class NotOwned(RollPlayerRejection):
    """The seat does not have that card (or ability)."""

    code = "roll_player/not_owned"


class Exhausted(RollPlayerRejection):
    """The card is exhausted until refreshed."""

    code = "roll_player/exhausted"


class NotNow(RollPlayerRejection):
    """The card may only be used at another time."""

    code = "roll_player/not_now"


class NotInMarket(RollPlayerRejection):
    """The card is not where the command needs it."""

    code = "roll_player/not_in_market"


class CannotAfford(RollPlayerRejection):
    """Gold, Charisma tokens and credit do not cover the cost."""

    code = "roll_player/cannot_afford"


class HandsFull(RollPlayerRejection):
    """More than two hands of weapons; drop one first."""

    code = "roll_player/hands_full"


class NoMoreBuys(RollPlayerRejection):
    """No further purchase this Market Phase."""

    code = "roll_player/no_more_buys"


class MustChoose(RollPlayerRejection):
    """Buy or discard a market card before ending the turn."""

    code = "roll_player/must_choose"
