"""The interpreter of the ability vocabulary: which abilities are active, gains,
one-time effects and the triggers of roads, buildings and wonder boxes.

Every function is pure: a :class:`~engine.roll_builder.model.Player` in, a new one out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Literal

from engine.frozen import replace
from engine.roll_builder.content import (
    CITIES,
    EVENTS,
    RESOURCES,
    WEALTH,
    Ability,
    City,
    Effect,
    Gains,
    Space,
    edge_matches,
)
from engine.roll_builder.hexmap import Edge, Hex, edge_hexes
from engine.roll_builder.model import Player

Scope = Literal["turn", "game"]


def city_of(p: Player) -> City:
    """The city sheet ``p`` plays on."""
    return CITIES[p.city]


@cache
def spaces_in_order(city_id: str) -> tuple[tuple[Hex, Space], ...]:
    """A city's spaces sorted by their hex (the order the view and the score list them)."""
    return tuple(sorted(CITIES[city_id].spaces.items()))


def active(p: Player, event: str | None) -> tuple[Ability, ...]:
    """Every ability in force for ``p``: city specials, innovations, visionaries,
    this turn's buildings and the event."""
    city = city_of(p)
    found = (city.innovation(i) for i in p.discovered)
    innovations = tuple(i.ability for i in found if i is not None and i.ability is not None)
    event_abilities = EVENTS[event].abilities if event else ()
    return (*city.specials, *innovations, *p.abilities, *p.turn_abilities, *event_abilities)


def of_kind(abilities: Iterable[Ability], kind: str) -> list[Ability]:
    """The abilities of one kind."""
    return [a for a in abilities if a.kind == kind]


def adjusted(gain: Gains, abilities: Sequence[Ability]) -> Gains:
    """``gain`` after every ``gain_adjust``: each positive amount moves by ``delta``,
    never below 0."""
    g = list(gain)
    for a in of_kind(abilities, "gain_adjust"):
        i = _index(a.resource)
        if g[i] > 0:
            g[i] = max(0, g[i] + a.delta)
    return (g[0], g[1], g[2], g[3], g[4], g[5])


def add_gain(p: Player, gain: Gains, abilities: Sequence[Ability]) -> Player:
    """``p`` after gaining ``gain``: wealth is stored up to the sheet's storage and the
    rest stays in the pool's wealth slot for this turn; everything else joins the pool;
    a negative amount takes what there is (wealth in hand first)."""
    g = adjusted(gain, abilities)
    pool = [max(0, a + b) for a, b in zip(p.pool, g, strict=True)]
    wealth = max(0, p.wealth + p.pool[WEALTH] + g[WEALTH])
    stored = min(city_of(p).storage, wealth)
    pool[WEALTH] = wealth - stored
    return replace(p, pool=(pool[0], pool[1], pool[2], pool[3], pool[4], pool[5]), wealth=stored)


def spend(p: Player, resource: int) -> Player:
    """``p`` after spending one of ``resource``: wealth in hand before stored wealth."""
    pool = list(p.pool)
    if resource == WEALTH and not pool[WEALTH]:
        return replace(p, wealth=p.wealth - 1)
    pool[resource] -= 1
    return replace(p, pool=(pool[0], pool[1], pool[2], pool[3], pool[4], pool[5]))


def apply(
    p: Player, effect: Effect, abilities: Sequence[Ability], label: str, scope: Scope
) -> Player:
    """``p`` after a one-time effect; its abilities last for ``scope``."""
    p = add_gain(p, effect.gain, abilities)
    p = replace(
        p,
        roads_left=p.roads_left + effect.roads,
        builds=p.builds + (0,) * effect.build,
        wonders=p.wonders + (0,) * effect.wonder,
        bonus=p.bonus + (((label, effect.points),) if effect.points else ()),
    )
    if not effect.abilities:
        return p
    if scope == "turn":
        return replace(p, turn_abilities=p.turn_abilities + effect.abilities)
    return replace(p, abilities=p.abilities + effect.abilities)


def after_road(p: Player, e: Edge, abilities: Sequence[Ability]) -> Player:
    """Triggers of a road just drawn on ``e`` (already in ``p.roads``): road gains,
    then ring gains for each space it completes (the first ``limit`` rings)."""
    geometry = city_of(p).geometry
    kind = geometry.kind(e)
    for a in of_kind(abilities, "road_gain"):
        if edge_matches(a.where, kind):
            p = add_gain(p, a.gain, abilities)
    new_rings = [h for h in edge_hexes(e) if h in geometry.terrain and geometry.ringed(h, p.roads)]
    if not new_rings:
        return p
    before = ring_count(p) - len(new_rings)
    for k in range(before + 1, before + len(new_rings) + 1):
        for a in of_kind(abilities, "ring_gain"):
            if a.limit == 0 or k <= a.limit:
                p = add_gain(p, a.gain, abilities)
    return p


def after_build(p: Player, building: int, abilities: Sequence[Ability]) -> Player:
    """Triggers of a building just marked (abilities in force before it)."""
    for a in of_kind(abilities, "build_gain"):
        if a.building in (0, building):
            p = add_gain(p, a.gain, abilities)
    return p


def after_wonder(p: Player, abilities: Sequence[Ability]) -> Player:
    """Triggers of a wonder box just filled."""
    for a in of_kind(abilities, "wonder_gain"):
        p = add_gain(p, a.gain, abilities)
    return p


def ring_count(p: Player) -> int:
    """Spaces of ``p``'s map ringed by six roads."""
    geometry = city_of(p).geometry
    return sum(1 for h in geometry.terrain if geometry.ringed(h, p.roads))


def allowed(kind: str, abilities: Sequence[Ability], turn: int = 0) -> bool:
    """Whether a road may go on an edge of ``kind`` on ``turn``: water and cliff edges
    need an ``allow``; any ``forbid_road`` covering it (on that turn, when it lists
    ``turns``) wins."""
    for a in of_kind(abilities, "forbid_road"):
        if edge_matches(a.where, kind) and (not a.turns or turn in a.turns):
            return False
    if kind in ("water", "cliff"):
        return any(a.where == kind for a in of_kind(abilities, "allow"))
    return True


def payers(circle: str, abilities: Sequence[Ability]) -> frozenset[str]:
    """Resources that may cross off a circle of ``circle``: itself, an idea, or a
    ``substitute``."""
    subs = {a.pay for a in of_kind(abilities, "substitute") if a.resource == circle}
    return frozenset({circle, "idea", *subs})


def _index(resource: str) -> int:
    return RESOURCES.index(resource)
