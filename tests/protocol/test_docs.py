"""docs/protocol.md agrees with the code: codes, messages, fields, and the example frames."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs

from protocol.codec import JSON, MAX_FRAME, SUBPROTOCOLS
from protocol.errors import CATALOGUE
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
    """Every JSON message shown in the document decodes with the real JSON codec."""
    messages = [b for b in json_blocks() if isinstance(b, dict) and b.get("type") in ALL_MESSAGES]
    assert len(messages) >= 15
    for data in messages:
        frame = json.dumps(data)
        side = JSON.decode_client if data["type"] in CLIENT_MESSAGES else JSON.decode_server
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
