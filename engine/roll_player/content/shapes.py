"""The component types of Roll Player's catalog, and the vocabularies of effects.

:data:`ACTIVE` effects are used on demand (skills, some class abilities, the
attribute actions); :data:`PASSIVE` ones are standing rules; :data:`SCORES` are the
trait star conditions. The package (``content/__init__.py``) loads and validates the data into these.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

ATTRS = ("STR", "DEX", "CON", "INT", "WIS", "CHA")
COLOURS = ("green", "blue", "red", "purple", "black", "white", "gold")
GOLD = "gold"
CLASS_COLOURS = COLOURS[:6]
DIRECTIONS: Mapping[str, tuple[int, int]] = {
    "up": (-1, 0),
    "down": (1, 0),
    "left": (0, -1),
    "right": (0, 1),
}
"""Alignment moves: rows are Good/Neutral/Evil from the top, columns Lawful/Neutral/Chaotic."""
ACTIVE = frozenset(
    {"flip", "adjust", "swap", "reroll", "gold", "credit", "charisma", "align", "salvage"}
)
PASSIVE = frozenset({"discard_gold", "discount", "market_buys", "gold_die_gold"})
WHEN = frozenset({"any", "market_turn"})
SCORES = frozenset(
    {"attr_min", "attr_max", "alignment_row", "alignment_column", "per_card", "per_gold", "flat"}
)
KINDS = ("weapon", "armor", "trait", "skill")
ROWS = {"good": 0, "neutral": 1, "evil": 2}
COLUMNS = {"lawful": 0, "neutral": 1, "chaotic": 2}


class ContentError(ValueError):
    """The data file has a bad entry; the message names it."""


@attrs.frozen
class Goal:
    """An attribute goal: ``low`` to ``high`` inclusive (``high`` None means ``low+``)."""

    low: int
    high: int | None
    stars: int
    text: str

    def met(self, score: int) -> bool:
        """Whether ``score`` meets the goal."""
        return score >= self.low and (self.high is None or score <= self.high)


@attrs.frozen
class Effect:
    """One ability from the vocabulary, with its parameters."""

    kind: str
    when: str = "any"
    gold: int = 0
    by: int = 1
    count: int = 1
    card: str = ""

    @property
    def active(self) -> bool:
        """Whether it is used on demand (else it is a standing rule)."""
        return self.kind in ACTIVE


@attrs.frozen
class Score:
    """A trait's star condition from the vocabulary."""

    kind: str
    stars: int = 0
    attr: int = 0
    value: int = 0
    row: int = 0
    column: int = 0
    card: str = ""
    gold: int = 1
    max: int = 0


@attrs.frozen
class ClassCard:
    """One class: its card colour, six goals and its ability."""

    name: str
    colour: str
    goals: tuple[Goal, ...]
    ability_name: str
    ability: Effect
    source: str


@attrs.frozen
class Card:
    """A market card."""

    name: str
    kind: str
    pile: int
    cost: int
    source: str
    hands: int = 0
    mods: tuple[int, ...] = (0,) * 6
    set: str = ""
    colour: str = ""
    arrow: str = ""
    score: Score | None = None
    effect: Effect | None = None


@attrs.frozen
class Rules:
    """The rulebook's numbers."""

    supply: int
    start_gold: int
    extra_gold_by_seat: tuple[int, ...]
    starting_dice_extra: int
    pile_discards: Mapping[int, int]
    initiative: tuple[int, ...]
    gold_die_gold: int
    full_row_gold: int
    market_discard_gold: int
    backstory_stars: tuple[int, ...]
    class_die_stars: int
    armor_class_bonus: int


@attrs.frozen
class Catalog:
    """Every component of the base game."""

    rules: Rules
    dice: tuple[int, ...]
    """Count per colour, in :data:`COLOURS` order."""
    races: Mapping[str, tuple[int, ...]]
    classes: Mapping[str, ClassCard]
    alignments: Mapping[str, tuple[int, ...]]
    """Nine stars per card, row by row (Good row first, Lawful column first)."""
    backstories: Mapping[str, tuple[tuple[str, int], ...]]
    armor_sets: Mapping[str, tuple[int, ...]]
    cards: Mapping[str, Card]
