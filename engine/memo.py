"""Structural sharing for views: a part built from the same state parts is the same object.

A game's ``view(state, viewer)`` is the definition of what a viewer sees, and it is
rebuilt after every event. Most of a table does not change with one event, and the
state is made of frozen parts that evolve reuses when they do not change, so a view
part built from the *same objects* (by identity) as last time is equal to last time's.
A :class:`Memo` hands that earlier object back instead of building a new one; then
:func:`protocol.patch.diff` stops at ``is`` for every unchanged part, and a patch costs
what changed, not the size of the table.

Identity is a conservative key: a part rebuilt from equal but new objects is built
again (correct, only slower). Inputs must be immutable (tuples, frozensets, frozen
attrs, str, int, bool, None). :data:`FRESH` builds every time: views built without a
memo are the reference the tests compare against.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from operator import is_
from typing import Any, TypeVar

T = TypeVar("T")


class Memo:
    """One room's remembered view parts: slot -> (the inputs it was built from, the part)."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: dict[Hashable, tuple[tuple[Any, ...], Any]] = {}

    def part(self, slot: Hashable, build: Callable[..., T], *inputs: Any) -> T:
        """``build(*inputs)``, or the object it gave last time for ``slot`` if every input
        is the same object as then."""
        hit = self._last.get(slot)
        if hit is not None:
            before = hit[0]
            if len(before) == len(inputs) and all(map(is_, before, inputs)):
                return hit[1]  # type: ignore[no-any-return]
        value = build(*inputs)
        self._last[slot] = (inputs, value)
        return value

    def keyed(self, slot: Hashable, inputs: tuple[Any, ...], build: Callable[[], T]) -> T:
        """``build()``, or the object it gave last time for ``slot`` if every one of
        ``inputs`` is the same object as then. For a part built from a larger value
        (a player) of which it reads a few fields: ``inputs`` are those fields."""
        hit = self._last.get(slot)
        if hit is not None:
            before = hit[0]
            if len(before) == len(inputs) and all(map(is_, before, inputs)):
                return hit[1]  # type: ignore[no-any-return]
        value = build()
        self._last[slot] = (inputs, value)
        return value


class _Fresh(Memo):
    """A memo that remembers nothing: every part is built anew."""

    __slots__ = ()

    def part(self, slot: Hashable, build: Callable[..., T], *inputs: Any) -> T:
        return build(*inputs)

    def keyed(self, slot: Hashable, inputs: tuple[Any, ...], build: Callable[[], T]) -> T:
        return build()


FRESH: Memo = _Fresh()
"""Build every part anew (the reference; and for one-off views)."""
