"""Load the shared vectors and compare a step against a vector's ``expect``.

The mirror vectors (``mirror/*.json``) are run by ``tests/clients/test_mirror_vectors.py``
(the SDK's ``Mirror``), the JS SDK's ``clients/js/test/vectors.test.js`` (in Node) and
``tests/browser/test_protocol_vectors.py`` (the same JS ``Mirror`` in chromium, as the web
client imports it); the session vectors
(``sessions/*.json``) by ``tests/clients/test_session_vectors.py`` and the JS SDK. Each
runner turns a step into the same plain ``observed`` map and hands it to
:func:`mismatches`. See ``tests/vectors/README.md`` for every folder's schema.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
MIRROR = ROOT / "mirror"
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


SESSION_STATE_KEYS = (*STATE_KEYS, "pending", "failure")
"""A session step's state keys: the mirror's, the ids still unanswered, the final error's code."""
SESSION_OUTPUTS: dict[str, Any] = {
    "sent": [],
    "welcomed": False,
    "changed": None,
    "answers": {},
    "error": None,
    "outcome": None,
}
"""A session step's outputs: the mirror's, less ``resync_requested`` (a resync is in ``sent``)."""


def load(folder: str = "mirror") -> list[dict[str, Any]]:
    """Every vector of a folder (``mirror``, ``sessions``), sorted by file name."""
    return [json.loads(path.read_text()) for path in sorted((ROOT / folder).glob("*.json"))]


def load_file(name: str) -> dict[str, Any]:
    """One vector file, by its path under tests/vectors (``patches/apply.json``)."""
    return json.loads((ROOT / name).read_text())  # type: ignore[no-any-return]


def mismatches(
    expect: dict[str, Any],
    observed: dict[str, Any],
    state: tuple[str, ...] = STATE_KEYS,
    outputs: dict[str, Any] = OUTPUTS,
) -> list[str]:
    """``key: expected X, got Y`` for each disagreement (an empty list: the step passes)."""
    unknown = set(expect) - set(state) - set(outputs)
    assert not unknown, f"unknown expect keys {sorted(unknown)}"
    wanted = {**outputs, **expect}
    return [
        f"{key}: expected {json.dumps(value)}, got {json.dumps(observed.get(key))}"
        for key, value in wanted.items()
        if observed.get(key) != value or type(observed.get(key)) is not type(value)
    ]
