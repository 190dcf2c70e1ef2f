"""protocol.errors: the catalogue is complete and consistent; protocol/ does no I/O."""

from __future__ import annotations

import ast
from pathlib import Path

from protocol import errors

PROTOCOL_DIR = Path(__file__).resolve().parents[2] / "protocol"
FORBIDDEN = {"asyncio", "redis", "starlette", "websockets", "uvicorn", "sqlite3", "time", "random"}


def test_every_code_constant_is_catalogued_once() -> None:
    """Each protocol/, room/, command/, http/, chat/ and player/ code constant has one described
    entry."""
    constants = {
        value
        for name, value in vars(errors).items()
        if name.isupper() and isinstance(value, str) and "/" in value
    }
    codes = [entry.code for entry in errors.CATALOGUE]
    assert len(codes) == len(set(codes))
    assert set(codes) == constants
    assert all(entry.description for entry in errors.CATALOGUE)
    areas = {"protocol", "room", "command", "http", "chat", "player", "server", "operator"}
    assert all(code.split("/")[0] in areas for code in codes)


def test_http_status_comes_from_the_catalogue() -> None:
    """API errors take their status from the catalogue; uncatalogued codes are 400."""
    assert errors.http_status(errors.ROOM_NOT_FOUND) == 404
    assert errors.http_status(errors.UNKNOWN_GAME) == 404
    assert errors.http_status(errors.UNAVAILABLE) == 503
    assert errors.http_status(errors.BAD_JSON) == 400
    assert errors.http_status("rollie/bad_option") == 400
    assert all(e.http is not None for e in errors.CATALOGUE if e.via == "http")


def test_protocol_errors_are_coded_errors() -> None:
    """One error tree: a ProtocolError is a CodedError whose details name the field."""
    from engine.errors import CodedError

    exc = errors.ProtocolError(errors.BAD_FIELD, "last_seq: must be >= 0", "last_seq")
    assert isinstance(exc, CodedError) and isinstance(exc, ValueError)
    assert exc.to_data() == {
        "code": errors.BAD_FIELD,
        "message": "last_seq: must be >= 0",
        "field": "last_seq",
    }


def test_fatal_codes() -> None:
    """slow_consumer and replaced close the connection; a bad field or rate limit does not."""
    assert errors.is_fatal(errors.SLOW_CONSUMER)
    assert errors.is_fatal(errors.REPLACED)
    assert not errors.is_fatal(errors.BAD_FIELD)
    assert not errors.is_fatal(errors.RATE_LIMITED)
    assert not errors.is_fatal("rollie/pile_empty")
    assert "outbox" in errors.describe(errors.SLOW_CONSUMER)


def test_patch_error_is_a_protocol_error() -> None:
    """PatchError carries code protocol/bad_patch and is caught as ProtocolError/ValueError."""
    exc = errors.PatchError("nope", "path")
    assert isinstance(exc, errors.ProtocolError)
    assert isinstance(exc, ValueError)
    assert (exc.code, exc.message, exc.field) == (errors.BAD_PATCH, "nope", "path")


def test_protocol_imports_no_io() -> None:
    """No module of protocol/ imports asyncio, redis, starlette, websockets, time or random."""
    for path in PROTOCOL_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                roots = {(node.module or "").split(".")[0]}
            else:
                continue
            assert not roots & FORBIDDEN, f"{path.name} imports {roots & FORBIDDEN}"
