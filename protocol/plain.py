"""Validation of decoded plain data: what both codecs may hand to the message layer.

Plain data is None, bool, int in the signed 64-bit range, finite float, str (valid
Unicode: no lone surrogates), lists, and maps with str keys, nested at most
``MAX_DEPTH`` containers deep. :func:`check_plain` walks a decoded frame once and
raises :class:`~protocol.errors.ProtocolError` naming the first offending path.
"""

from __future__ import annotations

import math
from typing import Any

from protocol.errors import BAD_FIELD, MALFORMED, ProtocolError

MAX_DEPTH = 32
INT_MIN = -(2**63)
INT_MAX = 2**63 - 1


def check_plain(value: Any, path: str = "", depth: int = 0) -> None:
    """Raise ProtocolError unless ``value`` is plain data within the protocol's limits.

    Valid data (nearly every frame) is walked once without building paths; only data
    that fails is walked again to name the first offending path."""
    if not _plain(value, depth):
        _explain(value, path, depth)


def _plain(value: Any, depth: int) -> bool:
    """Whether ``value`` is plain data (the same rules as :func:`_explain`, no paths)."""
    kind = type(value)
    if kind is str:
        return bool(value.isascii()) or _utf8(value)
    if kind is int:
        return bool(INT_MIN <= value <= INT_MAX)
    if kind is dict:
        if depth >= MAX_DEPTH:
            return False
        deeper = depth + 1
        for key, item in value.items():
            if type(key) is not str or not (key.isascii() or _utf8(key)):
                return False
            if not _plain(item, deeper):
                return False
        return True
    if kind is list:
        if depth >= MAX_DEPTH:
            return False
        deeper = depth + 1
        for item in value:  # noqa: SIM110 (a loop: all() over a generator is slower)
            if not _plain(item, deeper):
                return False
        return True
    if value is None or kind is bool:
        return True
    if kind is float:
        return math.isfinite(value)
    return False


def _utf8(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _explain(value: Any, path: str, depth: int) -> None:
    """Raise the ProtocolError naming the first offending path of ``value``."""
    if value is None or value is True or value is False:
        return
    kind = type(value)
    if kind is str:
        _check_str(value, path)
    elif kind is int:
        if not INT_MIN <= value <= INT_MAX:
            raise _err(BAD_FIELD, path, "integer out of 64-bit range")
    elif kind is float:
        if not math.isfinite(value):
            raise _err(BAD_FIELD, path, "NaN and Infinity are not allowed")
    elif kind is dict:
        _check_depth(depth, path)
        for key, item in value.items():
            if type(key) is not str:
                raise _err(BAD_FIELD, path, "map keys must be str")
            _check_str(key, path)
            _explain(item, f"{path}.{key}" if path else key, depth + 1)
    elif kind is list:
        _check_depth(depth, path)
        for i, item in enumerate(value):
            _explain(item, f"{path}[{i}]", depth + 1)
    else:
        raise _err(BAD_FIELD, path, f"{kind.__name__} is not plain data")


def _check_str(value: str, path: str) -> None:
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise _err(BAD_FIELD, path, "invalid Unicode") from None


def _check_depth(depth: int, path: str) -> None:
    if depth >= MAX_DEPTH:
        raise _err(MALFORMED, path, f"nested deeper than {MAX_DEPTH}")


def _err(code: str, path: str, message: str) -> ProtocolError:
    return ProtocolError(code, f"{path}: {message}" if path else message, path or None)
