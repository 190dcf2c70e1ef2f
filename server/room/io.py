"""The room core's typed inputs and outputs (see :mod:`server.room.core`).

Inputs carry everything the core may not fetch itself: the time (``now``, unix
seconds from the shell's clock), fresh randomness (``fresh_token``), the outcome of
every write, and which connections are already gone. Outputs say what the shell must
do, in order: write to the store, send messages to peers, arm or disarm timers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from protocol.messages import ServerMessage
from server.room.model.records import Record

PeerId = int
"""The shell's handle of one connection."""


# -- inputs ---------------------------------------------------------------------------------


@attrs.frozen
class Start:
    """The room was loaded (or created): arm its timers, catch up with what is due."""

    now: float


@attrs.frozen
class Join:
    """A ``hello``: ``token`` is the client's seat token; ``fresh_token`` the token of the
    free seat the peer may be given: the client's own (``own``: its hello's
    ``new_seat_token``, which also finds the seat an earlier copy of this hello took) or
    a new random one the shell drew; ``player`` the player whose session the hello
    carried (checked by the shell), ``invite`` the invite code it brought; ``client`` and
    ``attempt`` which connection of which client this is (a later one keeps its seat)."""

    peer: PeerId
    codec: str
    role: str
    name: str | None
    token: str | None
    last_seq: int | None
    fresh_token: str
    now: float
    player: str | None = None
    invite: str | None = attrs.field(default=None, repr=False)
    own: bool = False
    client: str | None = None
    attempt: int | None = None


@attrs.frozen
class Leave:
    peer: PeerId
    now: float
    undelivered: bool = False
    """Its welcome never reached the client (a relay closed the connection first): a
    seat the welcome gave a fresh token is given back, as for a hello gone before its
    seat was durable (nobody holds the token)."""


@attrs.frozen
class CommandIn:
    peer: PeerId
    id: str
    body: Mapping[str, Any]
    now: float


@attrs.frozen
class Commands:
    """Commands that were waiting together in the mailbox, in arrival order.

    The core decides them one after another, each on the state its predecessors
    leave, and writes the ones it accepts as one append (one store round trip, one
    patch per viewer); see :meth:`server.room.commands.Deciding._commands`."""

    commands: tuple[CommandIn, ...]
    now: float


@attrs.frozen
class ActIn:
    """An ``act`` (chat, a host's action) with its client id; answered by an ack or a
    reject like a command."""

    peer: PeerId
    id: str
    act: Mapping[str, Any]
    now: float


@attrs.frozen
class ResyncIn:
    peer: PeerId
    now: float


@attrs.frozen
class TimerFired:
    key: str
    now: float


@attrs.frozen
class Rematch:
    """Record that ``room`` is this room's rematch; answered by :class:`Finished`."""

    op: int
    room: str
    now: float


@attrs.frozen
class Reserve:
    """Hold a free seat for ``player`` until ``until`` (a quick match); answered by
    :class:`Finished` with the seat as its ``value`` (or a refusal code)."""

    op: int
    player: str
    name: str
    until: float
    now: float


@attrs.frozen
class Invite:
    """The host's (``player``'s) new invite code ``code`` (None: revoke it); answered by
    :class:`Finished`."""

    op: int
    player: str | None
    code: str | None = attrs.field(repr=False)
    now: float


@attrs.frozen
class Operate:
    """An operator's act on the room (server/operator): ``act`` is ``{"type": "close",
    "reason"}`` or ``{"type": "hide", "seq"}``; answered by :class:`Finished`."""

    op: int
    act: Mapping[str, Any]
    now: float


@attrs.frozen
class WriteDone:
    """The pending write is durable. ``gone``: peers whose connection closed meanwhile."""

    now: float
    gone: frozenset[PeerId] = frozenset()


@attrs.frozen
class WriteFailed:
    """The pending write failed: ``certain`` (nothing written), or unknown; ``conflict``
    when another writer moved the log (or fenced this room)."""

    certain: bool
    reason: str
    now: float
    conflict: bool = False


@attrs.frozen
class TailRead:
    """The log after the seq :class:`Settle` named, read after fencing off older writes."""

    records: tuple[tuple[int, Mapping[str, Any]], ...]
    now: float
    gone: frozenset[PeerId] = frozenset()


@attrs.frozen
class BotThought:
    """The command a searching bot chose for ``seat`` on the state of sequence ``seq``
    (the answer to :class:`Think`); ``None`` when it found none."""

    seat: int
    seq: int
    command: Any
    now: float


Input = (
    Start | Join | Leave | CommandIn | Commands | ActIn | ResyncIn | TimerFired | Rematch
    | Reserve | Invite | Operate | WriteDone | WriteFailed | TailRead | BotThought
)  # fmt: skip


# -- outputs --------------------------------------------------------------------------------


@attrs.frozen
class Append:
    """Append ``records`` after ``expected``; answer with WriteDone or WriteFailed."""

    records: tuple[Record, ...]
    expected: int


@attrs.frozen
class SaveReply:
    """Store one answer beside the log; answer with WriteDone or WriteFailed."""

    seat: int
    cmd_id: str
    data: Mapping[str, Any]


@attrs.frozen
class Settle:
    """Fence off every older write of this room, then read its log after ``after``;
    answer with TailRead (retrying until the store answers)."""

    after: int


@attrs.frozen
class Send:
    """Send ``message`` to each of ``peers`` (encoded once per codec)."""

    peers: tuple[PeerId, ...]
    message: ServerMessage
    frame: bytes | None = None
    """``message`` encoded in msgpack, when the core has it already (a patch it keeps
    for resumes, a snapshot it measured): msgpack peers get these bytes."""


@attrs.frozen
class SendFrames:
    """Send ``peer`` frames the core keeps encoded in msgpack (the patches a resume
    missed); a JSON peer gets each one encoded again in JSON."""

    peer: PeerId
    frames: tuple[bytes, ...]


@attrs.frozen
class Close:
    """Send a fatal error with ``code`` to ``peer`` and close its connection."""

    peer: PeerId
    code: str
    message: str


@attrs.frozen
class Arm:
    """(Re)arm timer ``key`` to fire at unix time ``at``."""

    key: str
    at: float


@attrs.frozen
class SaveSnapshot:
    """Keep ``data`` (server.room.model.snapshots) as the room at ``seq``; best effort, not awaited."""

    seq: int
    data: Mapping[str, Any]


@attrs.frozen
class Disarm:
    key: str


@attrs.frozen
class Finished:
    """Operation ``op`` is over: ``code`` is None on success, else why it failed."""

    op: int
    code: str | None = None
    message: str = ""
    value: Any = None
    """What the operation gives back (a reserved seat)."""


@attrs.frozen
class Member:
    """``player`` took a seat in this room (for their list of games)."""

    player: str


@attrs.frozen
class Reopened:
    """A seat of this waiting room is free again (a hold nobody claimed, a seat whose
    taker left before its welcome): quick match may offer it again."""


@attrs.frozen
class Broken:
    """The room cannot go on from memory (another writer moved its log): close every
    peer with ``code`` and unload; the next request rebuilds it from the log."""

    code: str
    message: str


@attrs.frozen
class Count:
    """Count ``amount`` occurrences in ``/metrics`` (``metric`` names a Metrics counter)."""

    metric: str
    labels: tuple[tuple[str, str], ...] = ()
    amount: int = 1


@attrs.frozen
class Think:
    """Run a searching bot off the event loop: ``engine.core.choose(game, state, seat,
    policy, random.Random(seed))`` (the state is a frozen value, safe in a worker
    thread), then hand back a :class:`BotThought` for ``seq``."""

    seat: int
    seq: int
    game: Any
    state: Any
    policy: Any
    seed: str


Output = (
    Append | SaveReply | Settle | Send | SendFrames | Close | Arm | Disarm | Finished | Broken | Count
    | SaveSnapshot | Think | Member | Reopened
)  # fmt: skip
