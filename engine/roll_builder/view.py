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

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from engine.core import Touch, touch
from engine.memo import FRESH, Memo
from engine.roll_builder.content import (
    CITIES,
    EVENTS,
    RESOURCES,
    VISIONARIES_BY_GOALS,
    Ability,
    Box,
    Effect,
    Gains,
    Innovation,
    Space,
)
from engine.roll_builder.decide import box_open
from engine.roll_builder.effects import city_of, spaces_in_order
from engine.roll_builder.hexmap import Edge, Hex, network
from engine.roll_builder.legal import awaiting
from engine.roll_builder.model import (
    TURNS,
    Built,
    Converted,
    DieUsed,
    Discovered,
    GameEnded,
    Paid,
    Player,
    RoadPlaced,
    Rolled,
    SpaceMarked,
    State,
    TurnFinished,
    VisionaryCompleted,
    WonderFilled,
)
from engine.roll_builder.scoring import items


def _event(state: State) -> dict[str, Any] | None:
    event = EVENTS[state.event] if state.event else None
    if event is None:
        return None
    return {"id": event.id, "name": event.name, "target": event.target, "text": event.text}


def _players(state: State, memo: Memo) -> list[dict[str, Any]]:
    return [seat_view(state, seat, memo) for seat in range(len(state.players))]


Part = Callable[[State, Memo], Any]

PARTS: dict[str, Part] = {
    "game": lambda state, memo: "roll-builder",
    "turn": lambda state, memo: state.turn,
    "turns": lambda state, memo: TURNS,
    "dice": lambda state, memo: list(state.dice),
    "rolls": lambda state, memo: [list(d) for d in state.rolls],
    "over": lambda state, memo: state.over,
    "awaiting": lambda state, memo: sorted(awaiting(state)),
    "event": lambda state, memo: _event(state),
    "visionaries": lambda state, memo: memo.part(
        "visionaries", _visionaries, state.visionaries, state.claimed, state.visionary_goals
    ),
    "players": _players,
}
"""Each top-level key of the view and how it is built (the view is all of them)."""


def view(state: State, viewer: int | None, memo: Memo = FRESH) -> dict[str, Any]:
    """The table as plain data; the same for every viewer (the server adds who is asking).

    ``memo`` hands back the parts built from unchanged state parts (see engine.memo)."""
    return {key: build(state, memo) for key, build in PARTS.items()}


def view_part(state: State, key: str, memo: Memo = FRESH) -> Any:
    """The view's ``key`` alone."""
    return PARTS[key](state, memo)


def seat_view(state: State, seat: int, memo: Memo = FRESH) -> dict[str, Any]:
    """The view's ``players[seat]`` alone."""
    return memo.part(("player", seat), _player, seat, state.players[seat], state.event, memo)


OWN_SHEET = touch(seats="event", legal="event")
"""A move on one's own sheet: that sheet, and its owner's legal commands (another
seat's commands read only their own sheet, the dice, the turn and the event)."""

TOUCHES: dict[type, Touch] = {
    Rolled: touch("turn", "dice", "rolls", "awaiting", seats="every"),
    GameEnded: touch("over", "awaiting"),
    VisionaryCompleted: touch("visionaries", seats="event", legal="event"),
    TurnFinished: touch("awaiting", seats="event", legal="event"),
    DieUsed: OWN_SHEET,
    RoadPlaced: OWN_SHEET,
    Built: OWN_SHEET,
    WonderFilled: OWN_SHEET,
    SpaceMarked: OWN_SHEET,
    Paid: OWN_SHEET,
    Discovered: OWN_SHEET,
    Converted: OWN_SHEET,
}
"""What each event may change in the view, and whose legal commands."""


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
        "city": memo.part(("city", seat), _city, p.city),
        "done": p.done,
        "dice_used": sorted(p.dice_used),
        "pool": gains_data(p.pool),
        "roads_left": p.roads_left,
        "builds": list(p.builds),
        "wonders": list(p.wonders),
        "stored_wealth": p.wealth,
        "storage": city.storage,
        "map": memo.part(("map", seat), _map, p.city, p.roads, p.marked, p.buildings, seat, memo),
        "buildings": memo.part(("buildings", seat), _buildings, p.city),
        "wonder": memo.keyed(("wonder", seat), metrics, lambda: _wonder(p, seat, memo)),
        "innovations": memo.part(
            ("innovations", seat), _innovations, p.city, p.paid, p.discovered, seat, memo
        ),
        "tracks": memo.part(("tracks", seat), _tracks, p.city, p.favor, p.strength),
        "specials": memo.part(("specials", seat), _specials, p.city),
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
    city_id: str,
    paid: frozenset[tuple[str, int]],
    discovered: tuple[str, ...],
    seat: int = 0,
    memo: Memo = FRESH,
) -> list[dict[str, Any]]:
    """The city's innovations; each through ``memo`` by its circles paid and whether it is
    discovered, so a payment rebuilds (and the diff walks) only its own innovation."""
    out = []
    for inv in CITIES[city_id].innovations:
        shown = (*((inv.id, i) in paid for i in range(len(inv.cost))), inv.id in discovered)
        out.append(
            memo.keyed(("innovation", seat, inv.id), shown, partial(_innovation, inv, shown))
        )
    return out


def _innovation(inv: Innovation, shown: tuple[bool, ...]) -> dict[str, Any]:
    """One innovation; ``shown``: each circle paid, then whether it is discovered."""
    return {
        "id": inv.id,
        "name": inv.name,
        "text": inv.text,
        "points": inv.points,
        "cost": [{"resource": r, "paid": shown[i]} for i, r in enumerate(inv.cost)],
        "discovered": shown[-1],
    }


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


def _city(city_id: str) -> dict[str, Any]:
    city = CITIES[city_id]
    return {"id": city.id, "name": city.name, "band": list(city.band)}


def _specials(city_id: str) -> list[str]:
    return list(CITIES[city_id].special_text)


def _edges(edges: Iterable[Edge]) -> list[list[int]]:
    return [list(e) for e in sorted(edges)]


def _map(
    city_id: str,
    roads: frozenset[Edge],
    marked: frozenset[Hex],
    buildings: tuple[tuple[Hex, int], ...],
    seat: int = 0,
    memo: Memo = FRESH,
) -> dict[str, Any]:
    """The city's spaces and roads: from the player's roads, marks and buildings only.
    Each space comes through ``memo`` by what it shows that moves (connected, marked,
    building, ringed), so a road rebuilds, and the diff walks, only the spaces it
    changed; which spaces the roads reach and ring comes through ``memo`` by the roads,
    so a mark or a building does not work them out again."""
    city = CITIES[city_id]
    built = dict(buildings)
    reached = memo.part(("reached", seat), _reached, city_id, roads)
    spaces = []
    for (h, space), (connected, ringed) in zip(spaces_in_order(city_id), reached, strict=True):
        shown = (connected, h in marked, built.get(h), ringed)
        spaces.append(memo.keyed(("space", seat, h), shown, partial(_space, h, space, *shown)))
    return {
        "spaces": spaces,
        "roads": _edges(roads),
        "start_roads": memo.part(("start roads", seat), _edges, city.start_roads),
        "cliffs": memo.part(("cliffs", seat), _edges, city.geometry.cliffs),
    }


def _reached(city_id: str, roads: frozenset[Edge]) -> tuple[tuple[bool, bool], ...]:
    """For each space in :func:`sorted_spaces` order: whether a road touches it, and
    whether six roads ring it."""
    geometry = CITIES[city_id].geometry
    reach = network(roads)
    return tuple(
        (geometry.connected(h, reach), geometry.ringed(h, roads))
        for h, _ in spaces_in_order(city_id)
    )


def _space(
    h: Hex, s: Space, connected: bool, marked: bool, building: int | None, ringed: bool
) -> dict[str, Any]:
    return {
        "q": h[0],
        "r": h[1],
        "terrain": s.terrain,
        "partial": s.partial,
        "icon": s.icon,
        "name": s.name,
        "effect": effect_data(s.effect),
        "points": s.points,
        "connected": connected,
        "marked": marked,
        "building": building,
        "ringed": ringed,
    }


def _wonder(p: Player, seat: int = 0, memo: Memo = FRESH) -> dict[str, Any]:
    """The wonder sheet; each box through ``memo`` by whether it is open and filled."""
    city = city_of(p)
    boxes = []
    for b in city.boxes:
        shown = (b.index not in p.wonder and box_open(p, b.index), b.index in p.wonder)
        boxes.append(memo.keyed(("box", seat, b.index), shown, partial(_box, b, *shown)))
    return {"name": city.wonder, "rule": city.wonder_rule, "boxes": boxes}


def _box(b: Box, available: bool, filled: bool) -> dict[str, Any]:
    return {
        "index": b.index,
        "n": b.n,
        "row": b.row,
        "col": b.col,
        "after": list(b.after),
        "grey": b.opens is not None,
        "opens": None if b.opens is None else {"metric": b.opens.metric, "at": b.opens.at},
        "available": available,
        "filled": filled,
        "effect": effect_data(b.effect),
    }
