"""What everyone sees of a Rollie table: everything except the face-down tokens' order
and the seed. Rollie hides nothing per seat, so every viewer gets the same view."""

from __future__ import annotations

from typing import Any

from engine.core import Result
from engine.rollie.model import TABLE, Claim, Counts, State, worth
from engine.rollie.rules import awaiting
from engine.rollie.scoring import breakdown


def result(state: State) -> Result | None:
    """Totals and winners once the game is over."""
    if state.phase != "over":
        return None
    scores, winners, seats = breakdown(state.wallets, state.tokens)
    position = [(s - state.opener) % state.seats for s in range(state.seats)]
    detail = {"rounds": state.round, "seats": seats, "groups": {"position": position}}
    return Result(scores, winners, detail)


def _bills(counts: Counts) -> dict[str, int]:
    return {str(v): n for v, n in zip(TABLE.values, counts, strict=True)}


def _seat(state: State, seat: int) -> dict[str, Any]:
    return {
        "seat": seat,
        "bet": _bills(state.bets[seat]),
        "bet_total": worth(state.bets[seat]),
        "wallet": _bills(state.wallets[seat]),
        "wallet_total": worth(state.wallets[seat]),
        "start_tokens": list(state.tokens[seat]),
        "in_play": seat in state.in_play,
        "decided": seat in state.decided,
    }


def _claim(state: State, claim: Claim) -> dict[str, Any] | None:
    if not state.earlier_undecided(claim.seat):
        return None
    return {"seat": claim.seat, "value": claim.value, "token": claim.token}


def view(state: State, viewer: int | None) -> dict[str, Any]:
    """Plain data for any viewer (Rollie is fully public; ``viewer`` changes nothing)."""
    over = result(state)
    return {
        "game": "rollie",
        "phase": state.phase,
        "round": state.round,
        "final_round": state.final_round or not state.face_down,
        "first_player": state.first_player,
        "dice": list(state.dice) if state.dice is not None else None,
        "values": list(TABLE.values),
        "bonuses": {str(v): list(TABLE.bonuses[v]) for v in TABLE.values},
        "bank": _bills(state.bank),
        "exhausted": sorted(state.exhausted),
        "priority": state.priority,
        "provisional": [c for c in (_claim(state, k) for k in state.claims) if c is not None],
        "face_up_tokens": sorted(state.face_up),
        "face_down_tokens": len(state.face_down),
        "seats": [_seat(state, s) for s in range(state.seats)],
        "awaiting": sorted(awaiting(state)),
        "result": None
        if over is None
        else {
            "scores": list(over.scores),
            "winners": list(over.winners),
            "seats": over.detail["seats"],
        },
    }
