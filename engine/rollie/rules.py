"""Rollie's ``setup`` and ``decide``: options, the roll, decisions, turn and round ends."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import rng_for
from engine.errors import BadOptions, GameOver, InvalidCommand, NotASeat
from engine.rollie import errors
from engine.rollie.evolve import evolve
from engine.rollie.model import (
    COMMANDS,
    TABLE,
    Claim,
    ClaimUndone,
    Crashed,
    DicePassed,
    Event,
    Face,
    GameEnded,
    R,
    Roll,
    Rolled,
    RollieCalled,
    RoundEnded,
    RoundStarted,
    Secure,
    Secured,
    SetUp,
    State,
    Take,
    Took,
)

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


# -- decide -----------------------------------------------------------------------


def decide(state: State, command: Any) -> tuple[Event, ...]:
    """The events ``command`` causes, or a Rejection."""
    if not isinstance(command, COMMANDS):
        raise InvalidCommand(f"not a Rollie command: {type(command).__name__}")
    if state.phase == "over":
        raise GameOver("the game is over")
    seat: Any = getattr(command, "seat", None)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise NotASeat(f"no seat {seat!r} at this table", seat=repr(seat))
    match command:
        case Roll():
            return _roll(state, seat)
        case Take(value=value):
            _check_deciding(state, seat)
            claim = _check_take(state, seat, value)
            return _finish_decision(state, Took(seat, value), claim)
        case Secure():
            _check_deciding(state, seat)
            if state.face_up:
                return _finish_decision(state, Secured(seat, max(state.face_up)))
            claim = state.claim_on(seat, token=True)
            token = None if claim is None else claim.token
            return _finish_decision(state, Secured(seat, token), claim)
    raise InvalidCommand("not a Rollie command")  # pragma: no cover


def takeable(state: State, seat: int | None = None) -> tuple[int, ...]:
    """Values that may be taken on the current dice: their pile is not empty or, under
    turn priority, ``seat`` may claim its last bill from a later player."""
    if state.dice is None:
        return ()
    rolled = TABLE.values if R in state.dice else state.dice
    return tuple(
        v
        for v in TABLE.values
        if v in rolled
        and (state.pile(v) > 0 or (seat is not None and state.claim_on(seat, v) is not None))
    )


def _roll(state: State, seat: int) -> tuple[Event, ...]:
    if state.phase != "rolling":
        raise errors.NotRollingPhase("players are deciding on the current roll")
    if seat != state.first_player:
        raise errors.NotYourTurn("only the First player rolls", first_player=state.first_player)
    rng = rng_for(state.seed, state.draws)
    dice: tuple[Face, Face] = (rng.choice(TABLE.faces), rng.choice(TABLE.faces))
    events: list[Event] = [Rolled(seat, dice)]
    after = evolve(state, events[0])
    if dice[0] == dice[1]:
        events.append(RollieCalled(dice[0]))
        events += [
            Crashed(s, "rollie")
            for s in range(state.seats)
            if any(after.bets[s]) and (dice[0] == R or after.bets[s][TABLE.index(int(dice[0]))])
        ]
    elif not takeable(after):
        events += [Crashed(s, "empty_piles") for s in sorted(after.in_play) if any(after.bets[s])]
    else:
        return tuple(events)
    for event in events[1:]:
        after = evolve(after, event)
    return (*events, *_end_round(after))


def _check_deciding(state: State, seat: int) -> None:
    if state.phase != "deciding":
        raise errors.NotDecidingPhase("wait for the First player's roll")
    if seat in state.decided:
        raise errors.AlreadyDecided("your decision for this roll is final")
    if seat not in state.in_play:
        raise errors.NotInPlay("you secured this round; wait for the next one")


def _check_take(state: State, seat: int, value: Any) -> Claim | None:
    if isinstance(value, bool) or not isinstance(value, int) or value not in TABLE.values:
        raise errors.UnknownValue(f"no bill has value {value!r}", value=repr(value))
    assert state.dice is not None
    if R not in state.dice and value not in state.dice:
        raise errors.ValueNotRolled(f"{value} is not on the dice", value=value)
    if state.pile(value) > 0:
        return None
    claim = state.claim_on(seat, value)
    if claim is None:
        raise errors.PileEmpty(f"no {value} bill left; choose again", value=value)
    return claim


def _finish_decision(
    state: State, event: Took | Secured, claim: Claim | None = None
) -> tuple[Event, ...]:
    """``event``, after undoing the later player's ``claim`` it takes over, if any."""
    first: tuple[Event, ...] = ()
    if claim is not None:
        first = (ClaimUndone(claim.seat, value=claim.value, token=claim.token),)
        state = evolve(state, first[0])
    after = evolve(state, event)
    if after.in_play - after.decided:
        return (*first, event)
    if after.took_this_turn:
        return (*first, event, DicePassed(_left_of(after, after.first_player)))
    return (*first, event, *_end_round(after))


def _end_round(state: State) -> tuple[Event, ...]:
    ended = RoundEnded(state.round)
    if state.final_round or not state.face_down:
        return (ended, GameEnded())
    return (
        ended,
        RoundStarted(state.round + 1, state.face_down[0], _left_of(state, state.first_player)),
    )


def _left_of(state: State, seat: int) -> int:
    return (seat + 1) % state.seats


# -- what the server and bots ask -------------------------------------------------


def awaiting(state: State) -> frozenset[int]:
    """Seats whose clock runs: the roller, or every undecided player in play."""
    if state.phase == "rolling":
        return frozenset({state.first_player})
    if state.phase == "deciding":
        return state.in_play - state.decided
    return frozenset()


def legal_commands(state: State, seat: int) -> list[Roll | Take | Secure]:
    """Every command ``seat`` may send now."""
    if seat not in awaiting(state):
        return []
    if state.phase == "rolling":
        return [Roll(seat)]
    return [*(Take(seat, v) for v in takeable(state, seat)), Secure(seat)]


def timeout_command(state: State, seat: int) -> Roll | Secure | None:
    """A roller's clock rolls; a decider's clock secures."""
    if seat not in awaiting(state):
        return None
    return Roll(seat) if state.phase == "rolling" else Secure(seat)
