"""Issue 25 item 3: Roll Player's ``decide`` evolves every event it makes (to find the
automatic steps), and the room's fold evolved them all again. Deciding now hands the
states on; the fold takes one only when it folds onto the very state it was decided on."""

from __future__ import annotations

from server.room.io import Start
from server.room.model.fold import evolve
from server.room.model.records import played_records
from tests.server.core_harness import T0, Table


def test_the_fold_takes_a_decided_state_only_on_the_state_it_was_decided_on() -> None:
    model = Table.new("roll-player", 2, bots=2).model
    game, state = model.game, model.state
    seat = min(game.awaiting(state))
    command = game.legal_commands(state, seat)[0]
    events, after = game.decide_with_states(state, command)
    assert after is not None and events
    [record] = played_records(events[:1], T0, None, None, states=(state, after[:1]))
    assert evolve(model, model.seq + 1, record).state is after[0]
    [stale] = played_records(events[:1], T0, None, None, states=(object(), ("junk",)))
    folded = evolve(model, model.seq + 1, stale).state
    assert folded == after[0] and folded is not after[0]


def test_a_room_played_with_decided_states_is_the_room_its_log_rebuilds() -> None:
    """A Roll Player room of two bots played a while: its model equals the log's fold."""
    table = Table.new("roll-player", 2, bots=2, settings={"bot_delay": 0.01})
    table.feed(Start(table.now))
    table.fire_due(T0 + 30)
    assert table.model.seq > 20
    assert table.rebuilt().model.state == table.model.state
