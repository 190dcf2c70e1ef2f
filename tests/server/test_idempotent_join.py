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

import pytest

from protocol import errors as codes
from protocol.codec import JSON_V2
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
