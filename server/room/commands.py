"""The room core's commands: how a player's command becomes records or an answer (a
mixin of :class:`server.room.core.RoomCore`; pure like it).

Commands that arrive together are decided one after another in arrival order, each
on the state the ones before it leave, and the leading run of accepted ones is
written as one append (see :meth:`Deciding._commands`). Acks are in the log; every
other answer is stored beside it before it is sent (:mod:`server.room.model.answers`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs

from engine.data import to_data
from engine.errors import Rejection
from protocol import errors as codes
from protocol.messages import Ack, Reject, ServerMessage
from server.room.io import CommandIn, Count, PeerId
from server.room.model.answers import Answer, Answers
from server.room.model.records import Record, RoomModel, body_digest, evolve, played_records
from server.room.parts import CorePart

if TYPE_CHECKING:
    from server.room.core import PeerInfo, Pending


@attrs.define
class _Accepted:
    """A command decided on the state before it, with the records it appends."""

    peer: PeerId
    seat: int
    id: str
    records: tuple[Record, ...]
    names: tuple[str, ...]
    seq: int = 0
    """The seq of its last record (set once its place in the run is known)."""


class Deciding(CorePart):
    """What the room does with its players' commands."""

    answers: Answers
    peers: dict[PeerId, PeerInfo]
    pending: Pending | None
    deferred: deque[CommandIn]

    if TYPE_CHECKING:

        def _save_reply(self, peer: PeerId, seat: int, answer: Answer) -> None: ...

        def _send(self, peers: tuple[PeerId, ...], message: ServerMessage) -> None: ...

    def _reply(self, peer: PeerId, reply: Ack | Reject) -> None:
        if isinstance(reply, Reject):
            self._out.append(Count("rejections", (("code", reply.code),)))
        if peer in self.peers:
            self._send((peer,), reply)

    def _unavailable(self, peer: PeerId, cmd_id: str) -> None:
        self._reply(
            peer,
            Reject(
                cmd_id,
                codes.UNAVAILABLE,
                "the event log is unavailable; nothing changed; send it again",
            ),
        )

    def _commands(self, commands: Sequence[CommandIn]) -> None:
        """Decide ``commands`` (arrived together) in arrival order; write the leading run
        of accepted ones as one append.

        Each is decided on the state the ones before it leave, so the events, acks and
        refusals are those of handling them one at a time; only the writes and patches
        are shared (one store round trip, one patch per viewer, then an ack each). A run
        ends before the first command that is not simply accepted (refused, a repeated
        id, a spectator's, ...): it and the ones after it wait in ``deferred`` until the
        write is over (:meth:`handle` takes them up then), so answers keep their order."""
        model = self.model
        run: list[_Accepted] = []
        for i, c in enumerate(commands):
            decision = self._decide(c, model, run)
            if isinstance(decision, _Accepted):
                for record in decision.records:
                    model = evolve(model, model.seq + 1, record)
                decision.seq = model.seq
                run.append(decision)
                continue
            if run:
                self.deferred.extendleft(reversed(commands[i:]))
                break
            if decision is not None:
                decision()
            if self.pending is not None:
                self.deferred.extendleft(reversed(commands[i + 1 :]))
                return
        if run:
            self._append_run(run, model)

    def _append_run(self, run: list[_Accepted], model: RoomModel) -> None:
        def done(_now: float, _gone: frozenset[PeerId]) -> None:
            self._out.append(Count("commands", (("game", self.model.game.name),), len(run)))
            for accepted in run:
                self._reply(accepted.peer, Ack(accepted.id, accepted.seq))

        def failed(_now: float) -> None:
            for accepted in run:
                self._unavailable(accepted.peer, accepted.id)

        records = tuple(r for accepted in run for r in accepted.records)
        names = tuple(n for accepted in run for n in accepted.names)
        self._append(records, names, done, failed, model)

    def _decide(
        self, c: CommandIn, model: RoomModel, run: list[_Accepted]
    ) -> _Accepted | Callable[[], None] | None:
        """``c`` on ``model``: accepted (its records), or what answers it otherwise (to be
        called when nothing is in flight before it), or None (its peer is gone)."""
        info = self.peers.get(c.peer)
        if info is None:
            return None
        if info.seat is None:
            return lambda: self._reply(
                c.peer, Reject(c.id, codes.READ_ONLY, "spectators cannot act")
            )
        seat = info.seat
        digest = body_digest(c.body)
        if any(a.seat == seat and a.id == c.id for a in run):
            return _nothing  # answered once the run is durable (the defer is the answer)
        found = self.answers.find(seat, c.id)
        if found is not None:
            if found.body is not None and found.body != digest:
                text = f"command id {c.id!r} was used for another command; use a fresh id"
                reply: Ack | Reject = Reject(c.id, codes.ID_REUSED, text)
            else:
                reply = found.reply
            return lambda: self._reply(c.peer, reply)
        if not model.started:
            refusal = Reject(c.id, codes.NOT_STARTED, "the game starts when every seat is taken")
            return lambda: self._save_reply(c.peer, seat, Answer(refusal, digest))
        try:
            if model.is_over:
                raise Rejection("the game is over", code="game/over")
            command = model.game.commands.load(dict(c.body), seat=seat)
            events = model.game.decide(model.state, command)
        except Rejection as exc:
            refusal = Reject(c.id, exc.code, exc.message, dict(exc.details))
            return lambda: self._save_reply(c.peer, seat, Answer(refusal, digest))
        if not events:
            nothing = Ack(c.id, model.seq)
            return lambda: self._save_reply(c.peer, seat, Answer(nothing, digest))
        records = played_records(events, c.now, seat, c.id, digest, None, to_data(command))
        names = tuple(model.game.public_name(e) for e in events)
        return _Accepted(c.peer, seat, c.id, tuple(records), names)


def _nothing() -> None:
    return None
