"""What anyone at the table sees, as plain data: enough to draw every city sheet
as an SVG hex map (spaces in axial coordinates, terrain, roads, building marks,
X marks), the wonder, the tracks, the innovations, the shared dice, who is done and
each score item by item. Nothing is hidden in Roll Builder but the seed.

Shape (keys of the top level and of each ``players[i]``)::

    game, you, turn, turns, dice [a, b], rolls [[a, b], ...], over, awaiting [seat],
    event {id, name, target, text} | null, visionaries [{id, name, text, corner,
    claimed, goal}], players [...]
    player: seat, city {id, name, band}, done, dice_used [0|1], pool {resource: n},
      roads_left, builds [face|0], wonders [face|0], stored_wealth, storage,
      map {spaces [{q, r, terrain, partial, icon, name, effect, points, connected,
           marked, building (1-6 | null), ringed}], roads [[q1, r1, q2, r2]],
           start_roads, cliffs},
      buildings [{n, id, name, letter, effect}],
      wonder {name, rule, boxes [{index, n, row, col, after, grey, opens,
              available, filled, effect}]},
      innovations [{id, name, text, points, cost [{resource, paid}], discovered}],
      tracks {favor|strength: {values, crossed}}, specials [text], abilities,
      visionaries [id], score, items [{category, label, points}]

Hexes are pointy-top; an edge ``[q1, r1, q2, r2]`` is the side shared by hexes
``(q1, r1)`` and ``(q2, r2)``.
"""

from __future__ import annotations

from typing import Any

from engine.memo import FRESH, Memo
from engine.roll_builder.content import (
    CITIES,
    EVENTS,
    RESOURCES,
    VISIONARIES_BY_GOALS,
    Ability,
    Effect,
    Gains,
)
from engine.roll_builder.decide import box_open
from engine.roll_builder.effects import city_of
from engine.roll_builder.hexmap import Edge, Hex, network
from engine.roll_builder.legal import awaiting
from engine.roll_builder.model import TURNS, Player, State
from engine.roll_builder.scoring import items


def view(state: State, viewer: int | None, memo: Memo = FRESH) -> dict[str, Any]:
    """The table as plain data; the same for every viewer (the server adds who is asking).

    ``memo`` hands back the parts built from unchanged state parts (see engine.memo)."""
    event = EVENTS[state.event] if state.event else None
    return {
        "game": "roll-builder",
        "turn": state.turn,
        "turns": TURNS,
        "dice": list(state.dice),
        "rolls": [list(d) for d in state.rolls],
        "over": state.over,
        "awaiting": sorted(awaiting(state)),
        "event": None
        if event is None
        else {"id": event.id, "name": event.name, "target": event.target, "text": event.text},
        "visionaries": memo.part(
            "visionaries", _visionaries, state.visionaries, state.claimed, state.visionary_goals
        ),
        "players": [
            memo.part(("player", seat), _player, seat, p, state.event, memo)
            for seat, p in enumerate(state.players)
        ],
    }


def _visionaries(names: tuple[str, ...], claimed: Any, goals: str) -> list[dict[str, Any]]:
    cards = VISIONARIES_BY_GOALS[goals]
    return [
        {
            "id": v.id,
            "name": v.name,
            "text": v.text,
            "corner": v.corner,
            "claimed": v.id in claimed,
            "goal": {"metric": v.goal.metric, "at": v.goal.at},
        }
        for v in (cards[name] for name in names)
    ]


def gains_data(g: Gains) -> dict[str, int]:
    """Non-zero amounts by resource name."""
    return {r: n for r, n in zip(RESOURCES, g, strict=True) if n}


def ability_data(a: Ability) -> dict[str, Any]:
    """An ability's kind and the parameters it uses."""
    out: dict[str, Any] = {"kind": a.kind}
    for key in (
        "where",
        "building",
        "limit",
        "resource",
        "pay",
        "metric",
        "per",
        "points",
        "delta",
    ):
        value = getattr(a, key)
        if value not in ("any", 0, "", 1) or (key == "per" and a.kind == "end_points"):
            out[key] = value
    if any(a.gain):
        out["gain"] = gains_data(a.gain)
    if a.turns:
        out["turns"] = list(a.turns)
    if a.effect is not None:
        out["effect"] = effect_data(a.effect)
    return out


def effect_data(e: Effect | None) -> dict[str, Any] | None:
    """An effect as plain data, leaving out what it does not give."""
    if e is None:
        return None
    out: dict[str, Any] = {}
    if any(e.gain):
        out["gain"] = gains_data(e.gain)
    for key in ("roads", "build", "wonder", "points"):
        if getattr(e, key):
            out[key] = getattr(e, key)
    if e.abilities:
        out["abilities"] = [ability_data(a) for a in e.abilities]
    return out


def _player(seat: int, p: Player, event: str | None, memo: Memo = FRESH) -> dict[str, Any]:
    """One seat's sheet. Its larger parts come through ``memo`` by the player fields
    they read, so a die or a resource spent rebuilds (and the diff walks) neither the
    40-odd map spaces, the buildings, the wonder's boxes, the innovations nor the score."""
    city = city_of(p)
    metrics = (
        p.wonder,
        p.roads,
        p.buildings,
        p.marked,
        p.discovered,
        p.wealth,
        p.favor,
        p.strength,
    )
    score, lines = memo.keyed(("items", seat), (*metrics, p.bonus, p.abilities,
                              p.turn_abilities, event), lambda: _items(p, event))  # fmt: skip
    return {
        "seat": seat,
        "city": {"id": city.id, "name": city.name, "band": list(city.band)},
        "done": p.done,
        "dice_used": sorted(p.dice_used),
        "pool": gains_data(p.pool),
        "roads_left": p.roads_left,
        "builds": list(p.builds),
        "wonders": list(p.wonders),
        "stored_wealth": p.wealth,
        "storage": city.storage,
        "map": memo.part(("map", seat), _map, p.city, p.roads, p.marked, p.buildings),
        "buildings": memo.part(("buildings", seat), _buildings, p.city),
        "wonder": memo.keyed(("wonder", seat), metrics, lambda: _wonder(p)),
        "innovations": memo.part(("innovations", seat), _innovations, p.city, p.paid, p.discovered),
        "tracks": memo.part(("tracks", seat), _tracks, p.city, p.favor, p.strength),
        "specials": list(city.special_text),
        "abilities": memo.part(("abilities", seat), _abilities, p.abilities, p.turn_abilities),
        "visionaries": list(p.visionaries),
        "score": score,
        "items": lines,
    }


def _items(p: Player, event: str | None) -> tuple[int, list[dict[str, Any]]]:
    """The score and its lines."""
    scored = items(p, event)
    lines = [{"category": i.category, "label": i.label, "points": i.points} for i in scored]
    return sum(i.points for i in scored), lines


def _innovations(
    city_id: str, paid: frozenset[tuple[str, int]], discovered: tuple[str, ...]
) -> list[dict[str, Any]]:
    return [
        {
            "id": inv.id,
            "name": inv.name,
            "text": inv.text,
            "points": inv.points,
            "cost": [{"resource": r, "paid": (inv.id, i) in paid} for i, r in enumerate(inv.cost)],
            "discovered": inv.id in discovered,
        }
        for inv in CITIES[city_id].innovations
    ]


def _tracks(city_id: str, favor: int, strength: int) -> dict[str, Any]:
    city = CITIES[city_id]
    return {
        "favor": {"values": list(city.favor_track), "crossed": favor},
        "strength": {"values": list(city.strength_track), "crossed": strength},
    }


def _abilities(kept: tuple[Ability, ...], this_turn: tuple[Ability, ...]) -> list[dict[str, Any]]:
    return [ability_data(a) for a in (*kept, *this_turn)]


def _buildings(city_id: str) -> list[dict[str, Any]]:
    return [
        {"n": b.n, "id": b.id, "name": b.name, "letter": b.letter, "effect": effect_data(b.effect)}
        for b in CITIES[city_id].buildings
    ]


def _map(
    city_id: str,
    roads: frozenset[Edge],
    marked: frozenset[Hex],
    buildings: tuple[tuple[Hex, int], ...],
) -> dict[str, Any]:
    """The city's spaces and roads: from the player's roads, marks and buildings only."""
    city = CITIES[city_id]
    geometry = city.geometry
    reach = network(roads)
    built = dict(buildings)
    return {
        "spaces": [
            {
                "q": h[0],
                "r": h[1],
                "terrain": s.terrain,
                "partial": s.partial,
                "icon": s.icon,
                "name": s.name,
                "effect": effect_data(s.effect),
                "points": s.points,
                "connected": geometry.connected(h, reach),
                "marked": h in marked,
                "building": built.get(h),
                "ringed": geometry.ringed(h, roads),
            }
            for h, s in sorted(city.spaces.items())
        ],
        "roads": [list(e) for e in sorted(roads)],
        "start_roads": [list(e) for e in sorted(city.start_roads)],
        "cliffs": [list(e) for e in sorted(geometry.cliffs)],
    }


def _wonder(p: Player) -> dict[str, Any]:
    city = city_of(p)
    return {
        "name": city.wonder,
        "rule": city.wonder_rule,
        "boxes": [
            {
                "index": b.index,
                "n": b.n,
                "row": b.row,
                "col": b.col,
                "after": list(b.after),
                "grey": b.opens is not None,
                "opens": None if b.opens is None else {"metric": b.opens.metric, "at": b.opens.at},
                "available": b.index not in p.wonder and box_open(p, b.index),
                "filled": b.index in p.wonder,
                "effect": effect_data(b.effect),
            }
            for b in city.boxes
        ],
    }
