"""The room core on its own: given records, when inputs, then outputs (fake clock, no I/O)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from protocol.codec import MSGPACK
from protocol.messages import Ack, Patch, Presence, Reject, Welcome
from server.room.core import CoreSettings
from server.room.fanout import PatchHistory
from server.room.io import Append, Arm, Broken, Close, Join, Send, Settle, Start, WriteDone
from server.room.model.records import to_plain
from server.store.base import pack, unpack
from tests.server.core_harness import T0, Table


def two_players(**kw: Any) -> Table:
    """A Rollie table with both seats taken: peers 1 and 2 on seats 0 and 1."""
    table = Table.new(**kw)
    table.join(1, "ann")
    table.join(2, "bob")
    assert table.model.status == "playing"
    return table


def peer_of(table: Table, seat: int) -> int:
    return table.core.seated[seat]


def roll_to_deciding(table: Table) -> None:
    """The First player rolls; the test needs a roll that leaves decisions to make."""
    first = table.model.state.first_player
    out = table.command(peer_of(table, first), "roll-1", {"type": "roll"})
    assert isinstance(table.answers(out, peer_of(table, first))[0], Ack)


def deciding_table(first_seed: int = 1, **kw: Any) -> Table:
    """A two-player table just after a roll both players must decide on."""
    for seed in range(first_seed, first_seed + 80):
        table = two_players(seed=seed, **kw)
        roll_to_deciding(table)
        if (
            table.model.state.phase == "deciding"
            and len(table.model.game.awaiting(table.model.state)) == 2
        ):
            return table
    raise AssertionError("no seed gave a deciding roll")


# -- arrival order ---------------------------------------------------------------------------


def test_the_first_to_arrive_gets_the_last_bill() -> None:
    """Rulebook, Simultaneous Play: two players grab the last bill; arrival order decides."""
    table = deciding_table(options={"bills_per_value": 1})
    legal = [c for c in table.model.game.legal_commands(table.model.state, 0) if c.TYPE == "take"]
    value = legal[0].value
    first = table.command(2, "b-1", {"type": "take", "value": value})
    second = table.command(1, "a-1", {"type": "take", "value": value})
    assert isinstance(table.answers(first, 2)[0], Ack)
    reject = table.answers(second, 1)[0]
    assert isinstance(reject, Reject) and reject.code == "rollie/pile_empty"
    assert table.stored_answer(0, "a-1") == reject  # stored before it was sent


def test_durable_before_visible() -> None:
    """The ack follows the patch, and both follow the append."""
    table = two_players()
    first = table.model.state.first_player
    out = table.command(peer_of(table, first), "r", {"type": "roll"})
    kinds = [type(o).__name__ for o in out]
    assert kinds.index("Append") < kinds.index("Send")
    sent = table.sent(out, peer_of(table, first))
    assert isinstance(sent[0], Patch) and isinstance(sent[-1], Ack)
    assert sent[-1].seq == table.log[-1][0] == table.model.seq


# -- idempotency -----------------------------------------------------------------------------


@pytest.mark.parametrize("rebuild", [False, True])
def test_a_repeated_id_gets_the_same_answer(rebuild: bool) -> None:
    """Ack and reject alike, also after a rebuild from the records and stored replies."""
    table = two_players()
    first = table.model.state.first_player
    other = 1 - first
    ack = table.answers(
        table.command(peer_of(table, first), "x", {"type": "roll"}), peer_of(table, first)
    )[0]
    bad = {"type": "take", "value": 999}
    rej = table.answers(table.command(peer_of(table, other), "y", bad), peer_of(table, other))[0]
    assert isinstance(ack, Ack) and isinstance(rej, Reject)
    tokens = {s: w.seat_token for s, w in _welcomes(table).items()}
    if rebuild:
        table = table.rebuilt()
        table.join(1, token=tokens[0])
        table.join(2, token=tokens[1])
    seq = table.model.seq
    again_ack = table.command(peer_of(table, first), "x", {"type": "roll"})
    again_rej = table.command(peer_of(table, other), "y", bad)
    assert table.answers(again_ack, peer_of(table, first)) == [ack]
    assert table.answers(again_rej, peer_of(table, other)) == [rej]
    assert table.model.seq == seq and not any(isinstance(o, Append) for o in again_ack + again_rej)


def test_an_id_reused_with_another_body_is_refused() -> None:
    """command/id_reused, and nothing changes; the first answer is still the answer."""
    table = two_players()
    first = table.model.state.first_player
    peer = peer_of(table, first)
    table.command(peer, "x", {"type": "roll"})
    seq = table.model.seq
    out = table.command(peer, "x", {"type": "secure"})
    (reply,) = table.answers(out, peer)
    assert isinstance(reply, Reject) and reply.code == "command/id_reused"
    assert table.model.seq == seq
    assert table.answers(table.command(peer, "x", {"type": "roll"}), peer) == [Ack("x", seq)]


def test_a_refusal_before_the_start_is_the_answer_for_good() -> None:
    """room/not_started is stored: the same id after the game started gets it again."""
    table = Table.new()
    table.join(1, "ann")
    (early,) = table.answers(table.command(1, "e", {"type": "roll"}), 1)
    assert isinstance(early, Reject) and early.code == "room/not_started"
    table.join(2, "bob")
    assert table.answers(table.command(1, "e", {"type": "roll"}), 1) == [early]
    again = table.rebuilt()
    again.join(5, token=_welcomes(table)[0].seat_token)
    assert again.answers(again.command(5, "e", {"type": "roll"}), 5) == [early]


def _welcomes(table: Table) -> dict[int, Welcome]:
    out: dict[int, Welcome] = {}
    for o in table.outputs:
        message = getattr(o, "message", None)
        if isinstance(message, Welcome) and message.seat is not None and message.seat_token:
            out.setdefault(message.seat, message)
    return out


# -- resume ----------------------------------------------------------------------------------


def test_resume_sends_the_missed_patches() -> None:
    """A player back with last_seq gets a viewless welcome and the patches after it."""
    table = two_players()
    first = table.model.state.first_player
    away = 1 - first
    token = _welcomes(table)[away].seat_token
    table.leave(peer_of(table, away))
    last = table.model.seq
    table.command(peer_of(table, first), "r", {"type": "roll"})
    out = table.join(3, token=token, last_seq=last)
    sent = table.sent(out, 3)
    assert isinstance(sent[0], Welcome) and sent[0].view is None and sent[0].seq == last
    assert isinstance(sent[1], Patch) and sent[1].from_ == last and sent[1].to == table.model.seq


def test_resume_from_a_seq_the_room_no_longer_holds_gets_a_snapshot() -> None:
    """A last_seq ahead of the log, or older than the patch history: a full snapshot."""
    table = two_players()
    token = _welcomes(table)[0].seat_token
    for last_seq in (table.model.seq + 5, 0):
        welcome = table.welcome(table.join(9, token=token, last_seq=last_seq), 9)
        assert welcome.view is not None and welcome.seq == table.model.seq


@pytest.mark.parametrize("limit", [400, 1500, 65_536])
def test_the_patch_history_keeps_at_most_its_bytes_and_resumes_within_them(limit: int) -> None:
    """Each viewer keeps at most ``patch_history_bytes`` of ops: a spectator back from
    within them gets exactly the patches it missed, from before them a snapshot."""
    table = Table.new(seats=3, core_settings=CoreSettings(patch_history_bytes=limit))
    for peer, name in ((1, "ann"), (2, "bob"), (3, "cy")):
        table.join(peer, name)
    rng = random.Random(limit)
    seqs = [table.model.seq]
    for i in range(60):
        move = table.random_move(rng)
        if move is None:
            break
        table.command(move[0] + 1, f"c{i}", move[1])
        seqs.append(table.model.seq)
    for history in table.core.history.values():
        assert history.size <= limit and history.size == sum(map(len, history.frames))
        kept_patches = [MSGPACK.decode_server(f) for f in history.frames]
        assert [p.from_ for p in kept_patches] == list(history.starts)  # type: ignore[union-attr]
    kept = list(table.core.history[None].starts)
    assert seqs[-1] > kept[0] > 1 if limit < 65_536 else kept[0] == 1
    for peer, last_seq in enumerate((kept[0], kept[0] - 1), start=10):
        sent = table.sent(table.join(peer, role="spectator", last_seq=last_seq), peer)
        welcome = sent[0]
        assert isinstance(welcome, Welcome)
        if last_seq == kept[0] and welcome.view is None:  # the patches, if cheaper
            assert [m.from_ for m in sent[1:] if isinstance(m, Patch)] == kept
        else:
            assert welcome.view is not None and welcome.seq == table.model.seq


def test_a_patch_history_drops_the_oldest_first() -> None:
    """At most ``count`` frames and ``limit`` bytes, the oldest out first; a resume from a
    patch no longer kept finds none."""
    history = PatchHistory(3, 100)
    for i in range(5):
        history.append(i, bytes(10))
    assert list(history.starts) == [2, 3, 4] and history.size == 30
    history.append(5, bytes(95))  # over the bytes: only the newest fits
    assert list(history.starts) == [5] and history.size == 95
    assert history.since(5) == [bytes(95)] and history.since(4) is None
    history.append(6, bytes(101))  # a patch bigger than the bound is not kept
    assert not history.frames and history.size == 0


# -- joins -----------------------------------------------------------------------------------


def test_a_seat_whose_append_failed_stays_free() -> None:
    """A hello whose seat append certainly failed: the player is told, the seat stays free."""
    table = Table.new()
    table.faults.append("certain")
    out = table.join(1, "ann")
    assert any(isinstance(o, Close) and o.code == "room/unavailable" for o in out)
    assert table.model.free_seats() == [0, 1]


def test_a_seat_whose_hello_is_gone_is_given_back() -> None:
    """The seat landed but the connection closed meanwhile: nobody has the token, so an
    ``unseated`` record frees the seat (no ghost)."""
    table = Table.new()
    out = table.core.handle(Join(1, "rollhouse.v1.json", "player", "ann", None, None, "tok", T0))
    (append,) = [o for o in out if isinstance(o, Append)]
    table.log.append((2, unpack(pack(to_plain(append.records[0])))))
    table.feed(WriteDone(T0, frozenset({1})))
    assert [d["k"] for _, d in table.log] == ["created", "seated", "unseated"]
    assert table.model.free_seats() == [0, 1]


# -- unknown outcomes --------------------------------------------------------------------------


def test_an_unknown_append_that_landed_is_acked() -> None:
    """Timeout after sending, the records are in the log: settle, then ack (never a reject)."""
    table = two_players()
    peer = peer_of(table, table.model.state.first_player)
    table.faults.append("landed")
    out = table.command(peer, "r", {"type": "roll"})
    assert any(isinstance(o, Settle) for o in out)
    (reply,) = table.answers(out, peer)
    assert reply == Ack("r", table.log[-1][0]) and table.model.seq == table.log[-1][0]


def test_an_unknown_append_that_did_not_land_is_refused_as_unavailable() -> None:
    """Fenced and absent: it can never land, so room/unavailable (not stored) is the truth."""
    table = two_players()
    peer = peer_of(table, table.model.state.first_player)
    seq = table.model.seq
    table.faults.append("lost")
    out = table.command(peer, "r", {"type": "roll"})
    (reply,) = table.answers(out, peer)
    assert isinstance(reply, Reject) and reply.code == "room/unavailable"
    assert table.model.seq == seq == table.log[-1][0]
    assert table.answers(table.command(peer, "r", {"type": "roll"}), peer) == [
        Ack("r", table.log[-1][0])
    ]
    assert table.log[-1][0] > seq


def test_another_writer_breaks_the_room() -> None:
    """A conflict means the log moved under the room: it stops serving from memory."""
    table = two_players()
    table.faults.append("conflict")
    out = table.command(peer_of(table, table.model.state.first_player), "r", {"type": "roll"})
    assert any(isinstance(o, Broken) for o in out)


# -- clocks, bots, takeovers -------------------------------------------------------------------


def test_timeouts_due_together_go_in_turn_order() -> None:
    """Both deciders run out at once: the First player's timeout comes first, whatever
    their seat number (Rollie: First player, then clockwise)."""
    for seed in range(1, 200):
        table = deciding_table(seed, clock=10.0)
        if table.model.state.first_player == 1:
            break
    else:  # pragma: no cover
        raise AssertionError("no seed with the First player on seat 1")
    table.fire_due(T0 + 30)
    timeouts = [d for _, d in table.log if d.get("by") == "timeout"]
    assert [d["seat"] for d in timeouts[:2]] == [1, 0]


def test_bots_keep_playing_after_the_store_fails_then_recovers() -> None:
    """A bot move whose append fails is retried with backoff; the game goes on after."""
    table = Table.new(settings={"bot_delay": 0.5}, bots=2)
    table.feed(Start(table.now))
    seq = table.model.seq
    table.faults += ["certain"] * 4
    for step in range(1, 200):  # until the four failures are spent
        if not table.faults:
            break
        table.fire_due(T0 + step * 0.05)
    assert table.model.seq == seq  # four failures, nothing changed
    retries = [o for o in table.outputs if getattr(o, "metric", None) == "retries"]
    assert len(retries) == 4
    assert table.armed and min(table.armed.values()) >= table.now  # something will fire
    table.fire_due(T0 + 120)
    assert table.model.seq > seq + 5


def test_takeover_records_time_away_and_plays_the_seat() -> None:
    """left at the disconnect, takeover after the grace period, then the bot plays."""
    table = two_players(settings={"takeover_after": 10.0, "bot_delay": 0.5})
    table.leave(2)
    assert table.records("left") == [{"k": "left", "seat": 1, "at": T0}]
    table.fire_due(T0 + 9)
    assert table.records("takeover") == []
    table.fire_due(T0 + 10.1)
    assert table.records("takeover") == [{"k": "takeover", "seat": 1, "at": T0 + 10}]
    table.fire_due(T0 + 30)
    assert table.records("takeover") and 1 in table.model.taken_over


def test_time_away_survives_a_rebuild() -> None:
    """After a restart the grace period does not start again: it comes from the log."""
    table = two_players(settings={"takeover_after": 10.0})
    table.leave(2)
    table.leave(1)
    restarted = table.rebuilt().at(T0 + 10.5)
    restarted.feed(Start(restarted.now))
    assert {d["seat"] for d in restarted.records("takeover")} == {0, 1}


def test_a_clock_room_arms_its_deadline_on_start() -> None:
    """Loaded with a pending deadline, the core arms the clock at once."""
    table = two_players(clock=6.0)
    rebuilt = table.rebuilt()
    out = rebuilt.feed(Start(T0 + 1))
    arms = [o for o in out if isinstance(o, Arm) and o.key == "clock"]
    assert arms and arms[0].at == pytest.approx(T0 + 6.0)


# -- presence ------------------------------------------------------------------------------


def presences(outputs: list[Any]) -> list[tuple[tuple[int, ...], Presence]]:
    return [
        (o.peers, o.message)
        for o in outputs
        if isinstance(o, Send) and isinstance(o.message, Presence)
    ]


def test_a_burst_of_arrivals_is_told_in_one_presence() -> None:
    """Twenty spectators arrive at once: the first is told at once, the other nineteen
    in one presence when the (spectators') interval ends, to all twenty (not 190 frames)."""
    table = Table.new()
    first = table.join(100, role="spectator")
    assert [m.spectators for _, m in presences(first)] == [1]
    burst = [o for peer in range(101, 120) for o in table.join(peer, role="spectator")]
    assert presences(burst) == []
    assert table.armed["presence"] == T0 + CoreSettings().spectators_presence_every
    table.fire_due(T0 + 2)
    told = presences(table.outputs[-1:])
    assert len(told) == 1
    peers, message = told[0]
    assert set(peers) == set(range(100, 120)) and message.spectators == 20
    assert "presence" not in table.core.armed


def test_a_seat_change_brings_a_spectators_presence_forward() -> None:
    """Spectators alone wait for the longer interval; a player taking a seat meanwhile is
    told after the short one, with the spectators in the same frame."""
    settings = CoreSettings()
    table = Table.new()
    table.join(100, role="spectator")
    table.join(101, role="spectator")
    assert table.armed["presence"] == T0 + settings.spectators_presence_every
    table.join(1, "ann")
    assert table.core.presence_at == T0 + settings.presence_every
    table.fire_due(T0 + settings.presence_every)
    (told,) = presences(table.outputs)[1:]
    assert told[1].spectators == 2 and told[1].seats[0].connected
    assert table.core.presence_at is None


def test_arrivals_apart_are_each_told_at_once() -> None:
    """Arrivals further apart than the interval each get their presence with the welcome."""
    table = Table.new()
    for i, peer in enumerate((1, 2)):
        out = table.at(T0 + i).join(peer, f"p{peer}")
        assert [sum(s.connected for s in m.seats) for _, m in presences(out)] == [i + 1]
    out = table.at(T0 + 2).leave(1)
    assert [sum(s.connected for s in m.seats) for _, m in presences(out)] == [1]
