"""What a write is for: the room core's continuations, as tagged values.

Every write the core asks for (:meth:`server.room.state.RoomState.write`) carries one of
these. When the write is durable the core matches it in
:meth:`server.room.core.RoomCore._durable`; when it certainly did not land, in
:meth:`~server.room.core.RoomCore._lost`. So the path of a command reads top to bottom:
decided (:mod:`server.room.commands`), written with :class:`CommandsAcked`, folded,
patched, then acked in ``_durable``.
"""

from __future__ import annotations

import attrs

from server.room.io import Join, PeerId
from server.room.model.answers import Answer
from server.room.model.records import Record


@attrs.define
class Accepted:
    """A command decided on the state before it, with the records it appends."""

    peer: PeerId
    seat: int
    id: str
    records: tuple[Record, ...]
    names: tuple[str, ...]
    seq: int = 0
    """The seq of its last record (set once its place in the run is known)."""


@attrs.frozen
class CommandsAcked:
    """Commands accepted together: durable, each is acked; lost, each is told so."""

    run: tuple[Accepted, ...]


@attrs.frozen
class ReplySaved:
    """An answer that appends nothing, stored beside the log before it is sent."""

    peer: PeerId
    seat: int
    answer: Answer


@attrs.frozen
class SeatTaken:
    """A free seat given to ``join``'s peer, or a seat held for its player claimed:
    durable, it is welcomed with ``token`` (or, gone meanwhile, the seat is given back);
    lost, the peer is told to try again."""

    join: Join
    seat: int
    token: str | None


@attrs.frozen
class Acted:
    """A person's act on the room (:mod:`server.room.acts`): durable, it is acked (and
    whoever it removed is closed); lost, it is answered ``room/unavailable``."""

    peer: PeerId
    id: str
    removed: tuple[PeerId, ...] = ()


@attrs.frozen
class OpDone:
    """An operation of the room's own API (a reservation, an invite) for ``op``."""

    op: int
    value: object = None


@attrs.frozen
class Moved:
    """A move the room made for a seat (a clock's timeout, a hosted bot, a takeover);
    lost, it is tried again after the backoff."""


@attrs.frozen
class Bookkept:
    """A record the room owes its log (``left``, ``returned``, ``takeover``,
    ``unseated``); lost, it is tried again after the backoff."""

    record: Record


Then = CommandsAcked | ReplySaved | SeatTaken | Moved | Bookkept | Acted | OpDone
