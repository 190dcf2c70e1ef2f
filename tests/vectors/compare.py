"""Load the mirror vectors (``mirror/*.json``) and compare a mirror's step against a vector's ``expect``.

Both runners (``tests/clients/test_mirror_vectors.py`` for the SDK's ``Mirror``,
``tests/browser/test_protocol_vectors.py`` for ``ViewMirror`` in protocol.js) turn
each step into the same plain ``observed`` map and hand it to :func:`mismatches`.
See ``tests/vectors/mirror/README.md`` for the schema.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MIRROR = Path(__file__).resolve().parent / "mirror"
STATE_KEYS = ("seq", "view", "seat", "seat_token", "game", "role", "presence", "resyncing",
              "resume_seq")  # fmt: skip
"""Checked only when the step's ``expect`` names them."""
OUTPUTS: dict[str, Any] = {
    "welcomed": False,
    "changed": None,
    "resync_requested": False,
    "answers": {},
    "error": None,
}
"""Always checked; a key the ``expect`` omits must have this value."""


def load() -> list[dict[str, Any]]:
    """Every vector, sorted by file name."""
    return [json.loads(path.read_text()) for path in sorted(MIRROR.glob("*.json"))]


def mismatches(expect: dict[str, Any], observed: dict[str, Any]) -> list[str]:
    """``key: expected X, got Y`` for each disagreement (an empty list: the step passes)."""
    unknown = set(expect) - set(STATE_KEYS) - set(OUTPUTS)
    assert not unknown, f"unknown expect keys {sorted(unknown)}"
    wanted = {**OUTPUTS, **expect}
    return [
        f"{key}: expected {json.dumps(value)}, got {json.dumps(observed.get(key))}"
        for key, value in wanted.items()
        if observed.get(key) != value or type(observed.get(key)) is not type(value)
    ]
