"""Secrets the SDK keeps between runs, in files only their owner may read.

    saved = SavedSessions()                      # ~/.rollhouse/sessions.json
    saved.save("http://127.0.0.1:8000", token, player)
    saved.load("ws://127.0.0.1:8000/ws")         # the same server: {"session", "player"}
    saved.forget("http://127.0.0.1:8000")

One entry per server (``http://h:p`` and ``ws://h:p/ws`` are the same one). A player's
session is a password's equal (docs/protocol.md 12.1): :func:`write_private` creates the
file with mode 0600 from the start (never readable by others, not even for a moment),
in a folder of mode 0700, and replaces it atomically. A damaged file reads as empty.
The terminal client's seat tokens (:mod:`clients.terminal.tokens`) are written the same way.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any


def default_path() -> Path:
    """``~/.rollhouse/sessions.json``."""
    return Path.home() / ".rollhouse" / "sessions.json"


def server_key(url: str) -> str:
    """The server of a URL, as a key: ``ws://host:port/ws`` (an HTTP base or a websocket URL)."""
    base = url.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    if base.endswith(".html"):  # an invite link: http://h:p/table.html?room=...
        base = base.rpartition("/")[0]
    base = base.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
    return base if base.endswith("/ws") else base + "/ws"


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by its owner only (0600, folder 0700), atomically."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.chmod(tmp, 0o600)  # whatever the umask did
        tmp.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from ``path`` (empty when missing or damaged)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class SavedSessions:
    """Player sessions by server, in one private JSON file."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def load(self, url: str) -> dict[str, Any] | None:
        """``{"session", "player"}`` of that server, or None."""
        entry = read_json(self.path).get(server_key(url))
        if not isinstance(entry, dict) or not isinstance(entry.get("session"), str):
            return None
        return entry

    def save(self, url: str, session: str, player: dict[str, Any] | None = None) -> None:
        """Keep ``session`` (and who it is) for that server; other servers' entries stay."""
        data = read_json(self.path)
        data[server_key(url)] = {"session": session, "player": player}
        write_private(self.path, json.dumps(data, indent=2, sort_keys=True))

    def forget(self, url: str) -> None:
        """Drop that server's session (signed out)."""
        data = read_json(self.path)
        if data.pop(server_key(url), None) is not None:
            write_private(self.path, json.dumps(data, indent=2, sort_keys=True))
