"""Metrics (the counts conditions refer to), the end-of-game score item by item, the result.

Categories follow the rulebook's Scoring section: buildings, road network,
innovations, resources, wonder, bonus.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from engine.core import Result
from engine.roll_builder.content import EVENTS, Ability, Condition
from engine.roll_builder.effects import active, city_of, of_kind, ring_count, spaces_in_order
from engine.roll_builder.hexmap import Hex, neighbours, network
from engine.roll_builder.model import Player, State

CATEGORIES: tuple[str, ...] = ("buildings", "roads", "innovations", "resources", "wonder", "bonus")


@attrs.frozen
class Item:
    """One scored line: its category, what it is and its points."""

    category: str
    label: str
    points: int


def metric(p: Player, name: str) -> int:
    """The value of metric ``name`` (see ``content.METRICS``) for ``p``."""
    match name:
        case "buildings":
            return len(p.buildings)
        case "roads":
            return len(p.roads)
        case "coast_cliff_roads":
            geometry = city_of(p).geometry
            return sum(1 for e in p.roads if geometry.kind(e) in ("coast", "cliff"))
        case "rings":
            return ring_count(p)
        case "innovations":
            return len(p.discovered)
        case "wonder_boxes":
            return len(p.wonder)
        case "wonder_points":
            boxes = city_of(p).boxes
            return sum(boxes[i].effect.points for i in p.wonder)
        case "stored_wealth":
            return p.wealth
        case "converted_favor":
            return p.favor
        case "converted_strength":
            return p.strength
        case "building_cluster":
            return largest_cluster(p.buildings)
        case "marked":
            return len(p.marked)
    raise ValueError(f"unknown metric {name!r}")  # pragma: no cover (validated content)


def holds(p: Player, condition: Condition) -> bool:
    """Whether ``p`` has reached ``condition``."""
    return metric(p, condition.metric) >= condition.at


def largest_cluster(buildings: Sequence[tuple[Hex, int]]) -> int:
    """Size of the largest group of adjacent spaces holding the same building."""
    kind = dict(buildings)
    seen: set[Hex] = set()
    best = 0
    for start in kind:
        if start in seen:
            continue
        group, frontier = {start}, [start]
        while frontier:
            h = frontier.pop()
            for n in neighbours(h):
                if n not in group and kind.get(n) == kind[start]:
                    group.add(n)
                    frontier.append(n)
        seen |= group
        best = max(best, len(group))
    return best


def items(p: Player, event: str | None) -> list[Item]:
    """Every scored line of ``p``'s city, in rulebook order."""
    city = city_of(p)
    abilities = active(p, event)
    out = [Item("buildings", "Building marks", len(p.buildings))]
    reach = network(p.roads)
    for h, space in spaces_in_order(city.id):
        if space.points and city.geometry.connected(h, reach):
            out.append(Item("roads", f"Space {h[0]},{h[1]}", space.points))
    rings = None  # counted only for a ring_points ability
    for a in of_kind(abilities, "ring_points"):
        rings = ring_count(p) if rings is None else rings
        out.append(Item("roads", f"Ringed spaces ({rings})", rings * a.points))
    for ident in p.discovered:
        inv = city.innovation(ident)
        if inv is not None:
            out.append(Item("innovations", inv.name, inv.points))
    out.append(Item("resources", f"Stored wealth ({p.wealth})", p.wealth // 2))
    out.append(Item("resources", f"Favor track ({p.favor})", city.favor_track[p.favor]))
    out.append(Item("resources", f"Strength track ({p.strength})", city.strength_track[p.strength]))
    out.append(Item("wonder", "Wonder boxes", len(p.wonder)))
    out.extend(Item("bonus", label, points) for label, points in p.bonus)
    out.extend(_end_points(p, abilities))
    return [i for i in out if i.points or i.category in ("buildings", "wonder")]


def _end_points(p: Player, abilities: Sequence[Ability]) -> list[Item]:
    out = []
    for a in of_kind(abilities, "end_points"):
        value = metric(p, a.metric)
        out.append(
            Item("bonus", f"{a.points} per {a.per} {a.metric} ({value})", value // a.per * a.points)
        )
    return out


def total(p: Player, event: str | None) -> int:
    """``p``'s score."""
    return sum(i.points for i in items(p, event))


def by_category(p: Player, event: str | None) -> dict[str, int]:
    """``p``'s score per category."""
    out = dict.fromkeys(CATEGORIES, 0)
    for i in items(p, event):
        out[i.category] += i.points
    return out


def result(state: State) -> Result | None:
    """Scores item by item; solo with an event: won only if the city survives."""
    if not state.over:
        return None
    scores = tuple(total(p, state.event) for p in state.players)
    detail: dict[str, Any] = {
        "categories": [by_category(p, state.event) for p in state.players],
        "items": [
            [[i.category, i.label, i.points] for i in items(p, state.event)] for p in state.players
        ],
        "groups": {"city": [p.city for p in state.players]},
        "rates": {
            "visionary": {v: [v in p.visionaries for p in state.players] for v in state.visionaries}
        },
    }
    if state.seats == 1 and state.event is not None:
        target = EVENTS[state.event].target
        survived = scores[0] > target
        detail.update(event=state.event, target=target, survived=survived)
        detail["groups"]["event"] = [state.event]
        detail["survived_by_seat"] = [survived]
        return Result(scores, (0,) if survived else (), detail)
    best = max(scores)
    return Result(scores, tuple(s for s, v in enumerate(scores) if v == best), detail)
