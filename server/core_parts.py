"""What the room core's mixins (:mod:`server.core_time`, :mod:`server.core_commands`)
share of :class:`server.core.RoomCore`: the state both read and the write both ask
for, declared once here and defined in :mod:`server.core`. Pure, like the core."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from server.core_io import Output, PeerId
from server.records import Record, RoomModel

Done = Callable[[float, frozenset[PeerId]], None]
"""What to do once a write is durable (the time, and the peers gone meanwhile)."""
Failed = Callable[[float], None]
"""What to do once a write certainly did not land."""


class CorePart:
    """A mixin of the room core: its model, its outputs, and its one write."""

    model: RoomModel
    _out: list[Output]

    if TYPE_CHECKING:

        def _append(
            self,
            records: tuple[Record, ...],
            names: tuple[str, ...] = (),
            done: Done = ...,
            failed: Failed | None = None,
            model: RoomModel | None = None,
        ) -> None: ...
