"""The SDK's sans-I/O Mirror and error tree, beyond the shared vectors (docs/protocol.md 6-7)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clients.sdk import Client, ClientError, CommandRejected, ConnectionLost
from clients.sdk.mirror import Mirror, RequestResync, ViewChanged, Welcomed
from engine.errors import CodedError
from protocol.codec import JSON_V2
from protocol.errors import ProtocolError
from protocol.messages import Error, Hello, Patch, Snapshot, Welcome
from protocol.patch import diff, same
from tests.protocol.strategies import views

VIEW = {"game": {"round": 1, "dice": [2]}}


def welcome(seq: int = 3, view: dict[str, Any] | None = VIEW) -> Welcome:
    return Welcome("r-1", "rollie", "player", 0, "tok", seq, view)


def patch(frm: int, to: int, *events: str) -> Patch:
    return Patch(frm, to, ({"op": "replace", "path": ["game", "round"], "value": to},), events)


def test_welcome_actions_come_view_first() -> None:
    """A welcome with a view reports the view change, then the welcome (the shell's order)."""
    assert Mirror().receive(welcome()) == [ViewChanged(3), Welcomed(welcome())]


def test_patches_fill_the_events_log() -> None:
    """Each applied patch adds (to, event names) to ``events``; ignored ones add nothing."""
    mirror = Mirror()
    mirror.receive(welcome())
    for msg in (patch(3, 4, "rolled"), patch(3, 4, "rolled"), patch(4, 6, "took", "secured")):
        mirror.receive(msg)
    assert mirror.events == [(4, ["rolled"]), (6, ["took", "secured"])]


def test_a_patch_leaves_the_old_view_untouched() -> None:
    """Applying a patch builds a new view; a view the caller kept is not mutated."""
    mirror = Mirror()
    mirror.receive(welcome())
    before = mirror.view
    mirror.receive(patch(3, 4))
    assert before == VIEW and mirror.view == {"game": {"round": 4, "dice": [2]}}


@pytest.mark.parametrize(
    ("messages", "resume"),
    [
        ([], None),
        ([welcome(3)], 3),
        ([welcome(3), patch(3, 4)], 4),
        ([welcome(3), patch(5, 6)], None),  # resyncing: the view is not worth resuming
        ([welcome(3), patch(5, 6), Snapshot(6, VIEW)], 6),
        ([welcome(3, None)], None),  # nothing to resume from
    ],
)
def test_resume_seq(messages: list[Any], resume: int | None) -> None:
    """The hello's last_seq is the mirror's seq only while it holds a view it trusts."""
    mirror = Mirror()
    for msg in messages:
        mirror.receive(msg)
    assert mirror.resume_seq == resume


def test_a_second_gap_while_resyncing_asks_nothing_more() -> None:
    """Once a resync is asked, further gaps wait for the snapshot instead of asking again."""
    mirror = Mirror()
    mirror.receive(welcome())
    assert mirror.receive(patch(5, 6)) == [RequestResync()]
    assert mirror.receive(patch(7, 8)) == []
    assert mirror.receive(patch(3, 4)) == []  # even one that would fit: the snapshot decides


def test_reset_forgets_the_view_but_not_the_seat() -> None:
    """reset() drops view, seq and a pending resync; seat and token stay."""
    mirror = Mirror()
    mirror.receive(welcome())
    mirror.receive(patch(5, 6))
    mirror.reset()
    assert (mirror.view, mirror.seq, mirror.resyncing) == (None, 0, False)
    assert (mirror.seat, mirror.seat_token) == (0, "tok")


def test_client_errors_are_coded_errors() -> None:
    """ClientError and its two children are CodedErrors with code, message and details."""
    exc = CommandRejected("rollie/pile_empty", "no 5 left", {"value": 5, "message": "x"})
    assert isinstance(exc, ClientError) and isinstance(exc, CodedError)
    assert (exc.code, exc.message, exc.details) == (
        "rollie/pile_empty",
        "no 5 left",
        {"value": 5, "message": "x"},
    )
    assert str(exc) == "rollie/pile_empty: no 5 left"
    lost = ConnectionLost("room/replaced", "another tab")
    assert lost.details == {} and lost.to_data() == {
        "code": "room/replaced",
        "message": "another tab",
    }


def test_client_refuses_what_no_hello_can_carry() -> None:
    """A role outside player/spectator or a name over 32 characters fails at construction."""
    with pytest.raises(ValueError, match="role"):
        Client("ws://127.0.0.1:1/ws", "r-1", role="referee")
    with pytest.raises(ProtocolError) as info:
        Client("ws://127.0.0.1:1/ws", "r-1", name="x" * 33)
    assert info.value.field == "name"


def test_client_frames_are_protocol_messages() -> None:
    """The hello is a Hello the server's decoder reads back; last_seq follows the mirror."""
    client = Client("ws://127.0.0.1:1/ws", "r-1", name="ann", seat_token="tok", encoding="json")
    hello = client.session.hello()
    assert JSON_V2.decode_client(client.codec.encode(hello)) == Hello(
        "r-1", "player", "ann", "tok", client=client.session.client_id, attempt=1
    )
    client.mirror.receive(welcome(7))
    assert client.session.hello().last_seq == 7


@settings(max_examples=100, deadline=None)
@given(
    st.lists(views, min_size=2, max_size=8),
    st.lists(st.sampled_from(["deliver", "drop", "twice"]), min_size=7, max_size=7),
)
def test_the_mirror_never_shows_a_view_of_another_seq(history: list[Any], fates: list[str]) -> None:
    """Patches dropped or repeated on the way: the view is always the view at ``seq``, and
    a resync answered with a snapshot brings the mirror to the end."""
    mirror = Mirror()
    mirror.receive(Welcome("r-1", "t", "player", 0, "tok", 0, history[0]))
    for to in range(1, len(history)):
        msg = Patch(to - 1, to, tuple(diff(history[to - 1], history[to])))
        fate = fates[to - 1]
        for _ in range({"deliver": 1, "drop": 0, "twice": 2}[fate]):
            if RequestResync() in mirror.receive(msg):
                mirror.receive(Snapshot(to, history[to]))  # the server answers with its view
            assert same(mirror.view, history[mirror.seq])
    if fates[len(history) - 2] != "drop":
        assert mirror.seq == len(history) - 1 and not mirror.resyncing


async def test_a_rate_limited_resync_is_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server drops resyncs over its rate: while one is pending, the Client asks again."""
    monkeypatch.setattr("clients.sdk.client.RESYNC_RETRY", 0.0)
    client = Client("ws://127.0.0.1:1/ws", "r-1")
    sent: list[int] = []

    async def resync() -> None:
        sent.append(client.seq)

    monkeypatch.setattr(client, "resync", resync)
    client.mirror.receive(welcome())
    client._handle(Error("room/rate_limited", "too many resync requests", fatal=False))
    await asyncio.sleep(0.01)
    assert sent == []  # no resync pending: nothing to ask
    client.mirror.receive(patch(5, 6))
    client._handle(Error("room/rate_limited", "too many resync requests", fatal=False))
    await asyncio.sleep(0.01)
    assert sent == [3]
