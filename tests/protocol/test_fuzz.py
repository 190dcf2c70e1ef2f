"""Fuzzing the decoders: any bytes or str gives a message or a ProtocolError, nothing else."""

from __future__ import annotations

from typing import Any

from attrs import fields
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import JSON, MSGPACK, Codec, ProtocolError
from protocol.errors import DECODE_CODES
from protocol.messages import CLIENT_MESSAGES, SERVER_MESSAGES
from tests.protocol.strategies import client_messages, plain, server_messages

CODECS = (MSGPACK, JSON)
FIELD_NAMES = sorted(
    {"from", "from_", "x", "type"}
    | {
        f.name
        for cls in (*CLIENT_MESSAGES.values(), *SERVER_MESSAGES.values())
        for f in fields(cls)
    }
)
TAGS = sorted(CLIENT_MESSAGES) + sorted(SERVER_MESSAGES) + ["", "nope"]
ALL_TEXT = st.text(st.characters(exclude_categories=()), max_size=200)
JSONISH = st.text(st.sampled_from('{}[]":,0123456789.eE-+ truefalsnul\\u"typehlo'), max_size=200)


def decodes_or_refuses(codec: Codec, frame: bytes | str) -> None:
    """Both decoders return a message or raise a ProtocolError with a decode code."""
    for decoder in (codec.decode_client, codec.decode_server):
        try:
            msg = decoder(frame)
        except ProtocolError as exc:
            assert exc.code in DECODE_CODES
            assert exc.message
        else:
            assert msg.TYPE in CLIENT_MESSAGES or msg.TYPE in SERVER_MESSAGES


@settings(max_examples=300, deadline=None)
@given(frame=st.binary(max_size=300))
def test_arbitrary_bytes(frame: bytes) -> None:
    """Arbitrary binary frames never raise anything but ProtocolError, in either codec."""
    for codec in CODECS:
        decodes_or_refuses(codec, frame)


@settings(max_examples=300, deadline=None)
@given(frame=ALL_TEXT | JSONISH)
def test_arbitrary_text(frame: str) -> None:
    """Arbitrary text frames (lone surrogates included) never raise anything else."""
    for codec in CODECS:
        decodes_or_refuses(codec, frame)


def _mutate(frame: bytes, edits: list[tuple[int, int, int]]) -> bytes:
    data = bytearray(frame)
    for kind, pos, byte in edits:
        if not data:
            data.append(byte)
            continue
        i = pos % len(data)
        if kind == 0:
            data[i] = byte
        elif kind == 1:
            data.insert(i, byte)
        else:
            del data[i]
    return bytes(data)


EDITS = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 10_000), st.integers(0, 255)),
    min_size=1,
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(msg=client_messages | server_messages, edits=EDITS)
def test_mutated_valid_frames(msg: Any, edits: list[tuple[int, int, int]]) -> None:
    """Valid frames with a few bytes flipped, inserted or deleted decode or are refused."""
    packed = MSGPACK.encode(msg)
    assert isinstance(packed, bytes)
    decodes_or_refuses(MSGPACK, _mutate(packed, edits))
    text = JSON.encode(msg)
    assert isinstance(text, str)
    mutated = _mutate(text.encode(), edits).decode("utf-8", "surrogateescape")
    decodes_or_refuses(JSON, mutated)


structured = st.dictionaries(
    st.sampled_from(FIELD_NAMES) | st.text(max_size=3), plain, max_size=6
).flatmap(lambda m: st.sampled_from(TAGS).map(lambda tag: {**m, "type": tag}))
shaped_lists = st.lists(plain, max_size=3)


@settings(max_examples=300, deadline=None)
@given(data=structured | st.dictionaries(st.sampled_from(FIELD_NAMES), shaped_lists, max_size=4))
def test_structured_random_maps(data: dict[str, Any]) -> None:
    """Maps with real tags and field names but random values decode or are refused."""
    for codec in CODECS:
        decodes_or_refuses(codec, codec.encode_data(data))
