"""The terminal client's pure parts: rendering real Rollie views, keys and lines, tokens."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clients.sdk import Client
from clients.terminal import tokens
from clients.terminal.keys import Help, Hint, Quit, Send, action_for_key, action_for_line
from clients.terminal.live import BANNER_SECONDS, LiveTable
from clients.terminal.render import Status, render, to_text
from engine.core import apply, get_game
from engine.data import to_data

GAME = get_game("rollie")
NOW = 1_000_000.0


def table(seed: int, seats: int = 2, rounds: int = 3) -> Any:
    """A fresh Rollie state."""
    return GAME.create(GAME.setup(seats, {"rounds": rounds}, seed))


def act(state: Any, command: Any) -> Any:
    return apply(GAME, state, GAME.decide(state, command))


def roll(state: Any) -> Any:
    return act(state, GAME.commands.load({"type": "roll"}, seat=state.first_player))


def wrap(
    state: Any,
    viewer: int | None,
    deadlines: dict[int, float] | None = None,
    status: str = "playing",
) -> dict[str, Any]:
    """A game view wrapped the way the server's room does."""
    view: dict[str, Any] = {
        "game": GAME.view(state, viewer),
        "room": {
            "status": "finished" if GAME.is_over(state) else status,
            "deadlines": {str(s): t for s, t in (deadlines or {}).items()},
            "clock": 30.0 if deadlines else 0.0,
            "seats": [
                {"seat": s, "name": ["ann", "bob", "cy"][s], "taken": True, "bot": False}
                for s in range(state.seats)
            ],
        },
    }
    if viewer is not None:
        legal = [to_data(c) for c in GAME.legal_commands(state, viewer)]
        view["you"] = {"seat": viewer, "legal": [_drop(c) for c in legal]}
    return view


def _drop(command: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in command.items() if k != "seat"}


def first_roll(found: Callable[[tuple[Any, Any]], bool]) -> Any:
    """The state after the first roll of the first seed whose dice satisfy ``found``."""
    for seed in range(1000):
        state = roll(table(seed))
        if state.dice is not None and found(state.dice) and state.phase == "deciding":
            return state
    raise AssertionError("no seed rolls such dice")


def finished(seed: int = 3) -> Any:
    """A whole 2-round game played by the push bot."""
    state, rng = table(seed, rounds=2), random.Random(seed)
    while not GAME.is_over(state):
        seat = min(GAME.awaiting(state))
        legal = GAME.legal_commands(state, seat)
        state = act(state, GAME.policies["push"](GAME.view(state, seat), seat, legal, rng))
    return state


def text(view: dict[str, Any] | None, status: Status | None = None, now: float = NOW) -> str:
    return to_text(render(view, None, status or Status(room="r-1", connection="connected"), now))


# -- rendering ---------------------------------------------------------------------------------------


def test_fresh_table_shows_bank_tokens_seats_and_roller() -> None:
    """Before any roll: full Bank piles, face-up/face-down tokens, names and who rolls."""
    state = table(1)
    out = text(wrap(state, 0))
    assert "room r-1" in out and "Round 1" in out and "not rolled yet" in out
    assert out.count(" 30") >= 5  # every pile of the Bank
    assert f"face up: {state.face_up[0]}" in out and "face down: 2" in out
    assert "Seat 0 (ann)" in out and "Seat 1 (bob)" in out
    assert f"rolls: Seat {state.first_player}" in out


def test_dice_and_deciding_after_a_roll() -> None:
    """After a roll both dice appear and every seat in play is deciding."""
    state = first_roll(lambda d: d[0] != d[1] and "R" not in d)
    out = text(wrap(state, None))
    assert f"A [ {state.dice[0]} ]" in out and f"B [ {state.dice[1]} ]" in out
    assert out.count("deciding") == 2 and "watching" in out


def test_bets_and_wallets_in_the_seat_rows() -> None:
    """A take shows in the Bet and the Bank pile shrinks; a secure fills the Wallet."""
    state = first_roll(lambda d: d[0] != d[1] and 10 in d)
    state = act(state, GAME.commands.load({"type": "take", "value": 10}, seat=0))
    out = text(wrap(state, 0))
    assert " 10 1x10" in out and "decided" in out and " 29" in out
    state = act(state, GAME.commands.load({"type": "secure"}, seat=1))
    assert "secured" in text(wrap(state, 0))


def test_rollie_banner_only_when_events_say_so() -> None:
    """A ROLLIE! banner and a CRASH! banner appear for those events, never otherwise."""
    view = wrap(roll(table(1)), 0)
    loud = text(view, Status(connection="connected", events=("crash", "rollie")))
    assert "ROLLIE!" in loud and "CRASH!" in loud
    quiet = text(view, Status(connection="connected", events=("rolled",)))
    assert "ROLLIE!" not in quiet and "CRASH!" not in quiet


def test_final_scoring_table_at_game_over() -> None:
    """At the end the scoring table lists every seat's total and marks the winners."""
    state = finished()
    result = GAME.result(state)
    assert result is not None
    out = text(wrap(state, None), Status(events=("game_over",)))
    assert "Final scoring" in out and "GAME OVER" in out and "game over" in out
    for seat, score in enumerate(result.scores):
        assert f"Seat {seat}" in out and str(score) in out
    assert out.count("★ winner") == len(result.winners)


def test_clock_counts_down_from_the_deadline() -> None:
    """A running clock shows the seconds left, also as YOUR CLOCK for the viewer."""
    state = table(1)
    roller = state.first_player
    view = wrap(state, roller, deadlines={roller: NOW + 12.2})
    assert "YOUR CLOCK 13s" in text(view, now=NOW)
    assert "YOUR CLOCK 3s" in text(view, now=NOW + 10)
    assert "YOUR CLOCK 0s" in text(view, now=NOW + 60)
    assert "YOUR CLOCK" not in text(wrap(state, roller))


def test_status_line_shows_connection_and_message() -> None:
    """Reconnecting and a rejection are shown plainly."""
    status = Status(connection="reconnecting (2)", message="rejected: pile empty")
    out = text(wrap(table(1), 0), status)
    assert "reconnecting (2)" in out and "rejected: pile empty" in out


def test_unknown_game_is_pretty_printed_and_no_view_waits() -> None:
    """A game without a terminal module shows its view data; no view yet shows a wait."""
    view = {"game": {"game": "mystery", "secret_sauce": 42}, "room": {"status": "playing"}}
    out = text(view)
    assert "mystery" in out and "secret_sauce" in out and "42" in out
    assert "waiting for the table" in text(None)


def test_help_panel_lists_the_keys() -> None:
    """The help panel lists the Rollie keys for players and only q/? for spectators."""
    state = table(1)
    assert "secure: move your Bet" in text(wrap(state, 0), Status(help=True))
    watching = text(wrap(state, None), Status(role="spectator", help=True))
    assert "secure: move" not in watching and "quit" in watching


# -- keys and lines ---------------------------------------------------------------------------------


def test_roll_key_only_for_the_roller() -> None:
    """r sends roll for the roller; for the other seat it is a hint naming the turn."""
    state = table(1)
    roller, other = state.first_player, 1 - state.first_player
    assert action_for_key("r", wrap(state, roller)) == Send({"type": "roll"})
    hint = action_for_key("r", wrap(state, other))
    assert isinstance(hint, Hint) and "not your turn" in hint.text


def test_column_keys_take_bill_values() -> None:
    """1-5 take -5, 0, 2, 5, 10 when an R makes every value legal."""
    view = wrap(first_roll(lambda d: "R" in d and d[0] != d[1]), 0)
    for key, value in zip("12345", (-5, 0, 2, 5, 10), strict=True):
        assert action_for_key(key, view) == Send({"type": "take", "value": value})


def test_die_keys_take_die_values_and_explain_r() -> None:
    """a/b take the value shown on die A/B; a die showing R gives a hint."""
    state = first_roll(lambda d: d[0] == "R" and d[1] != "R")
    view = wrap(state, 1)
    assert action_for_key("b", view) == Send({"type": "take", "value": state.dice[1]})
    hint = action_for_key("a", view)
    assert isinstance(hint, Hint) and "shows R" in hint.text


def test_illegal_take_and_spectator_get_hints() -> None:
    """A value not on the dice is refused with the legal list; spectators cannot act."""
    state = first_roll(lambda d: d[0] != d[1] and "R" not in d and -5 not in d)
    hint = action_for_key("1", wrap(state, 0))
    assert isinstance(hint, Hint) and "cannot take -5" in hint.text and "secure" in hint.text
    watch = action_for_key("s", wrap(state, None))
    assert isinstance(watch, Hint) and "spectators" in watch.text
    assert action_for_key("s", wrap(state, 0)) == Send({"type": "secure"})


def test_common_keys_and_unknown_key() -> None:
    """q quits, ? toggles help, an unmapped key is a hint; after the game nothing is sent."""
    view = wrap(table(1), 0)
    assert action_for_key("q", view) == Quit() and action_for_key("?", view) == Help()
    assert isinstance(action_for_key("z", view), Hint)
    over = action_for_key("s", wrap(finished(), 0))
    assert isinstance(over, Hint) and "over" in over.text


def test_lines_map_to_commands() -> None:
    """roll, take N, secure and quit lines; a malformed take is a hint."""
    state = first_roll(lambda d: d[0] != d[1] and 5 in d)
    view = wrap(state, 0)
    assert action_for_line("take 5", view) == Send({"type": "take", "value": 5})
    assert action_for_line("SECURE", view) == Send({"type": "secure"})
    assert action_for_line("quit", view) == Quit()
    assert isinstance(action_for_line("take five", view), Hint)
    assert isinstance(action_for_line("roll", view), Hint)
    assert action_for_line("roll", wrap(table(1), table(1).first_player)) == Send({"type": "roll"})


# -- tokens ------------------------------------------------------------------------------------------


def test_tokens_keyed_by_server_and_room(tmp_path: Path) -> None:
    """http and ws spellings of a server share a token; rooms are separate; forget drops it."""
    path = tmp_path / "tokens.json"
    tokens.save("http://127.0.0.1:9/", "r-1", "tok-a", path)
    tokens.save("ws://127.0.0.1:9/ws", "r-2", "tok-b", path)
    assert tokens.load("ws://127.0.0.1:9/ws", "r-1", path) == "tok-a"
    assert tokens.load("http://127.0.0.1:9", "r-2", path) == "tok-b"
    tokens.forget("http://127.0.0.1:9", "r-1", path)
    assert tokens.load("http://127.0.0.1:9", "r-1", path) is None
    assert path.stat().st_mode & 0o077 == 0


def test_damaged_token_file_reads_as_empty(tmp_path: Path) -> None:
    """A corrupt tokens.json is ignored rather than crashing the client."""
    path = tmp_path / "tokens.json"
    path.write_text("{not json")
    assert tokens.load("http://h:1", "r", path) is None
    tokens.save("http://h:1", "r", "t", path)
    assert tokens.load("http://h:1", "r", path) == "t"


# -- the live table's memory ------------------------------------------------------------------------


def test_live_table_banner_follows_new_events_and_fades() -> None:
    """New rollie/crash events raise a banner that is gone BANNER_SECONDS later."""
    client = Client("ws://127.0.0.1:9/ws", "r-1")
    live = LiveTable(client, "r-1")
    client.events.append((7, ["rolled", "rollie", "crash", "round_ended"]))
    live.note_events(NOW)
    assert live.status(NOW + 1).events == ("crash", "rollie")
    assert live.status(NOW + BANNER_SECONDS + 0.1).events == ()
    client.events.append((8, ["rolled"]))
    live.note_events(NOW + 10)
    assert live.status(NOW + 10).events == ()


def test_live_table_actions_and_connection_text() -> None:
    """Hints land in the status line, ? toggles help, q stops; no socket reads as reconnecting."""
    client = Client("ws://127.0.0.1:9/ws", "r-1")
    live = LiveTable(client, "r-1")
    assert live.handle(Hint("not your turn")) and live.status(NOW).message == "not your turn"
    assert live.handle(Help()) and live.status(NOW).help
    assert live.handle(Help()) and not live.status(NOW).help
    assert not live.handle(Quit())
    assert live.status(NOW).connection == "reconnecting (1)"
