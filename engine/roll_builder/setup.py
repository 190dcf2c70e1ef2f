"""Roll Builder's options and setup event: cities, event, visionaries and the first roll.

Room options (all plain data):

* ``city``: a city id, ``"random"`` (one sheet drawn for everyone) or a list with
  one id per seat. Default ``"tidehaven"``.
* ``event``: an event id, ``"none"``, ``"random"``, or ``"auto"`` (the default: a
  random event when playing solo, none otherwise).
* ``visionaries``: how many visionaries to draw at random (0 to 5), or a list of
  their ids (at most 5). Default 0.
* ``visionary_goals``: ``"rulebook"`` (the default: every goal as printed) or
  ``"hard"`` (our harder goals: Hatshepsut 12 wonder boxes, Hypatia 20 buildings,
  Enheduanna 5 innovations; the other cards as printed). See the package docstring.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import rng_for
from engine.errors import BadOptions
from engine.roll_builder.content import CITIES, EVENTS, VISIONARIES, VISIONARY_GOALS
from engine.roll_builder.model import SetUp, VisionaryGoals

MIN_SEATS, MAX_SEATS = 1, 6
MAX_VISIONARIES = 5


def default_options() -> dict[str, Any]:
    """Every option with its default value."""
    return {"city": "tidehaven", "event": "auto", "visionaries": 0, "visionary_goals": "rulebook"}


def setup(seats: int, options: Mapping[str, Any], seed: int) -> SetUp:
    """Validate the options; draw random choices and the first roll."""
    if isinstance(seats, bool) or not isinstance(seats, int):
        raise BadOptions("seats must be a number")
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise BadOptions(f"Roll Builder seats 1 to {MAX_SEATS}, not {seats}")
    unknown = set(options) - set(default_options())
    if unknown:
        raise BadOptions(f"unknown options {sorted(unknown)}", field=sorted(unknown)[0])
    opts = {**default_options(), **options}
    rng = rng_for(seed, 0)
    cities = _cities(opts["city"], seats, rng.choice(sorted(CITIES)))
    events = sorted(e for e, ev in EVENTS.items() if all(ev.fits(c) for c in cities))
    event = _event(opts["event"], seats, rng.choice(events), events)
    fitting = sorted(v for v, vis in VISIONARIES.items() if all(vis.fits(c) for c in cities))
    drawn = rng.sample(fitting, min(MAX_VISIONARIES, len(fitting)))
    visionaries = _visionaries(opts["visionaries"], drawn, fitting)
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    goals = _goals(opts["visionary_goals"])
    return SetUp(seats, cities, event, visionaries, dice, seed, visionary_goals=goals)


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


def _goals(option: Any) -> VisionaryGoals:
    if option == "rulebook":
        return "rulebook"
    if option == "hard":
        return "hard"
    raise BadOptions(
        f"visionary_goals is one of {list(VISIONARY_GOALS)}, not {option!r}",
        field="visionary_goals",
    )
