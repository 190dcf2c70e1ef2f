"""Rollie's ``decide``: the roll, decisions, turn and round ends (or a typed rejection)."""

from __future__ import annotations

from typing import Any

from engine.core import rng_for
from engine.errors import GameOver, InvalidCommand, NotASeat
from engine.rollie import errors
from engine.rollie.content import TABLE, Face, R
from engine.rollie.evolve import evolve
from engine.rollie.legal import takeable
from engine.rollie.model import (
    COMMANDS,
    Claim,
    ClaimUndone,
    Crashed,
    DicePassed,
    Event,
    GameEnded,
    Roll,
    Rolled,
    RollieCalled,
    RoundEnded,
    RoundStarted,
    Secure,
    Secured,
    State,
    Take,
    Took,
)


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
