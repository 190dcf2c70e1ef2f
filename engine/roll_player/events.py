"""Roll Player's events: what happened, with every random outcome written in.

``evolve`` applies them without drawing. Gold amounts are recorded as decided (the
supply never runs dry), so replay needs no rules arithmetic that could drift.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from engine.data import Registry
from engine.roll_player.model import Die


@attrs.frozen
class SetUp:
    """Setup step 1 and 7: the Start Player and the shuffled market deck."""

    TYPE: ClassVar[str] = "set_up"
    seats: int
    seed: int
    class_mode: str
    start: int
    deck: tuple[str, ...]


@attrs.frozen
class SheetChosen:
    """A seat took a character sheet."""

    TYPE: ClassVar[str] = "sheet_chosen"
    seat: int
    race: str
    side: str


@attrs.frozen
class ClassDiceDrawn:
    """Setup step 4 (draw): colours each seat drew; each list ends with its card's colour."""

    TYPE: ClassVar[str] = "class_dice_drawn"
    draws: tuple[tuple[str, ...], ...]


@attrs.frozen
class ClassChosen:
    """A seat chose its class."""

    TYPE: ClassVar[str] = "class_chosen"
    seat: int
    klass: str


@attrs.frozen
class CardsDealt:
    """Setup steps 5-6, 8: backstory and alignment per seat; the first market."""

    TYPE: ClassVar[str] = "cards_dealt"
    backstories: tuple[str, ...]
    alignments: tuple[str, ...]


@attrs.frozen
class StartingDiceDrawn:
    """Setup step 11: each seat's starting dice, rolled."""

    TYPE: ClassVar[str] = "starting_dice_drawn"
    dice: tuple[tuple[Die, ...], ...]


@attrs.frozen
class StartingDicePlaced:
    """Setup step 12: a seat placed its starting dice and took ``gold``."""

    TYPE: ClassVar[str] = "starting_dice_placed"
    seat: int
    rows: tuple[int, ...]
    gold: int


@attrs.frozen
class DiceRolled:
    """Roll phase: the Start Player drew and rolled the dice pool."""

    TYPE: ClassVar[str] = "dice_rolled"
    round: int
    dice: tuple[Die, ...]


@attrs.frozen
class DiceArranged:
    """Roll phase: ``dice[k]`` is on Initiative card k+1."""

    TYPE: ClassVar[str] = "dice_arranged"
    dice: tuple[Die, ...]


@attrs.frozen
class Drafted:
    """Dice phase: a seat took an Initiative card and placed its die in ``row``."""

    TYPE: ClassVar[str] = "drafted"
    seat: int
    card: int
    row: int
    card_gold: int
    gold: int
    """Gold from the supply (full row, gold die)."""


@attrs.frozen
class Flipped:
    """A die turned to its opposite face."""

    TYPE: ClassVar[str] = "flipped"
    seat: int
    slot: int


@attrs.frozen
class Swapped:
    """Two dice exchanged places."""

    TYPE: ClassVar[str] = "swapped"
    seat: int
    slot: int
    other: int


@attrs.frozen
class Adjusted:
    """A die's face changed by ``delta``."""

    TYPE: ClassVar[str] = "adjusted"
    seat: int
    slot: int
    delta: int


@attrs.frozen
class Rerolled:
    """A die rerolled; its owner keeps either face next."""

    TYPE: ClassVar[str] = "rerolled"
    seat: int
    slot: int
    value: int
    source: str


@attrs.frozen
class Kept:
    """The owner of a rerolled die chose a face."""

    TYPE: ClassVar[str] = "kept"
    seat: int
    new: bool


@attrs.frozen
class AlignmentMoved:
    """The alignment token moved one step."""

    TYPE: ClassVar[str] = "alignment_moved"
    seat: int
    direction: str


@attrs.frozen
class CharismaTaken:
    """A seat took a Charisma token."""

    TYPE: ClassVar[str] = "charisma_taken"
    seat: int


@attrs.frozen
class GoldGained:
    """A seat took gold from the supply by an ability."""

    TYPE: ClassVar[str] = "gold_gained"
    seat: int
    gold: int


@attrs.frozen
class CreditGained:
    """A seat's purchases this round cost ``gold`` less in total."""

    TYPE: ClassVar[str] = "credit_gained"
    seat: int
    gold: int


@attrs.frozen
class Salvaged:
    """A card went from the market discard pile back into the market."""

    TYPE: ClassVar[str] = "salvaged"
    seat: int
    card: str


@attrs.frozen
class ActionDone:
    """A seat's dice-phase turn ended."""

    TYPE: ClassVar[str] = "action_done"
    seat: int


@attrs.frozen
class SkillUsed:
    """A skill (or the class ability, ``"class"``) was exhausted; the token followed its arrow."""

    TYPE: ClassVar[str] = "skill_used"
    seat: int
    skill: str


@attrs.frozen
class Bought:
    """A seat bought a market card, paying ``gold`` and ``charisma`` tokens and ``credit``."""

    TYPE: ClassVar[str] = "bought"
    seat: int
    card: str
    gold: int
    charisma: int
    credit: int


@attrs.frozen
class WeaponDropped:
    """A weapon went to the market discard pile."""

    TYPE: ClassVar[str] = "weapon_dropped"
    seat: int
    card: str


@attrs.frozen
class MarketDiscarded:
    """A seat discarded a market card instead of buying, and took ``gold``."""

    TYPE: ClassVar[str] = "market_discarded"
    seat: int
    card: str
    gold: int


@attrs.frozen
class MarketTurnEnded:
    """A seat's market turn ended; its Initiative card went back."""

    TYPE: ClassVar[str] = "market_turn_ended"
    seat: int


@attrs.frozen
class Refreshed:
    """Cleanup step 2: a seat turned one card upright (``""``: none)."""

    TYPE: ClassVar[str] = "refreshed"
    seat: int
    skill: str


@attrs.frozen
class CleanedUp:
    """Cleanup steps 1, 3-6; ``reshuffled`` is the new deck when the old one ran out."""

    TYPE: ClassVar[str] = "cleaned_up"
    reshuffled: tuple[str, ...] | None


@attrs.frozen
class GameEnded:
    """Every sheet is full and the round is over: final scores and winners."""

    TYPE: ClassVar[str] = "game_ended"
    scores: tuple[int, ...]
    winners: tuple[int, ...]


Event = (
    SetUp
    | SheetChosen
    | ClassDiceDrawn
    | ClassChosen
    | CardsDealt
    | StartingDiceDrawn
    | StartingDicePlaced
    | DiceRolled
    | DiceArranged
    | Drafted
    | Flipped
    | Swapped
    | Adjusted
    | Rerolled
    | Kept
    | AlignmentMoved
    | CharismaTaken
    | GoldGained
    | CreditGained
    | Salvaged
    | ActionDone
    | SkillUsed
    | Bought
    | WeaponDropped
    | MarketDiscarded
    | MarketTurnEnded
    | Refreshed
    | CleanedUp
    | GameEnded
)

EVENTS = Registry(
    "event",
    [
        SetUp,
        SheetChosen,
        ClassDiceDrawn,
        ClassChosen,
        CardsDealt,
        StartingDiceDrawn,
        StartingDicePlaced,
        DiceRolled,
        DiceArranged,
        Drafted,
        Flipped,
        Swapped,
        Adjusted,
        Rerolled,
        Kept,
        AlignmentMoved,
        CharismaTaken,
        GoldGained,
        CreditGained,
        Salvaged,
        ActionDone,
        SkillUsed,
        Bought,
        WeaponDropped,
        MarketDiscarded,
        MarketTurnEnded,
        Refreshed,
        CleanedUp,
        GameEnded,
    ],
)
