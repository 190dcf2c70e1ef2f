"""The load-time content check: nothing is dealt where it cannot work.

The rulebook says a Visionary or an Event that "does not work with a specific map"
should not be played with it ("adjust set-up as necessary"). We check it once, when
the content loads, so no table can ever be dealt a dead card:

* every visionary's goal (as printed, and our harder one if it has one) is reachable
  on every city it can be dealt with, with no event and with every event that city
  can be dealt;
* every event is playable with every city it can be dealt with: no ability of the
  city (a road gain, an ``allow``) is switched off for the whole game, every grey
  wonder box can still open, every resource an innovation's cost circle asks for can
  still be gained.

"Reachable" uses upper bounds (:func:`bounds`), each the most a city sheet allows
of a metric: a goal above its bound can never be met, whatever the dice. A failing
pair raises :class:`~engine.roll_builder.content.loader.ContentError` naming both.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from engine.roll_builder.content.loader import fail
from engine.roll_builder.content.shapes import (
    RESOURCES,
    Ability,
    City,
    Condition,
    Effect,
    GameEvent,
    Visionary,
    edge_matches,
)
from engine.roll_builder.hexmap import Hex, neighbours, space_edges


def _effects(city: City) -> Iterator[Effect]:
    """Every one-time effect printed on the sheet."""
    yield from (s.effect for s in city.spaces.values() if s.effect is not None)
    yield from (b.effect for b in city.buildings)
    yield from (b.effect for b in city.boxes)
    yield from (i.effect for i in city.innovations)


def city_abilities(city: City) -> list[Ability]:
    """Every ability the sheet can put in force (specials, innovations, effects)."""
    out = list(city.specials)
    out += [i.ability for i in city.innovations if i.ability is not None]
    for e in _effects(city):
        out += e.abilities
    return out


def blocked(kind: str, event: GameEvent | None) -> bool:
    """Whether ``event`` forbids roads on edges of ``kind`` for the whole game."""
    forbids = event.abilities if event else ()
    return any(
        a.kind == "forbid_road" and not a.turns and edge_matches(a.where, kind) for a in forbids
    )


def drawable(city: City, event: GameEvent | None) -> set[str]:
    """Edge kinds a road may ever be drawn on (water and cliff need an ``allow``)."""
    allows = {a.where for a in city_abilities(city) if a.kind == "allow"}
    kinds = {"land", "coast", *(allows & {"water", "cliff"})}
    return {k for k in kinds if not blocked(k, event)}


def _cluster(city: City) -> int:
    land = {h for h, s in city.spaces.items() if s.terrain == "land" and not s.partial}
    best, seen = 0, set[Hex]()
    for start in land:
        if start in seen:
            continue
        group, frontier = {start}, [start]
        while frontier:
            for n in neighbours(frontier.pop()):
                if n in land and n not in group:
                    group.add(n)
                    frontier.append(n)
        seen |= group
        best = max(best, len(group))
    return best


def bounds(city: City, event: GameEvent | None = None) -> dict[str, int]:
    """The most of every metric (``content.METRICS``) the sheet allows."""
    g = city.geometry
    kinds = drawable(city, event)
    edges = {e for e in g.edges if g.kind(e) in kinds}
    full = [h for h in g.terrain if h not in g.partial]
    return {
        "buildings": sum(1 for h in full if city.spaces[h].terrain == "land"),
        "roads": len(edges | city.start_roads),
        "coast_cliff_roads": sum(1 for e in edges if g.kind(e) in ("coast", "cliff")),
        "rings": sum(1 for h in full if all(e in edges for e in space_edges(h))),
        "innovations": len(city.innovations),
        "wonder_boxes": len(city.boxes),
        "wonder_points": sum(b.effect.points for b in city.boxes),
        "stored_wealth": city.storage,
        "converted_favor": len(city.favor_track) - 1,
        "converted_strength": len(city.strength_track) - 1,
        "building_cluster": _cluster(city),
        "marked": sum(1 for s in city.spaces.values() if s.effect is not None),
    }


def reachable(goal: Condition, city: City, event: GameEvent | None = None) -> bool:
    """Whether ``goal`` can be met on ``city`` (under ``event``)."""
    return goal.at <= bounds(city, event)[goal.metric]


def _gainable(city: City, event: GameEvent | None) -> set[str]:
    """Resources some gain on the sheet still yields under the event's adjustments."""
    adjust = {
        a.resource: a.delta for a in (event.abilities if event else ()) if a.kind == "gain_adjust"
    }
    gains = [e.gain for e in _effects(city)]
    gains += [a.gain for a in city_abilities(city)]
    gains += [a.effect.gain for a in (event.abilities if event else ()) if a.effect is not None]
    return {
        r
        for i, r in enumerate(RESOURCES)
        if any(gain[i] > 0 and gain[i] + adjust.get(r, 0) > 0 for gain in gains)
    }


def playable(city: City, event: GameEvent) -> list[str]:
    """What ``event`` breaks on ``city``; empty when they go together."""
    problems = []
    kinds = drawable(city, event)
    for a in city_abilities(city):
        if a.kind in ("road_gain", "allow") and not any(edge_matches(a.where, k) for k in kinds):
            problems.append(f"its {a.kind} on {a.where} edges can never trigger")
    for box in city.boxes:
        if box.opens is not None and not reachable(box.opens, city, event):
            problems.append(f"wonder box {box.index + 1} can never open")
    have = _gainable(city, event)
    for inv in city.innovations:
        missing = [] if "idea" in have else sorted(set(inv.cost) - have)  # an idea pays any
        if missing:
            problems.append(f"{inv.name} needs {missing}, which cannot be gained")
    return problems


def check_content(
    cities: Mapping[str, City],
    events: Mapping[str, GameEvent],
    visionaries: Mapping[str, Visionary],
) -> None:
    """Raise ContentError for the first card dealt where it cannot work."""
    listed: list[GameEvent | Visionary] = [*events.values(), *visionaries.values()]
    for card in listed:
        for c in card.cities:
            if c not in cities:
                raise fail(f"{card.id}.cities", f"unknown city {c!r}")
    for city in cities.values():
        dealt: Sequence[GameEvent | None] = [
            None,
            *(e for e in events.values() if e.fits(city.id)),
        ]
        for ev in dealt[1:]:
            assert ev is not None
            problems = playable(city, ev)
            if problems:
                raise fail(f"events.json:{ev.id}", f"not playable with {city.id}: {problems[0]}")
        for v in visionaries.values():
            if not v.fits(city.id):
                continue
            for goal in [g for g in (v.goal, v.hard_goal) if g is not None]:
                for ev in dealt:
                    if not reachable(goal, city, ev):
                        with_event = f" with event {ev.id}" if ev else ""
                        raise fail(
                            f"visionaries.json:{v.id}",
                            f"goal {goal.metric} {goal.at} unreachable on {city.id}{with_event}"
                            f" (at most {bounds(city, ev)[goal.metric]})",
                        )
