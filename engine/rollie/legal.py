"""What a seat may do now: the legal commands, the seats awaited, what a clock runs out into."""

from __future__ import annotations

from engine.rollie.content import TABLE, R
from engine.rollie.model import Roll, Secure, State, Take


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


def awaiting(state: State) -> frozenset[int]:
    """Seats whose clock runs: the roller, or every undecided player in play."""
    if state.phase == "rolling":
        return frozenset({state.first_player})
    if state.phase == "deciding":
        return state.in_play - state.decided
    return frozenset()


IDLE, ROLLING = (0,), (1,)
""":func:`legal_inputs` of a seat that is not awaited, and of the roller (a decider's
answer starts with 2). Small ints, like ``True`` and ``False``, are single objects."""


def legal_inputs(state: State, seat: int) -> tuple[object, ...]:
    """What ``legal_commands(state, seat)`` comes from, as objects a host compares by
    identity (``engine.core.Game.legal_inputs``): a seat that is not awaited has none; the
    roller has ``Roll``; a decider has ``Secure`` and a ``Take`` for each value it may take
    (one bool per value, in table order: ``True`` and ``False`` are single objects).

    Most moves change the Bank, so the Bank itself would make every seat's commands be
    worked out again; the bools change only when a pile runs out or a claim moves."""
    if seat not in awaiting(state):
        return IDLE
    if state.phase == "rolling":
        return ROLLING
    may = takeable(state, seat)
    return (2, *(v in may for v in TABLE.values))


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
