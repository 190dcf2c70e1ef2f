"""Roll Player's state, commands and events (frozen values), and small helpers.

**State**: dice, players' sheets, the table. A sheet is six rows (STR, DEX, CON, INT,
WIS, CHA) of up to three dice. Commands address a die on a sheet by ``slot = row * 3 +
space`` (0-17, spaces 0-2 from the left). The alignment token sits at ``cell = row * 3
+ column`` of the 3x3 card (Good row and Lawful column first; 4 is the centre).

**Commands**: one frozen class per decision a player makes. ``-1`` / ``""`` in an
optional field means "not used".

**Events**: what happened, with every random outcome written in. ``evolve`` applies
them without drawing. Gold amounts are recorded as decided (the supply never runs
dry), so replay needs no rules arithmetic that could drift.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import attrs

from engine.data import Registry
from engine.roll_player.content import CATALOG, COLOURS, DIRECTIONS, GOLD, Card, ClassCard

Phase = Literal[
    "sheets", "classes", "placing", "arrange", "dice", "action", "market", "refresh", "over"
]
Side = Literal["male", "female"]
ClassMode = Literal["draw", "choice"]
CENTRE = 4


@attrs.frozen
class Die:
    """A die: its colour and the face showing."""

    colour: str
    value: int


Row = tuple[Die, ...]


@attrs.frozen
class Pending:
    """A die rerolled, waiting for its owner to keep the new face or the old one."""

    slot: int
    old: int
    new: int
    source: str
    """``action`` (the Intelligence action), ``class`` or a skill's name."""


@attrs.frozen
class Player:
    """One seat's character."""

    gold: int
    race: str = ""
    side: str = ""
    colour: str = ""
    klass: str = ""
    alignment: str = ""
    backstory: str = ""
    cell: int = CENTRE
    rows: tuple[Row, ...] = ((),) * 6
    cards: tuple[str, ...] = ()
    exhausted: frozenset[str] = frozenset()
    """Exhausted skills, and ``"class"`` for a used class ability."""
    charisma: int = 0
    credit: int = 0
    """Gold off purchases this round (from abilities); gone at cleanup."""
    initiative: int = 0
    """The Initiative card held this round (0: none)."""
    buys: int = 0
    salvaged: bool = False
    pending: Pending | None = None

    def die(self, slot: int) -> Die | None:
        """The die at ``slot``, if any (``None`` also for a slot off the sheet)."""
        if not 0 <= slot < 18:
            return None
        row = self.rows[slot // 3]
        return row[slot % 3] if slot % 3 < len(row) else None

    def slots(self) -> list[int]:
        """Every slot that holds a die."""
        return [r * 3 + i for r, row in enumerate(self.rows) for i in range(len(row))]

    def full(self) -> bool:
        """Whether all 18 spaces hold dice."""
        return all(len(row) == 3 for row in self.rows)

    def owned(self, kind: str) -> list[Card]:
        """Owned market cards of ``kind``."""
        return [CATALOG.cards[n] for n in self.cards if CATALOG.cards[n].kind == kind]

    def hands(self) -> int:
        """Hands used by weapons."""
        return sum(c.hands for c in self.owned("weapon"))

    def klass_card(self) -> ClassCard | None:
        """The chosen class, if any."""
        return CATALOG.classes.get(self.klass)


@attrs.frozen
class Initiative:
    """An Initiative card in the row: its number, die and gold."""

    number: int
    die: Die | None = None
    gold: int = 0


@attrs.frozen
class State:
    """The whole game."""

    seats: int
    seed: int
    draws: int
    class_mode: ClassMode
    phase: Phase
    start: int
    """This round's Start Player."""
    turn: int | None
    """Whose decision the sequential phases wait for."""
    players: tuple[Player, ...]
    bag: tuple[int, ...]
    """Dice in the bag per colour (hidden)."""
    supply: int
    initiative: tuple[Initiative, ...] = ()
    pool: tuple[Die, ...] = ()
    """Rolled dice waiting to be arranged on the Initiative cards."""
    market: tuple[str, ...] = ()
    deck: tuple[str, ...] = ()
    """Market deck, top first (hidden)."""
    discard: tuple[str, ...] = ()
    class_draws: tuple[tuple[str, ...], ...] = ()
    """Colours drawn for each seat's class card (draw mode); the last is the card."""
    starting: tuple[tuple[Die, ...], ...] = ()
    """Starting dice each seat has yet to place."""
    done: frozenset[int] = frozenset()
    """Seats finished with the current simultaneous decision."""
    queue: tuple[int, ...] = ()
    """Seats still to act in this phase, next first."""
    action_row: int = -1
    round: int = 0


def order_from(start: int, seats: int) -> tuple[int, ...]:
    """Seats clockwise from ``start``."""
    return tuple((start + i) % seats for i in range(seats))


def put(seq: tuple[Player, ...], seat: int, player: Player) -> tuple[Player, ...]:
    """``seq`` with entry ``seat`` replaced."""
    return (*seq[:seat], player, *seq[seat + 1 :])


def set_die(rows: tuple[Row, ...], slot: int, die: Die) -> tuple[Row, ...]:
    """``rows`` with the die at ``slot`` replaced by ``die``."""
    r, i = divmod(slot, 3)
    row = rows[r]
    return (*rows[:r], (*row[:i], die, *row[i + 1 :]), *rows[r + 1 :])


def add_die(rows: tuple[Row, ...], row: int, die: Die) -> tuple[Row, ...]:
    """``rows`` with ``die`` in the leftmost empty space of ``row``."""
    return (*rows[:row], (*rows[row], die), *rows[row + 1 :])


def moved(cell: int, direction: str) -> int | None:
    """The alignment cell one step from ``cell`` toward ``direction``, if on the card."""
    dr, dc = DIRECTIONS[direction]
    r, c = cell // 3 + dr, cell % 3 + dc
    return r * 3 + c if 0 <= r < 3 and 0 <= c < 3 else None


def bag_add(bag: tuple[int, ...], dice: tuple[Die, ...], sign: int = 1) -> tuple[int, ...]:
    """``bag`` with ``dice`` put back (``sign`` 1) or taken out (``sign`` -1)."""
    counts = list(bag)
    for die in dice:
        counts[COLOURS.index(die.colour)] += sign
    return tuple(counts)


def gold_per_die(player: Player) -> int:
    """Gold for placing a gold die (the Thief's Shrewd ability makes it 4)."""
    card = player.klass_card()
    if card is not None and card.ability.kind == "gold_die_gold":
        return card.ability.gold
    return CATALOG.rules.gold_die_gold


def is_gold(die: Die) -> bool:
    """Whether ``die`` is a gold die."""
    return die.colour == GOLD


# -- commands --------------------------------------------------------------------


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


# -- events ----------------------------------------------------------------------


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
