"""What every request handler reaches through ``app.state.services``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from server.config import Settings
from server.metrics import Metrics
from server.rooms import Rooms
from server.store import EventStore

if TYPE_CHECKING:
    from server.connection import Connection


@attrs.define
class Services:
    """The node's settings, store, metrics, rooms and open connections."""

    settings: Settings
    store: EventStore
    metrics: Metrics
    rooms: Rooms
    connections: set[Connection] = attrs.field(factory=set)
