"""What the people tests share: a clock moved by hand, and the cheapest argon2id cost."""

from __future__ import annotations

CHEAP = (1, 8, 1)
"""argon2id at the least cost (passes, KiB, lanes): tests check behaviour, not strength."""


class Clock:
    """A clock for ``People.clock`` (unix seconds), moved by setting ``now``."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
