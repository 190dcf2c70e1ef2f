"""Rollie's options and its setup event: the Start tokens shuffled, the First player drawn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import rng_for
from engine.errors import BadOptions
from engine.rollie.content import TABLE
from engine.rollie.model import SetUp

MIN_SEATS, MAX_SEATS = 2, 6
OPTIONS: dict[str, tuple[int, int, int]] = {
    # name: (default, min, max)
    "bills_per_value": (TABLE.bills_per_value, 1, 1000),
    "rounds": (len(TABLE.start_tokens), 1, len(TABLE.start_tokens)),
}
CHOICES: dict[str, tuple[str, ...]] = {
    # name: (default, other values...)
    "priority": ("arrival", "turn"),
}


def default_options() -> dict[str, Any]:
    """Every option with its default."""
    return {
        **{name: spec[0] for name, spec in OPTIONS.items()},
        **{name: values[0] for name, values in CHOICES.items()},
    }


def _check_choice(name: str, value: Any) -> str:
    if not isinstance(value, str) or value not in CHOICES[name]:
        allowed = ", ".join(CHOICES[name])
        raise BadOptions(f"option {name!r} must be one of {allowed}", option=name)
    return value


def check_options(seats: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options with defaults filled in; BadOptions names what is wrong."""
    if isinstance(seats, bool) or not isinstance(seats, int):
        raise BadOptions("seats must be an integer", option="seats")
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise BadOptions(f"Rollie seats {MIN_SEATS} to {MAX_SEATS} players", option="seats")
    if not isinstance(options, Mapping):
        raise BadOptions("options must be a map", option="options")
    out = default_options()
    for name, value in options.items():
        if name in CHOICES:
            out[name] = _check_choice(name, value)
            continue
        if name not in OPTIONS:
            raise BadOptions(f"unknown option {name!r}", option=str(name))
        _, low, high = OPTIONS[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadOptions(f"option {name!r} must be an integer", option=name)
        if not low <= value <= high:
            raise BadOptions(f"option {name!r} must be in {low}..{high}", option=name)
        out[name] = value
    return out


def setup(seats: int, options: Mapping[str, Any], seed: int) -> SetUp:
    """Validate the options, shuffle the Start tokens and pick the First player."""
    opts = check_options(seats, options)
    rng = rng_for(seed, 0)
    tokens = list(TABLE.start_tokens[: opts["rounds"]])
    rng.shuffle(tokens)
    return SetUp(
        seats=seats,
        bills_per_value=opts["bills_per_value"],
        rounds=opts["rounds"],
        tokens=tuple(tokens),
        first_player=rng.randrange(seats),
        seed=seed,
        priority=opts["priority"],
    )
