"""Rollie's ``create`` and ``evolve``: one small case per event, nothing drawn."""

from __future__ import annotations

from engine.frozen import replace
from engine.rollie.content import TABLE
from engine.rollie.model import (
    NO_BILLS,
    Claim,
    ClaimUndone,
    Crashed,
    DicePassed,
    Event,
    GameEnded,
    Rolled,
    RollieCalled,
    RoundEnded,
    RoundStarted,
    Secured,
    SetUp,
    State,
    Took,
    add,
    bump,
    put,
)


def create(setup: SetUp) -> State:
    """The first state: full Bank, the top Start token face up, everyone in play."""
    n = setup.seats
    return State(
        seats=n,
        bills_per_value=setup.bills_per_value,
        seed=setup.seed,
        draws=1,  # draw 0 was the setup's shuffle
        phase="rolling",
        round=1,
        first_player=setup.first_player,
        bank=(setup.bills_per_value,) * len(TABLE.values),
        bets=(NO_BILLS,) * n,
        wallets=(NO_BILLS,) * n,
        tokens=((),) * n,
        face_up=setup.tokens[:1],
        face_down=setup.tokens[1:],
        in_play=frozenset(range(n)),
        decided=frozenset(),
        priority=setup.priority,
        opener=setup.first_player,
    )


def evolve(state: State, event: Event) -> State:
    """Apply one event."""
    match event:
        case Rolled(dice=dice):
            return replace(
                state,
                phase="deciding",
                dice=dice,
                draws=state.draws + 1,
                decided=frozenset(),
                took_this_turn=False,
                claims=(),
            )
        case Took(seat=seat, value=value):
            return _took(state, seat, value)
        case Secured(seat=seat, token=token):
            return _secured(state, seat, token)
        case ClaimUndone(seat=seat):
            return _undone(state, seat)
        case RollieCalled():
            return state
        case Crashed(seat=seat):
            bet = state.bets[seat]
            return replace(state, bank=add(state.bank, bet), bets=put(state.bets, seat, NO_BILLS))
        case DicePassed(first_player=first):
            return replace(
                state, phase="rolling", first_player=first, decided=frozenset(), claims=()
            )
        case RoundEnded():
            return replace(
                state,
                phase="rolling",
                in_play=frozenset(range(state.seats)),
                decided=frozenset(),
                claims=(),
            )
        case RoundStarted(round=number, token=token, first_player=first):
            return replace(
                state,
                round=number,
                first_player=first,
                face_up=(*state.face_up, token),
                face_down=tuple(t for t in state.face_down if t != token),
            )
        case GameEnded():
            bank = state.bank
            for bet in state.bets:
                bank = add(bank, bet)
            return replace(state, phase="over", bank=bank, bets=(NO_BILLS,) * state.seats)
        case SetUp():
            return create(event)
    raise TypeError(f"not a Rollie event: {event!r}")  # pragma: no cover


def _took(state: State, seat: int, value: int) -> State:
    bank = bump(state.bank, value, -1)
    exhausted = state.exhausted
    claims = state.claims
    if bank[TABLE.index(value)] == 0:
        exhausted = exhausted | {value}
        if _contested(state, seat):
            claims = (*claims, Claim(seat, value=value))
    return replace(
        state,
        bank=bank,
        bets=put(state.bets, seat, bump(state.bets[seat], value, 1)),
        decided=state.decided | {seat},
        took_this_turn=True,
        exhausted=exhausted,
        claims=claims,
    )


def _contested(state: State, seat: int) -> bool:
    """Under turn priority, whether a claim by ``seat`` on a last item is provisional."""
    return state.priority == "turn" and state.earlier_undecided(seat)


def _secured(state: State, seat: int, token: int | None) -> State:
    tokens = state.tokens
    face_up = state.face_up
    claims = state.claims
    if token is not None:
        tokens = (*tokens[:seat], (*tokens[seat], token), *tokens[seat + 1 :])
        face_up = tuple(t for t in face_up if t != token)
        if not face_up and _contested(state, seat):
            claims = (*claims, Claim(seat, token=token, bet=state.bets[seat]))
    return replace(
        state,
        wallets=put(state.wallets, seat, add(state.wallets[seat], state.bets[seat])),
        bets=put(state.bets, seat, NO_BILLS),
        tokens=tokens,
        face_up=face_up,
        in_play=state.in_play - {seat},
        decided=state.decided | {seat},
        claims=claims,
    )


def _undone(state: State, seat: int) -> State:
    """Put back what ``seat`` claimed provisionally; ``seat`` decides again."""
    claim = next(c for c in state.claims if c.seat == seat)
    claims = tuple(c for c in state.claims if c is not claim)
    undecided = replace(state, decided=state.decided - {seat}, claims=claims)
    if claim.value is not None:
        return replace(
            undecided,
            bank=bump(state.bank, claim.value, 1),
            bets=put(state.bets, seat, bump(state.bets[seat], claim.value, -1)),
        )
    back = tuple(-n for n in claim.bet)
    mine = tuple(t for t in state.tokens[seat] if t != claim.token)
    return replace(
        undecided,
        wallets=put(state.wallets, seat, add(state.wallets[seat], back)),
        bets=put(state.bets, seat, claim.bet),
        tokens=(*state.tokens[:seat], mine, *state.tokens[seat + 1 :]),
        face_up=(*state.face_up, *(() if claim.token is None else (claim.token,))),
        in_play=state.in_play | {seat},
    )
