"""Joins are idempotent, like commands by id (issue 23: the soak's stranded seats).

A hello that takes a free seat is answered only once the seat is durable; if the
connection, its relay or the room's owner dies between the two, the seat is taken
and its token was never delivered. With a fresh token drawn by the server, nobody
holds it: the player comes back without a token and finds the room full, and the game
waits for a seat nobody can take. A version 2 hello may carry ``new_seat_token``, a
token of the client's own making: the seat it takes gets that token, and the same
hello sent again finds that seat, even from a room rebuilt from its log (a new owner).
"""

from __future__ import annotations

import json

import pytest

from protocol import errors as codes
from protocol.codec import JSON, JSON_V2
from protocol.errors import ProtocolError
from protocol.messages import Hello, Welcome
from server.room.io import Close
from tests.server.core_harness import Table

OWN = "ann-own-token-0123456789abc"
OTHER = "bob-own-token-0123456789abc"


def closes(outputs: list[object], peer: int) -> list[str]:
    return [o.code for o in outputs if isinstance(o, Close) and o.peer == peer]


def test_the_seat_a_hello_takes_gets_the_clients_own_token() -> None:
    table = Table.new()
    welcome = table.welcome(table.join(1, "ann", own=OWN), 1)
    assert (welcome.seat, welcome.seat_token) == (0, OWN)
    assert len(table.records("seated")) == 1


def test_the_same_hello_after_a_restart_finds_its_seat_again() -> None:
    """The seat was durable, the owner died before the welcome went out: the room is
    rebuilt from its log on another node, and the hello sent again is seated where it
    was, with its own token, and nothing is written."""
    table = Table.new()
    table.join(1, "ann", own=OWN)  # its welcome is lost with the node
    again = table.rebuilt()
    before = len(again.log)
    outputs = again.join(7, "ann", own=OWN)
    welcome = again.welcome(outputs, 7)
    assert (welcome.seat, welcome.seat_token) == (0, OWN)
    assert len(again.log) == before and again.model.free_seats() == [1]
    assert closes(outputs, 7) == []


def test_a_full_room_still_seats_the_hello_that_filled_it() -> None:
    """Both seats taken (the game started); the second player's welcome was lost: its
    hello again is its seat, where a server-drawn token would have met ``room/full``."""
    table = Table.new()
    table.join(1, "ann", own=OWN)
    table.join(2, "bob", own=OTHER)
    assert table.model.free_seats() == []
    again = table.rebuilt()
    outputs = again.join(9, "bob", own=OTHER)
    assert again.welcome(outputs, 9).seat == 1 and closes(outputs, 9) == []
    stranger = again.join(10, "eve", own="eve-own-token-0123456789abc")
    assert closes(stranger, 10) == [codes.ROOM_FULL]


def test_a_second_copy_on_a_live_room_takes_the_seat_over() -> None:
    """The relay sent the hello again on a new connection while the first still stood
    in the room: the newer connection has the seat, the older is replaced (as a resume
    by seat token does)."""
    table = Table.new()
    table.join(1, "ann", own=OWN)
    outputs = table.join(2, "ann", own=OWN)
    assert table.welcome(outputs, 2).seat_token == OWN
    assert closes(outputs, 1) == [codes.REPLACED]
    assert len(table.records("seated")) == 1


def test_a_seat_token_wins_over_an_own_token() -> None:
    table = Table.new()
    token = table.welcome(table.join(1, "ann"), 1).seat_token
    table.leave(1)
    outputs = table.join(2, "ann", token=token, own=OTHER)
    assert table.welcome(outputs, 2).seat_token == token
    assert table.model.free_seats() == [1]


def test_an_own_token_that_matches_no_seat_takes_a_free_one() -> None:
    """Unlike a seat token (``room/bad_seat_token``), an own token is a proposal."""
    table = Table.new()
    outputs = table.join(1, "ann", own=OWN)
    assert closes(outputs, 1) == [] and isinstance(table.welcome(outputs, 1), Welcome)


@pytest.mark.parametrize(
    "token",
    ["short", "x" * 21, "y" * 129, "has space in it 0123456789", "slash/0123456789abcdefghij"],
)
def test_a_weak_or_malformed_own_token_is_refused_on_the_wire(token: str) -> None:
    frame = JSON_V2.encode(Hello("r-1", "player", "ann")).replace(
        "}", f', "new_seat_token": "{token}"}}'
    )
    with pytest.raises(ProtocolError) as info:
        JSON_V2.decode_client(frame)
    assert (info.value.code, info.value.field) == (codes.BAD_FIELD, "new_seat_token")


def test_a_good_own_token_passes_the_wire() -> None:
    hello = Hello("r-1", "player", "ann", new_seat_token=OWN)
    assert JSON_V2.decode_client(JSON_V2.encode(hello)) == hello


# -- a late copy of an earlier hello (issue 23: room/replaced after a room moved) ---------

CLIENT = "ann-client-01"


def test_a_late_hello_of_an_earlier_connection_leaves_the_later_one_seated() -> None:
    """The client's first connection went through a node whose link to Redis was slow;
    it gave up on it and came back through another node, and holds its seat there. The
    first hello, still on its way, arrives now: it is closed (``room/replaced``), the
    later connection keeps the seat and is told nothing, and nothing is written."""
    table = Table.new()
    table.join(1, "ann", own=OWN, client=CLIENT, attempt=1)
    table.leave(1)
    table.join(2, "ann", token=OWN, client=CLIENT, attempt=3)
    before = len(table.log)
    outputs = table.join(3, "ann", token=OWN, client=CLIENT, attempt=2)
    assert closes(outputs, 3) == [codes.REPLACED] and closes(outputs, 2) == []
    assert table.core.seated[0] == 2 and 3 not in table.core.peers
    assert len(table.log) == before
    table.leave(3)  # the late connection's leave, when its relay sends it: nothing
    assert table.core.seated[0] == 2


@pytest.mark.parametrize(
    ("client", "attempt"),
    [(CLIENT, 4), ("bob-tab-client-1", 1), (None, None), (CLIENT, None)],
    ids=["a later attempt", "another client (a new tab)", "no client", "no attempt"],
)
def test_a_hello_that_is_not_an_earlier_one_takes_the_seat(
    client: str | None, attempt: int | None
) -> None:
    """A later connection of the client, another client with the seat's token (a tab,
    a device), or a client that does not number its connections: the newer one takes
    the seat and the holder is replaced, as before."""
    table = Table.new()
    table.join(1, "ann", own=OWN, client=CLIENT, attempt=3)
    outputs = table.join(2, "ann", token=OWN, client=client, attempt=attempt)
    assert closes(outputs, 1) == [codes.REPLACED] and closes(outputs, 2) == []
    assert table.core.seated[0] == 2


@pytest.mark.parametrize(
    ("field", "value"),
    [("client", "short"), ("client", "c" * 65), ("client", "has space 01"), ("attempt", 0),
     ("attempt", -1), ("attempt", 2**53)],
)  # fmt: skip
def test_a_malformed_client_or_attempt_is_refused_on_the_wire(field: str, value: object) -> None:
    frame = JSON_V2.encode(Hello("r-1", "player", "ann")).replace(
        "}", f", {json.dumps(field)}: {json.dumps(value)}}}"
    )
    with pytest.raises(ProtocolError) as info:
        JSON_V2.decode_client(frame)
    assert (info.value.code, info.value.field) == (codes.BAD_FIELD, field)


def test_client_and_attempt_are_version_2_fields() -> None:
    hello = Hello("r-1", "player", "ann", client=CLIENT, attempt=7)
    assert JSON_V2.decode_client(JSON_V2.encode(hello)) == hello
    frame = JSON_V2.encode(Hello("r-1", "player", "ann")).replace("}", ', "attempt": 1}')
    with pytest.raises(ProtocolError) as info:
        JSON.decode_client(frame)
    assert (info.value.code, info.value.field) == (codes.UNKNOWN_FIELD, "attempt")
