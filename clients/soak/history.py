"""A checker over the recorded history of games on a Redis Cluster under faults.

What the clients recorded (every acknowledged command with its seq, the seqs they had
seen when a fault began) is checked against what the cluster holds afterwards (each
room's log read raw, with each record's fence epoch, and the room's epochs hash:
which node took each epoch, server/cluster/leases.py):

- every acknowledged command is in the log exactly once, at its acknowledged seq
  (missing: *lost*; more than once: *duplicated*; once elsewhere: *misplaced*);
- no view ahead of the log: every record a client had seen when a fault began is in
  the log afterwards, unchanged (the log read then, up to the highest seq any client
  of the room had seen);
- no two nodes acknowledging for one room in the same fence: every epoch was taken
  by one node (no ``dup:`` entry), every fenced record's epoch was taken, and the
  epochs never go backwards along the log;
- every room finished (its clients' last views say so; a room of hosted bots: its log
  holds the end of the game), unless it was still being played, and moving, when
  the run ended (``RoomHistory.playing``, set by ``rollhouse soak``).

:func:`judge` is the pure core (data in, violations and counts out); :func:`check`
reads the cluster and judges. Used by tests/cluster and :mod:`clients.soak.run`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import attrs
import msgpack
from redis.cluster import RedisCluster as SyncCluster

from clients.sdk import Client

Ack = tuple[str, int, float]
"""(command id, acknowledged seq, monotonic arrival time)."""


class Acking(Protocol):
    """A player as the checker sees it: its seat, the last seq it saw, and what it was
    acknowledged."""

    @property
    def seat(self) -> int | None: ...

    @property
    def seq(self) -> int: ...

    acked: list[Ack]


class RecordingClient(Client):
    """A client that remembers the id, ack seq and arrival time of every acked command."""

    acked: list[Ack]

    async def send(self, command: dict[str, Any], cmd_id: str | None = None) -> int:
        cmd_id = cmd_id or self.next_id()
        seq = await super().send(command, cmd_id)
        self.acked.append((cmd_id, seq, time.monotonic()))
        return seq


@attrs.frozen
class Seen:
    """What a room's clients had seen when a fault began: the highest seq any of them
    had seen, and the room's log (seq, record bytes) read just then."""

    seq: int
    log: list[tuple[int, bytes]]


@attrs.define
class RoomHistory:
    room: str
    players: Sequence[Acking]
    snapshots: list[Seen] = attrs.field(factory=list)
    finals: list[dict[str, Any]] = attrs.field(factory=list)
    """The last view of each player whose game ended (fewer: some did not)."""
    hosted: bool = False
    """Played by hosted bots: whether it finished is read from its log."""
    playing: bool = False
    """Still being played when the run ended, and moving after the faults stopped:
    it need not have finished."""


@attrs.frozen
class Logged:
    """What the cluster holds of one room: its log (seq, record bytes, fence epoch or
    None) and its epochs hash (epoch -> node; ``dup:E`` when an epoch was given twice)."""

    records: list[tuple[int, bytes, int | None]]
    epochs: dict[str, str]


COUNTS = ("acked", "acked_found", "lost", "duplicated", "misplaced", "seen_records_checked",
          "records", "rooms", "finished", "playing")  # fmt: skip


def _decode(blob: bytes) -> dict[str, Any]:
    return msgpack.unpackb(blob, raw=False, strict_map_key=False)  # type: ignore[no-any-return]


def game_over(blobs: Iterable[bytes]) -> bool:
    """Whether these records (msgpack) hold the end of the game (``game_ended``)."""
    for blob in blobs:
        data = _decode(blob)
        if data.get("k") == "event" and (data.get("e") or {}).get("type") == "game_ended":
            return True
    return False


def _judge_acks(history: RoomHistory, logged: Logged, counts: dict[str, int]) -> list[str]:
    commands: dict[tuple[int, str], list[int]] = {}
    for seq, blob, _ in logged.records:
        data = _decode(blob)
        if data.get("cmd") is not None and data.get("by") is None:
            commands.setdefault((data["seat"], data["cmd"]), []).append(seq)
    problems = []
    to_wall = time.time() - time.monotonic()  # an ack's wall-clock time, to read beside logs
    for p in history.players:
        for cmd_id, seq, at in p.acked:
            counts["acked"] += 1
            found = commands.get((p.seat, cmd_id), []) if p.seat is not None else []
            if found == [seq]:
                counts["acked_found"] += 1
                continue
            kind = "lost" if not found else "duplicated" if len(found) > 1 else "misplaced"
            counts[kind] += 1
            when = time.strftime("%H:%M:%S", time.gmtime(to_wall + at))
            problems.append(f"{history.room}: seat {p.seat} command {cmd_id} acked at {seq} "
                            f"({when} UTC), logged at {found} ({kind})")  # fmt: skip
    return problems


def _judge_epochs(room: str, logged: Logged) -> list[str]:
    problems = [f"{room}: epoch {k[4:]} given twice" for k in logged.epochs if k.startswith("dup:")]
    last = 0
    for seq, _, epoch in logged.records:
        if epoch is None:
            continue
        if str(epoch) not in logged.epochs:
            problems.append(f"{room}: record {seq} written with epoch {epoch} nobody took")
        if epoch < last:
            problems.append(f"{room}: record {seq} has epoch {epoch} after epoch {last}")
        last = max(last, epoch)
    return problems


def _finished(history: RoomHistory, logged: Logged) -> bool:
    if history.hosted:
        return game_over(blob for _, blob, _ in logged.records)
    return len(history.finals) == len(history.players) and all(
        f["room"]["status"] == "finished" for f in history.finals
    )


def judge_room(history: RoomHistory, logged: Logged, counts: dict[str, int]) -> list[str]:
    """The violations of one room's history (see the module docstring); adds to ``counts``."""
    room, records = history.room, logged.records
    counts["rooms"] += 1
    counts["records"] += len(records)
    problems = []
    if [seq for seq, _, _ in records] != list(range(1, len(records) + 1)):
        problems.append(f"{room}: the log's seqs are not 1..{len(records)}")
    problems += _judge_acks(history, logged, counts)
    by_seq = {seq: blob for seq, blob, _ in records}
    for seen in history.snapshots:
        for seq, blob in seen.log:
            if seq > seen.seq:
                continue
            counts["seen_records_checked"] += 1
            if by_seq.get(seq) != blob:
                problems.append(f"{room}: record {seq} was seen by a client and is gone or changed")
    problems += _judge_epochs(room, logged)
    if _finished(history, logged):
        counts["finished"] += 1
    elif history.playing:
        counts["playing"] += 1
    else:
        problems.append(f"{room}: did not finish")
    return problems


def judge(rooms: Sequence[tuple[RoomHistory, Logged]]) -> tuple[list[str], dict[str, int]]:
    """Violations over every room's history and what the cluster holds of it; counts."""
    counts = dict.fromkeys(COUNTS, 0)
    problems: list[str] = []
    for history, logged in rooms:
        problems += judge_room(history, logged, counts)
    return problems, counts


def raw_log(client: SyncCluster, prefix: str, room: str) -> list[tuple[int, bytes, int | None]]:
    """(seq, record bytes, fence epoch or None) of every record of ``room``."""
    entries: Any = client.xrange(f"{prefix}:room:{{{room}}}:log", "-", "+")
    out = []
    for entry_id, fields in entries:
        epoch = fields.get(b"e")
        seq = int(bytes(entry_id).split(b"-", 1)[1])
        out.append((seq, bytes(fields[b"d"]), None if epoch is None else int(epoch)))
    return out


def epochs(client: SyncCluster, prefix: str, room: str) -> dict[str, str]:
    found: Any = client.hgetall(f"{prefix}:room:{{{room}}}:epochs")
    return {bytes(k).decode(): bytes(v).decode() for k, v in found.items()}


def logged(client: SyncCluster, prefix: str, room: str) -> Logged:
    """What the cluster holds of ``room`` now."""
    return Logged(raw_log(client, prefix, room), epochs(client, prefix, room))


def check(
    client: SyncCluster, rooms: Sequence[RoomHistory], prefix: str = "rollhouse"
) -> tuple[list[str], dict[str, int]]:
    """Read every room from the cluster and :func:`judge` its history."""
    return judge([(h, logged(client, prefix, h.room)) for h in rooms])
