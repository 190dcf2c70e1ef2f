"""Rollie's rejections, each with a stable code.

Exception tree (below :class:`engine.errors.Rejection`)::

    Rejection
    ├── GameOver            game/over          (engine)
    ├── NotASeat            game/no_such_seat  (engine)
    ├── InvalidCommand      command/invalid    (engine; not a Rollie command)
    └── RollieRejection     rollie/rejected
        ├── NotYourTurn         rollie/not_your_turn       roll by someone not First player
        ├── NotRollingPhase     rollie/not_rolling_phase   roll while players decide
        ├── NotDecidingPhase    rollie/not_deciding_phase  take/secure before the roll
        ├── AlreadyDecided      rollie/already_decided     a second decision this turn
        ├── NotInPlay           rollie/not_in_play         secured earlier this round
        ├── UnknownValue        rollie/unknown_value       no bill has that value
        ├── ValueNotRolled      rollie/value_not_rolled    value not on the dice
        └── PileEmpty           rollie/pile_empty          no bill of that value left
"""

from __future__ import annotations

from engine.errors import Rejection


class RollieRejection(Rejection):
    """A command Rollie's rules refuse."""

    code = "rollie/rejected"


class NotYourTurn(RollieRejection):
    """Only the First player rolls."""

    code = "rollie/not_your_turn"


class NotRollingPhase(RollieRejection):
    """The dice are already rolled; players are deciding."""

    code = "rollie/not_rolling_phase"


class NotDecidingPhase(RollieRejection):
    """Nobody may take or secure until the dice are rolled."""

    code = "rollie/not_deciding_phase"


class AlreadyDecided(RollieRejection):
    """A decision is final for the turn."""

    code = "rollie/already_decided"


class NotInPlay(RollieRejection):
    """The player secured earlier this round and waits for the next one."""

    code = "rollie/not_in_play"


class UnknownValue(RollieRejection):
    """No bill has this value."""

    code = "rollie/unknown_value"


class ValueNotRolled(RollieRejection):
    """The value is on neither die (and no die shows R)."""

    code = "rollie/value_not_rolled"


class PileEmpty(RollieRejection):
    """No bill of this value is left in the Bank; choose again."""

    code = "rollie/pile_empty"
