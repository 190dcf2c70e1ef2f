"""Views share unchanged parts, and that changes nothing a client sees.

For all three games: random games through the room core, every frame encoded and
decoded as a client would, every viewer's mirror (its welcome's snapshot with each
patch applied) equal after every command to its view built afresh from the model
(``reference_view``, no memo, no kept parts) - and the core's own snapshot too; and
the room rebuilt from its log at the end is the room that was played.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from protocol.codec import codec_for
from protocol.messages import Patch, Snapshot, Welcome
from protocol.patch import apply
from server.room.io import Send
from server.room.views import Viewer, reference_view
from tests.server.core_harness import Table, strictly_same

CODEC = codec_for("rollhouse.v1.msgpack")
SPECTATOR = 100

CASES = [
    ("rollie", 3, {}),
    ("rollie", 6, {"bills_per_value": 2}),
    ("rollie", 4, {"priority": "turn", "bills_per_value": 1}),
    ("roll-player", 2, {}),
    ("roll-player", 4, {}),
    ("roll-builder", 1, {}),
    ("roll-builder", 3, {}),
]


class Mirrors:
    """Each peer's view as it would rebuild it from the frames it got."""

    def __init__(self) -> None:
        self.views: dict[int, Any] = {}
        self.seats: dict[int, Viewer] = {}

    def take(self, outputs: list[Any]) -> None:
        for out in outputs:
            if not isinstance(out, Send):
                continue
            frame = CODEC.decode_data(CODEC.encode(out.message))
            for peer in out.peers:
                self._one(peer, out.message, frame)

    def _one(self, peer: int, message: Any, frame: dict[str, Any]) -> None:
        if isinstance(message, Welcome):
            self.seats[peer] = message.seat
            if frame["view"] is not None:
                self.views[peer] = frame["view"]
        elif isinstance(message, Snapshot):
            self.views[peer] = frame["view"]
        elif isinstance(message, Patch):
            self.views[peer] = apply(self.views[peer], frame["ops"])


def check(table: Table, mirrors: Mirrors, step: int) -> None:
    model = table.model
    for peer, view in mirrors.views.items():
        viewer = mirrors.seats[peer]
        fresh = reference_view(model, viewer)
        assert strictly_same(view, fresh), (
            f"step {step}: peer {peer}'s mirror differs from a fresh view"
        )
        assert strictly_same(table.core.views.snapshot(viewer), fresh), (
            f"step {step}: stale snapshot"
        )


def play(game: str, seats: int, options: dict[str, Any], seed: int, steps: int) -> int:
    """Random legal moves (sometimes a random one, mostly the game's first bot) until the
    game ends or ``steps`` commands; the mirrors are checked after every one."""
    rng = random.Random(seed)
    table = Table.new(game, seats, options=options, seed=seed)
    mirrors = Mirrors()
    for seat in range(seats):
        mirrors.take(table.join(seat + 1, f"p{seat}"))
    mirrors.take(table.join(SPECTATOR, role="spectator"))
    check(table, mirrors, 0)
    done = 0
    for step in range(1, steps + 1):
        move = table.random_move(rng, policy_share=0.7)
        if move is None:
            break
        seat, body = move
        mirrors.take(table.command(seat + 1, f"c{step}", body))
        check(table, mirrors, step)
        done += 1
    # the room rebuilt from its log (events parsed back) is the room that was played
    rebuilt = table.rebuilt()
    assert rebuilt.model.state == table.model.state
    for viewer in [None, *range(seats)]:
        assert strictly_same(
            rebuilt.core.views.snapshot(viewer), reference_view(table.model, viewer)
        )
    return done


@pytest.mark.parametrize(("game", "seats", "options"), CASES, ids=lambda c: str(c))
@pytest.mark.parametrize("seed", [1, 2])
def test_every_mirror_equals_a_fresh_view_after_every_patch(
    game: str, seats: int, options: dict[str, Any], seed: int
) -> None:
    """Structural sharing in views changes nothing any viewer sees."""
    steps = 40 if game == "roll-builder" else 150  # a Roll Builder view is large: fewer steps
    played = sum(play(game, seats, options, seed * 100 + g, steps) for g in range(4))
    assert played >= 30
