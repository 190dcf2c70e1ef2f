"""Patches from events equal patches from whole views, after every single event.

Each game declares what every event may change (``Game.touches``): the server builds
and diffs only those parts of the view and computes only those seats' legal commands
again. By Hypothesis, for all three games: a random game (random legal moves and the
game's first bot) is played through the room core, then its log is folded one record
at a time into fresh :class:`~server.room.views.Views`, each game event given to
``advance`` alone. After every record, for every viewer (each seat and a spectator),
the mirror (the first snapshot with every patch applied) equals the view built afresh
(``reference_view``: the game's ``view()`` and fresh legal commands), and so do the
kept snapshot and each seat's kept legal commands.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from protocol.patch import apply
from server.room.model.fold import evolve, rebuild
from server.room.model.records import Played, from_plain
from server.room.model.room import RoomModel
from server.room.views import Views, legal_commands, reference_view
from tests.server.core_harness import Table, strictly_same

CASES = [
    ("rollie", 3, {}),
    ("rollie", 5, {"priority": "turn", "bills_per_value": 1}),
    ("roll-player", 2, {}),
    ("roll-player", 4, {"class_mode": "choice"}),
    ("roll-builder", 1, {}),
    ("roll-builder", 3, {}),
]
STEPS = {"rollie": 400, "roll-player": 400, "roll-builder": 120}
"""Commands per game at most (a Roll Builder view is large: fewer)."""


def played_log(game: str, seats: int, options: dict[str, Any], seed: int) -> list[Any]:
    """The log of a random game played through the room core (every seat joined)."""
    rng = random.Random(seed)
    table = Table.new(game, seats, options=options, seed=seed)
    for seat in range(seats):
        table.join(seat + 1, f"p{seat}")
    for step in range(STEPS[game]):
        move = table.random_move(rng, policy_share=0.5)
        if move is None:
            break
        table.command(move[0] + 1, f"c{step}", move[1])
    return table.log


def check(views: Views, model: RoomModel, mirrors: dict[Any, Any], where: str) -> None:
    for viewer, mirror in mirrors.items():
        fresh = reference_view(model, viewer)
        assert strictly_same(mirror, fresh), f"{where}: viewer {viewer}'s mirror differs"
        assert strictly_same(views.snapshot(viewer), fresh), f"{where}: viewer {viewer}'s kept view"
        if viewer is not None:
            assert views.commands[viewer] == legal_commands(model, viewer), f"{where}: legal"


def fold_one_by_one(log: list[Any]) -> int:
    """Fold ``log`` a record at a time into Views, checking every viewer after each;
    the number of game events checked."""
    first_event = next(i for i, (_, data) in enumerate(log) if data["k"] == "event")
    model = rebuild("r-test", [(seq, from_plain(data)) for seq, data in log[:first_event]])
    views = Views(model)
    mirrors = {viewer: views.snapshot(viewer) for viewer in views.viewers}
    check(views, model, mirrors, "start")
    events = 0
    for seq, data in log[first_event:]:
        record = from_plain(data)
        model = evolve(model, seq, record)
        if isinstance(record, Played):
            folded = [model.game.events.trusted(record.event)]
            events += 1
        else:
            folded = []
        for viewer, ops in views.advance(model, folded).items():
            mirrors[viewer] = apply(mirrors[viewer], ops)
        check(views, model, mirrors, f"seq {seq} ({data.get('e', data)})")
    return events


@pytest.mark.parametrize(("game", "seats", "options"), CASES, ids=lambda c: str(c))
@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)  # a seed does not shrink
@given(seed=st.integers(0, 2**32))
def test_patches_from_events_equal_a_fresh_view_after_every_event(
    game: str, seats: int, options: dict[str, Any], seed: int
) -> None:
    """Every viewer's mirror, kept view and legal commands equal fresh ones, event by event."""
    assert fold_one_by_one(played_log(game, seats, options, seed)) >= 5
