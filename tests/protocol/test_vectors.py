"""The shared protocol vectors (tests/vectors/patches, codec, errors/catalogue.json) run
through protocol/; the JS SDK runs the same files (clients/js/test/vectors.test.js)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from protocol.codec import JSON, MSGPACK, Codec, to_wire
from protocol.errors import CATALOGUE, PatchError, ProtocolError
from protocol.patch import apply
from tests.vectors.compare import load_file

PATCHES = load_file("patches/apply.json")["cases"]
ENCODE = load_file("codec/encode.json")["cases"]
DECODE = load_file("codec/decode.json")["cases"]


@pytest.mark.parametrize("case", PATCHES, ids=lambda c: c["name"])
def test_patch(case: dict[str, Any]) -> None:
    """The ops turn the view into the expected one, or the patch is refused; inputs unchanged."""
    view, ops = copy.deepcopy(case["view"]), copy.deepcopy(case["ops"])
    if "error" in case["expect"]:
        with pytest.raises(PatchError) as caught:
            apply(view, ops)
        assert caught.value.code == case["expect"]["error"]
    else:
        assert apply(view, ops) == case["expect"]["view"]
    assert (view, ops) == (case["view"], case["ops"])


@pytest.mark.parametrize("case", ENCODE, ids=lambda c: c["name"])
def test_encode(case: dict[str, Any]) -> None:
    """A client message encodes to exactly the vector's JSON text and msgpack bytes."""
    msg = JSON.decode_client(json.dumps(case["message"]))
    assert to_wire(msg) == case["message"]
    assert JSON.encode(msg) == case["json"]
    assert MSGPACK.encode(msg).hex() == case["msgpack"]


@pytest.mark.parametrize("case", DECODE, ids=lambda c: c["name"])
def test_decode(case: dict[str, Any]) -> None:
    """A server frame decodes to the vector's message, or is refused with its code and field."""
    codec: Codec = JSON if case["frame"]["codec"] == "json" else MSGPACK
    frame = (
        case["frame"]["text"] if "text" in case["frame"] else bytes.fromhex(case["frame"]["hex"])
    )
    expect = case["expect"]
    if "error" in expect:
        with pytest.raises(ProtocolError) as caught:
            codec.decode_server(frame)
        assert caught.value.code == expect["error"]["code"], caught.value
        if "field" in expect["error"]:
            assert caught.value.field == expect["error"]["field"], caught.value
    else:
        assert json.loads(JSON.encode(codec.decode_server(frame))) == expect["message"]


def test_the_catalogue_vector_is_the_catalogue() -> None:
    """errors/catalogue.json is protocol/errors.py's CATALOGUE (other SDKs check theirs against it)."""
    codes = load_file("errors/catalogue.json")["codes"]
    assert codes == [
        {
            "code": c.code,
            "fatal": c.fatal,
            "via": c.via,
            "http": c.http,
            "description": c.description,
        }
        for c in CATALOGUE
    ]
