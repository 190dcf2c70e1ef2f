"""Roll Builder's designed content as frozen values: cities, events, visionaries.

Every ability is an :class:`Ability` of one of :data:`ABILITY_KINDS` with parameters;
the engine interprets the kinds (see ``effects.py``) and has no card-specific code.
The JSON files beside this module are read and validated once at import (the
package's ``__init__.py``, with ``loader.py``); this module holds only the shapes and
the vocabulary.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from engine.roll_builder.hexmap import Edge, Geometry, Hex

RESOURCES: tuple[str, ...] = ("food", "supplies", "wealth", "favor", "strength", "idea")
"""The five resources plus ``idea``, our name for the rulebook's innovation bonus."""
FOOD, SUPPLIES, WEALTH, FAVOR, STRENGTH, IDEA = range(6)

Gains = tuple[int, int, int, int, int, int]
"""Amounts indexed like :data:`RESOURCES`."""
NO_GAINS: Gains = (0, 0, 0, 0, 0, 0)


def single(index: int, amount: int = 1) -> Gains:
    """``amount`` of the resource at ``index``, nothing else."""
    g = [0] * 6
    g[index] = amount
    return (g[0], g[1], g[2], g[3], g[4], g[5])


ABILITY_KINDS: Mapping[str, str] = {
    "road_gain": "each road you place on an edge of kind `where` gains `gain`",
    "build_gain": "each building `building` (0: any) you place gains `gain`",
    "wonder_gain": "each wonder box you fill gains `gain`",
    "ring_gain": "each space you ring with six roads gains `gain` (the first `limit`; 0: all)",
    "allow": "you may place roads on edges of kind `where` (water or cliff)",
    "substitute": "you may pay a cost circle of resource `resource` with `pay`",
    "die_shift": "once a turn you may treat one action die as one more or one less",
    "end_points": "at the end, `points` per `per` of metric `metric` (Bonus)",
    "ring_points": "at the end, `points` per space ringed by six roads (Road network)",
    "gain_adjust": "every gain of `resource` is changed by `delta` (never below 0)",
    "forbid_road": "no road may be placed on edges of kind `where` (on the `turns` listed; none: all game)",
    "turn_gain": "at the roll of each turn in `turns`, you get `effect`",
}
"""The whole vocabulary of abilities, with the meaning of their parameters."""

EDGE_KINDS: tuple[str, ...] = ("any", "land", "coast", "water", "cliff", "coast_or_cliff")


def edge_matches(where: str, kind: str) -> bool:
    """Whether an ability's ``where`` covers an edge of ``kind``."""
    return where in ("any", kind) or (where == "coast_or_cliff" and kind in ("coast", "cliff"))


METRICS: Mapping[str, str] = {
    "buildings": "building marks on the map",
    "roads": "roads on the map (starting roads included)",
    "coast_cliff_roads": "roads on coast or cliff edges",
    "rings": "spaces ringed by six roads",
    "innovations": "innovations discovered",
    "wonder_boxes": "wonder boxes filled",
    "wonder_points": "bonus points earned on the wonder",
    "stored_wealth": "wealth stored now",
    "converted_favor": "favor crossed off on the favor track",
    "converted_strength": "strength crossed off on the strength track",
    "building_cluster": "largest group of adjacent spaces holding the same building",
    "marked": "map spaces marked with an X",
}
"""Counts a condition, a grey wonder box or an end-of-game ability can refer to."""


@attrs.frozen
class Condition:
    """``metric`` has reached ``at``."""

    metric: str
    at: int


@attrs.frozen
class Ability:
    """One ability of :data:`ABILITY_KINDS`; unused parameters keep their defaults."""

    kind: str
    where: str = "any"
    gain: Gains = NO_GAINS
    building: int = 0
    limit: int = 0
    resource: str = ""
    pay: str = ""
    metric: str = ""
    per: int = 1
    points: int = 0
    delta: int = 0
    turns: tuple[int, ...] = ()
    effect: Effect | None = None


@attrs.frozen
class Effect:
    """A one-time gain: resources, bonus roads / building / wonder actions, bonus
    points, and ``abilities`` that last as long as their source says (a building's
    for the turn, a visionary's for the game)."""

    gain: Gains = NO_GAINS
    roads: int = 0
    build: int = 0
    wonder: int = 0
    points: int = 0
    abilities: tuple[Ability, ...] = ()


NOTHING = Effect()


@attrs.frozen
class Space:
    """A map space. ``effect`` is gained by marking it with an X once connected;
    ``points`` score at the end when a road touches it."""

    hex: Hex
    terrain: str
    partial: bool = False
    effect: Effect | None = None
    points: int = 0
    icon: str = ""
    """The legend code printed on the space."""
    name: str = ""


@attrs.frozen
class Building:
    """A building; a die showing ``n`` builds it (a bonus action builds any)."""

    n: int
    id: str
    name: str
    letter: str
    effect: Effect


@attrs.frozen
class Box:
    """A wonder box: filled by a die showing ``n`` (or a bonus wonder action) once
    every box in ``after`` is filled and, for a grey box, ``opens`` holds."""

    index: int
    n: int
    row: int
    col: int
    after: tuple[int, ...] = ()
    opens: Condition | None = None
    effect: Effect = NOTHING


@attrs.frozen
class Innovation:
    """Discovered when every cost circle is crossed off; scores ``points``."""

    id: str
    name: str
    cost: tuple[str, ...]
    points: int
    effect: Effect = NOTHING
    ability: Ability | None = None
    text: str = ""


@attrs.frozen
class City:
    """One city sheet."""

    id: str
    name: str
    band: tuple[int, int]
    """The score band a good game reaches on this sheet."""
    spaces: Mapping[Hex, Space]
    geometry: Geometry
    start_roads: frozenset[Edge]
    buildings: tuple[Building, ...]
    wonder: str
    boxes: tuple[Box, ...]
    wonder_rule: str
    innovations: tuple[Innovation, ...]
    favor_track: tuple[int, ...]
    strength_track: tuple[int, ...]
    storage: int
    """Wealth circles: stored wealth beyond this is lost."""
    specials: tuple[Ability, ...]
    special_text: tuple[str, ...]

    def building(self, n: int) -> Building:
        """The building a die showing ``n`` builds."""
        return self.buildings[n - 1]

    def innovation(self, ident: str) -> Innovation | None:
        """The innovation called ``ident``, if any."""
        return next((i for i in self.innovations if i.id == ident), None)


@attrs.frozen
class GameEvent:
    """A solo (or optional multiplayer) event: its rule and the score to beat."""

    id: str
    name: str
    target: int
    text: str
    abilities: tuple[Ability, ...]
    cities: tuple[str, ...] = ()
    """The cities it is dealt with (none listed: every city)."""

    def fits(self, city: str) -> bool:
        """Whether this event is dealt with ``city``."""
        return not self.cities or city in self.cities


VISIONARY_GOALS: tuple[str, ...] = ("rulebook", "hard")
"""The values of the option ``visionary_goals``: the goals as printed (the default), or
our harder ones where we have them."""


@attrs.frozen
class Visionary:
    """A goal card: ``corner`` points to the first to reach ``goal``, ``bonus`` to all.

    ``goal`` and ``text`` are the card as printed; ``hard_goal`` and ``hard_text`` (if
    any) the same goal with a higher number, played with ``visionary_goals=hard``."""

    id: str
    name: str
    goal: Condition
    corner: int
    bonus: Effect
    text: str
    cities: tuple[str, ...] = ()
    """The cities it is dealt with (none listed: every city)."""
    hard_goal: Condition | None = None
    hard_text: str = ""

    def fits(self, city: str) -> bool:
        """Whether this visionary is dealt with ``city``."""
        return not self.cities or city in self.cities

    def played(self, goals: str) -> Visionary:
        """The card as a table with ``visionary_goals=goals`` plays it."""
        if goals == "hard" and self.hard_goal is not None:
            return attrs.evolve(self, goal=self.hard_goal, text=self.hard_text, hard_goal=None)
        return self
