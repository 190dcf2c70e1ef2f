"""Leaks caught by construction: random games of all three games, every frame each viewer
gets (welcome, patch, snapshot) and every history entry checked for what that viewer
may not see yet: other seats' tokens, the seed and its salt, face-down order, the
deck and the bag."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.data import to_data
from protocol.codec import JSON
from protocol.messages import Welcome
from server.room import history
from server.room.io import ResyncIn, Send
from tests.server.core_harness import Table

GAMES = [("rollie", 3, {}), ("roll-player", 2, {}), ("roll-builder", 2, {})]


def secrets_of(table: Table) -> list[str]:
    """What no frame may hold while the game goes on, as JSON fragments."""
    model = table.model
    state = model.state
    out = [str(model.seed), model.salt]
    face_down = getattr(state, "face_down", ())
    if len(face_down) >= 3:
        out.append(json.dumps(list(face_down), separators=(",", ":")))
    deck = getattr(state, "deck", ())
    if len(deck) >= 3:
        out.append(json.dumps(list(deck[:3]), separators=(",", ":")))
    bag = getattr(state, "bag", ())
    if bag and sum(bag) > 0:
        out.append(json.dumps(list(bag), separators=(",", ":")))
    return [s for s in out if s]


def frames_to(outputs: list[Any], peer: int) -> list[str]:
    return [JSON.encode(m) for m in Table.sent(outputs, peer)]  # type: ignore[misc]


@pytest.mark.parametrize("case", GAMES, ids=[g for g, _, _ in GAMES])
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(2**40, 2**62), moves=st.integers(20, 80))
def test_no_frame_shows_a_viewer_what_it_may_not_see(
    case: tuple[str, int, dict[str, Any]], seed: int, moves: int
) -> None:
    """Every frame to every viewer, after every move, and the history API now and then."""
    game, seats, options = case
    table = Table.new(game, seats, options, seed=seed)
    tokens: dict[int, str] = {}
    for peer in range(seats):
        welcome = table.welcome(table.join(peer + 1, f"p{peer}"), peer + 1)
        assert welcome.seat_token is not None
        tokens[peer + 1] = welcome.seat_token
    spectator = 99
    table.join(spectator, role="spectator")
    rng = random.Random(seed)
    for step in range(moves):
        if table.model.is_over:
            break
        awaited = sorted(table.model.game.awaiting(table.model.state))
        seat = rng.choice(awaited)
        legal = table.model.game.legal_commands(table.model.state, seat)
        body = to_data(rng.choice(legal))
        body.pop("seat", None)
        before = len(table.outputs)
        table.command(seat + 1, f"c{step}", body)
        table.feed(ResyncIn(spectator, table.now))
        new = table.outputs[before:]
        hidden = secrets_of(table)
        for peer in [*tokens, spectator]:
            for frame in frames_to(new, peer):
                for secret in hidden:
                    assert secret not in frame, (game, peer, secret)
                for other, token in tokens.items():
                    if other != peer:
                        assert token not in frame, (game, peer, "another seat's token")
                if peer == spectator or not frame.startswith('{"type":"welcome"'):
                    assert not any(t in frame for t in tokens.values() if peer == spectator)
        if step % 20 == 19 or table.model.is_over:  # the history API, now and then (it refolds)
            entries, _ = history.events("r-test", table.log, 0, 10_000)
            public = json.dumps(entries)
            for secret in hidden:
                assert table.model.is_over or secret not in public, (game, "history", secret)
            assert not any(token in public for token in tokens.values())
    for peer in tokens:
        welcomes = [o.message for o in table.outputs if isinstance(o, Send) and peer in o.peers
                    and isinstance(o.message, Welcome)]  # fmt: skip
        assert welcomes and welcomes[0].seat_token == tokens[peer]
