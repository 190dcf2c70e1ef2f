"""A room's core rebuilt from its log: from the latest snapshot when there is a good
one, then the records after it, a chunk at a time (the shell lets other rooms run
between chunks; see :meth:`server.room.rooms.Rooms.get`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from server.room.core import CoreSettings, RoomCore
from server.room.model.answers import Answers
from server.room.model.fold import evolve, start
from server.room.model.records import Created, from_plain
from server.room.model.snapshots import BadSnapshot, model_from

log = logging.getLogger("rollhouse.room")


class Rebuilder:
    """A room's core rebuilt from its log a chunk of records at a time (the shell lets
    other rooms run between chunks), starting from a snapshot when there is a good one.

    ``created`` is the room's first record; ``seq`` is where the records to fold start
    after (the snapshot's seq, or 1)."""

    def __init__(
        self,
        room_id: str,
        created: Mapping[str, Any],
        snapshot: Mapping[str, Any] | None = None,
        settings: CoreSettings | None = None,
    ) -> None:
        self.settings = settings or CoreSettings()
        first = from_plain(created)
        if not isinstance(first, Created):
            raise ValueError(f"room {room_id}: log does not start with a created record")
        self.model = start(room_id, first)
        self.answers = Answers(self.settings.replies_per_seat)
        self.snapshot_seq = 0
        """The seq of the snapshot the rebuild started from (0: none)."""
        if snapshot is not None:
            try:
                self.model = model_from(self.model, snapshot)
                self.answers.learn_acks(snapshot["acks"])
                self.answers.learn_acts(snapshot["acts"])
                self.snapshot_seq = self.model.seq
            except (BadSnapshot, KeyError, TypeError, ValueError) as exc:
                log.warning("room %s: snapshot not used (%s); folding the whole log", room_id, exc)
                self.model = start(room_id, first)
                self.answers = Answers(self.settings.replies_per_seat)

    @property
    def seq(self) -> int:
        return self.model.seq

    def fold(self, records: Sequence[tuple[int, Mapping[str, Any]]]) -> None:
        """Fold the next records (plain ``(seq, data)`` pairs, in order, none skipped)."""
        model, answers = self.model, self.answers
        for seq, data in records:
            if seq != model.seq + 1:
                raise ValueError(f"room {model.room_id}: record {seq} after {model.seq}")
            record = from_plain(data)
            model = evolve(model, seq, record)
            answers.learn(seq, record)
        self.model = model

    def core(self, replies: Sequence[tuple[int, str, Mapping[str, Any]]] = ()) -> RoomCore:
        """The rebuilt core, with the replies stored beside the log."""
        self.answers.load(replies)
        core = RoomCore(self.model, self.answers, self.settings)
        core.snapshot_seq = self.snapshot_seq  # the next one is due ``every`` events after
        return core


def rebuild_core(
    room_id: str,
    records: list[tuple[int, Mapping[str, Any]]],
    replies: Sequence[tuple[int, str, Mapping[str, Any]]] = (),
    settings: CoreSettings | None = None,
    snapshot: Mapping[str, Any] | None = None,
) -> RoomCore:
    """A core from a room's log (plain ``(seq, data)`` pairs from seq 1; with a
    ``snapshot``, the records after it are folded) and its stored replies."""
    builder = Rebuilder(room_id, records[0][1], snapshot, settings)
    builder.fold([(seq, data) for seq, data in records if seq > builder.seq])
    return builder.core(replies)
