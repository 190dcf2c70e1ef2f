"""Skip a test whose tool is missing, or fail it where CI requires the tool.

Each kind of tool has its variable (``ROLLHOUSE_REQUIRE_REDIS`` for redis-server and
haproxy, ``ROLLHOUSE_REQUIRE_PROMTOOL``, ``ROLLHOUSE_REQUIRE_CONTAINER``); ``.ci/run``
sets them all, so under CI nothing of the kind skips."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing(why: str, variable: str) -> NoReturn:
    """Skip with ``why``; fail instead when ``variable`` is set (not empty, not 0)."""
    if os.environ.get(variable, "") not in ("", "0"):
        pytest.fail(f"{why} and {variable} is set")
    pytest.skip(why)
