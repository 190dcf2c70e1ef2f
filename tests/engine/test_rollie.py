"""Rollie's rules as tables: given events / when command / then events or rejection.

Every case cites the rulebook section it checks (seeds/001_a40d37754f043900.txt);
dice are scripted: given rolls are written as ``rolled`` events, and a ``roll``
command's dice are fixed by choosing the draw counter that produces them.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from engine.core import rng_for
from engine.errors import BadOptions, InvalidCommand, Rejection
from engine.rollie import GAME
from engine.rollie.content import TABLE, Face
from engine.rollie.model import (
    Crashed,
    DicePassed,
    GameEnded,
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


def given(
    *events: Any, seats: int = 3, bpv: int = 30, tokens: tuple[int, ...] = (2, 3, 1), first: int = 0
) -> State:
    """The state after a setup event (token 2 face up, then 3, then 1) and ``events``."""
    state = GAME.create(SetUp(seats, bpv, len(tokens), tokens, first, seed=7))
    for event in events:
        state = GAME.evolve(state, event)
    return state


def with_dice(state: State, dice: tuple[Face, Face]) -> State:
    """``state`` with its draw counter moved to where the next roll shows ``dice``."""
    for draws in range(state.draws, state.draws + 100_000):
        rng = rng_for(state.seed, draws)
        if (rng.choice(TABLE.faces), rng.choice(TABLE.faces)) == dice:
            return attrs.evolve(state, draws=draws)
    raise AssertionError(f"no draw gives {dice}")  # pragma: no cover


@attrs.frozen
class Case:
    rule: str
    given: tuple[Any, ...]
    when: Any
    then: tuple[Any, ...] | str
    dice: tuple[Face, Face] | None = None
    seats: int = 3
    bpv: int = 30
    tokens: tuple[int, ...] = (2, 3, 1)


ROLL_10_5 = Rolled(0, (10, 5))
BETS = (ROLL_10_5, Took(0, 10), Took(1, 5), Took(2, 10), DicePassed(1))
"""Seat 0 holds a 10, seat 1 a 5, seat 2 a 10; seat 1 rolls next."""
SECOND_PILE = (ROLL_10_5, Took(0, 10), Took(1, 5))
"""With one bill per value, the 10 and then the 5 pile run out."""

CASES = [
    # -- 1 - Roll the Dice! --
    Case(
        "Roll the Dice: 'The First player rolls the two dice'", (), Roll(0), (ROLL_10_5,), (10, 5)
    ),
    Case("Roll the Dice: only the First player rolls", (), Roll(1), "rollie/not_your_turn"),
    Case(
        "Roll the Dice: 'Important: Even if a player has secured their Bet ..."
        " they may still be First player and roll the dice'",
        (
            ROLL_10_5,
            Secured(0, 2),
            Took(1, 10),
            DicePassed(1),
            Rolled(1, (10, 5)),
            Took(1, 5),
            DicePassed(0),
        ),
        Roll(0),
        (Rolled(0, (2, 0)),),
        (2, 0),
        seats=2,
    ),
    Case(
        "Roll the Dice: no second roll while players decide",
        (ROLL_10_5,),
        Roll(0),
        "rollie/not_rolling_phase",
    ),
    # -- 2 - Actions: Different Values: Take a bill --
    Case(
        "Take a bill: 'a bill with the value of one of the 2 dice'",
        (ROLL_10_5,),
        Take(1, 5),
        (Took(1, 5),),
    ),
    Case(
        "Take a bill: a value on neither die is refused",
        (ROLL_10_5,),
        Take(1, 2),
        "rollie/value_not_rolled",
    ),
    Case(
        "Take a bill: 'R face: ... players may take any bill from the Bank'",
        (Rolled(0, ("R", 5)),),
        Take(2, -5),
        (Took(2, -5),),
    ),
    Case(
        "Take a bill: no bill has value 3, even with an R",
        (Rolled(0, ("R", 5)),),
        Take(2, 3),
        "rollie/unknown_value",
    ),
    Case(
        "Turn Overview: no take or secure before the roll",
        (),
        Take(0, 5),
        "rollie/not_deciding_phase",
    ),
    Case("Turn Overview: no secure before the roll", (), Secure(1), "rollie/not_deciding_phase"),
    # -- Secure --
    Case(
        "Secure: 'they take a Start token face up if any remain'",
        (ROLL_10_5,),
        Secure(1),
        (Secured(1, 2),),
    ),
    Case(
        "Secure: no face-up Start token left, none taken",
        (ROLL_10_5, Secured(0, 2)),
        Secure(1),
        (Secured(1, None),),
    ),
    Case(
        "Secure: several face-up Start tokens - the highest-numbered one (decisions.md)",
        (
            Rolled(0, (5, 5)),
            RollieCalled(5),
            RoundEnded(1),
            RoundStarted(2, 3, 1),
            Rolled(1, (10, 5)),
        ),
        Secure(2),
        (Secured(2, 3),),
    ),
    Case(
        "Secure: 'can no longer take bills until the next round'",
        (ROLL_10_5, Secured(0, 2), Took(1, 5), Took(2, 10), DicePassed(1), Rolled(1, (2, 0))),
        Take(0, 2),
        "rollie/not_in_play",
    ),
    # -- Simultaneous Play --
    Case(
        "Simultaneous Play: a player need not wait for their turn",
        (ROLL_10_5,),
        Take(2, 10),
        (Took(2, 10),),
    ),
    Case(
        "Simultaneous Play: 'they cannot go back on their decision' (after a take)",
        (ROLL_10_5, Took(1, 5)),
        Take(1, 10),
        "rollie/already_decided",
    ),
    Case(
        "Simultaneous Play: 'they cannot go back on their decision' (after securing)",
        (ROLL_10_5, Secured(1, 2)),
        Secure(1),
        "rollie/already_decided",
    ),
    Case(
        "Simultaneous Play: 'took the last bill of a pile ... must put it back and choose another'",
        (ROLL_10_5, Took(0, 10)),
        Take(1, 10),
        "rollie/pile_empty",
        bpv=1,
    ),
    Case(
        "Simultaneous Play: after pile_empty the player chooses again",
        (ROLL_10_5, Took(0, 10)),
        Take(1, 5),
        (Took(1, 5),),
        bpv=1,
    ),
    # -- end of the turn --
    Case(
        "Different Values: 'If at least one player takes a bill ... passes the dice to the"
        " player on their left'",
        (ROLL_10_5, Took(2, 10), Secured(1, 2)),
        Secure(0),
        (Secured(0, None), DicePassed(1)),
    ),
    Case(
        "Different Values: the dice pass left from the last seat to seat 0",
        (
            ROLL_10_5,
            Took(0, 10),
            Took(1, 5),
            Took(2, 10),
            DicePassed(1),
            Rolled(1, (2, 0)),
            Took(0, 2),
            Took(1, 0),
            DicePassed(2),
            Rolled(2, (2, 0)),
            Took(0, 2),
            Took(1, 2),
        ),
        Take(2, 0),
        (Took(2, 0), DicePassed(0)),
    ),
    Case(
        "Different Values / End of Round: 'If all players have secured their Bet' the round"
        " ends; a token is revealed; the dice pass left",
        (ROLL_10_5, Secured(0, 2), Secured(1, None)),
        Secure(2),
        (Secured(2, None), RoundEnded(1), RoundStarted(2, 3, 1)),
    ),
    # -- Identical Values --
    Case(
        "Identical Values: 'Crash! ... at least one bill of the same value' / 'Stay'; the"
        " round ends and the dice pass left of the roller",
        BETS,
        Roll(1),
        (
            Rolled(1, (10, 10)),
            RollieCalled(10),
            Crashed(0, "rollie"),
            Crashed(2, "rollie"),
            RoundEnded(1),
            RoundStarted(2, 3, 2),
        ),
        (10, 10),
    ),
    Case(
        "Identical Values: '2 R faces ... all players crash!'",
        BETS,
        Roll(1),
        (
            Rolled(1, ("R", "R")),
            RollieCalled("R"),
            Crashed(0, "rollie"),
            Crashed(1, "rollie"),
            Crashed(2, "rollie"),
            RoundEnded(1),
            RoundStarted(2, 3, 2),
        ),
        ("R", "R"),
    ),
    Case(
        "Identical Values: nobody holds the value - everyone Stays",
        BETS,
        Roll(1),
        (Rolled(1, (0, 0)), RollieCalled(0), RoundEnded(1), RoundStarted(2, 3, 2)),
        (0, 0),
    ),
    # -- Empty Pile --
    Case(
        "Empty Pile: 'When a second pile ... is also exhausted' the current round goes on"
        " (undecided players still decide)",
        SECOND_PILE[:2],
        Take(1, 5),
        (Took(1, 5),),
        bpv=1,
    ),
    Case(
        "Empty Pile: after the second pile ran out, the turn ends as usual",
        SECOND_PILE,
        Secure(2),
        (Secured(2, 2), DicePassed(1)),
        bpv=1,
    ),
    Case(
        "End of the Game: 'When 2 piles of bills are exhausted - in this case, finish the"
        " current round'",
        (*SECOND_PILE, Secured(2, 2), DicePassed(1), Rolled(1, (2, 0)), Secured(0, None)),
        Secure(1),
        (Secured(1, None), RoundEnded(1), GameEnded()),
        bpv=1,
    ),
    Case(
        "Empty Pile: 'If all the piles ... corresponding to the values of the dice are"
        " exhausted, all players still in play lose their Bet' (checked right after the roll;"
        " the round ends)",
        (*SECOND_PILE, Secured(2, 2), DicePassed(1)),
        Roll(1),
        (
            Rolled(1, (10, 5)),
            Crashed(0, "empty_piles"),
            Crashed(1, "empty_piles"),
            RoundEnded(1),
            GameEnded(),
        ),
        (10, 5),
        bpv=1,
    ),
    # -- End of the Game --
    Case(
        "End of the Game: 'when it is no longer possible to reveal a new Start token'",
        (ROLL_10_5, Secured(0, 1), Secured(1, None)),
        Secure(2),
        (Secured(2, None), RoundEnded(1), GameEnded()),
        tokens=(1,),
    ),
    Case(
        "End of the Game: no command after the end",
        (ROLL_10_5, Secured(0, 1), Secured(1, None), Secured(2, None), RoundEnded(1), GameEnded()),
        Roll(1),
        "game/over",
        tokens=(1,),
    ),
    Case("Turn Overview: a seat that is not at the table", (), Roll(3), "game/no_such_seat"),
    Case("Turn Overview: a seat that is not an int", (), Secure("0"), "game/no_such_seat"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("case", CASES, ids=[c.rule[:70] for c in CASES])
def test_rule(case: Case) -> None:
    """Each rulebook rule: the command on the given history gives exactly these events."""
    state = given(*case.given, seats=case.seats, bpv=case.bpv, tokens=case.tokens)
    if case.dice is not None:
        state = with_dice(state, case.dice)
    if isinstance(case.then, str):
        with pytest.raises(Rejection) as info:
            GAME.decide(state, case.when)
        assert info.value.code == case.then
    else:
        assert GAME.decide(state, case.when) == case.then


def test_setup_lays_out_the_table() -> None:
    """Setup: '5 piles of the same value', 'Shuffle the Start tokens ... turn one face up',
    and the First player (drawn at random) is recorded."""
    event = GAME.setup(4, {}, seed=3)
    assert sorted(event.tokens) == [1, 2, 3, 4, 5, 6, 7]
    assert 0 <= event.first_player < 4 and event.seed == 3
    assert (event.bills_per_value, event.rounds) == (30, 7)
    state = GAME.create(event)
    assert state.bank == (30,) * 5 and state.face_up == event.tokens[:1]
    assert state.face_down == event.tokens[1:]
    assert GAME.awaiting(state) == {event.first_player}
    firsts = {GAME.setup(4, {}, seed).first_player for seed in range(40)}
    assert firsts == {0, 1, 2, 3}


def test_rounds_option_sets_the_number_of_start_tokens() -> None:
    """Setup: the option ``rounds`` is how many Start tokens (so rounds) there are."""
    event = GAME.setup(2, {"rounds": 3, "bills_per_value": 5}, seed=1)
    assert sorted(event.tokens) == [1, 2, 3] and event.bills_per_value == 5


@pytest.mark.parametrize(
    ("seats", "options", "named"),
    [
        (1, {}, "seats"),
        (7, {}, "seats"),
        (True, {}, "seats"),
        (3, {"colour": 1}, "colour"),
        (3, {"rounds": 0}, "rounds"),
        (3, {"rounds": 8}, "rounds"),
        (3, {"rounds": "7"}, "rounds"),
        (3, {"bills_per_value": 0}, "bills_per_value"),
        (3, {"bills_per_value": True}, "bills_per_value"),
        (3, {"bills_per_value": 2.5}, "bills_per_value"),
    ],
)
def test_bad_options_are_named(seats: Any, options: dict[str, Any], named: str) -> None:
    """Options are checked strictly; BadOptions names the option (2-6 seats)."""
    with pytest.raises(BadOptions) as info:
        GAME.setup(seats, options, seed=0)
    assert info.value.details["option"] == named


def test_default_options() -> None:
    """default_options lists every option with its default."""
    assert GAME.default_options() == {"bills_per_value": 30, "rounds": 7, "priority": "arrival"}


def test_stay_keeps_the_bet_for_the_next_round() -> None:
    """Identical Values, Stay: 'must keep their Bet in play for the next round'; End of
    Round: 'all players come back into play'."""
    state = with_dice(given(*BETS), (10, 10))
    for event in GAME.decide(state, Roll(1)):
        state = GAME.evolve(state, event)
    assert state.bets[1] == (0, 0, 0, 1, 0) and state.bets[0] == state.bets[2] == (0,) * 5
    assert state.bank == (30, 30, 30, 29, 30)
    assert state.in_play == {0, 1, 2} and state.round == 2
    assert state.face_up == (2, 3) and state.face_down == (1,)
    assert GAME.awaiting(state) == {2}


def test_game_end_returns_bets_to_the_bank() -> None:
    """End of the Game: 'The bills remaining in the players' Bets are returned to the Bank'."""
    state = given(*BETS, Rolled(1, (0, 0)), RollieCalled(0), RoundEnded(1), GameEnded())
    assert GAME.is_over(state) and state.bank == (30,) * 5
    assert state.bets == ((0,) * 5,) * 3


def test_a_player_with_no_possible_take_may_secure() -> None:
    """Empty Pile: 'no more bills of this value can be taken' - securing stays open."""
    state = given(*SECOND_PILE, Secured(2, 2), DicePassed(1), Rolled(1, (10, 0)), bpv=1)
    assert GAME.legal_commands(state, 1) == [Take(1, 0), Secure(1)]
    state = GAME.evolve(state, Took(0, 0))  # seat 0 took the last 0 first
    assert GAME.legal_commands(state, 1) == [Secure(1)]
    assert GAME.decide(state, Secure(1)) == (Secured(1, None), DicePassed(2))


def test_awaiting_and_timeouts() -> None:
    """Turn Overview: the roller is awaited, then every undecided player in play; a clock
    runs out into a roll or a secure."""
    state = given()
    assert GAME.awaiting(state) == {0}
    assert GAME.timeout_command(state, 0) == Roll(0)
    assert GAME.timeout_command(state, 1) is None
    state = given(ROLL_10_5, Took(1, 5))
    assert GAME.awaiting(state) == {0, 2}
    assert GAME.timeout_command(state, 2) == Secure(2)
    assert GAME.timeout_command(state, 1) is None
    assert GAME.legal_commands(state, 1) == []
    assert GAME.legal_commands(state, 0) == [Take(0, 5), Take(0, 10), Secure(0)]


def test_r_lists_every_value() -> None:
    """Take a bill, R face: every value with bills left may be taken."""
    state = given(Rolled(0, ("R", 0)))
    assert [c.value for c in GAME.legal_commands(state, 1) if isinstance(c, Take)] == [
        -5,
        0,
        2,
        5,
        10,
    ]


def test_not_a_command() -> None:
    """decide refuses anything that is not a Rollie command with a typed rejection."""
    with pytest.raises(InvalidCommand):
        GAME.decide(given(), object())


def test_public_names() -> None:
    """Each event has a short public name for clients to animate."""
    names = {
        GAME.public_name(e)
        for e in (*BETS, RollieCalled(5), Crashed(0, "rollie"), RoundEnded(1), GameEnded())
    }
    assert names == {"rolled", "took", "dice_passed", "rollie", "crash", "round_ended", "game_over"}
