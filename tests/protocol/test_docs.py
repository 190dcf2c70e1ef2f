"""docs/protocol.md agrees with the code: codes, messages, fields, and the example frames."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs
import msgpack
import pytest

from protocol.codec import JSON, JSON_V2, MAX_FRAME, MSGPACK, SUBPROTOCOLS
from protocol.errors import CATALOGUE, ProtocolError
from protocol.messages import CLIENT_MESSAGES, SERVER_MESSAGES, WIRE_NAMES
from protocol.patch import apply

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
ALL_MESSAGES: dict[str, type] = {**CLIENT_MESSAGES, **SERVER_MESSAGES}


def json_blocks() -> list[Any]:
    """Every ```json block of the document, parsed."""
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOC, re.DOTALL)]


def test_every_error_code_is_documented() -> None:
    """Each catalogued code appears in the document, in backticks."""
    missing = [c.code for c in CATALOGUE if f"`{c.code}`" not in DOC]
    assert missing == []


def test_every_message_and_field_is_documented() -> None:
    """Each message type and each of its wire field names appear in the document."""
    for tag, cls in ALL_MESSAGES.items():
        assert f"`{tag}`" in DOC
        for field in attrs.fields(cls):
            assert f"`{WIRE_NAMES.get(field.name, field.name)}" in DOC, (tag, field.name)


def test_transport_facts_are_documented() -> None:
    """The subprotocol names and the size cap in the document match the code."""
    for name in SUBPROTOCOLS:
        assert f"`{name}`" in DOC
    assert str(MAX_FRAME) in DOC


def test_example_messages_decode() -> None:
    """Every JSON message shown in the document decodes with the real JSON codec (version 2:
    it reads version 1 too)."""
    messages = [b for b in json_blocks() if isinstance(b, dict) and b.get("type") in ALL_MESSAGES]
    assert len(messages) >= 15
    for data in messages:
        frame = json.dumps(data)
        side = JSON_V2.decode_client if data["type"] in CLIENT_MESSAGES else JSON_V2.decode_server
        assert data["type"] == side(frame).TYPE


def test_example_patches_apply_to_the_example_snapshot() -> None:
    """In the worked example, Ann's patches apply in order to her welcome snapshot."""
    messages = [b for b in json_blocks() if isinstance(b, dict) and b.get("type") in ALL_MESSAGES]
    welcome = next(m for m in messages if m["type"] == "welcome" and m["view"] is not None)
    seq, view = welcome["seq"], welcome["view"]
    for msg in messages[messages.index(welcome) :]:
        if msg["type"] == "patch" and msg["from"] == seq:
            view, seq = apply(view, msg["ops"]), msg["to"]
    assert seq == 5
    assert view["game"]["bank"]["0"] == 0
    assert view["you"] == {"seat": 0, "legal": []}


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


BAD_FRAMES: list[tuple[str, bytes | str, str]] = [
    ("msgpack", msgpack.packb({1: 2}), "protocol/malformed"),
    ("msgpack", b"\x81\xa4type\xa2\xff\xfe", "protocol/malformed"),
    ("msgpack", msgpack.packb({"type": "ping", "x": _deep(40)}), "protocol/malformed"),
    (
        "msgpack",
        msgpack.packb({"type": "ping", "nonce": b"x"}, use_bin_type=True),
        "protocol/bad_field",
    ),
    (
        "msgpack",
        msgpack.packb({"type": "ping", "nonce": msgpack.ExtType(1, b"x")}),
        "protocol/bad_field",
    ),
    ("msgpack", msgpack.packb({"type": "ping", "nonce": 2**64 - 1}), "protocol/bad_field"),
    ("msgpack", msgpack.packb({"type": "ping", "nonce": 1.5}), "protocol/bad_field"),
    ("json", '{"type": "ping", "nonce": NaN}', "protocol/malformed"),
    ("json", "[1]", "protocol/malformed"),
    ("json", '{"type": "hello", "room": "\\ud800", "role": "player"}', "protocol/bad_field"),
    ("json", '{"type": "ping", "nonce": 99999999999999999999}', "protocol/bad_field"),
    ("json", '{"type": "pong"}', "protocol/unknown_type"),
    ("json", '{"type": "ping", "extra": 1}', "protocol/unknown_field"),
    ("json", '{"type": "command", "id": "x"}', "protocol/missing_field"),
]


@pytest.mark.parametrize(("codec", "frame", "code"), BAD_FRAMES)
def test_the_bad_frame_table_matches_the_codec(codec: str, frame: bytes | str, code: str) -> None:
    """Each kind of bad frame in section 2's table gets the code the table gives."""
    decoder = MSGPACK if codec == "msgpack" else JSON
    with pytest.raises(ProtocolError) as info:
        decoder.decode_client(frame)
    assert info.value.code == code
    assert f"`{code}`" in DOC.split("What the server answers for each kind of bad frame")[1][:2000]


def test_every_event_name_of_every_game_is_documented() -> None:
    """Section 11.1 lists every public event name each game can send."""
    from engine.core import games
    from engine.rollie import PUBLIC_NAMES

    table = DOC.split("### 11.1")[1].split("`you` is present")[0]
    for name, game in games().items():
        tags = set(game.events.by_tag)
        names = {PUBLIC_NAMES.get(t, t) for t in tags} if name == "rollie" else tags
        row = next(line for line in table.splitlines() if line.startswith(f"| `{name}` |"))
        missing = sorted(n for n in names if f"`{n}`" not in row)
        assert missing == [], (name, missing)
