"""protocol.codec: round trips in both encodings and one crafted frame per rejection code."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import errors
from protocol.codec import (
    JSON,
    JSON_V2,
    MAX_FRAME,
    MSGPACK,
    MSGPACK_V2,
    SUBPROTOCOLS,
    Codec,
    OpPieces,
    ProtocolError,
    choose_subprotocol,
    codec_for,
    to_wire,
)
from protocol.messages import (
    CLIENT_MESSAGES,
    SERVER_MESSAGES,
    V2_FIELDS,
    Ack,
    Act,
    Command,
    Error,
    Hello,
    Patch,
    Ping,
    Pong,
    Presence,
    Reject,
    Resync,
    SeatPresence,
    Snapshot,
    Welcome,
)
from protocol.patch import same
from tests.protocol.strategies import client_messages, ops, seqs, server_messages

CODECS = [MSGPACK, JSON, MSGPACK_V2, JSON_V2]
V2_EXAMPLES: list[Any] = [
    Hello("r1", "player", session="p-1.secret", invite="inv-code-1"),
    Act("a-1", {"type": "chat", "text": "hi"}),
    Welcome("r1", "rollie", "player", 0, None, 3, None, 0.5, player="p-1"),
]
"""Messages only version 2 speaks: a v1 codec refuses them (or leaves their v2 field out)."""
EXAMPLES: list[Any] = [
    Hello("r1", "player", name="ann", seat_token="s3cret", last_seq=4),
    Hello("r1", "spectator"),
    Command("c-1", {"type": "take", "value": 5}),
    Resync(),
    Ping(7),
    Ping(),
    Welcome("r1", "rollie", "player", 0, "s3cret", 3, {"game": {"piles": [1, 2]}}, 1.7e9),
    Welcome("r1", "rollie", "spectator", None, None, 3, None, 0.5),
    Snapshot(9, {"game": {}, "room": {"status": "playing", "deadlines": {"0": 1.7e9}}}),
    Ack("c-1", 12),
    Reject("c-2", "rollie/pile_empty", "pile 5 is empty", {"pile": 5}),
    Patch(3, 4, ({"op": "replace", "path": ["game", "turn"], "value": 1},), ("rollie",)),
    Presence((SeatPresence(0, "ann", True, False), SeatPresence(1, None, False, True)), 2),
    Error("room/full", "every seat is taken", None, True),
    Pong(7, 1.7e9),
    Pong(None, 2.0),
]


def decode(codec: Codec, frame: bytes | str, msg_type: str) -> Any:
    side = codec.decode_client if msg_type in CLIENT_MESSAGES else codec.decode_server
    return side(frame)


def test_examples_cover_every_message_type() -> None:
    """The example table holds at least one message of every type, in both directions."""
    every = {m.TYPE for m in EXAMPLES + V2_EXAMPLES}
    assert every == set(CLIENT_MESSAGES) | set(SERVER_MESSAGES)


@pytest.mark.parametrize("codec", [MSGPACK_V2, JSON_V2], ids=lambda c: c.name)
@pytest.mark.parametrize("msg", V2_EXAMPLES, ids=lambda m: m.TYPE)
def test_version_2_messages_round_trip(codec: Codec, msg: Any) -> None:
    """What version 2 adds survives its codecs."""
    assert decode(codec, codec.encode(msg), msg.TYPE) == msg


@pytest.mark.parametrize("codec", [MSGPACK, JSON], ids=lambda c: c.name)
def test_version_1_codecs_refuse_what_version_2_added(codec: Codec) -> None:
    """A v1 client's server refuses v2's act and hello fields, as it did before they
    existed; and v2's optional fields are absent from every encoding while None."""
    _, act, _ = V2_EXAMPLES
    with pytest.raises(ProtocolError) as info:
        codec.decode_client(codec.encode(act))
    assert info.value.code == errors.UNKNOWN_TYPE
    for field in V2_FIELDS[Hello]:
        value: Any = 3 if field == "attempt" else "x" * 24
        with pytest.raises(ProtocolError) as info:
            codec.decode_client(codec.encode(Hello("r1", "player", **{field: value})))
        assert (info.value.code, info.value.field) == (errors.UNKNOWN_FIELD, field)
    plain = codec.decode_data(codec.encode(EXAMPLES[6]))
    assert "player" not in plain and "session" not in codec.decode_data(codec.encode(EXAMPLES[0]))


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name)
@pytest.mark.parametrize("msg", EXAMPLES, ids=lambda m: m.TYPE)
def test_every_message_round_trips(codec: Codec, msg: Any) -> None:
    """encode then decode gives back an equal message, in the codec's frame kind."""
    frame = codec.encode(msg)
    assert isinstance(frame, bytes if codec.binary else str)
    assert decode(codec, frame, msg.TYPE) == msg


def test_wire_names_and_shape() -> None:
    """The wire map has `type` and uses `from` (not `from_`); presence seats are maps."""
    patch = to_wire(Patch(1, 2, (), ("roll",)))
    assert patch == {"type": "patch", "from": 1, "to": 2, "ops": (), "events": ("roll",)}
    presence = json.loads(JSON.encode(EXAMPLES[12]))
    assert presence["seats"][1] == {"seat": 1, "name": None, "connected": False, "bot": True}


@settings(max_examples=150, deadline=None)
@given(msg=client_messages | server_messages)
def test_random_messages_round_trip_strictly(msg: Any) -> None:
    """Any valid message survives both codecs with types intact (1, 1.0 and True stay apart)."""
    for codec in CODECS:
        back = decode(codec, codec.encode(msg), msg.TYPE)
        assert back == msg
        assert same(to_wire(back), to_wire(msg))


def test_codec_for_and_subprotocols() -> None:
    """The newest version first, msgpack before JSON; no subprotocol means v1 JSON; an
    unknown one is refused."""
    assert SUBPROTOCOLS == (
        "rollhouse.v2.msgpack", "rollhouse.v2.json", "rollhouse.v1.msgpack", "rollhouse.v1.json"
    )  # fmt: skip
    assert codec_for(None) is JSON
    assert codec_for("rollhouse.v1.msgpack") is MSGPACK
    assert codec_for("rollhouse.v1.json") is JSON
    assert codec_for("rollhouse.v2.msgpack") is MSGPACK_V2
    assert codec_for("rollhouse.v2.json") is JSON_V2
    assert (
        choose_subprotocol(["rollhouse.v1.json", "rollhouse.v1.msgpack"]) == "rollhouse.v1.msgpack"
    )
    assert choose_subprotocol(["rollhouse.v1.json", "rollhouse.v2.json"]) == "rollhouse.v2.json"
    assert choose_subprotocol(["chat"]) is None
    with pytest.raises(ProtocolError):
        codec_for("rollhouse.v2.cbor")


def test_encode_data_matches_encode() -> None:
    """encode_data of a pre-built map gives the same frame as encoding the message."""
    msg = EXAMPLES[11]
    for codec in CODECS:
        assert codec.encode_data(to_wire(msg)) == codec.encode(msg)
        assert codec.decode_data(codec.encode(msg))["from"] == 3


@given(
    shared=st.lists(ops, max_size=20),
    own=st.lists(st.lists(ops, max_size=3), min_size=1, max_size=4),
    seqs=st.tuples(seqs, seqs),
    events=st.lists(st.text(max_size=8), max_size=3),
)
@settings(max_examples=150)
def test_patches_encoded_from_shared_pieces_are_the_frames_encode_gives(
    shared: list[Any], own: list[list[Any]], seqs: tuple[int, int], events: list[str]
) -> None:
    """Every viewer's patch of one change: the shared ops (the same objects) then its own;
    encoded through one piece cache per codec, byte for byte what encode gives."""
    patches = [Patch(seqs[0], seqs[1], (*shared, *mine), tuple(events)) for mine in own]
    for codec in CODECS:
        pieces: OpPieces = {}
        for patch in patches:
            assert codec.encode_patch(patch, pieces) == codec.encode(patch)
        assert len(pieces) == len({id(op) for p in patches for op in p.ops})


def test_frame_at_the_size_cap_is_accepted() -> None:
    """A frame of exactly MAX_FRAME bytes decodes; the cap is inclusive."""
    base = len(JSON.encode(Command("x", {"type": "t", "pad": ""})))
    frame = JSON.encode(Command("x", {"type": "t", "pad": "a" * (MAX_FRAME - base)}))
    assert isinstance(frame, str)
    assert len(frame.encode()) == MAX_FRAME
    assert isinstance(JSON.decode_client(frame), Command)


def mp(data: Any) -> bytes:
    """msgpack bytes of ``data``."""
    return msgpack.packb(data, use_bin_type=True)  # type: ignore[no-any-return]


HELLO = {"type": "hello", "room": "r", "role": "player"}


def nested(depth: int) -> Any:
    """A list nested ``depth`` levels deep."""
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


BAD_FRAMES: list[tuple[str, Codec, bytes | str, str, str | None]] = [
    ("oversized msgpack", MSGPACK, b"\x00" * (MAX_FRAME + 1), errors.TOO_LARGE, None),
    ("oversized json", JSON, " " * (MAX_FRAME + 1), errors.TOO_LARGE, None),
    ("oversized json in utf-8", JSON, '"' + "€" * 22000 + '"', errors.TOO_LARGE, None),
    ("huge nesting json", JSON, "[" * 100_000, errors.TOO_LARGE, None),
    ("invalid msgpack byte", MSGPACK, b"\xc1", errors.MALFORMED, None),
    ("truncated msgpack", MSGPACK, mp(HELLO)[:-1], errors.MALFORMED, None),
    ("trailing msgpack", MSGPACK, mp(HELLO) + b"\x00", errors.MALFORMED, None),
    ("bad utf-8 in msgpack", MSGPACK, b"\x81\xa4type\xa2\xff\xfe", errors.MALFORMED, None),
    ("int map key msgpack", MSGPACK, mp({1: 2}), errors.MALFORMED, None),
    ("text frame to msgpack", MSGPACK, json.dumps(HELLO), errors.MALFORMED, None),
    ("binary frame to json", JSON, json.dumps(HELLO).encode(), errors.MALFORMED, None),
    ("invalid json", JSON, '{"type": "hello",', errors.MALFORMED, None),
    ("NaN in json", JSON, '{"type": "ping", "nonce": NaN}', errors.MALFORMED, None),
    ("list at top", MSGPACK, mp([HELLO]), errors.MALFORMED, None),
    ("string at top", JSON, '"hello"', errors.MALFORMED, None),
    ("deep json", JSON, "[" * 5000 + "]" * 5000, errors.MALFORMED, None),
    (
        "deep command",
        MSGPACK,
        mp({"type": "command", "id": "a", "command": {"type": "t", "v": nested(40)}}),
        errors.MALFORMED,
        "command.v" + "[0]" * 30,
    ),
    ("unknown type", JSON, '{"type": "shout"}', errors.UNKNOWN_TYPE, None),
    ("server type from a client", MSGPACK, mp({"type": "pong"}), errors.UNKNOWN_TYPE, None),
    ("unknown field", JSON, json.dumps({**HELLO, "colour": "red"}), errors.UNKNOWN_FIELD, "colour"),
    ("from on a hello", JSON, json.dumps({**HELLO, "from": 1}), errors.UNKNOWN_FIELD, "from"),
    ("missing field", MSGPACK, mp({"type": "hello", "room": "r"}), errors.MISSING_FIELD, "role"),
    ("missing type", JSON, '{"room": "r"}', errors.MISSING_FIELD, "type"),
    (
        "missing command type",
        JSON,
        '{"type":"command","id":"a","command":{}}',
        errors.MISSING_FIELD,
        "command.type",
    ),
    ("type not str", MSGPACK, mp({"type": 3}), errors.BAD_FIELD, "type"),
    ("wrong field type", JSON, json.dumps({**HELLO, "room": 5}), errors.BAD_FIELD, "room"),
    ("bool is not int", MSGPACK, mp({**HELLO, "last_seq": True}), errors.BAD_FIELD, "last_seq"),
    (
        "float is not int",
        JSON,
        json.dumps({**HELLO, "last_seq": 1.0}),
        errors.BAD_FIELD,
        "last_seq",
    ),
    ("bad role", JSON, json.dumps({**HELLO, "role": "god"}), errors.BAD_FIELD, "role"),
    (
        "negative last_seq",
        JSON,
        json.dumps({**HELLO, "last_seq": -1}),
        errors.BAD_FIELD,
        "last_seq",
    ),
    ("empty name", JSON, json.dumps({**HELLO, "name": ""}), errors.BAD_FIELD, "name"),
    ("long name", JSON, json.dumps({**HELLO, "name": "n" * 33}), errors.BAD_FIELD, "name"),
    (
        "long command id",
        JSON,
        json.dumps({"type": "command", "id": "i" * 65, "command": {"type": "t"}}),
        errors.BAD_FIELD,
        "id",
    ),
    (
        "command not a map",
        JSON,
        '{"type":"command","id":"a","command":[]}',
        errors.BAD_FIELD,
        "command",
    ),
    ("huge int json", JSON, f'{{"type": "ping", "nonce": {2**70}}}', errors.BAD_FIELD, "nonce"),
    (
        "uint64 msgpack",
        MSGPACK,
        mp({"type": "ping", "nonce": 2**64 - 1}),
        errors.BAD_FIELD,
        "nonce",
    ),
    ("infinite float json", JSON, '{"type": "ping", "nonce": 1e400}', errors.BAD_FIELD, "nonce"),
    (
        "bytes value msgpack",
        MSGPACK,
        mp({"type": "ping", "nonce": b"x"}),
        errors.BAD_FIELD,
        "nonce",
    ),
    (
        "ext value msgpack",
        MSGPACK,
        mp({"type": "ping", "nonce": msgpack.ExtType(5, b"x")}),
        errors.BAD_FIELD,
        "nonce",
    ),
    (
        "lone surrogate json",
        JSON,
        '{"type": "hello", "room": "\\ud800", "role": "player"}',
        errors.BAD_FIELD,
        "room",
    ),
]


@pytest.mark.parametrize(
    ("codec", "frame", "code", "field"),
    [case[1:] for case in BAD_FRAMES],
    ids=[case[0] for case in BAD_FRAMES],
)
def test_bad_frames_are_rejected_with_their_code(
    codec: Codec, frame: bytes | str, code: str, field: str | None
) -> None:
    """Each crafted bad client frame raises ProtocolError with the expected code and field."""
    with pytest.raises(ProtocolError) as info:
        codec.decode_client(frame)
    assert info.value.code == code
    if field is not None:
        assert info.value.field == field
    assert info.value.message


def test_every_decode_code_has_a_crafted_frame() -> None:
    """The bad-frame table exercises every code decoding can raise."""
    assert {case[3] for case in BAD_FRAMES} == errors.DECODE_CODES


SERVER_BAD: list[tuple[str, str, str]] = [
    ('{"type":"patch","from_":1,"to":2,"ops":[]}', errors.UNKNOWN_FIELD, "from_"),
    ('{"type":"patch","from":"1","to":2,"ops":[]}', errors.BAD_FIELD, "from"),
    (
        '{"type":"patch","from":1,"to":2,"ops":[{"op":"move","path":[]}]}',
        errors.BAD_FIELD,
        "ops[0]",
    ),
    ('{"type":"pong","nonce":1}', errors.MISSING_FIELD, "server_time"),
    ('{"type":"pong","nonce":1,"server_time":"now"}', errors.BAD_FIELD, "server_time"),
    ('{"type":"presence","seats":[{"seat":0}],"spectators":1}', errors.MISSING_FIELD, "name"),
    ('{"type":"hello","room":"r","role":"player"}', errors.UNKNOWN_TYPE, ""),
]


@pytest.mark.parametrize(("frame", "code", "field"), SERVER_BAD)
def test_bad_server_frames_are_rejected(frame: str, code: str, field: str) -> None:
    """decode_server is as strict as decode_client, with wire field names in errors."""
    with pytest.raises(ProtocolError) as info:
        JSON.decode_server(frame)
    assert info.value.code == code
    assert (info.value.field or "") == field


def test_integer_server_time_is_read_as_float() -> None:
    """A server_time written as an integer (other servers may) decodes to a float."""
    pong = JSON.decode_server('{"type":"pong","nonce":null,"server_time":5}')
    assert isinstance(pong, Pong)
    assert pong.server_time == 5.0
    assert isinstance(pong.server_time, float)


def test_constructors_validate_ranges() -> None:
    """Building an out-of-range message in Python raises ProtocolError (a ValueError)."""
    with pytest.raises(ValueError, match="name"):
        Hello("r", "player", name="")
    with pytest.raises(ProtocolError):
        Command("", {"type": "t"})
    with pytest.raises(ProtocolError):
        Ack("a", -1)


@pytest.mark.parametrize("codec", [MSGPACK, JSON], ids=["msgpack", "json"])
def test_server_frames_may_exceed_the_client_cap(codec: Codec) -> None:
    """A 100 KB snapshot decodes for clients (cap 1 MiB) but the same size is too large from a client."""
    big = codec.encode_data({"type": "snapshot", "seq": 1, "view": {"pad": "x" * 100_000}})
    assert codec.decode_data(big)["seq"] == 1
    assert codec.decode_server(big).seq == 1  # type: ignore[union-attr]
    with pytest.raises(ProtocolError) as info:
        codec.decode_client(big)
    assert info.value.code == errors.TOO_LARGE


def test_a_field_encoded_beforehand_is_spliced_byte_for_byte() -> None:
    """encode_with gives the bytes encode gives, the view taken as already encoded."""
    view = {"game": {"a": [1, 2, {"b": None}], "f": 1.5}, "room": {"status": "playing"}}
    for message in (
        Welcome("r-1", "rollie", "player", 1, "tok", 5, view, 12.5),
        Welcome("r-1", "rollie", "spectator", None, None, 0, view, 0.0),
        Snapshot(3, view),
    ):
        assert MSGPACK.encode_with(message, "view", MSGPACK.encode_data(view)) == MSGPACK.encode(
            message
        )
