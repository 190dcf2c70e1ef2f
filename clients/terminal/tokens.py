"""Seat tokens kept between runs: ``~/.rollhouse/tokens.json``, keyed by URL and room.

``rollhouse play`` saves the token of the seat it joins and reuses it the next time
the same room at the same server is played, so a closed terminal resumes its seat.
The file is private to the user (created with mode 0600, in a folder of mode 0700, by
:func:`clients.sdk.saved.write_private`); a damaged file is treated as empty.
"""

from __future__ import annotations

import json
from pathlib import Path

from clients.sdk import ws_url
from clients.sdk.saved import write_private


def default_path() -> Path:
    """``~/.rollhouse/tokens.json``."""
    return Path.home() / ".rollhouse" / "tokens.json"


def key(url: str, room: str) -> str:
    """One entry per (server, room); ``http://h:p`` and ``ws://h:p/ws`` are the same server."""
    return f"{ws_url(url)}#{room}"


def load_all(path: Path) -> dict[str, str]:
    """Every stored token (empty when the file is missing or damaged)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, str)}


def load(url: str, room: str, path: Path | None = None) -> str | None:
    """The stored token of this room, if any."""
    return load_all(path or default_path()).get(key(url, room))


def save(url: str, room: str, token: str, path: Path | None = None) -> None:
    """Store ``token`` for this room (other entries are kept)."""
    _write(path or default_path(), {**load_all(path or default_path()), key(url, room): token})


def forget(url: str, room: str, path: Path | None = None) -> None:
    """Drop this room's token (it no longer opens a seat)."""
    tokens = load_all(path or default_path())
    if tokens.pop(key(url, room), None) is not None:
        _write(path or default_path(), tokens)


def _write(path: Path, tokens: dict[str, str]) -> None:
    write_private(path, json.dumps(tokens, indent=2, sort_keys=True))
