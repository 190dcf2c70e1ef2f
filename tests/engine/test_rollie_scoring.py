"""Rollie scoring: bonus token races and totals (rulebook, End of the Game)."""

from __future__ import annotations

import attrs

from engine.rollie import GAME
from engine.rollie.model import SetUp
from engine.rollie.scoring import race
from tests.engine.test_rollie import given

# Bills per value, in TABLE order (-5, 0, 2, 5, 10), and Start tokens.
ULYSSE = ((5, 3, 1, 7, 1), (5, 6))
CLEMENT = ((3, 3, 5, 5, 8), ())
JULIETTE = ((5, 2, 4, 0, 4), (7,))
FANNY = ((0, 6, 5, 7, 5), ())


def test_rulebook_end_of_game_example() -> None:
    """End of Game Example: Juliette beats Ulysse on -5 with Start token 7; Fanny 1st in
    0s, Ulysse (the only tied one with a token) 2nd, Clement 3rd; Clement and Fanny tied
    on 2s without tokens are excluded, Juliette 1st, Ulysse 2nd, no 3rd; Ulysse beats
    Fanny on 5s with his token; no 10 bonus. Totals 222/170/193/205, Ulysse wins.

    The rulebook says Fanny holds six 10-bills, but its own sum counts 50: she holds
    five here (content/rollie-decisions.md notes the slip)."""
    players = [ULYSSE, CLEMENT, JULIETTE, FANNY]
    state = given(seats=4)
    state = attrs.evolve(
        state,
        phase="over",
        wallets=tuple(w for w, _ in players),
        tokens=tuple(t for _, t in players),
    )
    result = GAME.result(state)
    assert result is not None
    assert result.scores == (222, 170, 193, 205)
    assert result.winners == (0,)
    won = {
        s["seat"]: {(b["value"], b["place"], b["amount"]) for b in s["bonuses"]}
        for s in result.detail["seats"]
    }
    assert won[0] == {(-5, 2, 60), (0, 2, 50), (2, 2, 40), (5, 1, 50)}  # Ulysse, 200
    assert won[1] == {(-5, 3, 40), (0, 3, 30)}  # Clement, 70
    assert won[2] == {(-5, 1, 100), (2, 1, 70)}  # Juliette, 170
    assert won[3] == {(0, 1, 80), (5, 2, 30)}  # Fanny, 110
    assert [s["bills_total"] for s in result.detail["seats"]] == [22, 100, 23, 95]


def test_a_bill_is_needed_to_race() -> None:
    """Awarding the Bonus Tokens: 'at least ONE bill of a color to be entitled'."""
    assert race([0, 2, 0], [(1,), (), (7,)]) == [1]


def test_lone_tied_player_without_token_follows_the_holders() -> None:
    """Start tokens (tie-break): 'If neither of them has a Start token, the Bonus token is
    awarded to the next player who has the most bills' - a single one follows."""
    assert race([3, 3, 3, 1], [(), (2,), (6,), ()]) == [2, 1, 0, 3]


def test_tied_players_without_tokens_are_excluded() -> None:
    """End of Game Example (2s): an unresolvable tie excludes both from the race."""
    assert race([5, 5, 4, 1], [(), (), (7,), (5, 6)]) == [2, 3]


def test_shared_victory() -> None:
    """End of the Game: 'the player with the highest total wins' - equal totals share."""
    state = GAME.create(SetUp(2, 30, 1, (1,), 0, 0))
    state = attrs.evolve(state, phase="over", wallets=((0, 0, 0, 0, 2),) * 2, tokens=((1,), ()))
    result = GAME.result(state)
    assert result is not None and result.winners == (0, 1) and result.scores == (20, 20)
    assert GAME.result(given()) is None
