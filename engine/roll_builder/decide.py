"""Roll Builder's ``decide``: check a command against the rules, return its events.

Every refusal is a :mod:`engine.roll_builder.errors` rejection raised before any
event exists. The dice of the next turn are drawn here (from ``rng_for``) when the
last seat finishes a turn.
"""

from __future__ import annotations

from engine.core import rng_for
from engine.errors import GameOver, NotASeat
from engine.roll_builder import errors as err
from engine.roll_builder.content import FAVOR, RESOURCES, STRENGTH, VISIONARIES_BY_GOALS, WEALTH
from engine.roll_builder.effects import active, allowed, city_of, of_kind, payers
from engine.roll_builder.evolve import evolve
from engine.roll_builder.hexmap import Edge, are_neighbours, edge, network
from engine.roll_builder.model import (
    TURNS,
    Build,
    Built,
    Command,
    Convert,
    Converted,
    DieUsed,
    Discovered,
    Done,
    Event,
    FillWonder,
    GameEnded,
    MarkSpace,
    Paid,
    Pay,
    PlaceRoad,
    Player,
    RoadPlaced,
    Rolled,
    SpaceMarked,
    State,
    TurnFinished,
    UseDie,
    VisionaryCompleted,
    WonderFilled,
)
from engine.roll_builder.scoring import holds, metric


def decide(state: State, command: Command) -> tuple[Event, ...]:
    """The events ``command`` causes, or a rejection."""
    if state.over:
        raise GameOver("the game is over")
    seat = command.seat
    if not 0 <= seat < state.seats:
        raise NotASeat(f"no seat {seat} at this table", seat=seat)
    p = state.players[seat]
    if p.done:
        raise err.AlreadyDone("you are done for this turn; wait for the next roll")
    match command:
        case UseDie():
            return (_use_die(state, p, command),)
        case PlaceRoad(edge=raw):
            return (RoadPlaced(seat, _road(state, p, raw)),)
        case Build():
            return (_build(p, command),)
        case FillWonder():
            return (_fill(p, command),)
        case MarkSpace(space=space):
            return (_mark(p, seat, space),)
        case Pay():
            return _pay(state, p, command)
        case Convert():
            return (_convert(p, command),)
        case Done():
            return _done(state, seat)
    raise err.BadAction(f"not a Roll Builder command: {command!r}")  # pragma: no cover


def _use_die(state: State, p: Player, c: UseDie) -> DieUsed:
    if c.die not in (0, 1):
        raise err.NoSuchDie(f"die {c.die} does not exist; use 0 or 1")
    if c.die in p.dice_used:
        raise err.DieAlreadyUsed(f"die {c.die} is already used this turn")
    if c.action not in ("road", "build", "wonder"):
        raise err.BadAction(f"unknown action {c.action!r}")
    face = state.dice[c.die] + c.shift
    if c.shift:
        can = bool(of_kind(active(p, state.event), "die_shift")) and not p.shifted
        if c.shift not in (-1, 1) or not can or not 1 <= face <= 6:
            raise err.BadShift(f"cannot shift die {c.die} by {c.shift}")
    return DieUsed(c.seat, c.die, c.action, face, shifted=bool(c.shift))


def _road(state: State, p: Player, raw: tuple[int, int, int, int]) -> Edge:
    if p.roads_left <= 0:
        raise err.NoRoadsLeft("no roads left to place this turn")
    a, b = (raw[0], raw[1]), (raw[2], raw[3])
    geometry = city_of(p).geometry
    e = edge(a, b)
    if not are_neighbours(a, b) or e not in geometry.edges:
        raise err.NoSuchEdge(f"no available edge {list(raw)} on this sheet")
    if e in p.roads:
        raise err.RoadTaken("there is a road here already")
    kind = geometry.kind(e)
    if not allowed(kind, active(p, state.event), state.turn):
        raise err.RoadForbidden(f"roads may not be placed on {kind} edges", kind=kind)
    if not geometry.touches(e, network(p.roads)):
        raise err.NotConnected("a road must touch an existing road")
    return e


def _build(p: Player, c: Build) -> Built:
    if not 1 <= c.building <= 6:
        raise err.NoSuchBuilding(f"no building {c.building}")
    if c.building not in p.builds and 0 not in p.builds:
        raise err.NoBuildAction(f"no building action for building {c.building}")
    city = city_of(p)
    space = city.spaces.get(c.space)
    if space is None:
        raise err.NoSuchSpace(f"no space {list(c.space)}")
    if space.terrain != "land" or space.partial:
        raise err.NotBuildable("buildings go on full land spaces")
    if any(h == c.space for h, _ in p.buildings):
        raise err.SpaceTaken("this space has a building already")
    if not city.geometry.connected(c.space, network(p.roads)):
        raise err.NotConnected("the space is not connected to your roads")
    return Built(c.seat, c.space, c.building, bonus=c.building not in p.builds)


def _fill(p: Player, c: FillWonder) -> WonderFilled:
    boxes = city_of(p).boxes
    if not 0 <= c.box < len(boxes):
        raise err.NoSuchBox(f"no wonder box {c.box}")
    box = boxes[c.box]
    if c.box in p.wonder:
        raise err.BoxFilled("this box is filled already")
    if box.n not in p.wonders and 0 not in p.wonders:
        raise err.NoWonderAction(f"no wonder action for a box numbered {box.n}")
    if not box_open(p, c.box):
        raise err.BoxUnavailable("this box is not available yet")
    return WonderFilled(c.seat, c.box, bonus=box.n not in p.wonders)


def box_open(p: Player, index: int) -> bool:
    """Whether wonder box ``index`` may be filled now (ignoring actions)."""
    box = city_of(p).boxes[index]
    if any(i not in p.wonder for i in box.after):
        return False
    return box.opens is None or holds(p, box.opens)


def _mark(p: Player, seat: int, h: tuple[int, int]) -> SpaceMarked:
    city = city_of(p)
    space = city.spaces.get(h)
    if space is None:
        raise err.NoSuchSpace(f"no space {list(h)}")
    if space.effect is None:
        raise err.NothingToMark("nothing to gain on this space")
    if h in p.marked:
        raise err.AlreadyMarked("this space is marked already")
    if not city.geometry.connected(h, network(p.roads)):
        raise err.NotConnected("the space is not connected to your roads")
    return SpaceMarked(seat, h)


def _pay(state: State, p: Player, c: Pay) -> tuple[Event, ...]:
    inv = city_of(p).innovation(c.innovation)
    if inv is None:
        raise err.NoSuchInnovation(f"no innovation {c.innovation!r}")
    if not 0 <= c.circle < len(inv.cost):
        raise err.NoSuchCircle(f"{inv.name} has no circle {c.circle}")
    if (c.innovation, c.circle) in p.paid:
        raise err.CirclePaid("this circle is crossed off already")
    if c.resource not in payers(inv.cost[c.circle], active(p, state.event)):
        raise err.CannotPay(f"{c.resource!r} cannot pay a {inv.cost[c.circle]} circle")
    if not has(p, c.resource):
        raise err.NotEnough(f"no {c.resource} to spend")
    paid = Paid(c.seat, c.innovation, c.circle, c.resource)
    rest = [i for i in range(len(inv.cost)) if i != c.circle and (c.innovation, i) not in p.paid]
    return (paid,) if rest else (paid, Discovered(c.seat, c.innovation))


def has(p: Player, resource: str) -> bool:
    """Whether ``p`` can spend one ``resource`` now (wealth: stored or in hand)."""
    if resource not in RESOURCES:
        return False
    i = RESOURCES.index(resource)
    return p.pool[i] + (p.wealth if i == WEALTH else 0) > 0


TRACKS = {"favor": FAVOR, "strength": STRENGTH}


def room_on_track(p: Player, resource: str) -> int:
    """Spaces left on the ``favor`` or ``strength`` track."""
    city = city_of(p)
    if resource == "favor":
        return len(city.favor_track) - 1 - p.favor
    return len(city.strength_track) - 1 - p.strength


def _convert(p: Player, c: Convert) -> Converted:
    if c.resource not in TRACKS:
        raise err.NotConvertible(f"only favor and strength convert, not {c.resource!r}")
    if not 1 <= c.amount <= p.pool[TRACKS[c.resource]]:
        raise err.NotConvertible(f"you have {p.pool[TRACKS[c.resource]]} {c.resource} this turn")
    if c.amount > room_on_track(p, c.resource):
        raise err.TrackFull(
            f"the {c.resource} track has {room_on_track(p, c.resource)} spaces left"
        )
    return Converted(c.seat, c.resource, c.amount)


def _done(state: State, seat: int) -> tuple[Event, ...]:
    events: list[Event] = [TurnFinished(seat)]
    after = evolve(state, events[0])
    if not all(p.done for p in after.players):
        return tuple(events)
    events.extend(visionaries_reached(after))
    if state.turn >= TURNS:
        events.append(GameEnded())
    else:
        rng = rng_for(state.seed, state.draws)
        events.append(Rolled(state.turn + 1, (rng.randint(1, 6), rng.randint(1, 6))))
    return tuple(events)


def visionaries_reached(state: State) -> list[VisionaryCompleted]:
    """Seats completing a visionary for themselves at the end of this turn; the
    corner goes to all of them if nobody completed it on an earlier turn (never solo)."""
    out: list[VisionaryCompleted] = []
    cards = VISIONARIES_BY_GOALS[state.visionary_goals]
    for name in state.visionaries:
        v = cards[name]
        seats = [
            s for s, p in enumerate(state.players) if name not in p.visionaries and holds(p, v.goal)
        ]
        first = name not in state.claimed and state.seats > 1
        out.extend(VisionaryCompleted(s, name, v.corner if first else 0) for s in seats)
    return out


__all__ = ["box_open", "decide", "has", "metric", "visionaries_reached"]
