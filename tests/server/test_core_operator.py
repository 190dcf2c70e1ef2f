"""The room core under an operator's acts (issue 27): closing a room and hiding a chat
line. Given a room's log, when these inputs, then these records and answers."""

from __future__ import annotations

from typing import Any

from protocol import errors as codes
from server.room.io import Close, Finished, Operate, Reserve
from tests.server.core_harness import T0, Table


def closes(outputs: list[Any], peer: int) -> list[tuple[str, str]]:
    return [(o.code, o.message) for o in outputs if isinstance(o, Close) and o.peer == peer]


def finished(outputs: list[Any]) -> list[Finished]:
    return [o for o in outputs if isinstance(o, Finished)]


def test_a_closed_room_takes_nobody_and_time_no_longer_moves_it() -> None:
    """The close is one act record with the reason (kept on a rebuild); afterwards a
    player, a spectator and a quick-match hold are refused with room/closed, the status
    is closed, and clocks and bots no longer drive the room."""
    table = Table.new(seats=3, clock=30.0, bots=1)
    table.join(1, "ann")
    table.join(2, "bob")
    assert table.core.needs_driver
    (done,) = finished(table.feed(Operate(1, {"type": "close", "reason": "stuck"}, table.now)))
    assert done.code is None
    (record,) = [r for r in table.records("act") if r["a"]["type"] == "close"]
    assert record["a"] == {"type": "close", "reason": "stuck"} and record["name"] == "operator"
    for again in (table, table.rebuilt()):
        assert again.model.closed == "stuck" and again.model.status == "closed"
        assert not again.core.needs_driver and again.model.deadlines() == {}
    message = "an operator closed this room: stuck"
    assert closes(table.join(3, "cy"), 3) == [(codes.ROOM_CLOSED, message)]
    assert closes(table.join(4, role="spectator"), 4) == [(codes.ROOM_CLOSED, message)]
    (held,) = finished(table.feed(Reserve(2, "p-cy", "cy", T0 + 60, table.now)))
    assert held.code == codes.ROOM_FULL
    (twice,) = finished(table.feed(Operate(3, {"type": "close", "reason": "x"}, table.now)))
    assert twice.code is None and len(table.records("act")) == 1  # written once


def test_an_operator_hides_a_chat_line_or_is_refused() -> None:
    """Hide takes the line out of the model as the host's hide does; a seq that is no
    chat line, or an act the operator does not have, is refused and writes nothing."""
    table = Table.new(seats=2)
    table.join(1, "ann")
    table.act(1, "c1", type="chat", text="rude words")
    (line,) = table.model.chat
    (bad,) = finished(table.feed(Operate(1, {"type": "hide", "seq": 1}, table.now)))
    assert bad.code == codes.BAD_ACTION
    (odd,) = finished(table.feed(Operate(2, {"type": "lock"}, table.now)))
    assert odd.code == codes.BAD_ACTION
    (ok,) = finished(table.feed(Operate(3, {"type": "hide", "seq": line.seq}, table.now)))
    assert ok.code is None and table.model.chat == ()
    assert table.rebuilt().model.chat == ()
