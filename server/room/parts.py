"""What the room core's mixins (:mod:`server.room.clock`, :mod:`server.room.commands`)
share of :class:`server.room.core.RoomCore`: the state both read and the write both ask
for, declared once here and defined in :mod:`server.room.core`. Pure, like the core."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from server.room.io import Output, PeerId
from server.room.model.records import Record, RoomModel

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
