"""What everyone sees of a Rollie table: everything except the face-down tokens' order
and the seed. Rollie hides nothing per seat, so every viewer gets the same view."""

from __future__ import annotations

from typing import Any

from engine.memo import FRESH, Memo
from engine.rollie.content import TABLE
from engine.rollie.legal import awaiting
from engine.rollie.model import Claim, Counts, State, worth
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


def view(state: State, viewer: int | None, memo: Memo = FRESH) -> dict[str, Any]:
    """Plain data for any viewer (Rollie is fully public; ``viewer`` changes nothing).

    ``memo`` hands back the parts built from unchanged state parts (see engine.memo)."""
    over = result(state)
    return {
        "game": "rollie",
        "phase": state.phase,
        "round": state.round,
        "final_round": state.final_round or not state.face_down,
        "first_player": state.first_player,
        "dice": list(state.dice) if state.dice is not None else None,
        "values": VALUES,
        "bonuses": BONUSES,
        "bank": memo.part("bank", _bills, state.bank),
        "exhausted": sorted(state.exhausted),
        "priority": state.priority,
        "provisional": [c for c in (_claim(state, k) for k in state.claims) if c is not None],
        "face_up_tokens": sorted(state.face_up),
        "face_down_tokens": len(state.face_down),
        "seats": [_seat_part(state, s, memo) for s in range(state.seats)],
        "awaiting": sorted(awaiting(state)),
        "result": None
        if over is None
        else {
            "scores": list(over.scores),
            "winners": list(over.winners),
            "seats": over.detail["seats"],
        },
    }
