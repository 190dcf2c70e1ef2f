"""Joins that only read the room are answered while a write is in flight.

A spectator's hello, or a player's hello with its seat token (a resume), writes
nothing: the core answers it from what is durable (the welcome's seq is the log's last
seq, never the seq the write in flight will reach), and the write's patch follows it
like any other viewer's. A hello that takes a free seat writes, so it waits.

The rule under test is that answering early changes nothing a client can see: every
mirror (welcome plus patches) equals a fresh view of the room once the write lands,
and the log is the one the same commands make without the reads.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from protocol import errors as codes
from protocol.messages import Ack, Patch, Welcome
from server.room.io import Append, Close, CommandIn, Input, Join, Output
from server.room.views import reference_view
from tests.server.core_harness import Table
from tests.server.test_core_batches import CASES, a_burst, seated
from tests.server.test_view_sharing import SPECTATOR, Mirrors

MSGPACK = "rollhouse.v1.msgpack"


def handle_until_write(table: Table, inp: Input) -> tuple[list[Output], Append | None]:
    """Feed ``inp`` and carry out its writes until one is left in flight (returned)."""
    out = table.core.handle(inp)
    table.outputs += out
    while True:
        write = next((o for o in out if isinstance(o, Append)), None)
        if write is not None:
            return out, write
        follow = next((r for r in map(table._do, out) if r is not None), None)
        if follow is None:
            return out, None
        out = table.core.handle(follow)
        table.outputs += out


def land(table: Table, write: Append) -> list[Output]:
    """The write in flight lands; everything that follows from it."""
    result = table._do(write)
    assert result is not None
    return table.feed(result)


def tokens_of(table: Table) -> dict[int, str]:
    """Each seat's token, from the welcomes its players got."""
    out: dict[int, str] = {}
    for o in table.outputs:
        message = getattr(o, "message", None)
        if isinstance(message, Welcome) and message.seat is not None and message.seat_token:
            out[message.seat] = message.seat_token
    return out


@pytest.mark.parametrize(("game", "seats", "options"), CASES)
@pytest.mark.parametrize("seed", [1, 2])
def test_reads_answered_during_a_write_see_the_durable_room_then_its_patch(
    game: str, seats: int, options: dict[str, Any], seed: int
) -> None:
    rng = random.Random(seed)
    table = seated(game, seats, options, seed)
    alone = seated(game, seats, options, seed)  # the same commands, and no reads
    mirrors = Mirrors()
    mirrors.take(table.outputs)
    tokens = tokens_of(table)
    holders = {seat: seat + 1 for seat in range(seats)}
    peer = 5000
    writes = 0
    for step in range(80):
        if table.model.is_over:
            break
        burst = [b for b in a_burst(table, rng, step) if b[0] != SPECTATOR]
        if not burst:
            table.fire_due(table.now + 1000)
            alone.fire_due(alone.now + 1000)
            continue
        seat_plus_one, cmd_id, body = burst[0]
        alone.command(seat_plus_one, cmd_id, body)
        sender = holders[seat_plus_one - 1]
        before = table.model.seq
        out, write = handle_until_write(table, CommandIn(sender, cmd_id, body, table.now))
        mirrors.take(out)
        if write is None:
            assert table.log == alone.log
            continue
        writes += 1
        # while it is in flight: a spectator arrives and a seat's player comes back
        peer += 2
        seat = rng.randrange(seats)
        spectator = Join(peer, MSGPACK, "spectator", None, None, None, "unused", table.now)
        resume = Join(peer + 1, MSGPACK, "player", None, tokens[seat], None, "unused", table.now)
        early: list[Output] = []
        for join in (spectator, resume):
            assert table.core.reads_only(join)
            early = table.core.handle(join)
            table.outputs += early
            assert not [o for o in early if isinstance(o, Append)], "a read wrote"
            welcome = table.welcome(early, join.peer)
            assert welcome.seq == before == table.model.seq, "a welcome ahead of the log"
            mirrors.take(early)
        closed = [(o.peer, o.code) for o in early if isinstance(o, Close)]
        assert closed == [(holders[seat], codes.REPLACED)]
        mirrors.views.pop(holders[seat], None)
        holders[seat] = resume.peer
        after = land(table, write)
        mirrors.take(after)
        for join in (spectator, resume):
            patches = [m for m in table.sent(after, join.peer) if isinstance(m, Patch)]
            assert patches and patches[0].from_ == before, "the write's patch did not follow"
        for viewer_peer, view in mirrors.views.items():
            fresh = reference_view(table.model, mirrors.seats[viewer_peer])
            assert view == fresh, f"step {step}: peer {viewer_peer}'s mirror differs"
        assert all(table.core.seated[s] == holders[s] for s in range(seats))
        assert table.log == alone.log, f"step {step}: the reads changed the log"
    assert writes >= 5


def test_a_hello_that_takes_a_free_seat_waits_for_the_write() -> None:
    table = Table.new("rollie", 3)
    table.join(1, "ann")
    table.join(2, "bob")
    _, write = handle_until_write(table, CommandIn(1, "c1", {"type": "nonsense"}, table.now))
    assert write is None  # a refusal: its stored reply is written through SaveReply
    _, write = handle_until_write(
        table, Join(3, MSGPACK, "player", "cy", None, None, "tok-3", table.now)
    )
    assert write is not None  # taking the free seat appends a record
    newcomer = Join(4, MSGPACK, "player", "dee", None, None, "tok-4", table.now)
    assert not table.core.reads_only(newcomer)
    with pytest.raises(RuntimeError, match="while a write is pending"):
        table.core.handle(newcomer)
    land(table, write)
    assert table.model.holders[2].name == "cy"


def test_a_command_in_flight_when_its_seat_comes_back_is_acked_on_the_new_connection() -> None:
    """The seat's new connection is welcomed at the durable seq and gets the patch of the
    command in flight; the old connection is replaced (no ack reaches it), and the command
    sent again on the new one, as a client resends what was not acked, gets its ack with
    the seq it was written at."""
    table = seated("rollie", 2, {}, 3)
    tokens = tokens_of(table)
    first = table.model.state.first_player
    seq = table.model.seq
    _, write = handle_until_write(table, CommandIn(first + 1, "r1", {"type": "roll"}, table.now))
    assert write is not None
    early = table.core.handle(Join(99, MSGPACK, "player", None, tokens[first], seq, "x", table.now))
    assert table.welcome(early, 99).seq == seq
    after = land(table, write)
    written = table.model.seq
    assert [m.to for m in table.sent(after, 99) if isinstance(m, Patch)] == [written]
    assert table.answers(after, first + 1) == []
    again = table.command(99, "r1", {"type": "roll"})
    assert table.answers(again, 99) == [Ack("r1", seq + 1)]
    assert table.model.seq == written
