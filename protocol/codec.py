"""The wire codecs: msgpack on binary frames and JSON on text frames, in two versions.

The websocket subprotocol picks the codec (:func:`codec_for`): ``rollhouse.v2.msgpack``,
``rollhouse.v2.json``, ``rollhouse.v1.msgpack`` or ``rollhouse.v1.json``. Every codec
carries the same messages; version 2 adds the ``act`` message and the fields of
:data:`protocol.messages.V2_FIELDS`, which a version 1 codec refuses to decode
(``protocol/unknown_type``, ``protocol/unknown_field``) and no codec encodes while they
are None, so what a version 1 client reads is byte for byte what it read before. Decoding is strict and total: any ``bytes`` or ``str`` either becomes a
message or raises :class:`ProtocolError`, never anything else. In order:

1. size: a frame over ``MAX_FRAME`` bytes is ``protocol/too_large`` (before parsing);
2. frame kind and syntax: ``protocol/malformed`` (text on msgpack, binary on JSON,
   invalid msgpack/JSON, NaN/Infinity in JSON, a top level that is not a map);
3. plain data (:mod:`protocol.plain`): depth <= 32 (else ``protocol/malformed``),
   64-bit ints, finite floats, str keys, valid Unicode (else ``protocol/bad_field``);
4. the message: ``type`` known (``protocol/unknown_type``), every field known,
   present and of the right type (``unknown_field``/``missing_field``/``bad_field``),
   checked by ``engine.data.from_data`` and the message validators.

Encoding trusts its input (the server builds the messages) and is one dict build
plus one ``pack``/``dumps``: encode a patch once and send the same bytes to every
socket that shares the view. Patches that share ops (every seat's patch of one change
holds the same game and room ops) can be encoded op by op through a cache
(:meth:`Codec.encode_patch`): each shared op is encoded once and the frames are
joined from the pieces, byte for byte what :meth:`Codec.encode` gives.
"""

from __future__ import annotations

import json
import typing
from typing import Any, TypeVar

import attrs
import msgpack

from engine.data import from_data, to_data
from engine.errors import InvalidCommand
from protocol.errors import (
    BAD_FIELD,
    MALFORMED,
    MISSING_FIELD,
    TOO_LARGE,
    UNKNOWN_FIELD,
    UNKNOWN_TYPE,
    ProtocolError,
)
from protocol.messages import (
    ATTR_NAMES,
    CLIENT_MESSAGES,
    CLIENT_MESSAGES_V1,
    FLOAT_FIELDS,
    SERVER_MESSAGES,
    V2_FIELDS,
    WIRE_NAMES,
    ClientMessage,
    Message,
    Patch,
    ServerMessage,
    check_ops,
)
from protocol.plain import check_plain

__all__ = [
    "JSON",
    "JSON_SUBPROTOCOL",
    "JSON_V2",
    "MAX_FRAME",
    "MSGPACK",
    "MSGPACK_SUBPROTOCOL",
    "MSGPACK_V2",
    "SUBPROTOCOLS",
    "Codec",
    "ProtocolError",
    "choose_subprotocol",
    "codec_for",
    "to_wire",
]

MAX_FRAME = 65536
"""The largest frame a client may send (64 KiB)."""
MAX_SERVER_FRAME = 1 << 20
"""The largest frame a server sends (snapshots of big games), and clients accept (1 MiB)."""
MSGPACK_SUBPROTOCOL = "rollhouse.v1.msgpack"
JSON_SUBPROTOCOL = "rollhouse.v1.json"
MSGPACK_V2_SUBPROTOCOL = "rollhouse.v2.msgpack"
JSON_V2_SUBPROTOCOL = "rollhouse.v2.json"
SUBPROTOCOLS: tuple[str, ...] = (
    MSGPACK_V2_SUBPROTOCOL, JSON_V2_SUBPROTOCOL, MSGPACK_SUBPROTOCOL, JSON_SUBPROTOCOL
)  # fmt: skip
"""The server's order of preference: the newest version, msgpack before JSON."""

M = TypeVar("M")
_CODES = {
    "command/bad_field": BAD_FIELD,
    "command/unknown_field": UNKNOWN_FIELD,
    "command/missing_field": MISSING_FIELD,
}


class Codec:
    """One wire encoding. Subclasses provide ``encode_data`` and ``_parse``."""

    name: str = ""
    binary: bool = False
    version: int = 1

    def __init__(self, version: int = 1) -> None:
        self.version = version
        kind = "msgpack" if self.binary else "json"
        self.name = f"rollhouse.v{version}.{kind}"
        self._client = CLIENT_MESSAGES if version >= 2 else CLIENT_MESSAGES_V1

    def encode(self, msg: Message) -> bytes | str:
        """The frame for one message (bytes for msgpack, str for JSON)."""
        return self.encode_data(to_wire(msg))

    def encode_data(self, plain: dict[str, Any]) -> bytes | str:
        """The frame for a pre-built plain-data map."""
        raise NotImplementedError

    def encode_patch(self, patch: Patch, pieces: OpPieces) -> bytes | str:
        """``encode(patch)``, with each op's encoding taken from ``pieces`` (by identity)
        or added to it. ``pieces`` is the caller's, for patches built together: it keeps
        every op it holds alive, so an id stays that op's while it lasts."""
        parts = []
        for op in patch.ops:
            hit = pieces.get(id(op))
            if hit is None or hit[0] is not op:
                hit = pieces[id(op)] = (op, self._piece(op))
            parts.append(hit[1])
        return self._join_patch(patch, parts)

    def _piece(self, value: Any) -> Any:
        raise NotImplementedError

    def _join_patch(self, patch: Patch, ops: list[Any]) -> bytes | str:
        raise NotImplementedError

    def decode_client(self, frame: bytes | str) -> ClientMessage:
        """A client -> server message from one frame, or ProtocolError."""
        data = self._parse(frame, MAX_FRAME)
        tag = data.get("type")
        if self.version < 2 and type(tag) is str and tag in CLIENT_MESSAGES_V1:
            for name in V2_FIELDS.get(CLIENT_MESSAGES_V1[tag], ()):
                if name in data:
                    raise ProtocolError(UNKNOWN_FIELD, f"{tag}: unknown field {name!r}", name)
        return _load(self._client, data)

    def decode_server(self, frame: bytes | str) -> ServerMessage:
        """A server -> client message from one frame, or ProtocolError."""
        return _load(SERVER_MESSAGES, self._parse(frame, MAX_SERVER_FRAME))

    def decode_data(self, frame: bytes | str, limit: int = MAX_SERVER_FRAME) -> dict[str, Any]:
        """The checked plain-data map in one frame (steps 1-3), or ProtocolError.

        ``limit`` defaults to the server frame cap: clients use this for what servers send.
        """
        return self._parse(frame, limit)

    def _parse(self, frame: bytes | str, limit: int) -> dict[str, Any]:
        data = self._parse_frame(frame, limit)
        if type(data) is not dict:
            raise ProtocolError(MALFORMED, "a frame must hold a map at the top level")
        check_plain(data)
        return data

    def _parse_frame(self, frame: bytes | str, limit: int) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<Codec {self.name}>"


class MsgpackCodec(Codec):
    """msgpack on binary frames (``rollhouse.v1.msgpack``, ``rollhouse.v2.msgpack``), for
    programs."""

    binary = True

    def encode(self, msg: Message) -> bytes:
        """The binary frame for one message."""
        return self.encode_data(to_wire(msg))

    def encode_patch(self, patch: Patch, pieces: OpPieces) -> bytes:
        """See :meth:`Codec.encode_patch`."""
        return typing.cast(bytes, super().encode_patch(patch, pieces))

    def encode_with(self, msg: Message, field: str, encoded: bytes) -> bytes:
        """``encode(msg)``, with the value of ``field`` (its wire name) taken as already
        encoded: ``encoded`` is spliced in, byte for byte what encoding it gives (a view
        encoded once and sent in many welcomes)."""
        wire = to_wire(msg)
        pack = self._packer().pack
        parts = [bytes((0x80 | len(wire),))]  # a fixmap: messages have fewer than 16 fields
        for key, value in wire.items():
            parts.append(pack(key))
            parts.append(encoded if key == field else pack(value))
        return b"".join(parts)

    def encode_data(self, plain: dict[str, Any]) -> bytes:
        """The msgpack bytes for a plain-data map."""
        return self._packer().pack(plain)  # type: ignore[no-any-return]

    @staticmethod
    def _packer() -> msgpack.Packer:
        """The shared packer (``packb`` makes, and allocates a buffer for, one per call).

        One for all threads is safe: packing plain data calls no Python code (no
        ``default`` hook), so a ``pack`` runs whole under the interpreter lock."""
        return _PACKER

    def _piece(self, value: Any) -> bytes:
        return self._packer().pack(value)  # type: ignore[no-any-return]

    def _join_patch(self, patch: Patch, ops: list[Any]) -> bytes:
        pack = self._packer().pack
        n = len(ops)
        head = bytes((0x90 | n,)) if n < 16 else (b"\xdc" + n.to_bytes(2, "big") if n < 65536
                                                  else b"\xdd" + n.to_bytes(4, "big"))  # fmt: skip
        return b"".join((_PATCH_MSGPACK, pack(patch.from_), _TO_MSGPACK, pack(patch.to),
                         _OPS_MSGPACK, head, *ops, _EVENTS_MSGPACK, pack(list(patch.events))))  # fmt: skip

    def _parse_frame(self, frame: bytes | str, limit: int) -> Any:
        if not isinstance(frame, bytes | bytearray):
            raise ProtocolError(MALFORMED, "text frame on the msgpack subprotocol")
        if len(frame) > limit:
            raise ProtocolError(TOO_LARGE, f"frame of {len(frame)} bytes > {limit}")
        try:
            return msgpack.unpackb(
                frame,
                raw=False,
                strict_map_key=True,
                use_list=True,
                max_str_len=limit,
                max_bin_len=limit,
                max_array_len=limit,
                max_map_len=limit // 2,
                max_ext_len=limit,
            )
        except Exception as exc:  # msgpack raises many kinds; all mean "not valid msgpack"
            raise ProtocolError(MALFORMED, f"invalid msgpack: {type(exc).__name__}") from None


_PACKER = msgpack.Packer(use_bin_type=True)
OpPieces = dict[int, tuple[Any, Any]]
"""Encoded ops by ``id``: ``id(op) -> (op, its encoding)`` (see :meth:`Codec.encode_patch`)."""
# A patch's map as to_wire builds it: five keys (type, from, to, ops, events), in order.
_PATCH_MSGPACK = b"\x85" + msgpack.packb("type") + msgpack.packb("patch") + msgpack.packb("from")
_TO_MSGPACK = msgpack.packb("to")
_OPS_MSGPACK = msgpack.packb("ops")
_EVENTS_MSGPACK = msgpack.packb("events")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


class JsonCodec(Codec):
    """JSON on text frames (``rollhouse.v1.json``, ``rollhouse.v2.json``), for browsers."""

    binary = False
    _encoder = json.JSONEncoder(
        ensure_ascii=False, allow_nan=False, check_circular=False, separators=(",", ":")
    )
    _decoder = json.JSONDecoder(parse_constant=_no_constant)

    def encode_data(self, plain: dict[str, Any]) -> str:
        """The JSON text for a plain-data map."""
        return self._encoder.encode(plain)

    def _piece(self, value: Any) -> str:
        return self._encoder.encode(value)

    def _join_patch(self, patch: Patch, ops: list[Any]) -> str:
        encode = self._encoder.encode
        return (f'{{"type":"patch","from":{patch.from_},"to":{patch.to},"ops":[{",".join(ops)}],'
                f'"events":{encode(list(patch.events))}}}')  # fmt: skip

    def _parse_frame(self, frame: bytes | str, limit: int) -> Any:
        if not isinstance(frame, str):
            raise ProtocolError(MALFORMED, "binary frame on the JSON subprotocol")
        if _utf8_len_over(frame, limit):
            raise ProtocolError(TOO_LARGE, f"frame larger than {limit} bytes")
        try:
            return self._decoder.decode(frame)
        except Exception as exc:  # ValueError, RecursionError (deep nesting), ...
            raise ProtocolError(MALFORMED, f"invalid JSON: {type(exc).__name__}") from None


def _utf8_len_over(text: str, limit: int) -> bool:
    if len(text) > limit:
        return True
    if len(text) * 4 <= limit or text.isascii():
        return False
    return len(text.encode("utf-8", "surrogatepass")) > limit


MSGPACK = MsgpackCodec()
JSON = JsonCodec()
MSGPACK_V2 = MsgpackCodec(2)
JSON_V2 = JsonCodec(2)
_BY_NAME: dict[str, Codec] = {c.name: c for c in (MSGPACK, JSON, MSGPACK_V2, JSON_V2)}


def codec_for(subprotocol: str | None) -> Codec:
    """The codec of a negotiated subprotocol; ``None`` (none offered) means JSON."""
    if subprotocol is None:
        return JSON
    codec = _BY_NAME.get(subprotocol)
    if codec is None:
        raise ProtocolError(MALFORMED, f"unknown subprotocol {subprotocol!r}")
    return codec


def choose_subprotocol(offered: list[str] | tuple[str, ...]) -> str | None:
    """The server's pick among the client's offered subprotocols (msgpack first), or None."""
    for name in SUBPROTOCOLS:
        if name in offered:
            return name
    return None


# -- messages <-> plain data --------------------------------------------------------------------


def to_wire(msg: Message) -> dict[str, Any]:
    """The plain-data map of a message, ``type`` first, fields under their wire names
    (a tuple of attrs values, such as presence's seats, as a list of their plain data)."""
    wire = _WIRES.get(type(msg))
    if wire is None:
        wire = _WIRES[type(msg)] = _compile_wire(type(msg))
    return wire(msg)


_WIRES: dict[type, typing.Callable[[Any], dict[str, Any]]] = {}


def _compile_wire(cls: type) -> typing.Callable[[Any], dict[str, Any]]:
    """:func:`to_wire` for one message class: a generated function, no loop per call.
    A field of :data:`V2_FIELDS` is left out while it is None."""
    lines, items, optional = ["def wire(msg):"], ["'type': tag"], []
    for i, name in enumerate(_field_names(cls)):
        lines.append(f"    v{i} = msg.{name}")
        lines.append(f"    if type(v{i}) is tuple and v{i} and has(type(v{i}[0])):")
        lines.append(f"        v{i} = [to_data(v) for v in v{i}]")
        if name in V2_FIELDS.get(cls, ()):
            optional.append((name, i))
        else:
            items.append(f"{WIRE_NAMES.get(name, name)!r}: v{i}")
    lines.append("    out = {" + ", ".join(items) + "}")
    for name, i in optional:
        lines.append(f"    if v{i} is not None:")
        lines.append(f"        out[{name!r}] = v{i}")
    lines.append("    return out")
    scope: dict[str, Any] = {"tag": cls.TYPE, "has": attrs.has, "to_data": to_data}  # type: ignore[attr-defined]
    exec("\n".join(lines), scope)  # generated from the message's own field names
    return typing.cast(typing.Callable[[Any], dict[str, Any]], scope["wire"])


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in attrs.fields(cls))
    return names


def _load(table: dict[str, type[M]], data: dict[str, Any]) -> M:
    if "type" not in data:
        raise ProtocolError(MISSING_FIELD, "missing field 'type'", "type")
    tag = data["type"]
    if type(tag) is not str:
        raise ProtocolError(BAD_FIELD, "type: expected str", "type")
    cls = table.get(tag)
    if cls is None:
        raise ProtocolError(UNKNOWN_TYPE, f"unknown message type {tag!r}; known: {sorted(table)}")
    if cls is Patch:  # the message a client reads most: checked field by field, no deep copy
        return _load_patch(data)  # type: ignore[return-value]
    fields = _rename(cls, tag, data)
    if cls in FLOAT_FIELDS:
        fields = dict(fields)
    floats = {name: _float(fields, name) for name in FLOAT_FIELDS.get(cls, ())}
    try:
        msg = from_data(cls, fields, where=tag)
    except InvalidCommand as exc:
        raise _wrap(exc, tag) from None
    if isinstance(msg, Patch):
        check_ops(msg.ops)
    return attrs.evolve(msg, **floats) if floats else msg  # type: ignore[misc]


_PATCH_FIELDS = frozenset({"type", "from", "to", "ops", "events"})


def _load_patch(data: dict[str, Any]) -> Patch:
    """A ``patch`` from checked plain data (the same refusals as the generic path)."""
    for key in data:
        if key not in _PATCH_FIELDS:
            raise ProtocolError(UNKNOWN_FIELD, f"patch: unknown field {key!r}", key)
    values: list[int] = []
    for key in ("from", "to"):
        if key not in data:
            raise ProtocolError(MISSING_FIELD, f"patch: missing field {key!r}", key)
        value = data[key]
        if type(value) is not int:
            raise ProtocolError(BAD_FIELD, f"patch.{key}: expected int", key)
        if value < 0:
            raise ProtocolError(BAD_FIELD, f"{key}: must be >= 0, got {value}", key)
        values.append(value)
    if "ops" not in data:
        raise ProtocolError(MISSING_FIELD, "patch: missing field 'ops'", "ops")
    ops, events = data["ops"], data.get("events", [])
    if type(ops) is not list or not all(type(op) is dict for op in ops):
        raise ProtocolError(BAD_FIELD, "patch.ops: expected a list of maps", "ops")
    if type(events) is not list or not all(type(e) is str for e in events):
        raise ProtocolError(BAD_FIELD, "patch.events: expected a list of str", "events")
    patch = Patch(values[0], values[1], tuple(ops), tuple(events))
    check_ops(patch.ops)
    return patch


def _rename(cls: type, tag: str, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with wire keys turned into attribute names (``from`` -> ``from_``)."""
    renamed = [attr for attr in WIRE_NAMES if attr in _field_names(cls)]
    if not renamed:
        return data
    for attr in renamed:
        if attr in data:
            raise ProtocolError(UNKNOWN_FIELD, f"{tag}: unknown field {attr!r}", attr)
    return {ATTR_NAMES.get(k, k): v for k, v in data.items()}


def _float(fields: dict[str, Any], name: str) -> float:
    if name not in fields:
        raise ProtocolError(MISSING_FIELD, f"missing field {name!r}", name)
    value = fields.pop(name)
    if type(value) not in (int, float):
        raise ProtocolError(BAD_FIELD, f"{name}: expected a number", name)
    return float(value)


def _wrap(exc: InvalidCommand, tag: str) -> ProtocolError:
    cause = exc.__cause__
    if isinstance(cause, ProtocolError):
        return cause
    field = exc.details.get("field")
    if isinstance(field, str):
        field = field.removeprefix(f"{tag}.")
        head, dot, rest = field.partition(".")
        field = WIRE_NAMES.get(head, head) + dot + rest
    message = exc.message
    for attr, wire in WIRE_NAMES.items():
        message = message.replace(f"{tag}.{attr}:", f"{tag}.{wire}:")
    return ProtocolError(_CODES.get(exc.code, BAD_FIELD), message, field)
