"""The mirror of one viewer's room, sans-I/O: typed server messages in, actions out.

    mirror = Mirror(seat_token=saved)
    for action in mirror.receive(codec.decode_server(frame)):
        match action:
            case RequestResync():    send Resync()
            case Acked(id, seq):     settle command ``id`` with ``seq``
            case Rejected(reject):   settle command ``reject.id`` with the rejection
            case ServerError(error): log it, or give up when ``error.fatal`` and final
            case Welcomed(welcome):  the (re)join is complete
            case ViewChanged():      ``mirror.view`` / ``mirror.seq`` moved

The mirror holds ``seq``, ``view``, ``presence``, ``seat``, ``seat_token``, ``game``,
``role`` and the ``events`` log of applied patches; it does no I/O and reads no clock,
so the asyncio :class:`~tests.support.sdk_v1.client.Client` is glue around it and the shared
vectors in ``tests/vectors/mirror`` check it (and the web client's ``ViewMirror``).

The rules (docs/protocol.md sections 6 and 7):

- a ``welcome`` or ``snapshot`` with a view replaces ``view`` and ``seq`` and ends a resync;
- a ``welcome`` with ``view: null`` resumes at its ``seq`` and keeps the view (patches
  follow); if there is no view to keep, or a resync was pending on the old connection,
  it asks for a resync;
- a ``patch`` is applied only when ``patch.from == seq``; one with ``to <= seq`` is old
  and ignored; any other is a gap: ask for a resync once and ignore patches until the
  snapshot; an op that does not fit the view (:class:`~protocol.errors.PatchError`)
  also asks for a resync.
"""

from __future__ import annotations

from typing import Any

import attrs

from protocol.errors import PatchError
from protocol.messages import (
    Ack,
    Error,
    Patch,
    Pong,
    Presence,
    Reject,
    Role,
    ServerMessage,
    Snapshot,
    Welcome,
)
from protocol.patch import apply


@attrs.frozen
class RequestResync:
    """Send ``resync``: the view is behind by a gap, or a patch did not fit it."""


@attrs.frozen
class Acked:
    """Command ``id`` was accepted; ``seq`` is the sequence number of its last event."""

    id: str
    seq: int


@attrs.frozen
class Rejected:
    """Command ``reject.id`` was refused; nothing changed."""

    reject: Reject


@attrs.frozen
class ServerError:
    """The server reported an error; when ``error.fatal`` it closes the connection next."""

    error: Error


@attrs.frozen
class Welcomed:
    """A hello was answered: the seat is held (or the spectator admitted)."""

    welcome: Welcome


@attrs.frozen
class ViewChanged:
    """The view moved to ``seq``; ``events`` names what happened (empty for a snapshot)."""

    seq: int
    events: tuple[str, ...] = ()


Action = RequestResync | Acked | Rejected | ServerError | Welcomed | ViewChanged


@attrs.define
class Mirror:
    """One viewer's copy of the room, kept current from the server's messages."""

    seat_token: str | None = None
    seq: int = 0
    view: dict[str, Any] | None = None
    presence: Presence | None = None
    seat: int | None = None
    game: str | None = None
    role: Role | None = None
    resyncing: bool = False
    """A resync was asked for and its snapshot has not come: patches are ignored."""
    events: list[tuple[int, list[str]]] = attrs.field(factory=list)
    """``(seq, event names)`` of every patch applied, oldest first."""

    @property
    def resume_seq(self) -> int | None:
        """The ``last_seq`` for the next hello: ``seq`` while the view is good, else None."""
        return self.seq if self.view is not None and not self.resyncing else None

    def receive(self, msg: ServerMessage) -> list[Action]:
        """Apply one server message; the actions the shell must take, in order."""
        match msg:
            case Welcome():
                return self._welcome(msg)
            case Snapshot(seq=seq, view=view):
                return [self._replace(view, seq)]
            case Patch():
                return self._patch(msg)
            case Ack(id=cmd_id, seq=seq):
                return [Acked(cmd_id, seq)]
            case Reject():
                return [Rejected(msg)]
            case Presence():
                self.presence = msg
                return []
            case Error():
                return [ServerError(msg)]
            case Pong():
                return []

    def reset(self) -> None:
        """Forget the view (the viewer changes, e.g. a full room's player turns spectator)."""
        self.view, self.seq, self.resyncing = None, 0, False

    def _welcome(self, msg: Welcome) -> list[Action]:
        self.seat, self.game, self.role = msg.seat, msg.game, msg.role
        if msg.seat_token is not None:
            self.seat_token = msg.seat_token
        actions: list[Action] = []
        if msg.view is not None:
            actions.append(self._replace(msg.view, msg.seq))
        else:
            self.seq = msg.seq
            if self.view is None or self.resyncing:
                actions.extend(self._resync())
        actions.append(Welcomed(msg))
        return actions

    def _patch(self, msg: Patch) -> list[Action]:
        if self.resyncing or msg.to <= self.seq:
            return []
        if self.view is None or msg.from_ != self.seq:
            return self._resync()
        try:
            view = apply(self.view, msg.ops)
        except PatchError:
            return self._resync()
        self.view, self.seq = view, msg.to
        self.events.append((msg.to, list(msg.events)))
        return [ViewChanged(msg.to, msg.events)]

    def _replace(self, view: dict[str, Any], seq: int) -> ViewChanged:
        self.view, self.seq, self.resyncing = view, seq, False
        return ViewChanged(seq)

    def _resync(self) -> list[Action]:
        self.resyncing = True
        return [RequestResync()]
