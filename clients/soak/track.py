"""What the soak measures of each game, as plain data (no I/O, no clock).

A :class:`Track` holds, for one room, when it was made and when its game ended, and
every moment its log was seen to grow (an ack to one of its players, or a read of
its log by the soak's poller): ``(monotonic time, seq)``. From the tracks:

- :func:`longest_stall`: the longest time the room went without its log growing
  while it was being played (it could not take a command: a dead or paused owner,
  a master failing over);
- :func:`recovered_after`: how long after a fault the room's log grew past what it
  held when the fault began (the failover time of that room);
- :func:`moved_since`: whether it grew after a moment (the faults' end).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import attrs


@attrs.define
class Track:
    room: str
    kind: str
    """``websocket`` (SDK players) or ``hosted`` (hosted bots)."""
    started: float
    ended: float | None = None
    """When the game ended (or was given up); None while it is played."""
    over: bool = False
    """The game ended (its log holds the end)."""
    grew: list[tuple[float, int]] = attrs.field(factory=list)
    """(time, seq): each moment the log was seen longer than before."""

    def see(self, at: float, seq: int) -> None:
        """Note that the log held ``seq`` records at ``at`` (kept only if it grew)."""
        if not self.grew or seq > self.grew[-1][1]:
            self.grew.append((at, seq))

    @property
    def seq(self) -> int:
        return self.grew[-1][1] if self.grew else 0


def merged(track: Track, acks: Iterable[tuple[float, int]]) -> list[tuple[float, int]]:
    """The track's growth with the players' acks (time, seq) folded in, in time order,
    each entry a new high seq."""
    out: list[tuple[float, int]] = []
    for at, seq in sorted([*track.grew, *acks]):
        if not out or seq > out[-1][1]:
            out.append((at, seq))
    return out


def longest_stall(track: Track, growth: list[tuple[float, int]], until: float) -> float:
    """The longest time between the room's start, each growth and its end (or ``until``
    while it is still played) with no growth in between."""
    end = track.ended if track.ended is not None else until
    moments = [track.started, *(at for at, _ in growth if track.started <= at <= end), end]
    return max((b - a for a, b in itertools.pairwise(moments)), default=0.0)


def recovered_after(growth: list[tuple[float, int]], began: float, tail: int) -> float | None:
    """Seconds from ``began`` to the first growth past ``tail`` (None: never)."""
    return next((at - began for at, seq in growth if at >= began and seq > tail), None)


def moved_since(growth: list[tuple[float, int]], since: float, seq: int) -> bool:
    """Whether the log grew past ``seq`` after ``since``."""
    return any(at > since and s > seq for at, s in growth)


def seq_at(growth: list[tuple[float, int]], at: float) -> int:
    """The highest seq seen by ``at``."""
    return max((s for t, s in growth if t <= at), default=0)
