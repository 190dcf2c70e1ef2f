"""Rollie's ``priority`` option: the rulebook's Simultaneous Play note, played live.

seeds/001_a40d37754f043900.txt, Simultaneous Play: "Note: if the player took the last
bill of a pile or a Start token and a previous player wants it too, that player must
put it back and choose another." With ``priority="turn"`` a later player's claim on
the last bill of a pile, or on the last face-up Start token, stays provisional while
a player earlier in turn order (from the First player, clockwise) is undecided.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from engine.errors import BadOptions, Rejection
from engine.rollie import GAME
from engine.rollie.model import (
    ClaimUndone,
    DicePassed,
    Rolled,
    Secure,
    Secured,
    SetUp,
    State,
    Take,
    Took,
)

NOTE = "Simultaneous Play, Note: 'a previous player wants it too, that player must put it back'"


def given(
    *events: Any,
    seats: int = 3,
    bpv: int = 1,
    first: int = 0,
    priority: str = "turn",
    tokens: tuple[int, ...] = (2, 3, 1),
) -> State:
    """The state after a setup (one bill per value; token 2 face up) and ``events``."""
    setup = SetUp(seats, bpv, len(tokens), tokens, first, seed=7, priority=priority)  # type: ignore[arg-type]
    state = GAME.create(setup)
    for event in events:
        state = GAME.evolve(state, event)
    return state


@attrs.frozen
class Case:
    rule: str
    given: tuple[Any, ...]
    when: Any
    then: tuple[Any, ...] | str
    priority: str = "turn"
    first: int = 0
    seats: int = 3


ROLL = Rolled(0, (10, 5))

CASES = [
    Case(
        f"{NOTE}: the earlier player takes the last bill back from a later one",
        (ROLL, Took(2, 10)),
        Take(0, 10),
        (ClaimUndone(2, value=10), Took(0, 10)),
    ),
    Case(
        f"{NOTE}: the player just before takes it back too",
        (ROLL, Took(2, 10)),
        Take(1, 10),
        (ClaimUndone(2, value=10), Took(1, 10)),
    ),
    Case(
        f"{NOTE}: only a *previous* player has priority; a later one finds the pile empty",
        (ROLL, Took(1, 10)),
        Take(2, 10),
        "rollie/pile_empty",
    ),
    Case(
        f"{NOTE}: turn order starts at the First player (seat 1 here, so seat 0 is last)",
        (Rolled(1, (10, 5)), Took(0, 10)),
        Take(2, 10),
        (ClaimUndone(0, value=10), Took(2, 10)),
        first=1,
    ),
    Case(
        f"{NOTE}: with the First player at seat 1, seat 0 cannot take from seat 2",
        (Rolled(1, (10, 5)), Took(2, 10)),
        Take(0, 10),
        "rollie/pile_empty",
        first=1,
    ),
    Case(
        "Architecture: arrival order (the default) keeps the first claim",
        (ROLL, Took(2, 10)),
        Take(0, 10),
        "rollie/pile_empty",
        priority="arrival",
    ),
    Case(
        f"{NOTE}: a Start token - the earlier player who secures takes the last one back",
        (ROLL, Took(2, 5), Secured(2, 2)),
        Secure(1),
        (ClaimUndone(2, token=2), Secured(1, 2)),
    ),
    Case(
        "Architecture: arrival order - the later player keeps the last Start token",
        (ROLL, Took(2, 5), Secured(2, 2)),
        Secure(1),
        (Secured(1, None),),
        priority="arrival",
    ),
    Case(
        f"{NOTE}: a token taken by an earlier player is final",
        (ROLL, Secured(0, 2)),
        Secure(1),
        (Secured(1, None),),
    ),
    Case(
        f"{NOTE}: the undone player chooses again and the turn goes on until they do",
        (ROLL, Took(2, 10), ClaimUndone(2, value=10), Took(0, 10), Took(1, 5)),
        Secure(2),
        (Secured(2, 2), DicePassed(1)),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.rule[-60:] for c in CASES])
def test_rule(case: Case) -> None:
    """Each reading of the note: the command on the given history gives these events."""
    state = given(*case.given, priority=case.priority, first=case.first, seats=case.seats)
    if isinstance(case.then, str):
        with pytest.raises(Rejection) as info:
            GAME.decide(state, case.when)
        assert info.value.code == case.then
    else:
        assert GAME.decide(state, case.when) == case.then


def test_undone_bill_goes_back_and_player_chooses_again() -> None:
    """Simultaneous Play note: the bill is put back and the later player 'choose[s] another'."""
    state = given(ROLL, Took(2, 10))
    for event in GAME.decide(state, Take(0, 10)):
        state = GAME.evolve(state, event)
    assert state.bets[2] == (0, 0, 0, 0, 0) and state.bets[0][4] == 1 and state.pile(10) == 0
    assert GAME.awaiting(state) == {1, 2}
    assert GAME.legal_commands(state, 2) == [Take(2, 5), Secure(2)]


def test_undone_secure_returns_the_bet_to_play() -> None:
    """Simultaneous Play note, Start token: the later player's Secure is undone whole."""
    state = given(ROLL, Took(0, 10), Took(1, 10), Took(2, 5), DicePassed(1), bpv=30)
    state = GAME.evolve(GAME.evolve(state, Rolled(1, (10, 2))), Secured(2, 2))
    assert state.wallets[2][3] == 1 and 2 not in state.in_play
    events = GAME.decide(state, Secure(1))
    assert events == (ClaimUndone(2, token=2), Secured(1, 2))
    for event in events:
        state = GAME.evolve(state, event)
    assert state.wallets[2] == (0, 0, 0, 0, 0) and state.bets[2][3] == 1
    assert 2 in state.in_play and state.tokens[2] == () and state.tokens[1] == (2,)
    assert GAME.legal_commands(state, 2) == [Take(2, 2), Take(2, 10), Secure(2)]


def test_view_lists_provisional_claims_until_earlier_players_decide() -> None:
    """A claim is provisional only while a player earlier in turn order is undecided."""
    state = given(ROLL, Took(2, 10), seats=4)
    assert GAME.view(state, None)["provisional"] == [{"seat": 2, "value": 10, "token": None}]
    assert GAME.legal_commands(state, 0) == [Take(0, 5), Take(0, 10), Secure(0)]
    assert GAME.legal_commands(state, 3) == [Take(3, 5), Secure(3)]
    state = GAME.evolve(GAME.evolve(state, Took(0, 5)), Secured(1, 2))
    assert GAME.view(state, None)["provisional"] == []
    assert GAME.view(state, None)["priority"] == "turn"


def test_priority_option() -> None:
    """The option sits beside bills_per_value and rounds; arrival is the default."""
    assert GAME.default_options()["priority"] == "arrival"
    assert GAME.setup(3, {}, seed=1).priority == "arrival"
    assert GAME.setup(3, {"priority": "turn"}, seed=1).priority == "turn"
    for bad in ("first", 1, None):
        with pytest.raises(BadOptions):
            GAME.setup(3, {"priority": bad}, seed=1)
