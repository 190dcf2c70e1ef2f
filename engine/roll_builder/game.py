"""The :class:`RollBuilder` game object: options, setup, result and the contract glue.

Room options (all plain data):

* ``city``: a city id, ``"random"`` (one sheet drawn for everyone) or a list with
  one id per seat. Default ``"tidehaven"``.
* ``event``: an event id, ``"none"``, ``"random"``, or ``"auto"`` (the default: a
  random event when playing solo, none otherwise).
* ``visionaries``: how many visionaries to draw at random (0 to 5), or a list of
  their ids (at most 5). Default 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Policy, Result, rng_for
from engine.data import Registry
from engine.errors import BadOptions
from engine.memo import FRESH, Memo
from engine.roll_builder.bots import policies as bot_policies
from engine.roll_builder.catalog import CITIES, EVENTS, VISIONARIES
from engine.roll_builder.decide import decide as _decide
from engine.roll_builder.evolve import create as _create
from engine.roll_builder.evolve import evolve as _evolve
from engine.roll_builder.legal import awaiting as _awaiting
from engine.roll_builder.legal import legal_commands as _legal
from engine.roll_builder.legal import timeout_command as _timeout
from engine.roll_builder.lookahead import bot as lookahead_bot
from engine.roll_builder.model import COMMANDS, SetUp, State
from engine.roll_builder.model import EVENTS as EVENT_TYPES
from engine.roll_builder.scoring import by_category, items, total
from engine.roll_builder.search import bot as plan_bot
from engine.roll_builder.view import view as _view

MAX_VISIONARIES = 5


class RollBuilder:
    """Roll Builder as an engine.core.Game."""

    name = "roll-builder"
    public_view = True  # nothing is private to a seat: one view serves every viewer
    title = "Roll Builder"
    min_seats = 1
    max_seats = 6
    commands = Registry("command", list(COMMANDS))
    events = Registry("event", list(EVENT_TYPES))
    policies: Mapping[str, Policy] = {
        **bot_policies,
        "plan": plan_bot,
        "lookahead": lookahead_bot,
    }

    def default_options(self) -> dict[str, Any]:
        """Every option with its default value."""
        return {"city": "tidehaven", "event": "auto", "visionaries": 0}

    def setup(self, seats: int, options: Mapping[str, Any], seed: int) -> SetUp:
        """Validate the options; draw random choices and the first roll."""
        if isinstance(seats, bool) or not isinstance(seats, int):
            raise BadOptions("seats must be a number")
        if not self.min_seats <= seats <= self.max_seats:
            raise BadOptions(f"Roll Builder seats 1 to {self.max_seats}, not {seats}")
        unknown = set(options) - set(self.default_options())
        if unknown:
            raise BadOptions(f"unknown options {sorted(unknown)}", field=sorted(unknown)[0])
        opts = {**self.default_options(), **options}
        rng = rng_for(seed, 0)
        cities = _cities(opts["city"], seats, rng.choice(sorted(CITIES)))
        events = sorted(e for e, ev in EVENTS.items() if all(ev.fits(c) for c in cities))
        event = _event(opts["event"], seats, rng.choice(events), events)
        fitting = sorted(v for v, vis in VISIONARIES.items() if all(vis.fits(c) for c in cities))
        drawn = rng.sample(fitting, min(MAX_VISIONARIES, len(fitting)))
        visionaries = _visionaries(opts["visionaries"], drawn, fitting)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        return SetUp(seats, cities, event, visionaries, dice, seed)

    def create(self, setup_event: SetUp) -> State:
        """The first state."""
        return _create(setup_event)

    def decide(self, state: State, command: Any) -> tuple[Any, ...]:
        """Events caused by ``command``, or a Rejection."""
        return _decide(state, command)

    def evolve(self, state: State, event: Any) -> State:
        """Apply one event."""
        return _evolve(state, event)

    def view(self, state: State, viewer: int | None, memo: Memo = FRESH) -> dict[str, Any]:
        """The table as plain data."""
        return _view(state, viewer, memo)

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        """Every command ``seat`` may send now."""
        return list(_legal(state, seat))

    def legal_inputs(self, state: State, seat: int) -> tuple[Any, ...]:
        """What ``seat``'s legal commands are made from: its own sheet, the shared dice and
        the turn and event (another seat's move never changes them)."""
        return (state.players[seat], state.dice, state.turn, state.event, state.over)

    def awaiting(self, state: State) -> frozenset[int]:
        """Seats not done with the turn."""
        return _awaiting(state)

    def timeout_command(self, state: State, seat: int) -> Any | None:
        """``Done`` for an awaited seat."""
        return _timeout(state, seat)

    def is_over(self, state: State) -> bool:
        """Whether the fifteenth turn is over."""
        return state.over

    def result(self, state: State) -> Result | None:
        """Scores item by item; solo with an event: won only if the city survives."""
        if not state.over:
            return None
        scores = tuple(total(p, state.event) for p in state.players)
        detail: dict[str, Any] = {
            "categories": [by_category(p, state.event) for p in state.players],
            "items": [
                [[i.category, i.label, i.points] for i in items(p, state.event)]
                for p in state.players
            ],
            "groups": {"city": [p.city for p in state.players]},
            "rates": {
                "visionary": {
                    v: [v in p.visionaries for p in state.players] for v in state.visionaries
                }
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

    def public_name(self, event: Any) -> str:
        """The event's wire tag."""
        return str(getattr(event, "TYPE", "event"))


def _cities(option: Any, seats: int, drawn: str) -> tuple[str, ...]:
    if option == "random":
        return (drawn,) * seats
    if isinstance(option, str):
        option = [option] * seats
    if not isinstance(option, list | tuple) or len(option) != seats:
        raise BadOptions("city is an id, 'random' or one id per seat", field="city")
    for c in option:
        if not isinstance(c, str) or c not in CITIES:
            raise BadOptions(f"unknown city {c!r}; known: {sorted(CITIES)}", field="city")
    return tuple(option)


def _event(option: Any, seats: int, drawn: str, fitting: list[str]) -> str | None:
    if option == "auto":
        return drawn if seats == 1 else None
    if option == "random":
        return drawn
    if option == "none":
        return None
    if not isinstance(option, str) or option not in EVENTS:
        raise BadOptions(f"unknown event {option!r}; known: {sorted(EVENTS)}", field="event")
    if option not in fitting:
        raise BadOptions(f"event {option!r} is not played with these cities", field="event")
    return option


def _visionaries(option: Any, drawn: list[str], fitting: list[str]) -> tuple[str, ...]:
    if isinstance(option, int) and not isinstance(option, bool):
        if not 0 <= option <= min(MAX_VISIONARIES, len(fitting)):
            raise BadOptions(f"visionaries: 0 to {MAX_VISIONARIES}", field="visionaries")
        return tuple(drawn[:option])
    if (
        not isinstance(option, list | tuple)
        or len(option) > MAX_VISIONARIES
        or not all(isinstance(v, str) for v in option)
    ):
        raise BadOptions("visionaries is a count or a list of at most 5 ids", field="visionaries")
    if len(set(option)) != len(option) or any(v not in VISIONARIES for v in option):
        raise BadOptions(
            f"visionaries must be distinct, from {sorted(VISIONARIES)}", field="visionaries"
        )
    if any(v not in fitting for v in option):
        raise BadOptions("a visionary is not played with these cities", field="visionaries")
    return tuple(option)
