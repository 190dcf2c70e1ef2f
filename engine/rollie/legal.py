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
