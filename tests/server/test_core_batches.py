"""Commands that arrive together are decided in arrival order and written as one append.

The rule under test: a batch changes only how many writes and patches there are, never
what happens. Fed the same commands as one :class:`Commands` input or one at a time,
a room appends the same log and gives every command the same answer; every viewer's
mirror (snapshot plus patches) is its view built afresh. Then the table cases: one
append and one patch per viewer for a run, each ack with its own command's seq; a
refusal in the middle waits for the run's write and is stored after it; a write that
certainly failed refuses the whole run as unavailable; an unknown outcome that landed
acks it all; a repeated id inside a batch gets the first answer.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.data import to_data
from protocol.messages import Ack, Patch, Reject
from server.room.io import Append, CommandIn, Commands, SaveReply, Send, Settle
from server.room.views import reference_view
from tests.server.core_harness import Table
from tests.server.test_view_sharing import SPECTATOR, Mirrors

CASES = [
    ("rollie", 4, {"bills_per_value": 1}),
    ("rollie", 6, {"bills_per_value": 2}),
    ("rollie", 3, {"priority": "turn", "bills_per_value": 1}),
    ("roll-player", 3, {}),
    ("roll-builder", 2, {}),
]


def seated(game: str, seats: int, options: dict[str, Any], seed: int) -> Table:
    table = Table.new(game, seats, options=options, seed=seed)
    for seat in range(seats):
        table.join(seat + 1, f"p{seat}", codec="rollhouse.v1.msgpack")
    table.join(SPECTATOR, role="spectator", codec="rollhouse.v1.msgpack")
    return table


def a_burst(table: Table, rng: random.Random, step: int) -> list[tuple[int, str, dict[str, Any]]]:
    """What several players might send at once: a legal command of every seat that has
    one (in a random order), now and then a bad one, a spectator's, or a repeated id."""
    burst = []
    seats = list(range(table.model.seats))
    rng.shuffle(seats)
    for seat in seats:
        legal = table.core.views.commands.get(seat) or []
        if not legal:
            continue
        body = to_data(rng.choice(legal))
        body.pop("seat", None)
        burst.append((seat + 1, f"s{step}-{seat}", body))
    if burst and rng.random() < 0.3:
        burst.insert(rng.randrange(len(burst) + 1), burst[rng.randrange(len(burst))])
    if rng.random() < 0.2:
        burst.insert(rng.randrange(len(burst) + 1), (1, f"bad{step}", {"type": "nonsense"}))
    if rng.random() < 0.1:
        burst.append((SPECTATOR, f"look{step}", {"type": "roll"}))
    return burst


def answers_by_peer(table: Table) -> dict[int, list[Ack | Reject]]:
    out: dict[int, list[Ack | Reject]] = {}
    for o in table.outputs:
        if isinstance(o, Send) and isinstance(o.message, Ack | Reject):
            for peer in o.peers:
                out.setdefault(peer, []).append(o.message)
    return out


@pytest.mark.parametrize(("game", "seats", "options"), CASES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_batch_does_what_one_at_a_time_does(
    game: str, seats: int, options: dict[str, Any], seed: int
) -> None:
    """Same log, same answers in the same order, mirrors equal to fresh views."""
    rng = random.Random(seed)
    together, alone = seated(game, seats, options, seed), seated(game, seats, options, seed)
    mirrors = Mirrors()
    mirrors.take(together.outputs)
    for step in range(120):
        if together.model.is_over:
            break
        burst = a_burst(together, rng, step)
        if not burst:
            together.fire_due(together.now + 1000)
            alone.fire_due(alone.now + 1000)
            continue
        start = len(together.outputs)
        together.feed(Commands(tuple(CommandIn(p, i, b, together.now) for p, i, b in burst), 0))
        for peer, cmd_id, body in burst:
            alone.command(peer, cmd_id, body)
        mirrors.take(together.outputs[start:])
        assert together.log == alone.log, f"step {step}: the logs differ"
        for peer, view in mirrors.views.items():
            fresh = reference_view(together.model, mirrors.seats[peer])
            assert view == fresh, f"step {step}: peer {peer}'s mirror differs from its view"
    assert answers_by_peer(together) == answers_by_peer(alone)
    assert len(together.log) > 10


def deciding(seed: int = 1) -> Table:
    """Four Rollie players just after a roll that every one of them must decide on."""
    for s in range(seed, seed + 80):
        table = seated("rollie", 4, {}, s)
        first = table.model.state.first_player
        table.command(first + 1, "roll", {"type": "roll"})
        if len(table.model.game.awaiting(table.model.state)) == 4:
            return table
    raise AssertionError("no seed gave a roll all four decide on")


def takes(table: Table, seats: list[int]) -> list[CommandIn]:
    """A ``take`` of a different rolled value for each seat (so all are legal together)."""
    values = sorted({c.value for c in table.core.views.commands[0] if c.TYPE == "take"})
    return [
        CommandIn(seat + 1, f"t{seat}", {"type": "take", "value": values[i % len(values)]}, 0)
        for i, seat in enumerate(seats)
    ]


def test_a_run_is_one_append_one_patch_per_viewer_and_an_ack_each() -> None:
    table = deciding()
    seq = table.model.seq
    out = table.feed(Commands(tuple(takes(table, [0, 1])), 0))
    appends = [o for o in out if isinstance(o, Append)]
    assert len(appends) == 1 and appends[0].expected == seq
    for peer in (1, 2, 3, 4, SPECTATOR):
        patches = [m for m in table.sent(out, peer) if isinstance(m, Patch)]
        assert [(p.from_, p.to) for p in patches] == [(seq, table.model.seq)]
    acks = {peer: table.answers(out, peer) for peer in (1, 2)}
    assert acks[1] == [Ack("t0", seq + 1)] and acks[2] == [Ack("t1", table.model.seq)]
    sent = table.sent(out, 1)
    assert isinstance(sent[0], Patch) and isinstance(sent[-1], Ack)  # effects first


def test_a_refusal_in_a_batch_waits_for_the_run_before_it() -> None:
    """The run before it is written first; the refusal is stored after; the rest follow."""
    table = deciding()
    good = takes(table, [0, 1, 2])
    bad = CommandIn(4, "bad", {"type": "take", "value": 999}, 0)
    out = table.feed(Commands((good[0], good[1], bad, good[2]), 0))
    kinds = [type(o).__name__ for o in out if isinstance(o, Append | SaveReply)]
    assert kinds == ["Append", "SaveReply", "Append"]
    (reject,) = table.answers(out, 4)
    assert isinstance(reject, Reject) and table.stored_answer(3, "bad") == reject
    answered = [
        m.id for o in out if isinstance(o, Send) for m in [o.message] if isinstance(m, Ack | Reject)
    ]
    assert answered == ["t0", "t1", "bad", "t2"]


def test_a_batch_whose_write_failed_is_refused_as_unavailable_and_changes_nothing() -> None:
    table = deciding()
    seq = table.model.seq
    table.faults.append("certain")
    out = table.feed(Commands(tuple(takes(table, [0, 1, 2])), 0))
    for peer in (1, 2, 3):
        (reply,) = table.answers(out, peer)
        assert isinstance(reply, Reject) and reply.code == "room/unavailable"
    assert table.model.seq == seq == table.log[-1][0]


def test_a_batch_whose_outcome_is_unknown_is_acked_once_it_is_found_in_the_log() -> None:
    table = deciding()
    table.faults.append("landed")
    out = table.feed(Commands(tuple(takes(table, [0, 1])), 0))
    assert any(isinstance(o, Settle) for o in out)
    assert [type(m) for p in (1, 2) for m in table.answers(out, p)] == [Ack, Ack]
    assert table.model.seq == table.log[-1][0]


def test_a_repeated_id_in_a_batch_gets_the_first_answer() -> None:
    table = deciding()
    (take,) = takes(table, [0])
    out = table.feed(Commands((take, take), 0))
    acks = table.answers(out, 1)
    assert len(acks) == 2 and acks[0] == acks[1] and isinstance(acks[0], Ack)
    assert sum(isinstance(o, Append) for o in out) == 1
