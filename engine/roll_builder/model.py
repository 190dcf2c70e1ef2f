"""Roll Builder's commands, events and state (frozen values, content by id).

A seat's *pool* is what the current turn gave it and that must be used in the turn:
food, supplies, favor, strength and ideas (the innovation bonus), roads still to
place, and building / wonder actions still to take (``0`` = a bonus action of any
number). Wealth is stored at once; only wealth gained while the storage circles are
all marked stays in the pool's wealth slot, to be spent this turn (see the decisions
in ``__init__``).
"""

from __future__ import annotations

from typing import ClassVar, Literal

import attrs

from engine.roll_builder.content import NO_GAINS, Ability, Gains
from engine.roll_builder.hexmap import Edge, Hex

TURNS = 15
Action = Literal["road", "build", "wonder"]
VisionaryGoals = Literal["rulebook", "hard"]
"""The option ``visionary_goals`` (see :mod:`.setup`)."""

# -- commands ---------------------------------------------------------------------


@attrs.frozen
class UseDie:
    """Cross off die ``die`` (0 or 1) for an action; ``shift`` (-1, 0, +1) needs a
    die-shift ability and may be used once a turn."""

    TYPE: ClassVar[str] = "use_die"
    seat: int
    die: int
    action: Action
    shift: int = 0


@attrs.frozen
class PlaceRoad:
    """Draw one road from the pool on ``edge`` (two neighbouring hexes, axial)."""

    TYPE: ClassVar[str] = "place_road"
    seat: int
    edge: tuple[int, int, int, int]


@attrs.frozen
class Build:
    """Mark ``building`` (its number 1-6) on connected land ``space``."""

    TYPE: ClassVar[str] = "build"
    seat: int
    space: tuple[int, int]
    building: int


@attrs.frozen
class FillWonder:
    """Fill wonder box ``box`` (its index in the wonder's list)."""

    TYPE: ClassVar[str] = "fill_wonder"
    seat: int
    box: int


@attrs.frozen
class MarkSpace:
    """Cross a connected space with an X to gain what is printed on it."""

    TYPE: ClassVar[str] = "mark_space"
    seat: int
    space: tuple[int, int]


@attrs.frozen
class Pay:
    """Cross off cost circle ``circle`` of ``innovation`` by spending ``resource``."""

    TYPE: ClassVar[str] = "pay"
    seat: int
    innovation: str
    circle: int
    resource: str


@attrs.frozen
class Convert:
    """Cross off ``amount`` spaces of the ``resource`` track (``favor`` or ``strength``)
    now, from this turn's pool."""

    TYPE: ClassVar[str] = "convert"
    seat: int
    resource: str
    amount: int = 1


@attrs.frozen
class Done:
    """Finish the turn: unused dice and pool are forfeited."""

    TYPE: ClassVar[str] = "done"
    seat: int


Command = UseDie | PlaceRoad | Build | FillWonder | MarkSpace | Pay | Convert | Done
COMMANDS: tuple[type, ...] = (UseDie, PlaceRoad, Build, FillWonder, MarkSpace, Pay, Convert, Done)

# -- events -----------------------------------------------------------------------


@attrs.frozen
class SetUp:
    """The table: one city sheet per seat, the event, the visionaries in play and
    the first roll (the engine rolls every turn)."""

    TYPE: ClassVar[str] = "set_up"
    seats: int
    cities: tuple[str, ...]
    event: str | None
    visionaries: tuple[str, ...]
    dice: tuple[int, int]
    seed: int
    visionary_goals: VisionaryGoals = "hard"
    """The visionaries' goals as printed (``rulebook``) or our harder ones (``hard``).
    Setup always writes it; a set-up event without it was written before the option
    existed, when the harder goals were the only ones, so that is what it played."""


@attrs.frozen
class Rolled:
    """Turn ``turn`` begins with ``dice``, shared by every seat."""

    TYPE: ClassVar[str] = "rolled"
    turn: int
    dice: tuple[int, int]


@attrs.frozen
class DieUsed:
    """``seat`` crossed off die ``die`` showing ``face`` (after any shift) for ``action``."""

    TYPE: ClassVar[str] = "die_used"
    seat: int
    die: int
    action: Action
    face: int
    shifted: bool = False


@attrs.frozen
class RoadPlaced:
    """``seat`` drew a road on ``edge``."""

    TYPE: ClassVar[str] = "road_placed"
    seat: int
    edge: Edge


@attrs.frozen
class Built:
    """``seat`` marked ``building`` on ``space``, using a die action or a bonus one."""

    TYPE: ClassVar[str] = "built"
    seat: int
    space: Hex
    building: int
    bonus: bool


@attrs.frozen
class WonderFilled:
    """``seat`` filled wonder box ``box``."""

    TYPE: ClassVar[str] = "wonder_filled"
    seat: int
    box: int
    bonus: bool


@attrs.frozen
class SpaceMarked:
    """``seat`` crossed ``space`` with an X and gained what it shows."""

    TYPE: ClassVar[str] = "space_marked"
    seat: int
    space: Hex


@attrs.frozen
class Paid:
    """``seat`` crossed off a cost circle, spending ``resource``."""

    TYPE: ClassVar[str] = "paid"
    seat: int
    innovation: str
    circle: int
    resource: str


@attrs.frozen
class Discovered:
    """Every circle of ``innovation`` is crossed off: ``seat`` discovers it."""

    TYPE: ClassVar[str] = "discovered"
    seat: int
    innovation: str


@attrs.frozen
class Converted:
    """``seat`` crossed off ``amount`` spaces of the ``resource`` track mid-turn."""

    TYPE: ClassVar[str] = "converted"
    seat: int
    resource: str
    amount: int


@attrs.frozen
class TurnFinished:
    """``seat`` is done: leftover favor and strength go onto the tracks, the rest
    of the pool is lost."""

    TYPE: ClassVar[str] = "turn_finished"
    seat: int


@attrs.frozen
class VisionaryCompleted:
    """``seat`` completed ``visionary`` this turn, earning ``corner`` points (only the
    first turn anyone completes it) and its bonus."""

    TYPE: ClassVar[str] = "visionary_completed"
    seat: int
    visionary: str
    corner: int


@attrs.frozen
class GameEnded:
    """The fifteenth turn is over; the cities are scored."""

    TYPE: ClassVar[str] = "game_ended"


Event = (
    SetUp
    | Rolled
    | DieUsed
    | RoadPlaced
    | Built
    | WonderFilled
    | SpaceMarked
    | Paid
    | Discovered
    | Converted
    | TurnFinished
    | VisionaryCompleted
    | GameEnded
)
EVENTS: tuple[type, ...] = (
    SetUp,
    Rolled,
    DieUsed,
    RoadPlaced,
    Built,
    WonderFilled,
    SpaceMarked,
    Paid,
    Discovered,
    Converted,
    TurnFinished,
    VisionaryCompleted,
    GameEnded,
)

# -- state ------------------------------------------------------------------------


@attrs.frozen
class Player:
    """One seat's city sheet and turn list."""

    city: str
    roads: frozenset[Edge]
    marked: frozenset[Hex] = frozenset()
    buildings: tuple[tuple[Hex, int], ...] = ()
    """(space, building number) in the order they were marked."""
    wonder: frozenset[int] = frozenset()
    paid: frozenset[tuple[str, int]] = frozenset()
    discovered: tuple[str, ...] = ()
    favor: int = 0
    """Favor crossed off on the favor track."""
    strength: int = 0
    wealth: int = 0
    """Stored wealth."""
    pool: Gains = NO_GAINS
    """This turn's unspent resources; the wealth slot holds wealth that found no free
    storage circle (spendable this turn, lost at its end)."""
    roads_left: int = 0
    builds: tuple[int, ...] = ()
    """Building actions to take: the die face, or 0 for a bonus action."""
    wonders: tuple[int, ...] = ()
    dice_used: frozenset[int] = frozenset()
    shifted: bool = False
    done: bool = False
    turn_abilities: tuple[Ability, ...] = ()
    """Abilities of buildings marked this turn."""
    abilities: tuple[Ability, ...] = ()
    """Abilities for the rest of the game (from visionaries)."""
    bonus: tuple[tuple[str, int], ...] = ()
    """Bonus points earned so far, item by item."""
    visionaries: tuple[str, ...] = ()


@attrs.frozen
class State:
    """A Roll Builder table. ``seed`` and ``draws`` never leave the server."""

    seats: int
    players: tuple[Player, ...]
    event: str | None
    visionaries: tuple[str, ...]
    claimed: frozenset[str]
    """Visionaries whose corner points are taken."""
    seed: int
    draws: int
    turn: int
    dice: tuple[int, int]
    visionary_goals: VisionaryGoals
    """Which goals the visionaries in play have (the option, from the set-up event)."""
    over: bool = False
    rolls: tuple[tuple[int, int], ...] = ()
    """The turn list: every turn's dice so far, turn 1 first."""

    def put(self, seat: int, player: Player) -> State:
        """This state with ``seat``'s player replaced."""
        players = (*self.players[:seat], player, *self.players[seat + 1 :])
        return attrs.evolve(self, players=players)
