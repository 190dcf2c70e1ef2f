"""The room core with people: seats that belong to players, private rooms, the host's
actions, table chat and its hiding, quick-match holds (issue 21). Given a room's log,
when these inputs, then these records and answers."""

from __future__ import annotations

from typing import Any

import pytest

from protocol import errors as codes
from protocol.messages import Ack, Reject, Welcome
from server.room.io import Close, Finished, Invite, Member, Reopened, Reserve
from tests.server.core_harness import T0, Table

HOST, BEA, CY, DEE = "p-host", "p-bea", "p-cy", "p-dee"


def closes(outputs: list[Any], peer: int) -> list[str]:
    return [o.code for o in outputs if isinstance(o, Close) and o.peer == peer]


def answer(table: Table, outputs: list[Any], peer: int) -> Ack | Reject:
    (reply,) = table.answers(outputs, peer)
    return reply


def hosted(seats: int = 3, **settings: Any) -> Table:
    """A room hosted by HOST, who sits in seat 0 (peer 1)."""
    table = Table.new(seats=seats, settings={"host": HOST, **settings})
    table.join(1, "host", player=HOST)
    return table


def test_a_players_seat_follows_them_to_another_device() -> None:
    """A seat taken with a session belongs to its player: the same player on a second
    device (no seat token) gets it back, and the first connection is replaced."""
    table = Table.new(seats=2)
    first = table.join(1, "bea", player=BEA)
    assert table.welcome(first, 1).seat == 0
    assert [o for o in first if isinstance(o, Member)] == [Member(BEA)]
    assert table.records("seated")[-1]["player"] == BEA
    second = table.join(2, player=BEA)
    welcome = table.welcome(second, 2)
    assert welcome.seat == 0 and welcome.seat_token is None
    assert closes(second, 1) == [codes.REPLACED]
    assert len(table.records("seated")) == 1  # nothing written: the seat was theirs


def test_a_private_room_does_not_exist_for_a_stranger() -> None:
    """Without the invite code, a membership or a seat, a private room answers
    room/not_found, as a room that does not exist would; with any of them it opens."""
    table = hosted(visibility="private")
    table.feed(Invite(1, HOST, "code-123456789", table.now))
    assert closes(table.join(2, "eve"), 2) == [codes.ROOM_NOT_FOUND]
    assert closes(table.join(3, "eve", player=DEE), 3) == [codes.ROOM_NOT_FOUND]
    assert closes(table.join(4, role="spectator"), 4) == [codes.ROOM_NOT_FOUND]
    assert closes(table.join(5, "eve", invite="wrong-code-0000"), 5) == [codes.ROOM_NOT_FOUND]
    assert table.welcome(table.join(6, "bea", player=BEA, invite="code-123456789"), 6).seat == 1
    assert table.welcome(table.join(7, player=BEA), 7).seat == 1  # seated: no code needed
    table.act(1, "a1", type="admit", player=CY)
    assert table.welcome(table.join(8, "cy", player=CY), 8).seat == 2


def test_only_the_host_acts_and_only_before_the_start() -> None:
    """Host actions from anyone else: room/not_host; once play began: room/already_started
    (hiding a chat line still may); nothing is written by a refusal."""
    table = hosted(seats=2)
    table.join(2, "bea", player=BEA)
    before = len(table.log)
    assert answer(table, table.act(2, "x", type="lock"), 2).code == codes.NOT_HOST
    assert table.model.started
    assert answer(table, table.act(1, "y", type="lock"), 1).code == codes.ALREADY_STARTED
    assert answer(table, table.act(1, "z", type="dance"), 1).code == codes.BAD_ACTION
    assert len(table.log) == before


def test_a_locked_room_seats_nobody_new() -> None:
    """lock: a newcomer gets room/locked; unlock lets them in; both are records."""
    table = hosted()
    assert isinstance(answer(table, table.act(1, "l", type="lock", on=True), 1), Ack)
    assert closes(table.join(2, "bea", player=BEA), 2) == [codes.LOCKED]
    assert table.welcome(table.join(3, role="spectator", player=CY), 3).role == "spectator"
    table.act(1, "u", type="lock", on=False)
    assert table.welcome(table.join(4, "bea", player=BEA), 4).seat == 1
    assert [d["a"] for d in table.records("act")] == [
        {"type": "lock", "on": True}, {"type": "lock", "on": False}
    ]  # fmt: skip


def test_a_removed_player_cannot_come_back() -> None:
    """remove: the player is closed with room/removed, their seat is free again, and
    neither their seat token nor their session (nor, in a private room, the invite code
    they came with: it is revoked) opens the room again."""
    table = hosted(visibility="private")
    table.feed(Invite(1, HOST, "code-abcdefghij", table.now))
    joined = table.join(2, "bea", player=BEA, invite="code-abcdefghij")
    token = table.welcome(joined, 2).seat_token
    removed = table.act(1, "r", type="remove", seat=1)
    assert isinstance(answer(table, removed, 1), Ack)
    assert closes(removed, 2) == [codes.REMOVED]
    assert 1 not in table.model.holders and table.model.invite is None
    assert closes(table.join(3, token=token, invite="code-abcdefghij"), 3) == [codes.ROOM_NOT_FOUND]
    assert closes(table.join(4, player=BEA), 4) == [codes.ROOM_NOT_FOUND]
    public = hosted()
    token = public.welcome(public.join(2, "bea", player=BEA), 2).seat_token
    public.act(1, "r", type="remove", seat=1)
    assert closes(public.join(3, token=token), 3) == [codes.REMOVED]
    assert closes(public.join(4, player=BEA, role="spectator"), 4) == [codes.REMOVED]
    assert public.welcome(public.join(5, "cy", player=CY), 5).seat == 1


def test_the_host_removes_a_spectator() -> None:
    """A spectator with a player id is removed by it, and cannot watch again."""
    table = hosted()
    table.join(2, role="spectator", player=CY)
    removed = table.act(1, "r", type="remove", player=CY)
    assert closes(removed, 2) == [codes.REMOVED]
    assert closes(table.join(3, role="spectator", player=CY), 3) == [codes.REMOVED]


def test_fill_seats_bots_and_starts_the_game() -> None:
    """fill: every free seat gets a hosted bot, in one record, and play begins."""
    table = hosted(seats=4)
    assert not table.model.started
    assert isinstance(answer(table, table.act(1, "f", type="fill"), 1), Ack)
    assert table.model.started
    assert [h.bot is not None for _, h in sorted(table.model.holders.items())] == [
        False, True, True, True
    ]  # fmt: skip


def test_the_host_role_passes_by_hand_and_by_itself() -> None:
    """host: the role goes to another seated player; a host gone past the room's grace
    hands it on by itself to the first seated player who is here."""
    table = hosted(seats=3, host_grace=30)
    table.join(2, "bea", player=BEA)
    assert answer(table, table.act(1, "h", type="host", player=DEE), 1).code == codes.BAD_ACTION
    table.act(1, "h", type="host", player=BEA)
    assert table.model.host == BEA
    table.join(3, "cy", player=CY)
    table.leave(2)  # the new host goes away
    table.fire_due(table.now + 29)
    assert table.model.host == BEA
    table.fire_due(table.now + 2)
    assert table.model.host == HOST  # the first seated player who is here
    assert table.records("act")[-1]["a"] == {"type": "host", "player": HOST}


def test_chat_lines_reach_who_may_read_them() -> None:
    """A player's line reaches every view; a spectator's reaches spectators only (their
    own channel), and an anonymous spectator may not chat."""
    table = hosted(seats=2)
    table.join(2, "bea", player=BEA)
    table.join(3, role="spectator", player=CY, name="cy")
    table.join(4, role="spectator")
    assert isinstance(answer(table, table.act(2, "c1", type="chat", text="hi all"), 2), Ack)
    said = table.act(3, "c2", type="chat", text="go bea")
    assert isinstance(answer(table, said, 3), Ack)
    views = table.core.views
    assert [c["text"] for c in views.snapshot(0)["chat"]["players"]] == ["hi all"]
    assert "spectators" not in views.snapshot(0)["chat"]
    spectator = views.snapshot(None)["chat"]
    assert [c["text"] for c in spectator["spectators"]] == ["go bea"]
    assert spectator["spectators"][0]["name"] == "cy"
    refused = table.act(3, "c3", type="chat", text="psst", channel="players")
    assert answer(table, refused, 3).code == codes.CHAT_NOT_ALLOWED
    assert (
        answer(table, table.act(4, "c4", type="chat", text="hey"), 4).code == codes.CHAT_NOT_ALLOWED
    )


@pytest.mark.parametrize(
    "text", ["", "x" * 501, "<script>", "a\u202eb", "a\u200bb", "a\x00b", "x" * 10_000, 7]
)
def test_bad_chat_is_refused_and_changes_nothing(text: object) -> None:
    """Empty, long, markup, invisible or control characters: chat/bad_text, nothing written."""
    table = hosted()
    before = len(table.log)
    reply = answer(table, table.act(1, "c", type="chat", text=text), 1)
    assert isinstance(reply, Reject) and reply.code == codes.BAD_TEXT
    assert len(table.log) == before


def test_chat_is_rate_limited_per_person() -> None:
    """Five lines in ten seconds, then chat/rate_limited until the window moves on."""
    table = hosted()
    for i in range(5):
        assert isinstance(answer(table, table.act(1, f"c{i}", type="chat", text="hi"), 1), Ack)
    assert (
        answer(table, table.act(1, "c5", type="chat", text="hi"), 1).code == codes.CHAT_RATE_LIMITED
    )
    table.at(table.now + 10.5)
    assert isinstance(answer(table, table.act(1, "c6", type="chat", text="hi"), 1), Ack)


def test_a_hidden_line_leaves_every_view_and_a_repeated_act_is_answered_once() -> None:
    """hide: the line leaves every view (and a rebuilt room); the same act id twice is
    acked with the first seq and writes nothing."""
    table = hosted(seats=2)
    table.join(2, role="spectator", player=CY)
    table.act(1, "c1", type="chat", text="rude")
    seq = table.model.seq
    again = table.act(1, "c1", type="chat", text="rude")
    assert answer(table, again, 1) == Ack("c1", seq) and table.model.seq == seq
    assert isinstance(answer(table, table.act(1, "h", type="hide", seq=seq), 1), Ack)
    assert table.core.views.snapshot(None)["chat"]["players"] == []
    assert table.rebuilt().core.views.snapshot(0)["chat"]["players"] == []
    assert answer(table, table.act(1, "h2", type="hide", seq=seq), 1).code == codes.BAD_ACTION


def test_a_quick_match_hold_is_claimed_or_given_back() -> None:
    """Reserve holds a free seat for a player; the game waits for them; their hello
    claims it; a hold nobody claims is given back when it ends."""
    table = Table.new(seats=2)
    table.feed(Reserve(1, BEA, "bea", T0 + 15, T0))
    table.feed(Reserve(2, CY, "cy", T0 + 15, T0))
    assert not table.model.started and len(table.model.holders) == 2
    finished = [o for o in table.outputs if isinstance(o, Finished)]
    assert [(f.op, f.value) for f in finished] == [(1, 0), (2, 1)]
    refused = table.feed(Reserve(3, DEE, "dee", T0 + 15, T0))
    assert [o.code for o in refused if isinstance(o, Finished)] == [codes.ROOM_FULL]
    welcome = table.welcome(table.join(1, player=BEA), 1)
    assert welcome.seat == 0 and not table.model.started
    table.fire_due(T0 + 16)  # cy never came
    assert 1 not in table.model.holders and table.records("unseated")
    assert Reopened() in table.outputs  # quick match may offer the seat again
    assert table.welcome(table.join(2, "dee", player=DEE), 2).seat == 1
    assert table.model.started


def test_a_room_that_asks_for_it_fills_with_bots_after_a_while() -> None:
    """fill_bots_after: the free seats get bots that many seconds after the room was made."""
    table = Table.new(seats=3, settings={"fill_bots_after": 20})
    table.join(1, "ann")
    table.fire_due(T0 + 19)
    assert not table.model.started
    table.fire_due(T0 + 21)
    assert table.model.started
    assert table.records("act")[-1]["a"]["type"] == "fill"


def test_people_survive_a_rebuild() -> None:
    """Host, chat, bans and the lock are the log's: a rebuilt room has them all."""
    table = hosted(seats=3)
    table.join(2, "bea", player=BEA)
    table.act(1, "c", type="chat", text="hello")
    table.act(1, "r", type="remove", seat=1)
    table.act(1, "l", type="lock")
    model = table.rebuilt().model
    assert model.host == HOST and model.locked and BEA in model.banned
    assert [c.text for c in model.chat] == ["hello"]
    assert isinstance(table.welcome(table.join(9, player=HOST), 9), Welcome)
