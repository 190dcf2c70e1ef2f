"""Request bodies of the HTTP API: a JSON object of plain data, or a typed refusal."""

from __future__ import annotations

import json
from typing import Any

from protocol import errors as codes
from protocol.errors import ProtocolError
from protocol.plain import check_plain


def json_object(raw: bytes) -> dict[str, Any]:
    """The body as a JSON object of plain data nested at most 32 deep, or ProtocolError
    (``http/bad_json``; invalid UTF-8 included). An empty body is ``{}``."""
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, RecursionError):
        raise ProtocolError(codes.BAD_JSON, "the body is not JSON") from None
    if not isinstance(body, dict):
        raise ProtocolError(codes.BAD_JSON, "the body must be a JSON object")
    check_plain(body)
    return body


def only(body: dict[str, Any], fields: set[str]) -> dict[str, Any]:
    """``body`` if it has no field but ``fields``, else ProtocolError naming the first other."""
    unknown = sorted(set(body) - fields)
    if unknown:
        raise ProtocolError(codes.BAD_JSON, f"unknown field {unknown[0]!r}", unknown[0])
    return body
