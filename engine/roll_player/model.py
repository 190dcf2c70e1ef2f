"""Roll Player's state (frozen values) and small helpers on it.

A sheet is six rows (STR, DEX, CON, INT, WIS, CHA) of up to three dice. Commands
address a die on a sheet by ``slot = row * 3 + space`` (0-17, spaces 0-2 from the
left). The alignment token sits at ``cell = row * 3 + column`` of the 3x3 card (Good
row and Lawful column first; 4 is the centre). The commands are in
:mod:`engine.roll_player.commands`, the events in :mod:`engine.roll_player.events`.
"""

from __future__ import annotations

from typing import Literal

import attrs

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
