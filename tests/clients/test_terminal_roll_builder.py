"""Roll Builder in the terminal: the summary table on real views, commands by index."""

from __future__ import annotations

import random
from typing import Any

from clients.terminal.keys import Hint, Send, action_for_key, action_for_line
from clients.terminal.render import GAME_MODULES, Status, render, to_text
from engine.core import apply, get_game
from engine.data import to_data

GAME = get_game("roll-builder")
NOW = 1_000_000.0


def table(seed: int = 7, seats: int = 1, **options: Any) -> Any:
    """A fresh Roll Builder state."""
    return GAME.create(GAME.setup(seats, options, seed))


def act(state: Any, seat: int, command: dict[str, Any]) -> Any:
    return apply(GAME, state, GAME.decide(state, GAME.commands.load(command, seat=seat)))


def wrap(state: Any, viewer: int | None, deadlines: dict[int, float] | None = None) -> dict:  # type: ignore[type-arg]
    """A view wrapped the way the server's room does (legal commands without ``seat``)."""
    view: dict[str, Any] = {
        "game": GAME.view(state, viewer),
        "room": {
            "status": "finished" if GAME.is_over(state) else "playing",
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
        view["you"] = {
            "seat": viewer,
            "legal": [{k: v for k, v in c.items() if k != "seat"} for c in legal],
        }
    return view


def finished(seed: int = 3, seats: int = 1) -> Any:
    """A whole game played by the greedy bot."""
    state, rng = table(seed, seats), random.Random(seed)
    while not GAME.is_over(state):
        seat = min(GAME.awaiting(state))
        legal = GAME.legal_commands(state, seat)
        command = GAME.policies["greedy"](GAME.view(state, seat), seat, legal, rng)
        state = apply(GAME, state, GAME.decide(state, command))
    return state


def text(view: dict[str, Any], events: tuple[str, ...] = ()) -> str:
    status = Status(room="r-1", connection="connected", events=events)
    return to_text(render(view, None, status, NOW), width=110)


def test_roll_builder_is_registered() -> None:
    """The terminal frame finds Roll Builder's module by the game's name."""
    assert GAME_MODULES["roll-builder"] == "clients.terminal.roll_builder"


def test_fresh_table_shows_turn_dice_event_map_and_sheet() -> None:
    """Turn 1, the dice, the solo event, the text map, wonder, innovations and tracks."""
    state = table()
    out = text(wrap(state, 0, deadlines={0: NOW + 12}))
    assert "Turn 1/15" in out
    assert f"[ {state.dice[0]} ]" in out and f"[ {state.dice[1]} ]" in out
    event = GAME.view(state, 0)["event"]
    assert event["name"] in out and f"target {event['target']}" in out
    assert "Tidehaven" in out and "Seat 0 (ann) (you)" in out and "12s" in out
    assert ".3" in out and "~" in out  # a 3-point land space and water on the map
    assert "The Great Lighthouse" in out and "Shipwrights" in out
    assert "Favor track: 0 crossed" in out and "Stored wealth 0/24" in out
    assert "legal commands: type list" in out


def test_map_marks_buildings_and_crossed_spaces() -> None:
    """A building shows its number on its space; a crossed-off space shows an x."""
    state = table()
    view = wrap(state, 0)
    mark = next(c for c in view["you"]["legal"] if c["type"] == "mark_space")
    state = act(state, 0, mark)
    build_die = next(
        c
        for c in wrap(state, 0)["you"]["legal"]
        if c["type"] == "use_die" and c["action"] == "build"
    )
    state = act(state, 0, build_die)
    build = next(c for c in wrap(state, 0)["you"]["legal"] if c["type"] == "build")
    state = act(state, 0, build)
    spaces = {(s["q"], s["r"]): s for s in GAME.view(state, 0)["players"][0]["map"]["spaces"]}
    assert spaces[tuple(mark["space"])]["marked"]
    assert spaces[tuple(build["space"])]["building"] == build["building"]
    out = text(wrap(state, 0))
    assert "x" in out and f"{build['building']}" in out
    assert "build" in out.lower()


def test_list_numbers_the_legal_commands_and_an_index_sends_one() -> None:
    """``list`` shows every legal command numbered; a number sends that very command."""
    view = wrap(table(), 0)
    legal = view["you"]["legal"]
    listed = action_for_line("list", view)
    assert isinstance(listed, Hint)
    lines = listed.text.splitlines()[1:]
    assert len(lines) == len(legal)
    assert "use die 1 for" in lines[0] and "done" in lines[-1]
    assert action_for_line("0", view) == Send(legal[0])
    assert action_for_line(str(len(legal) - 1), view) == Send({"type": "done"})
    assert action_for_line("done", view) == Send({"type": "done"})
    assert isinstance(action_for_line("999", view), Hint)
    assert isinstance(action_for_line("build here", view), Hint)


def test_keys_send_by_index_and_done() -> None:
    """Digit keys send that legal command, ``d`` finishes the turn, ``l`` lists."""
    view = wrap(table(), 0)
    assert action_for_key("0", view) == Send(view["you"]["legal"][0])
    assert action_for_key("d", view) == Send({"type": "done"})
    assert "use die" in action_for_key("l", view).text  # type: ignore[union-attr]
    assert isinstance(action_for_key("z", view), Hint)


def test_roads_and_pays_read_plainly_in_the_list() -> None:
    """After a road die the list names road sides; costs name the innovation."""
    state = table()
    die = next(
        c
        for c in wrap(state, 0)["you"]["legal"]
        if c["type"] == "use_die" and c["action"] == "road"
    )
    state = act(state, 0, die)
    out = action_for_line("list", wrap(state, 0)).text  # type: ignore[union-attr]
    assert "road between" in out and "cross off" in out


def test_spectator_and_a_finished_game_get_hints() -> None:
    """A spectator cannot send; after the game an index says the game is over."""
    state = table()
    spectator = wrap(state, None)
    assert "spectators cannot act" in action_for_line("0", spectator).text  # type: ignore[union-attr]
    assert "ann" in text(spectator)
    over = wrap(finished(), 0)
    assert "game is over" in action_for_line("0", over).text  # type: ignore[union-attr]


def test_final_scoring_lists_items_totals_and_survival() -> None:
    """At the end: the items, the total and whether the solo city survived its event."""
    state = finished()
    view = wrap(state, 0)
    out = text(view, events=("game_ended",))
    player = view["game"]["players"][0]
    assert "Final scoring" in out and "GAME OVER" in out
    assert "buildings: Building marks" in out
    assert "Total" in out and str(player["score"]) in out
    target = view["game"]["event"]["target"]
    assert ("SURVIVED" if player["score"] > target else "FELL to") in out


def test_two_cities_show_in_the_players_table_and_brief() -> None:
    """Two seats: both cities in the table; the brief line has each score."""
    from clients.terminal import roll_builder as rb

    state = table(seats=2, city=["tidehaven", "highcrag"])
    view = wrap(state, 1)
    out = text(view)
    assert "Tidehaven" in out and "Highcrag" in out and "Seat 1 (bob) (you)" in out
    assert rb.brief(view).startswith("turn 1/15 · dice")
    assert "0: " in rb.brief(view) and "1: " in rb.brief(view)
