"""Roll Player's commands: one frozen class per decision a player makes.

``-1`` / ``""`` in an optional field means "not used".
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from engine.data import Registry


@attrs.frozen
class ChooseSheet:
    """Setup step 2: take a character sheet (a race) and a side."""

    TYPE: ClassVar[str] = "choose_sheet"
    seat: int
    race: str
    side: str = "female"


@attrs.frozen
class ChooseClass:
    """Setup step 4: choose a class (of the drawn card, or any free card by choice)."""

    TYPE: ClassVar[str] = "choose_class"
    seat: int
    klass: str


@attrs.frozen
class PlaceStart:
    """Setup step 12: ``rows[i]`` is the row for starting die ``i`` (leftmost space)."""

    TYPE: ClassVar[str] = "place_start"
    seat: int
    rows: tuple[int, ...]


@attrs.frozen
class Arrange:
    """Roll phase, tied values: ``order[k]`` is the pool die put on Initiative card k+1."""

    TYPE: ClassVar[str] = "arrange"
    seat: int
    order: tuple[int, ...]


@attrs.frozen
class Draft:
    """Dice phase: take Initiative card ``card`` and put its die in ``row``."""

    TYPE: ClassVar[str] = "draft"
    seat: int
    card: int
    row: int


@attrs.frozen
class Act:
    """Dice phase: the attribute action of the row just filled.

    STR flip ``slot``; DEX swap ``slot`` and ``other``; CON ``delta`` +1/-1 on ``slot``;
    INT reroll ``slot``; WIS move the token ``direction``; CHA take a token.
    """

    TYPE: ClassVar[str] = "act"
    seat: int
    slot: int = -1
    other: int = -1
    delta: int = 0
    direction: str = ""


@attrs.frozen
class SkipAction:
    """Dice phase: end the turn without an attribute action."""

    TYPE: ClassVar[str] = "skip_action"
    seat: int


@attrs.frozen
class Keep:
    """After a reroll: keep the new face (``new``) or the old one."""

    TYPE: ClassVar[str] = "keep"
    seat: int
    new: bool


@attrs.frozen
class UseSkill:
    """Use a skill card by name, or the class ability (``skill="class"``).

    The token moves by the skill's arrow; then the effect applies with the given
    targets. Leaving the targets empty moves the token only ("if they wish").
    """

    TYPE: ClassVar[str] = "use_skill"
    seat: int
    skill: str
    slot: int = -1
    other: int = -1
    delta: int = 0
    direction: str = ""
    card: str = ""


@attrs.frozen
class Buy:
    """Market phase: buy ``card``, spending ``charisma`` tokens, after dropping weapons."""

    TYPE: ClassVar[str] = "buy"
    seat: int
    card: str
    charisma: int = 0
    drop: tuple[str, ...] = ()


@attrs.frozen
class DiscardCard:
    """Market phase: discard ``card`` from the market and take gold instead of buying."""

    TYPE: ClassVar[str] = "discard_card"
    seat: int
    card: str


@attrs.frozen
class EndMarketTurn:
    """Market phase: done (after a buy with a second one open, or with an empty market)."""

    TYPE: ClassVar[str] = "end_market_turn"
    seat: int


@attrs.frozen
class DropWeapon:
    """Any time: discard an owned weapon to the market discard pile."""

    TYPE: ClassVar[str] = "drop_weapon"
    seat: int
    card: str


@attrs.frozen
class Refresh:
    """Cleanup: turn one exhausted skill (or ``"class"``) upright; ``""`` for none."""

    TYPE: ClassVar[str] = "refresh"
    seat: int
    skill: str = ""


Command = (
    ChooseSheet
    | ChooseClass
    | PlaceStart
    | Arrange
    | Draft
    | Act
    | SkipAction
    | Keep
    | UseSkill
    | Buy
    | DiscardCard
    | EndMarketTurn
    | DropWeapon
    | Refresh
)

COMMANDS = Registry(
    "command",
    [
        ChooseSheet,
        ChooseClass,
        PlaceStart,
        Arrange,
        Draft,
        Act,
        SkipAction,
        Keep,
        UseSkill,
        Buy,
        DiscardCard,
        EndMarketTurn,
        DropWeapon,
        Refresh,
    ],
)
