"""Roll Player in the terminal: real engine views rendered, moves picked by their index."""

from __future__ import annotations

import random
from typing import Any

import pytest

from clients.terminal import roll_player as rp
from clients.terminal.keys import Hint, Send, action_for_key, action_for_line
from clients.terminal.render import Status, render, to_text
from engine.core import apply, get_game
from engine.data import to_data

GAME = get_game("roll-player")
NOW = 1_000_000.0
NAMES = ["ann", "bob", "cy", "dee"]


def wrap(state: Any, viewer: int | None) -> dict[str, Any]:
    """A view wrapped the way the server's room does (legal commands without the seat)."""
    view: dict[str, Any] = {
        "game": GAME.view(state, viewer),
        "room": {
            "status": "finished" if GAME.is_over(state) else "playing",
            "deadlines": {},
            "clock": 0.0,
            "seats": [
                {"seat": s, "name": NAMES[s], "taken": True, "bot": False}
                for s in range(state.seats)
            ],
        },
    }
    if viewer is not None:
        legal = [to_data(c) for c in GAME.legal_commands(state, viewer)]
        view["you"] = {
            "seat": viewer,
            "legal": [{k: v for k, v in c.items() if k != "seat"} for c in legal],
        }
    return view


def play_until(seed: int, stop: Any, seats: int = 2) -> Any:
    """Random decisions (no skills) from a fresh table until ``stop(state)`` holds."""
    state = GAME.create(GAME.setup(seats, {}, seed))
    rng = random.Random(seed)
    for _ in range(2000):
        if stop(state):
            return state
        seat = min(GAME.awaiting(state))
        options = [
            c
            for c in GAME.legal_commands(state, seat)
            if type(c).__name__ not in ("UseSkill", "DropWeapon")
        ]
        state = apply(GAME, state, GAME.decide(state, rng.choice(options)))
    raise AssertionError("the game never reached that point")


def text_of(view: dict[str, Any]) -> str:
    role = "player" if view.get("you") else "spectator"
    return to_text(render(view, None, Status(room="r1", role=role), NOW), width=120)


@pytest.fixture(autouse=True)
def _reset_typed() -> None:
    rp.TYPED.update(digits="", all=False)


def test_setup_shows_the_sheets_choice_with_indexes() -> None:
    """At setup the awaited player sees numbered sheet choices; the number sends it."""
    state = GAME.create(GAME.setup(2, {}, 5))
    seat = min(GAME.awaiting(state))
    view = wrap(state, seat)
    text = text_of(view)
    assert "Setup: choose sheets" in text and "Start Player" in text
    assert "[0] sheet " in text and "[3] sheet " in text
    action = action_for_line("3", view)
    assert isinstance(action, Send) and action.command == view["you"]["legal"][3]
    assert action.command["type"] == "choose_sheet"


def test_mid_game_table_shows_sheets_initiative_market_and_gold() -> None:
    """Mid-game: round, phase, the Initiative row, the Market and every sheet's rows."""
    state = play_until(7, lambda s: s.round >= 4 and s.phase == "dice")
    view = wrap(state, None)
    text = text_of(view)
    assert f"Round {state.round}/12" in text and "Dice Phase" in text
    assert "Initiative" in text and "Market" in text and "Supply" in text
    for attr in rp.ATTRS:
        assert attr in text
    for p in state.players:
        assert p.race in text and p.klass in text and p.alignment in text
        assert f"Gold {p.gold}" in text
    assert "ann" in text and "bob" in text
    # a spectator gets no moves and cannot act
    assert "Your moves" not in text
    assert action_for_line("0", view) == Hint("you are watching: spectators cannot act")


def test_keys_build_a_move_number_and_enter_sends_it() -> None:
    """Digits then Enter send legal[n]; Backspace corrects; a wrong number says the range."""
    state = play_until(3, lambda s: s.phase == "dice" and s.round >= 2)
    view = wrap(state, state.turn)
    moves = view["you"]["legal"]
    assert len(moves) > 10
    for key in "19":
        action_for_key(key, view)
    action_for_key("\x7f", view)
    action_for_key("0", view)
    action = action_for_key("\n", view)
    assert isinstance(action, Send) and action.command == moves[10]
    for key in "999":
        action_for_key(key, view)
    refused = action_for_key("\r", view)
    assert isinstance(refused, Hint) and f"0-{len(moves) - 1}" in refused.text
    assert "take init" in rp.moves_text(view).plain


def test_list_shows_every_move_and_the_action_phase_names_targets() -> None:
    """'list' shows every legal move by index, attribute actions with their dice."""
    state = play_until(11, lambda s: s.phase == "action" and s.action_row in (0, 1, 2, 3))
    view = wrap(state, state.turn)
    listed = action_for_line("list", view)
    assert isinstance(listed, Hint)
    moves = view["you"]["legal"]
    for i in (0, len(moves) - 1):
        assert f"[{i}] " in listed.text
    assert "skip action" in listed.text
    # the live table lists the first moves and says how to see the rest
    if len(moves) > rp.SHOWN:
        assert "more: press l" in text_of(view)
        action_for_key("l", view)
        assert "more: press l" not in text_of(view)


def test_the_final_scoring_is_itemised_with_the_winner() -> None:
    """After the last round: every scoring item per player, the totals and a star."""
    state = play_until(2, lambda s: s.phase == "over")
    view = wrap(state, 0)
    text = text_of(view)
    assert "Final scoring" in text and "GAME OVER" not in text
    for item in ("STR goal", "class-colour dice", "alignment", "backstory", "armor", "traits"):
        assert item in text
    totals, best = GAME.result(state).scores, GAME.result(state).winners
    assert rp.winners(view["game"]) == list(best)
    assert "TOTAL" in text and all(str(t) in text for t in totals)
    assert f"★ Seat {best[0]}" in text
    assert rp.banner(("game_ended",)) is not None
    assert action_for_line("0", view) == Hint("nothing to do now: it is not your turn")
