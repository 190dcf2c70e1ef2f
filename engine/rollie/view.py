"""What everyone sees of a Rollie table: everything except the face-down tokens' order
and the seed. Rollie hides nothing per seat, so every viewer gets the same view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core import Touch, touch
from engine.memo import FRESH, Memo
from engine.rollie.content import TABLE
from engine.rollie.legal import awaiting
from engine.rollie.model import (
    Claim,
    ClaimUndone,
    Counts,
    Crashed,
    DicePassed,
    GameEnded,
    Rolled,
    RollieCalled,
    RoundEnded,
    RoundStarted,
    Secured,
    State,
    Took,
    worth,
)
from engine.rollie.scoring import result


def _bills(counts: Counts) -> dict[str, int]:
    return {str(v): n for v, n in zip(TABLE.values, counts, strict=True)}


VALUES = list(TABLE.values)
BONUSES = {str(v): list(TABLE.bonuses[v]) for v in TABLE.values}


def _seat(
    seat: int, bet: Counts, wallet: Counts, tokens: tuple[int, ...], in_play: bool, decided: bool
) -> dict[str, Any]:
    return {
        "seat": seat,
        "bet": _bills(bet),
        "bet_total": worth(bet),
        "wallet": _bills(wallet),
        "wallet_total": worth(wallet),
        "start_tokens": list(tokens),
        "in_play": in_play,
        "decided": decided,
    }


def _seat_part(state: State, seat: int, memo: Memo) -> dict[str, Any]:
    return memo.part(("seat", seat), _seat, seat, state.bets[seat], state.wallets[seat],
                     state.tokens[seat], seat in state.in_play, seat in state.decided)  # fmt: skip


def _claim(state: State, claim: Claim) -> dict[str, Any] | None:
    if not state.earlier_undecided(claim.seat):
        return None
    return {"seat": claim.seat, "value": claim.value, "token": claim.token}


def _provisional(state: State) -> list[dict[str, Any]]:
    return [c for c in (_claim(state, k) for k in state.claims) if c is not None]


def _result(state: State) -> dict[str, Any] | None:
    over = result(state)
    if over is None:
        return None
    return {"scores": list(over.scores), "winners": list(over.winners),
            "seats": over.detail["seats"]}  # fmt: skip


Part = Callable[[State, Memo], Any]

PARTS: dict[str, Part] = {
    "game": lambda state, memo: "rollie",
    "phase": lambda state, memo: state.phase,
    "round": lambda state, memo: state.round,
    "final_round": lambda state, memo: state.final_round or not state.face_down,
    "first_player": lambda state, memo: state.first_player,
    "dice": lambda state, memo: list(state.dice) if state.dice is not None else None,
    "values": lambda state, memo: VALUES,
    "bonuses": lambda state, memo: BONUSES,
    "bank": lambda state, memo: memo.part("bank", _bills, state.bank),
    "exhausted": lambda state, memo: sorted(state.exhausted),
    "priority": lambda state, memo: state.priority,
    "provisional": lambda state, memo: _provisional(state),
    "face_up_tokens": lambda state, memo: sorted(state.face_up),
    "face_down_tokens": lambda state, memo: len(state.face_down),
    "seats": lambda state, memo: [_seat_part(state, s, memo) for s in range(state.seats)],
    "awaiting": lambda state, memo: sorted(awaiting(state)),
    "result": lambda state, memo: _result(state),
}
"""Each top-level key of the view and how it is built (the view is all of them)."""


def view(state: State, viewer: int | None, memo: Memo = FRESH) -> dict[str, Any]:
    """Plain data for any viewer (Rollie is fully public; ``viewer`` changes nothing).

    ``memo`` hands back the parts built from unchanged state parts (see engine.memo)."""
    return {key: build(state, memo) for key, build in PARTS.items()}


def view_part(state: State, key: str, memo: Memo = FRESH) -> Any:
    """The view's ``key`` alone."""
    return PARTS[key](state, memo)


def seat_view(state: State, seat: int, memo: Memo = FRESH) -> dict[str, Any]:
    """The view's ``seats[seat]`` alone."""
    return _seat_part(state, seat, memo)


EVERY_SEAT = ("provisional", "awaiting")
"""What every move of a seat may change (claims turn provisional as others decide)."""

TOUCHES: dict[type, Touch] = {
    Rolled: touch("phase", "dice", "result", *EVERY_SEAT, seats="every"),
    Took: touch("bank", "exhausted", "final_round", *EVERY_SEAT, seats="event"),
    Secured: touch("face_up_tokens", *EVERY_SEAT, seats="event"),
    ClaimUndone: touch("bank", "face_up_tokens", *EVERY_SEAT, seats="event"),
    RollieCalled: touch(legal="none"),
    Crashed: touch("bank", seats="event"),
    DicePassed: touch("phase", "first_player", "result", *EVERY_SEAT, seats="every"),
    RoundEnded: touch("phase", "result", *EVERY_SEAT, seats="every"),
    RoundStarted: touch(
        "round", "first_player", "face_up_tokens", "face_down_tokens", "final_round", *EVERY_SEAT
    ),
    GameEnded: touch("phase", "bank", "result", *EVERY_SEAT, seats="every"),
}
"""What each event may change in the view, and whose legal commands (every seat's but
for the call of Rollie, which changes nothing)."""
