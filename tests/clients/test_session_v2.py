"""The sans-I/O session's version 2 rules: the hello's session and invite, acts held and
re-sent with their ids like commands, the invite dropped once seated, and the final codes
version 2 adds."""

from __future__ import annotations

from clients.sdk.session import Session, outcome
from protocol.codec import JSON_V2, to_wire
from protocol.messages import Ack, Act, Command, Reject, Welcome

OWN = "own-seat-token-0123456789abc"


def welcome(seat: int | None, player: str | None = "p-1") -> Welcome:
    role = "player" if seat is not None else "spectator"
    return Welcome("r-1", "rollie", role, seat, None, 3, {"room": {}}, 0.0, player)


def test_the_hello_carries_the_session_and_the_invite() -> None:
    """Both ride in every hello until a seat is held; then the invite is dropped."""
    session = Session("r-1", session_token="p-1.secret", invite="code", new_seat_token=OWN)
    hello = session.opened()[0]
    assert to_wire(hello) == {
        "type": "hello", "room": "r-1", "role": "player", "name": None, "seat_token": None,
        "last_seq": None, "session": "p-1.secret", "invite": "code", "new_seat_token": OWN,
        "client": session.client_id, "attempt": 1,
    }  # fmt: skip
    assert JSON_V2.decode_client(JSON_V2.encode(hello)) == hello
    session.receive(welcome(seat=0))
    assert session.mirror.player == "p-1"
    assert session.hello().invite is None and session.hello().session == "p-1.secret"


def test_an_own_seat_token_rides_every_hello_until_a_seat_token_comes() -> None:
    """Drawn at random (32 characters of base64url), the same after a lost connection, and
    left out once the welcome gave the seat's token; none for a spectator or on version 1."""
    session = Session("r-1", name="ann")
    own = session.hello().new_seat_token
    assert own is not None and len(own) == 32 and own != Session("r-1").hello().new_seat_token
    session.opened()
    assert session.dropped(None) == "reconnect"
    assert session.opened()[0].new_seat_token == own
    session.receive(Welcome("r-1", "rollie", "player", 0, own, 3, {"room": {}}, 0.0))
    assert session.hello().seat_token == own and session.hello().new_seat_token is None
    assert Session("r-1", "spectator").hello().new_seat_token is None
    assert Session("r-1", name="ann", version=1).hello().new_seat_token is None
    assert Session("r-1", seat_token="kept").hello().new_seat_token is None


def test_a_players_hellos_number_its_connections() -> None:
    """One random client id (16 characters of base64url) in every hello, with the
    connection's number: 1, then 2 after a drop, whatever the seat token; none for a
    spectator or on version 1 (a v1 server refuses the fields)."""
    session = Session("r-1", name="ann")
    first = session.opened()[0]
    assert first.client is not None and len(first.client) == 16 and first.attempt == 1
    assert first.client != Session("r-1").client_id
    session.receive(Welcome("r-1", "rollie", "player", 0, "tok", 3, {"room": {}}, 0.0))
    session.dropped(None)
    again = session.opened()[0]
    assert (again.client, again.attempt, again.seat_token) == (first.client, 2, "tok")
    assert session.hello().attempt == 3  # the next connection's
    for other in (Session("r-1", "spectator"), Session("r-1", name="ann", version=1)):
        hello = other.opened()[0]
        assert (hello.client, hello.attempt) == (None, None)


def test_a_spectator_keeps_its_invite() -> None:
    """A spectator holds no seat: the invite stays its way in."""
    session = Session("r-1", "spectator", invite="code")
    session.receive(welcome(seat=None, player=None))
    assert session.hello().invite == "code"


def test_acts_are_held_and_resent_with_their_ids() -> None:
    """An act sent while no socket is open waits; the next socket gets the hello, then the
    unanswered command and act in send order; an ack and a reject settle them."""
    session = Session("r-1", session_token="p-1.s")
    assert session.command("c-1", {"type": "roll"}) == []
    assert session.act("a-1", {"type": "chat", "text": "hi"}) == []
    sent = session.opened()
    assert sent[1:] == [
        Command("c-1", {"type": "roll"}),
        Act("a-1", {"type": "chat", "text": "hi"}),
    ]
    assert session.act("a-2", {"type": "lock"}) == [Act("a-2", {"type": "lock"})]
    session.receive(Ack("a-1", 7))
    session.receive(Reject("a-2", "room/not_host", "only the host", {}))
    assert list(session.pending) == ["c-1"]


def test_version_2_final_codes() -> None:
    """A host's no-spectators room and a dead session end the client: no reconnect."""
    assert outcome("room/no_spectators", True) == "give_up"
    assert outcome("player/unauthorized", True) == "give_up"
    assert outcome("room/no_spectators", False) == "continue"
