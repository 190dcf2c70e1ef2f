"""What the parts of the room core share: its model, its answers, its viewers' views,
its peers, the one write in flight and the outputs of the input being handled.

:class:`RoomState` is plain data with three verbs: :meth:`~RoomState.write` (an append,
with what to do once it is durable), :meth:`~RoomState.save_reply` (an answer stored
beside the log) and :meth:`~RoomState.send`. What to do once a write is durable, or
certainly lost, is a value of :mod:`server.room.then`, matched in one place
(:meth:`server.room.core.RoomCore._durable` and ``_lost``). Pure, like the core.
"""

from __future__ import annotations

import attrs

from protocol.messages import ServerMessage
from server.room.io import Append, Output, PeerId, SaveReply, Send
from server.room.model.answers import Answer, Answers, reply_to_plain
from server.room.model.records import Record
from server.room.model.room import RoomModel
from server.room.then import Then
from server.room.views import Views


@attrs.frozen
class CoreSettings:
    """The room core's knobs (from :class:`server.config.Settings`)."""

    patch_history: int = 512
    patch_history_bytes: int = 65_536
    """Also at most this many bytes of patches (their msgpack frames) kept per viewer."""
    replies_per_seat: int = 256
    retry_base: float = 0.1
    retry_cap: float = 5.0
    snapshot_every: int = 500
    """Events between snapshots of the room (server.room.model.snapshots); 0: none."""
    presence_every: float = 0.25
    """At most one presence frame per room per this many seconds: arrivals and
    departures in between are summed into the next (joins cost O(n), not O(n^2))."""
    spectators_presence_every: float = 1.0
    """The same when only the spectator count changed (seats: ``presence_every``)."""


@attrs.frozen
class PeerInfo:
    seat: int | None
    role: str
    codec: str
    player: str | None = None
    """The player whose session the connection carries (None: a stranger)."""
    name: str | None = None
    client: str | None = None
    """The client's id and which of its connections this is (its hello's)."""
    attempt: int | None = None


@attrs.frozen
class Pending:
    """The write in flight and what it is for (see :mod:`server.room.then`)."""

    records: tuple[Record, ...]
    names: tuple[str, ...]
    then: Then
    model: RoomModel | None = None
    """The model once the records are folded, when the core has folded them already."""


@attrs.define(eq=False)
class RoomState:
    """The state every part of the core reads; only the core replaces ``model``."""

    model: RoomModel
    answers: Answers
    views: Views
    settings: CoreSettings
    peers: dict[PeerId, PeerInfo] = attrs.field(factory=dict)
    """Every connection in the room, with its seat (None: a spectator) and codec."""
    seated: dict[int, PeerId] = attrs.field(factory=dict)
    """The connection holding each seat now."""
    armed: dict[str, float] = attrs.field(factory=dict)
    """The timers the shell holds armed, by key, with their times."""
    pending: Pending | None = None
    out: list[Output] = attrs.field(factory=list)
    """The outputs of the input being handled, in order."""

    def write(
        self,
        records: tuple[Record, ...],
        names: tuple[str, ...],
        then: Then,
        model: RoomModel | None = None,
    ) -> None:
        """Append ``records`` (the patch's ``names``), then do what ``then`` says."""
        self.pending = Pending(records, names, then, model)
        self.out.append(Append(records, self.model.seq))

    def save_reply(self, seat: int, answer: Answer, then: Then) -> None:
        """Store ``answer`` beside the log, then do what ``then`` says."""
        self.pending = Pending((), (), then)
        self.out.append(SaveReply(seat, answer.reply.id, reply_to_plain(answer)))

    def send(self, peers: tuple[PeerId, ...], message: ServerMessage) -> None:
        self.out.append(Send(peers, message))
