"""The bans in force, as one node holds them (pure: the caller passes the time).

Every node keeps the store's bans in memory (:class:`Bans`), refreshed every few
seconds and at once on the node where the operator acts (and, in a cluster, on every
node the console tells), so the websocket handshake can check an address without a
round trip: :meth:`Bans.barred`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any


class Bans:
    """``(kind, value) -> ban`` (``kind``: ``address`` or ``player``; each ban a plain map
    with ``until``, ``reason``...)."""

    def __init__(self) -> None:
        self.held: dict[tuple[str, str], dict[str, Any]] = {}

    def load(self, bans: Iterable[dict[str, Any]]) -> None:
        """Hold exactly these bans (the store's list)."""
        self.held = {(str(b["kind"]), str(b["value"])): dict(b) for b in bans}

    def add(self, ban: dict[str, Any]) -> None:
        self.held[(str(ban["kind"]), str(ban["value"]))] = dict(ban)

    def remove(self, kind: str, value: str) -> None:
        self.held.pop((kind, value), None)

    def barred(self, kind: str, value: str | None, now: float | None = None) -> str | None:
        """Why ``value`` is refused (a sentence with the reason and the end), or None."""
        if value is None or not self.held:
            return None
        ban = self.held.get((kind, value))
        now = time.time() if now is None else now
        if ban is None or float(ban["until"]) <= now:
            return None
        until = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(float(ban["until"])))
        reason = str(ban.get("reason") or "")
        return f"banned until {until}" + (f": {reason}" if reason else "")

    def active(self, now: float) -> list[dict[str, Any]]:
        return [dict(b) for b in self.held.values() if float(b["until"]) > now]
