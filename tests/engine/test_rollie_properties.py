"""Rollie's laws over random whole games, the wire round trip and the view's secrecy."""

from __future__ import annotations

import contextlib
import json
import operator
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import replay
from engine.data import to_data
from engine.errors import Rejection
from engine.rollie import GAME
from engine.rollie.content import TABLE
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
from tests.engine.strategies import Table, junk_command, play, rngs, rollie_tables

GAMES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def bound(table: Table) -> int:
    """At most: per round, one turn per bill (each turn with a take removes one) plus a
    final roll, each turn a roll and one decision per seat."""
    opts = {**GAME.default_options(), **table.options}
    bills = len(TABLE.values) * opts["bills_per_value"]
    return opts["rounds"] * (bills + 1) * (table.seats + 1)


def conserved(state: State) -> None:
    """Bank + Bets + Wallets hold every bill of every value."""
    for i in range(len(TABLE.values)):
        held = state.bank[i] + sum(b[i] for b in state.bets) + sum(w[i] for w in state.wallets)
        assert held == state.bills_per_value
        assert state.bank[i] >= 0


@GAMES
@given(rollie_tables(max_bills=8), rngs())
def test_random_games_keep_the_laws(table: Table, rng: random.Random) -> None:
    """Bills are conserved, replay rebuilds the state, the game ends within the bound,
    and junk commands are only ever refused with a typed rejection."""
    played = play(GAME, table, rng, junk=0.3, check=conserved)
    assert GAME.is_over(played.state)
    assert played.applied <= bound(table)
    assert replay(GAME, played.events) == played.state
    result = GAME.result(played.state)
    assert result is not None and len(result.scores) == table.seats
    assert set(result.winners) <= set(range(table.seats)) and result.winners


@settings(max_examples=15, deadline=None)
@given(rollie_tables(), rngs())
def test_full_size_games_end(table: Table, rng: random.Random) -> None:
    """With 30 bills per value games end within the bound and replay exactly."""
    played = play(GAME, table, rng, check=conserved)
    assert played.applied <= bound(table)
    assert replay(GAME, played.events) == played.state


@settings(max_examples=30, deadline=None)
@given(rollie_tables(max_bills=10), rngs(), st.sampled_from(sorted(GAME.policies)))
def test_bot_games_keep_the_laws(table: Table, rng: random.Random, name: str) -> None:
    """Bots only send legal commands (none is refused); bills are conserved."""
    played = play(GAME, table, rng, check=conserved, policy=GAME.policies[name])
    assert played.rejected == 0 and GAME.is_over(played.state)
    assert played.applied <= bound(table)
    assert replay(GAME, played.events) == played.state


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 6), st.integers(1, 3), st.sampled_from(["arrival", "turn"]),
    st.integers(0, 2**32), rngs(),
)  # fmt: skip
def test_legal_inputs_name_what_legal_commands_read(
    seats: int, bills: int, priority: str, seed: int, rng: random.Random
) -> None:
    """From one event to the next, a seat whose ``legal_inputs`` are the same objects has
    the same legal commands (a host keeps them then). Few bills: piles run out and, under
    turn priority, claims on last bills come and go."""
    table = Table(seats, {"bills_per_value": bills, "priority": priority}, seed)
    played = play(GAME, table, rng)
    state = GAME.create(played.events[0])
    for event in played.events[1:]:
        before, state = state, GAME.evolve(state, event)
        for seat in range(table.seats):
            kept, now = GAME.legal_inputs(before, seat), GAME.legal_inputs(state, seat)
            if len(kept) == len(now) and all(map(operator.is_, kept, now)):
                assert GAME.legal_commands(state, seat) == GAME.legal_commands(before, seat)


@settings(max_examples=40, deadline=None)
@given(rollie_tables(max_bills=4), rngs(), st.data())
def test_decide_only_raises_rejections(table: Table, rng: random.Random, data: Any) -> None:
    """Any command object in any reachable state: events or a Rejection, nothing else."""
    played = play(GAME, table, rng)
    cut = data.draw(st.integers(1, len(played.events)))
    state = replay(GAME, played.events[:cut])
    for _ in range(30):
        command = junk_command(rng, table.seats)
        with contextlib.suppress(Rejection):
            GAME.decide(state, command)


@settings(max_examples=25, deadline=None)
@given(rollie_tables(max_bills=6), rngs())
def test_view_hides_the_token_order_and_seed(table: Table, rng: random.Random) -> None:
    """The view is plain JSON, the same for every viewer, and never shows the seed, the
    draw counter or the face-down tokens (only how many there are)."""
    played = play(GAME, table, rng)
    state = GAME.create(played.events[0])
    for event in played.events[1:]:
        state = GAME.evolve(state, event)
        shown = GAME.view(state, None)
        assert json.loads(json.dumps(shown)) == shown
        assert all(GAME.view(state, s) == shown for s in range(state.seats))
        text = json.dumps(shown)
        assert "seed" not in text and "draws" not in text and 'face_down"' not in text
        assert shown["face_down_tokens"] == len(state.face_down)
        assert set(state.face_down).isdisjoint(shown["face_up_tokens"])
        assert not set(state.face_down) & {
            t for seat in shown["seats"] for t in seat["start_tokens"]
        }


def test_view_with_a_hidden_order() -> None:
    """The order of the face-down pile appears nowhere in the view."""
    event = SetUp(3, 30, 7, (4, 7, 1, 6, 2, 5, 3), 0, seed=123456789)
    shown = GAME.view(GAME.create(event), 1)
    assert shown["face_down_tokens"] == 6 and shown["face_up_tokens"] == [4]
    text = json.dumps(shown)
    assert "123456789" not in text and "7, 1, 6" not in text and "[7, 1" not in text


def test_view_when_over_has_the_breakdown() -> None:
    """Once over, the view carries scores, winners and each seat's breakdown."""
    played = play(GAME, Table(4, {}, 5), random.Random(5))
    shown = GAME.view(played.state, None)
    assert shown["phase"] == "over"
    assert set(shown["result"]["seats"][0]) >= {"bills", "bonuses", "total"}
    assert shown["result"]["scores"] == [s["total"] for s in shown["result"]["seats"]]


COMMANDS = [Roll(0), Take(1, -5), Secure(5)]
EVENTS = [
    SetUp(4, 30, 7, (3, 1, 2, 7, 5, 6, 4), 2, 99),
    Rolled(0, ("R", -5)),
    Rolled(1, (10, 2)),
    Took(1, 0),
    Secured(2, 7),
    Secured(3, None),
    RollieCalled("R"),
    RollieCalled(5),
    Crashed(0, "rollie"),
    Crashed(1, "empty_piles"),
    DicePassed(3),
    RoundEnded(2),
    RoundStarted(3, 6, 1),
    GameEnded(),
]


@pytest.mark.parametrize("value", COMMANDS + EVENTS, ids=repr)
def test_wire_round_trip(value: Any) -> None:
    """Every command and event survives to_data -> JSON -> registry load unchanged."""
    registry = GAME.commands if type(value) in (Roll, Take, Secure) else GAME.events
    data = json.loads(json.dumps(to_data(value)))
    assert registry.load(data) == value


def test_commands_load_with_the_server_seat() -> None:
    """The server fills ``seat``; the client sends only the type and fields."""
    assert GAME.commands.load({"type": "take", "value": 10}, seat=2) == Take(2, 10)
    assert GAME.commands.load({"type": "roll"}, seat=0) == Roll(0)
