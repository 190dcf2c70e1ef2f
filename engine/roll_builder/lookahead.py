"""Roll Builder's ``lookahead`` bot: every choice tried on a copy of the state.

Two parts, both pure and working on the state (no views, so a trial is cheap):

* :func:`quick`, a one-step policy that reads the state: it marks spaces, builds and
  fills boxes first, draws the road that connects the most, and pays a cost circle
  only when what it gives (a share of the innovation's points and ability) is worth
  more than what the resource would be worth kept (:func:`worth`: favor and
  strength go onto their tracks, whose later spaces score more; food, supplies and
  ideas are lost at the turn's end).
* :func:`search`, the bot: at every choice that matters (both dice, a building,
  a wonder box, a cost circle, a conversion, finishing the turn) it plays each
  candidate on a copy, lets :func:`quick` finish the turn, ends the turn there and
  values the city (:func:`value`); roads and marks, many and alike, it leaves to
  :func:`quick`. While a die is unused a candidate is a whole plan for both dice (the
  nine pairs of actions, plus the die shifts it may use).

:func:`value` is the city's score plus what the score does not yet count, fading to
nothing by turn 15: innovations paid in part, the favor and strength tracks' later
spaces (a track is worth its average space, not its first ones, to a city that will
fill it), room to build and the way to each visionary's goal; plus each visionary
whose goal the city meets when the turn ends (its corner points and bonus).

The copy never rolls the next turn's dice, so the bot plans only with what its seat
sees. Through the plain Policy call (a host that has only the view) it plays
``greedy`` (see :class:`engine.core.SearchBot`); the server's rooms hand it the state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import attrs

from engine.core import SearchBot
from engine.errors import Rejection
from engine.roll_builder.bots import greedy_policy
from engine.roll_builder.content import RESOURCES, VISIONARIES_BY_GOALS, WEALTH, Condition, Effect
from engine.roll_builder.decide import box_open, decide, room_on_track
from engine.roll_builder.effects import city_of
from engine.roll_builder.evolve import evolve
from engine.roll_builder.hexmap import edge_vertices, network
from engine.roll_builder.legal import buildable, legal_commands
from engine.roll_builder.model import (
    TURNS,
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
    TurnFinished,
    UseDie,
)
from engine.roll_builder.scoring import holds, metric, total
from engine.roll_builder.search import _plans

PROGRESS = 0.7
"""Worth of an innovation's points (plus :data:`ABILITY`) per share of circles paid."""
ABILITY = 2.0
"""Worth of an innovation's ability (or one-time effect) beyond its points."""
TRACK = 1.0
"""Share of a track's average space credited to the spaces already crossed."""
ROOM = 0.3
"""Worth of each connected free land space (room to build), up to :data:`ROOM_CAP`."""
ROOM_CAP = 6
GOAL = 1.0
"""Share of a visionary's worth credited for the way to its goal (squared share)."""
COAST = 1.0
"""Worth of a coast or cliff road to :func:`quick` while a goal counts them."""
ROADS = 3
"""Roads :func:`search` tries itself at a road choice (the best by :func:`quick`'s
measure); the rest of the turn is left to :func:`quick` either way."""


def track_worth(track: Sequence[int]) -> float:
    """A track's average space: what each resource crossed onto it is worth to a city
    that fills it."""
    return track[-1] / (len(track) - 1) if len(track) > 1 else 0.0


def worth(p: Player) -> tuple[float, ...]:
    """What one of each resource (indexed like ``RESOURCES``) is worth to ``p`` this
    turn if not spent on a cost circle: food, supplies and ideas are lost at the
    turn's end, wealth is stored (half a point) while a circle is free, favor and
    strength go onto their tracks while they have room."""
    city = city_of(p)
    stored = 0.5 if p.wealth < city.storage else 0.0
    favor = track_worth(city.favor_track) if room_on_track(p, "favor") else 0.0
    strength = track_worth(city.strength_track) if room_on_track(p, "strength") else 0.0
    return (0.0, 0.0, stored, favor, strength, 0.0)


def effect_worth(effect: Effect | None, w: Sequence[float]) -> float:
    """A rough worth in points of a one-time effect (resources at their use value)."""
    if effect is None:
        return 0.0
    use = [max(x, 0.6) for x in w]  # a gain can pay a circle even when it cannot be kept
    use[RESOURCES.index("idea")] = 1.5
    value = sum(n * x for n, x in zip(effect.gain, use, strict=True))
    value += 0.5 * effect.roads + 2.0 * (effect.build + effect.wonder) + effect.points
    return value + 1.0 * len(effect.abilities)


def value(state: State, seat: int) -> float:
    """``seat``'s score now plus what it has built toward, fading to 0 by the end, and
    the visionaries its city meets now (checked when the turn ends)."""
    p = state.players[seat]
    score = float(total(p, state.event)) + visions(state, seat)
    left = max(0, TURNS - state.turn) / TURNS
    if not left:
        return score
    city = city_of(p)
    progress = 0.0
    for inv in city.innovations:
        if inv.id not in p.discovered:
            paid = sum(1 for i in range(len(inv.cost)) if (inv.id, i) in p.paid)
            progress += paid / len(inv.cost) * (inv.points + ABILITY)
    tracks = 0.0
    for track, crossed in ((city.favor_track, p.favor), (city.strength_track, p.strength)):
        tracks += max(0.0, crossed * track_worth(track) - track[crossed])
    room = min(ROOM_CAP, len(buildable(p)))
    potential = PROGRESS * progress + TRACK * tracks + ROOM * room
    return score + left * (potential + GOAL * visions(state, seat, partial=True))


def visions(state: State, seat: int, partial: bool = False) -> float:
    """The worth of the goals ``seat`` has not met yet (:func:`goals`): the visionaries
    its city meets now, or with ``partial`` the squared share of the way to each goal
    it does not meet."""
    p = state.players[seat]
    out = 0.0
    for goal in goals(state, seat):
        share = min(1.0, metric(p, goal.condition.metric) / goal.condition.at)
        if partial and share < 1.0:
            out += goal.worth * share**2
        elif not partial and share >= 1.0 and goal.visionary:
            out += goal.worth
    return out


@attrs.frozen
class Goal:
    """A condition worth meeting: a visionary's goal (its corner points while
    unclaimed at a table of several, and its bonus) or a grey wonder box's opening
    (half its box and points: it still needs a die)."""

    condition: Condition
    worth: float
    visionary: bool


def goals(state: State, seat: int) -> list[Goal]:
    """The visionaries ``seat`` has not completed and the grey boxes not yet open."""
    p = state.players[seat]
    w = worth(p)
    out: list[Goal] = []
    cards = VISIONARIES_BY_GOALS[state.visionary_goals]
    for name in state.visionaries:
        if name not in p.visionaries:
            v = cards[name]
            corner = v.corner if state.seats > 1 and name not in state.claimed else 0
            out.append(Goal(v.goal, corner + effect_worth(v.bonus, w), True))
    for box in city_of(p).boxes:
        if box.opens is not None and box.index not in p.wonder and not holds(p, box.opens):
            out.append(Goal(box.opens, 0.5 * (1 + box.effect.points), False))
    return out


class _Quick:
    """What :func:`quick` reads from the state, gathered once per decision."""

    def __init__(self, state: State, seat: int) -> None:
        self.state = state
        self.p = p = state.players[seat]
        self.city = city_of(p)
        self.w = worth(p)
        self.reach = network(p.roads)
        self.built = dict(p.buildings)
        self.wanted = {g.condition.metric for g in goals(state, seat)}

    def score(self, c: Command) -> float:
        city = self.city
        match c:
            case MarkSpace(space=h):
                return 30.0 + effect_worth(city.spaces[h].effect, self.w)
            case Build(building=n, space=h):
                b = city.building(n)
                return 20.0 + effect_worth(b.effect, self.w) + self._cluster(h, n)
            case FillWonder(box=i):
                return 19.0 + effect_worth(city.boxes[i].effect, self.w)
            case UseDie():
                return 10.0 + self._die(c)
            case PlaceRoad(edge=e):
                return 5.0 + self.road(e)
            case Pay():
                return self._pay(c)
        return 0.0

    def _cluster(self, h: tuple[int, int], n: int) -> float:
        q, r = h
        near = ((q + 1, r), (q + 1, r - 1), (q, r - 1), (q - 1, r), (q - 1, r + 1), (q, r + 1))
        return 0.1 * sum(1 for x in near if self.built.get(x) == n)

    def _die(self, c: UseDie) -> float:
        face = self.state.dice[c.die] + c.shift
        if c.action == "build":
            if not buildable(self.p):
                return -20.0
            return 1.0 + effect_worth(self.city.building(face).effect, self.w)
        if c.action == "wonder":
            free = [
                b
                for b in self.city.boxes
                if b.n == face and b.index not in self.p.wonder and box_open(self.p, b.index)
            ]
            return max((1.2 + effect_worth(b.effect, self.w) for b in free), default=-20.0)
        return 0.45 * float(face)

    def road(self, e: tuple[int, int, int, int]) -> float:
        """What drawing a road on ``e`` connects (points, unmarked gains, land), and
        :data:`COAST` for a coast or cliff road while a goal counts them."""
        touched = {h for v in edge_vertices(e) for h in v}
        out = 0.2
        geometry = self.city.geometry
        for h in touched:
            s = self.city.spaces.get(h)
            if s is None or geometry.connected(h, self.reach):
                continue
            out += s.points + (0.0 if h in self.p.marked else effect_worth(s.effect, self.w))
            out += 0.3 if s.terrain == "land" and not s.partial else 0.0
        if "coast_cliff_roads" in self.wanted and geometry.kind(e) in ("coast", "cliff"):
            out += COAST
        return out

    def _pay(self, c: Pay) -> float:
        inv = self.city.innovation(c.innovation)
        assert inv is not None
        left = sum(1 for i in range(len(inv.cost)) if (inv.id, i) not in self.p.paid)
        turns = max(0, TURNS - self.state.turn) / TURNS
        share = (inv.points + ABILITY * turns) / left
        in_hand = c.resource == "wealth" and self.p.pool[WEALTH] > 0  # lost at the end
        cost = 0.0 if in_hand else self.w[RESOURCES.index(c.resource)]
        if c.resource == "idea" and inv.cost[c.circle] != "idea":
            cost += 0.3  # an idea is the only thing that pays an idea circle
        gain = share - cost
        return 3.0 + gain if gain > 0 else 0.0


def quick(state: State, seat: int, legal: Sequence[Command], rng: random.Random) -> Command:
    """The legal command worth the most now by the state's measure; ``Done`` when
    nothing is worth anything."""
    ctx = _Quick(state, seat)
    best: Command = Done(seat)
    best_score = 0.0
    for c in legal:
        s = ctx.score(c) + rng.random() * 0.01
        if s > best_score:
            best, best_score = c, s
    return best


def _apply(state: State, command: Command) -> State:
    for event in decide(state, command):
        state = evolve(state, event)
    return state


def finish_turn(state: State, seat: int, rng: random.Random) -> State:
    """:func:`quick` plays the rest of the seat's turn; the turn is then ended."""
    for _ in range(300):
        legal = legal_commands(state, seat)
        if not legal:
            return state
        command = quick(state, seat, legal, rng)
        if isinstance(command, Done):
            break
        state = _apply(state, command)
    return evolve(state, TurnFinished(seat))


def _try(state: State, seat: int, commands: Sequence[Command], seed: float) -> float:
    try:
        for command in commands:
            if isinstance(command, Done):  # end the turn on the copy, never roll
                state = evolve(state, TurnFinished(seat))
                break
            state = _apply(state, command)
    except Rejection:
        return float("-inf")
    ended = state if state.players[seat].done else finish_turn(state, seat, random.Random(seed))
    return value(ended, seat)


def candidates(state: State, seat: int, legal: Sequence[Command]) -> list[list[Command]]:
    """The choices worth trying: plans for the unused dice; otherwise one of each
    kind of choice (a cost circle per innovation and resource, a building per number
    on its best spaces, every box, every conversion), the best few roads, and
    finishing the turn. Empty when :func:`quick` may decide alone."""
    if any(isinstance(c, UseDie) for c in legal):
        return _plans(list(legal))
    ctx = _Quick(state, seat)
    marks = [c for c in legal if isinstance(c, MarkSpace)]
    if marks:
        return []  # marking is free and always taken first
    out: list[Command] = []
    seen_pay: set[tuple[str, str]] = set()
    best_build: dict[int, list[tuple[float, Build]]] = {}
    roads: list[tuple[float, PlaceRoad]] = []
    for c in legal:
        match c:
            case Pay(innovation=inv, resource=r):
                if (inv, r) not in seen_pay:
                    seen_pay.add((inv, r))
                    out.append(c)
            case Build(building=n):
                best_build.setdefault(n, []).append((ctx.score(c), c))
            case PlaceRoad(edge=e):
                roads.append((ctx.road(e), c))
            case FillWonder() | Convert():
                out.append(c)
    for options in best_build.values():
        options.sort(key=lambda x: -x[0])
        out.extend(c for _, c in options[:2])
    roads.sort(key=lambda x: -x[0])
    out.extend(c for _, c in roads[:ROADS])
    if len(out) <= 1 and not any(isinstance(c, Pay | Convert) for c in out):
        return []
    return [[c] for c in [*out, Done(seat)]]


def search(state: State, seat: int, legal: list[Any], rng: random.Random) -> Any:
    """The first command of the best candidate, each finished by :func:`quick`."""
    plans = candidates(state, seat, legal)
    if not plans:
        return quick(state, seat, legal, rng)
    seed = rng.random()  # every candidate meets the same tie-breaks
    scored = [(_try(state, seat, plan, seed), -i) for i, plan in enumerate(plans)]
    return plans[-max(scored)[1]][0]


bot = SearchBot(search=search, fallback=greedy_policy)
"""``lookahead``: the state-reading bot (searches where the host gives it the state)."""
