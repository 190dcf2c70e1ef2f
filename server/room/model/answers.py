"""Every answer a room gave to a command id, so that a repeated id gets the same answer.

Two sources, both durable:

- acks of commands that appended events are in the log itself: the last record of
  a command carries its ``seat``, its id ``cmd`` and the digest ``h`` of its body;
- every other answer (a rejection by the game or the room, or an ack of a command
  that changed nothing) is a *reply* stored beside the log
  (:meth:`server.store.EventStore.save_reply`), at most ``per_seat`` of them per seat
  (the oldest go first; the bound is ``Settings.replies_per_seat``).

A repeated id with the same body gets the first answer; with a different body it
is refused with ``command/id_reused`` (an answer that is not itself remembered).
Bodies of records written before digests existed match any body.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from protocol.messages import Ack, Reject
from server.room.model.records import Played, RoomAct

Reply = Ack | Reject


@attrs.frozen
class Answer:
    """The answer to one command id, and the digest of the body it answered."""

    reply: Reply
    body: str | None


def reply_to_plain(answer: Answer) -> dict[str, Any]:
    """How a stored reply is kept beside the log."""
    reply = answer.reply
    if isinstance(reply, Ack):
        return {"type": "ack", "seq": reply.seq, "h": answer.body}
    return {"type": "reject", "code": reply.code, "message": reply.message,
            "details": dict(reply.details), "h": answer.body}  # fmt: skip


def reply_from_plain(cmd_id: str, data: Mapping[str, Any]) -> Answer:
    """The answer a stored reply holds."""
    body = data.get("h")
    if data["type"] == "ack":
        return Answer(Ack(cmd_id, int(data["seq"])), body)
    return Answer(Reject(cmd_id, data["code"], data["message"], dict(data["details"])), body)


class Answers:
    """The answers of one room by ``(seat, command id)``."""

    def __init__(self, per_seat: int) -> None:
        self.per_seat = per_seat
        self._acks: dict[tuple[int, str], tuple[int, str | None]] = {}
        self._replies: dict[int, OrderedDict[str, Answer]] = {}
        self._acts: dict[tuple[str, str], int] = {}
        """Acks of acts (chat, host actions), by (actor, act id): the log's own."""

    def learn(self, seq: int, record: object) -> None:
        """Remember the ack a log record carries, if it ends a player's command or is
        someone's act."""
        if isinstance(record, Played) and record.seat is not None and record.cmd is not None:
            self._acks[(record.seat, record.cmd)] = (seq, record.body)
        elif isinstance(record, RoomAct) and record.id is not None:
            actor = record.by if record.by is not None else f"seat:{record.seat}"
            self._acts[(actor, record.id)] = seq

    def act_seq(self, actor: str, act_id: str) -> int | None:
        """The seq of ``actor``'s act ``act_id``, if the log holds it."""
        return self._acts.get((actor, act_id))

    def acts_plain(self) -> list[list[Any]]:
        """Every act ack, as ``[actor, id, seq]`` (for snapshots)."""
        return [[actor, act_id, seq] for (actor, act_id), seq in self._acts.items()]

    def learn_acts(self, acts: Iterable[list[Any]]) -> None:
        for actor, act_id, seq in acts:
            self._acts[(str(actor), str(act_id))] = int(seq)

    def acks_plain(self) -> list[list[Any]]:
        """Every ack the log holds, as ``[seat, cmd, seq, body digest]`` (for snapshots)."""
        return [[seat, cmd, seq, body] for (seat, cmd), (seq, body) in self._acks.items()]

    def learn_acks(self, acks: Iterable[list[Any]]) -> None:
        """Remember acks kept by :meth:`acks_plain`."""
        for seat, cmd, seq, body in acks:
            self._acks[(int(seat), str(cmd))] = (int(seq), body)

    def remember(self, seat: int, cmd_id: str, answer: Answer) -> None:
        """Keep a reply stored beside the log (bounded per seat, oldest out first)."""
        replies = self._replies.setdefault(seat, OrderedDict())
        replies[cmd_id] = answer
        replies.move_to_end(cmd_id)
        while len(replies) > self.per_seat:
            replies.popitem(last=False)

    def load(self, stored: Iterable[tuple[int, str, Mapping[str, Any]]]) -> None:
        """Remember the replies read back from the store, oldest first."""
        for seat, cmd_id, data in stored:
            self.remember(seat, cmd_id, reply_from_plain(cmd_id, data))

    def find(self, seat: int, cmd_id: str) -> Answer | None:
        """The first answer to ``cmd_id`` from ``seat``, if the room gave one."""
        acked = self._acks.get((seat, cmd_id))
        if acked is not None:
            return Answer(Ack(cmd_id, acked[0]), acked[1])
        replies = self._replies.get(seat)
        return None if replies is None else replies.get(cmd_id)
