"""The room core hands a searching bot's move to the shell (``Think``) and plays the
answer (``BotThought``) only if the room is still where the bot thought."""

from __future__ import annotations

import random

from engine.core import choose, get_game
from server.room.core import CoreSettings
from server.room.io import Append, BotThought, Start, Think
from server.room.model.records import created_record, seated_record, to_plain
from server.room.rebuild import rebuild_core
from server.store.base import pack, unpack
from tests.server.core_harness import T0, Table


def searching_table(bots: int = 2, policy: str = "lookahead") -> Table:
    """A Roll Builder room whose every seat is a hosted bot playing ``policy``."""
    created = created_record(get_game("roll-builder"), bots, {}, 1, 0.0, T0,
                             {"bot_delay": 0.5}, salt="salt1feedface")  # fmt: skip
    records = [created, *(seated_record(s, f"bot {s + 1}", None, policy, T0) for s in range(bots))]
    log = [(seq, unpack(pack(to_plain(r)))) for seq, r in enumerate(records, start=1)]
    table = Table(rebuild_core("r-test", log, settings=CoreSettings()), log)
    table.feed(Start(table.now))
    return table


def thinks(table: Table) -> list[Think]:
    return [o for o in table.outputs if isinstance(o, Think)]


def answer(table: Table, think: Think) -> list[object]:
    """What the shell does with a Think: ``choose`` on the state, then a BotThought."""
    command = choose(think.game, think.state, think.seat, think.policy, random.Random(think.seed))
    return list(table.feed(BotThought(think.seat, think.seq, command, table.now)))


def test_a_searching_bot_thinks_off_the_core_and_its_answer_is_played() -> None:
    """The bot's timer asks the shell to think (nothing is written yet); the answer is
    appended as the bot's move."""
    table = searching_table(bots=1)
    seq = table.model.seq
    table.fire_due(T0 + 1)
    asked = thinks(table)
    assert [(t.seat, t.seq) for t in asked] == [(0, seq)]
    assert table.model.seq == seq and not any(isinstance(o, Append) for o in table.outputs)
    table.fire_due(T0 + 5)  # the timer does not ask again while the thought is on the way
    assert len(thinks(table)) == 1
    outputs = answer(table, asked[0])
    assert any(isinstance(o, Append) for o in outputs)
    assert table.model.seq > seq
    assert table.records("event")[-1]["by"] == "bot"


def test_a_thought_on_a_state_that_moved_on_is_dropped_and_thought_again() -> None:
    """Two bots think on the same seq; the first answer moves the room on, so the
    second is dropped (nothing appended) and that bot thinks again on the new state."""
    table = searching_table(bots=2)
    table.fire_due(T0 + 1)
    first, second = thinks(table)
    answer(table, first)
    seq = table.model.seq
    assert seq > first.seq
    assert not any(isinstance(o, Append) for o in answer(table, second))
    assert table.model.seq == seq
    table.fire_due(T0 + 2)
    again = [t for t in thinks(table) if t.seat == second.seat]
    assert again[-1].seq == seq


def test_a_plain_policy_still_moves_at_once() -> None:
    """A bot that reads only its view (greedy) plays within the core, as before."""
    table = searching_table(bots=1, policy="greedy")
    seq = table.model.seq
    table.fire_due(T0 + 1)
    assert not thinks(table) and table.model.seq > seq
