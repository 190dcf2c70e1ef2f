"""What a seat may do now: concrete legal commands, who is awaited, clock timeouts.

``legal_commands`` lists exactly the commands ``decide`` accepts (a property test
checks it): every die use, every road edge, building space, wonder box, mark and
cost circle reachable now, and ``Done``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from engine.roll_builder.content import CITIES, RESOURCES, Ability
from engine.roll_builder.decide import TRACKS, box_open, has, room_on_track
from engine.roll_builder.effects import active, allowed, city_of, of_kind, payers
from engine.roll_builder.hexmap import EDGE_KINDS, network
from engine.roll_builder.model import (
    Build,
    Command,
    Convert,
    Done,
    FillWonder,
    MarkSpace,
    Pay,
    PlaceRoad,
    Player,
    State,
    UseDie,
)


def legal_commands(state: State, seat: int) -> list[Command]:
    """Every command ``seat`` may send now; empty when it is not awaited."""
    if state.over or not 0 <= seat < state.seats or state.players[seat].done:
        return []
    p = state.players[seat]
    abilities = active(p, state.event)
    return [
        *_dice(state, p, seat, abilities),
        *_roads(state, p, seat, abilities),
        *_builds(p, seat),
        *_wonder(p, seat),
        *_marks(p, seat),
        *_pays(p, seat, abilities),
        *_converts(p, seat),
        Done(seat),
    ]


def awaiting(state: State) -> frozenset[int]:
    """Seats not yet done with the turn (their clocks run)."""
    if state.over:
        return frozenset()
    return frozenset(s for s, p in enumerate(state.players) if not p.done)


def timeout_command(state: State, seat: int) -> Done | None:
    """A seat whose clock runs out is done: unused dice and pool are forfeited."""
    return Done(seat) if seat in awaiting(state) else None


def _dice(state: State, p: Player, seat: int, abilities: Sequence[Ability]) -> list[Command]:
    shifts = [0]
    if of_kind(abilities, "die_shift") and not p.shifted:
        shifts = [0, -1, 1]
    out: list[Command] = []
    for die in (0, 1):
        if die in p.dice_used:
            continue
        for shift in shifts:
            if 1 <= state.dice[die] + shift <= 6:
                out.extend(
                    UseDie(seat, die, action, shift) for action in ("road", "build", "wonder")
                )
    return out


def _roads(state: State, p: Player, seat: int, abilities: Sequence[Ability]) -> list[Command]:
    if p.roads_left <= 0:
        return []
    geometry = city_of(p).geometry
    reach = network(p.roads)
    ok = {kind: allowed(kind, abilities, state.turn) for kind in EDGE_KINDS}
    kinds = geometry.kinds
    free = geometry.reachable(reach) - p.roads
    return [PlaceRoad(seat, e) for e in sorted(free) if ok[kinds[e]]]


def buildable(p: Player) -> list[tuple[int, int]]:
    """Connected full land spaces without a building."""
    city = city_of(p)
    reach = network(p.roads)
    taken = {h for h, _ in p.buildings}
    return [
        h
        for h, s in sorted(city.spaces.items())
        if s.terrain == "land"
        and not s.partial
        and h not in taken
        and city.geometry.connected(h, reach)
    ]


def _builds(p: Player, seat: int) -> list[Command]:
    if not p.builds:
        return []
    numbers = range(1, 7) if 0 in p.builds else sorted(set(p.builds))
    return [Build(seat, h, n) for h in buildable(p) for n in numbers]


def _wonder(p: Player, seat: int) -> list[Command]:
    if not p.wonders:
        return []
    return [
        FillWonder(seat, box.index)
        for box in city_of(p).boxes
        if box.index not in p.wonder
        and (0 in p.wonders or box.n in p.wonders)
        and box_open(p, box.index)
    ]


def _marks(p: Player, seat: int) -> list[Command]:
    city = city_of(p)
    reach = network(p.roads)
    return [
        MarkSpace(seat, h)
        for h in marked_spaces(city.id)
        if h not in p.marked and city.geometry.connected(h, reach)
    ]


@cache
def marked_spaces(city_id: str) -> tuple[tuple[int, int], ...]:
    """The spaces of a city that can be marked (they have an effect), in order."""
    return tuple(h for h, s in sorted(CITIES[city_id].spaces.items()) if s.effect is not None)


def _pays(p: Player, seat: int, abilities: Sequence[Ability]) -> list[Command]:
    spendable = [r for r in RESOURCES if has(p, r)]
    out: list[Command] = []
    ok: dict[str, frozenset[str]] = {}
    for inv in city_of(p).innovations:
        for circle, cost in enumerate(inv.cost):
            if (inv.id, circle) in p.paid:
                continue
            if cost not in ok:
                ok[cost] = payers(cost, abilities)
            out.extend(Pay(seat, inv.id, circle, r) for r in spendable if r in ok[cost])
    return out


def _converts(p: Player, seat: int) -> list[Command]:
    out: list[Command] = []
    for resource, i in TRACKS.items():
        most = min(p.pool[i], room_on_track(p, resource))
        out.extend(Convert(seat, resource, n) for n in range(1, most + 1))
    return out
