"""What the load generator measures: command-to-ack and command-to-last-patch times.

One :class:`Recorder` per room (a room's sequence numbers are its own). Players
note when they send a command and when its ack arrives; every viewer (the six
players and the spectator) notes when each patch arrives, keyed by the patch's
``to``. A command's last-patch latency is the time from its send until the last of
the room's viewers holds the patch that carries the command's ack seq: the first
whose ``to`` is at or past it (commands that arrive together share one patch).
"""

from __future__ import annotations

import bisect
import time
from collections import Counter
from typing import Any

import attrs


@attrs.define
class Window:
    """The measurement window [start, end) on ``time.perf_counter``'s clock."""

    start: float = 0.0
    end: float = float("inf")

    def holds(self, moment: float) -> bool:
        return self.start <= moment < self.end


@attrs.define
class Totals:
    """Everything one load-generator process measured (sent back as plain data)."""

    acked: int = 0
    ack_ms: list[float] = attrs.field(factory=list)
    patch_ms: list[float] = attrs.field(factory=list)
    patch_missing: int = 0
    rejected: Counter[str] = attrs.field(factory=Counter)
    games: int = 0
    errors: Counter[str] = attrs.field(factory=Counter)
    late: int = 0
    """Paced sends that found their slot already past (see clients.bench.game.Pacer)."""

    def as_data(self, seconds: float, connections: int) -> dict[str, Any]:
        return {
            "acked": self.acked,
            "seconds": round(seconds, 4),
            "ack_ms": [round(x, 3) for x in self.ack_ms],
            "patch_ms": [round(x, 3) for x in self.patch_ms],
            "patch_missing": self.patch_missing,
            "rejected": dict(self.rejected),
            "games": self.games,
            "errors": dict(self.errors),
            "late": self.late,
            "connections": connections,
        }


class Recorder:
    """The timestamps of one room."""

    def __init__(self, viewers: int, window: Window) -> None:
        self.viewers = viewers
        self.window = window
        self.sent: dict[str, float] = {}
        self.acks: list[tuple[float, float, int]] = []  # (sent, acked, seq)
        self.arrivals: dict[int, list[float]] = {}

    def on_send(self, cmd_id: str) -> None:
        self.sent[cmd_id] = time.perf_counter()

    def on_ack(self, cmd_id: str, seq: int) -> None:
        now = time.perf_counter()
        sent = self.sent.pop(cmd_id, None)
        if sent is not None and self.window.holds(now):
            self.acks.append((sent, now, seq))

    def on_reject(self, cmd_id: str, code: str, totals: Totals) -> None:
        self.sent.pop(cmd_id, None)
        if self.window.holds(time.perf_counter()):
            totals.rejected[code] += 1

    def on_patch(self, to: int) -> None:
        self.arrivals.setdefault(to, []).append(time.perf_counter())

    def settle(self, totals: Totals) -> None:
        """Add this room's acked commands and their latencies to ``totals``."""
        ends = sorted(self.arrivals)
        for sent, acked, seq in self.acks:
            totals.acked += 1
            totals.ack_ms.append((acked - sent) * 1000)
            at = bisect.bisect_left(ends, seq)
            carrier = ends[at] if at < len(ends) else seq
            arrivals = [t for t in self.arrivals.get(carrier, ()) if t >= sent]
            if len(arrivals) >= self.viewers:
                totals.patch_ms.append((max(arrivals) - sent) * 1000)
            elif carrier in self.arrivals and not arrivals:
                continue  # the command changed nothing: its ack repeats an earlier seq
            else:
                totals.patch_missing += 1  # a resync snapshot, or the window closed first
        self.acks.clear()
