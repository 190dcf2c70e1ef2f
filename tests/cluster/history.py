"""A checker over the recorded history of a fault test on a Redis Cluster.

What the clients recorded (every acknowledged command with its seq, the seqs each
client saw before the fault) is checked against what the cluster holds afterwards
(each room's log read raw, with each record's fence epoch, and the room's epochs
hash: which node took each epoch, server/cluster/leases.py):

- every acknowledged command is in the log exactly once, at its acknowledged seq;
- no view ahead of the log: every record a client had seen before the fault is in
  the log afterwards, unchanged (the log read just before the fault, up to the
  highest seq any client of the room had seen);
- no two nodes acknowledging for one room in the same fence: every epoch was taken
  by one node (no ``dup:`` entry), every fenced record's epoch was taken, and the
  epochs never go backwards along the log;
- every room finished.

``check`` returns the list of violations (empty: the history is sound) and the counts.
"""

from __future__ import annotations

from typing import Any

import attrs
import msgpack
from redis.cluster import RedisCluster as SyncCluster

from tests.cluster.support import RecordingClient


@attrs.define
class RoomHistory:
    room: str
    players: list[RecordingClient]
    seen_before: int = 0
    """The highest seq any client of the room had seen when the fault began."""
    log_before: list[tuple[int, bytes]] = attrs.field(factory=list)
    """The room's log (seq, record bytes) read just before the fault."""
    finals: list[dict[str, Any]] = attrs.field(factory=list)


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


def check(
    client: SyncCluster, rooms: list[RoomHistory], prefix: str = "rollhouse"
) -> tuple[list[str], dict[str, int]]:
    """Violations of the history (see the module docstring), and counts."""
    problems: list[str] = []
    counts = {"acked": 0, "acked_found": 0, "seen_records_checked": 0, "records": 0}
    for history in rooms:
        room = history.room
        log = raw_log(client, prefix, room)
        counts["records"] += len(log)
        if [seq for seq, _, _ in log] != list(range(1, len(log) + 1)):
            problems.append(f"{room}: the log's seqs are not 1..{len(log)}")
        by_seq = {seq: (blob, epoch) for seq, blob, epoch in log}
        logged: dict[tuple[int, str], list[int]] = {}
        for seq, blob, _ in log:
            data = msgpack.unpackb(blob, raw=False, strict_map_key=False)
            if data.get("cmd") is not None and data.get("by") is None:
                logged.setdefault((data["seat"], data["cmd"]), []).append(seq)
        for p in history.players:
            for cmd_id, seq, _ in p.acked:
                counts["acked"] += 1
                if logged.get((p.seat, cmd_id)) != [seq]:  # type: ignore[arg-type]
                    problems.append(
                        f"{room}: seat {p.seat} command {cmd_id} acked at {seq}, "
                        f"logged at {logged.get((p.seat, cmd_id))}"  # type: ignore[arg-type]
                    )
                else:
                    counts["acked_found"] += 1
        for seq, blob in history.log_before:
            if seq > history.seen_before:
                continue
            counts["seen_records_checked"] += 1
            if by_seq.get(seq, (None, None))[0] != blob:
                problems.append(f"{room}: record {seq} was seen by a client and is gone or changed")
        taken = epochs(client, prefix, room)
        problems += [f"{room}: epoch {k[4:]} given twice" for k in taken if k.startswith("dup:")]
        last = 0
        for seq, _, epoch in log:
            if epoch is None:
                continue
            if str(epoch) not in taken:
                problems.append(f"{room}: record {seq} written with epoch {epoch} nobody took")
            if epoch < last:
                problems.append(f"{room}: record {seq} has epoch {epoch} after epoch {last}")
            last = max(last, epoch)
        if len(history.finals) != len(history.players) or not all(
            f["room"]["status"] == "finished" for f in history.finals
        ):
            problems.append(f"{room}: did not finish")
    return problems, counts
