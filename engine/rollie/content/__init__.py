"""Rollie's component values: the bills, the dice faces, the Start tokens and the bonus tokens.

Everything numeric the rulebook names lives in :data:`TABLE` (one frozen value), so a
publisher's exact values can replace ours in one place. The numbers the rulebook leaves
out are our decisions, written in content/rollie-decisions.md.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

Face = int | str
"""A die face: a bill value (``int``) or the string ``"R"``."""

R: str = "R"


@attrs.frozen
class Table:
    """The component values (see content/rollie-decisions.md)."""

    values: tuple[int, ...]
    """Bill values, one colour each, in display order."""
    faces: tuple[Face, ...]
    """The six faces of each die."""
    start_tokens: tuple[int, ...]
    """Start token numbers; a higher number wins a bonus tie."""
    bonuses: Mapping[int, tuple[int, ...]]
    """Bonus token amounts per colour, 1st place first."""
    bills_per_value: int = 30

    def index(self, value: int) -> int:
        """Position of ``value`` in ``values``."""
        return self.values.index(value)


TABLE = Table(
    values=(-5, 0, 2, 5, 10),
    faces=(-5, 0, 2, 5, 10, R),
    start_tokens=(1, 2, 3, 4, 5, 6, 7),
    bonuses={-5: (100, 60, 40), 0: (80, 50, 30), 2: (70, 40, 20), 5: (50, 30), 10: ()},
)
