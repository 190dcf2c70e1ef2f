"""Roll Builder's ``create`` and ``evolve``: one small case per event, nothing drawn.

The consequences of an event that follow from the rules alone (gains, triggered
abilities, conversions) are applied here by the ability interpreter in
``effects.py``; ``decide`` has already checked that the event is allowed.
"""

from __future__ import annotations

from engine.frozen import replace
from engine.roll_builder.content import (
    CITIES,
    FAVOR,
    IDEA,
    NO_GAINS,
    RESOURCES,
    STRENGTH,
    VISIONARIES,
    Effect,
    Gains,
    single,
)
from engine.roll_builder.effects import (
    active,
    after_build,
    after_road,
    after_wonder,
    apply,
    city_of,
    spend,
)
from engine.roll_builder.model import (
    Built,
    Converted,
    DieUsed,
    Discovered,
    Event,
    GameEnded,
    Paid,
    Player,
    RoadPlaced,
    Rolled,
    SetUp,
    SpaceMarked,
    State,
    TurnFinished,
    VisionaryCompleted,
    WonderFilled,
)

TURN_BONUSES: dict[int, tuple[str, Effect]] = {
    5: ("Turn 5 bonus", Effect(gain=single(IDEA))),
    10: ("Turn 10 bonus", Effect(build=1)),
    15: ("Turn 15 bonus", Effect(wonder=1)),
}
"""After turns 5, 10 and 15: an idea, a building action, a wonder action. We hand
them out with that turn's roll, so they are spent within the turn."""


def create(setup: SetUp) -> State:
    """The first state: fresh sheets with their starting roads, turn 1 rolled."""
    players = tuple(Player(city=c, roads=CITIES[c].start_roads) for c in setup.cities)
    state = State(
        seats=setup.seats,
        players=players,
        event=setup.event,
        visionaries=setup.visionaries,
        claimed=frozenset(),
        seed=setup.seed,
        draws=1,  # draw 0 decided the setup
        turn=0,
        dice=setup.dice,
        visionary_goals=setup.visionary_goals,
    )
    return start_turn(state, 1, setup.dice)


def start_turn(state: State, turn: int, dice: tuple[int, int]) -> State:
    """Everyone gets fresh dice, the turn bonus and the event's gains for ``turn``."""
    state = replace(state, turn=turn, dice=dice, rolls=(*state.rolls, dice))
    for seat, p in enumerate(state.players):
        p = replace(p, done=False, dice_used=frozenset(), shifted=False)
        abilities = active(p, state.event)
        if turn in TURN_BONUSES:
            label, effect = TURN_BONUSES[turn]
            p = apply(p, effect, abilities, label, "turn")
        for a in abilities:
            if a.kind == "turn_gain" and turn in a.turns and a.effect is not None:
                p = apply(p, a.effect, abilities, f"Event, turn {turn}", "turn")
        state = state.put(seat, p)
    return state


def evolve(state: State, event: Event) -> State:
    """Apply one event."""
    match event:
        case SetUp():
            return create(event)
        case Rolled(turn=turn, dice=dice):
            return start_turn(replace(state, draws=state.draws + 1), turn, dice)
        case GameEnded():
            return replace(state, over=True)
        case VisionaryCompleted(seat=seat, visionary=name, corner=corner):
            return _visionary(state, seat, name, corner)
        case _:
            p = state.players[event.seat]
            return state.put(event.seat, _player(p, event, state.event))


def _player(p: Player, event: Event, ev: str | None) -> Player:
    abilities = active(p, ev)
    match event:
        case DieUsed(die=die, action=action, face=face, shifted=shifted):
            p = replace(p, dice_used=p.dice_used | {die}, shifted=p.shifted or shifted)
            if action == "road":
                return replace(p, roads_left=p.roads_left + face)
            if action == "build":
                return replace(p, builds=(*p.builds, face))
            return replace(p, wonders=(*p.wonders, face))
        case RoadPlaced(edge=e):
            p = replace(p, roads=p.roads | {e}, roads_left=p.roads_left - 1)
            return after_road(p, e, abilities)
        case Built(space=space, building=n, bonus=bonus):
            p = replace(
                p, builds=_spend(p.builds, 0 if bonus else n), buildings=(*p.buildings, (space, n))
            )
            p = after_build(p, n, abilities)
            b = city_of(p).building(n)
            return apply(p, b.effect, abilities, b.name, "turn")
        case WonderFilled(box=index, bonus=bonus):
            box = city_of(p).boxes[index]
            p = replace(
                p, wonders=_spend(p.wonders, 0 if bonus else box.n), wonder=p.wonder | {index}
            )
            p = apply(p, box.effect, abilities, f"Wonder box {index + 1}", "turn")
            return after_wonder(p, abilities)
        case SpaceMarked(space=space):
            p = replace(p, marked=p.marked | {space})
            effect = city_of(p).spaces[space].effect
            return apply(p, effect, abilities, "Map", "turn") if effect else p
        case Paid(innovation=ident, circle=circle, resource=resource):
            return _paid(replace(p, paid=p.paid | {(ident, circle)}), resource)
        case Discovered(innovation=ident):
            inv = city_of(p).innovation(ident)
            p = replace(p, discovered=(*p.discovered, ident))
            return apply(p, inv.effect, abilities, inv.name, "game") if inv else p
        case Converted(resource=resource, amount=amount):
            return _converted(p, resource, amount)
        case TurnFinished():
            return _finish(p)
    raise TypeError(f"not a Roll Builder event: {event!r}")  # pragma: no cover


def _spend(tokens: tuple[int, ...], face: int) -> tuple[int, ...]:
    i = tokens.index(face)
    return tokens[:i] + tokens[i + 1 :]


def _paid(p: Player, resource: str) -> Player:
    return spend(p, RESOURCES.index(resource))


def _converted(p: Player, resource: str, amount: int) -> Player:
    """Move ``amount`` from the pool onto the track, at once."""
    pool = list(p.pool)
    if resource == "favor":
        pool[FAVOR] -= amount
        return replace(p, pool=_gains(pool), favor=p.favor + amount)
    pool[STRENGTH] -= amount
    return replace(p, pool=_gains(pool), strength=p.strength + amount)


def _finish(p: Player) -> Player:
    city = city_of(p)
    return replace(
        p,
        favor=min(len(city.favor_track) - 1, p.favor + p.pool[FAVOR]),
        strength=min(len(city.strength_track) - 1, p.strength + p.pool[STRENGTH]),
        pool=NO_GAINS,
        roads_left=0,
        builds=(),
        wonders=(),
        turn_abilities=(),
        done=True,
    )


def _visionary(state: State, seat: int, name: str, corner: int) -> State:
    v = VISIONARIES[name]
    p = state.players[seat]
    p = replace(
        p,
        visionaries=(*p.visionaries, name),
        bonus=p.bonus + (((f"{v.name} (first)", corner),) if corner else ()),
    )
    p = apply(p, v.bonus, active(p, state.event), v.name, "game")
    return replace(state.put(seat, p), claimed=state.claimed | {name})


def _gains(g: list[int]) -> Gains:
    return (g[0], g[1], g[2], g[3], g[4], g[5])
