"""How a player's command becomes records or an answer (a part of
:class:`server.room.core.RoomCore`; pure like it).

Commands that arrive together are decided one after another in arrival order, each
on the state the ones before it leave, and the leading run of accepted ones is
written as one append (:meth:`Deciding.decide`), with
:class:`~server.room.then.CommandsAcked`: once it is durable each is acked
(:meth:`Deciding.acked`). Acks are in the log; every other answer is stored beside it
before it is sent (:class:`~server.room.then.ReplySaved`, :mod:`server.room.model.answers`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import attrs

from engine.data import to_data
from engine.errors import Rejection
from protocol import errors as codes
from protocol.messages import Ack, Reject
from server.room.io import CommandIn, Count, PeerId
from server.room.model.answers import Answer
from server.room.model.digests import body_digest
from server.room.model.fold import evolve
from server.room.model.records import played_records
from server.room.model.room import RoomModel
from server.room.state import RoomState
from server.room.then import Accepted, CommandsAcked, ReplySaved


@attrs.frozen
class Answered:
    """A command answered without a write of its own: ``reply`` sent now, or stored
    first (``store``), when nothing is in flight before it."""

    peer: PeerId
    seat: int | None
    reply: Ack | Reject
    store: Answer | None = None


Decision = Accepted | Answered | None
"""Accepted (records to append), answered otherwise, or None: wait for the run (a
repeated id in the same run, answered once the run is durable) or its peer is gone."""


class Deciding:
    """What the room does with its players' commands."""

    def __init__(self, state: RoomState) -> None:
        self.state = state
        self.deferred: deque[CommandIn] = deque()
        """Commands that arrived with others and wait for the write before them."""

    def decide(self, commands: Sequence[CommandIn]) -> None:
        """Decide ``commands`` (arrived together) in arrival order; write the leading run
        of accepted ones as one append.

        Each is decided on the state the ones before it leave, so the events, acks and
        refusals are those of handling them one at a time; only the writes and patches
        are shared (one store round trip, one patch per viewer, then an ack each). A run
        ends before the first command that is not simply accepted (refused, a repeated
        id, a spectator's, ...): it and the ones after it wait in ``deferred`` until the
        write is over (the core takes them up then), so answers keep their order."""
        state = self.state
        model = state.model
        run: list[Accepted] = []
        for i, c in enumerate(commands):
            decision = self._decide(c, model, run)
            if isinstance(decision, Accepted):
                for record in decision.records:
                    model = evolve(model, model.seq + 1, record)
                decision.seq = model.seq
                run.append(decision)
                continue
            if run:
                self.deferred.extendleft(reversed(commands[i:]))
                break
            if decision is not None:
                self._answer(decision)
            if state.pending is not None:
                self.deferred.extendleft(reversed(commands[i + 1 :]))
                return
        if run:
            records = tuple(r for accepted in run for r in accepted.records)
            names = tuple(n for accepted in run for n in accepted.names)
            state.write(records, names, CommandsAcked(tuple(run)), model)

    def _answer(self, answered: Answered) -> None:
        if answered.store is not None and answered.seat is not None:
            self.state.save_reply(
                answered.seat,
                answered.store,
                ReplySaved(answered.peer, answered.seat, answered.store),
            )
        else:
            self.reply(answered.peer, answered.reply)

    def _decide(self, c: CommandIn, model: RoomModel, run: list[Accepted]) -> Decision:
        """``c`` on ``model`` (see :data:`Decision`)."""
        info = self.state.peers.get(c.peer)
        if info is None:
            return None
        if info.seat is None:
            return Answered(c.peer, None, Reject(c.id, codes.READ_ONLY, "spectators cannot act"))
        seat = info.seat
        digest = body_digest(c.body)
        if any(a.seat == seat and a.id == c.id for a in run):
            return None  # answered once the run is durable (the defer is the answer)
        found = self.state.answers.find(seat, c.id)
        if found is not None:
            if found.body is not None and found.body != digest:
                text = f"command id {c.id!r} was used for another command; use a fresh id"
                return Answered(c.peer, seat, Reject(c.id, codes.ID_REUSED, text))
            return Answered(c.peer, seat, found.reply)
        if not model.started:
            refusal = Reject(c.id, codes.NOT_STARTED, "the game starts when every seat is taken")
            return Answered(c.peer, seat, refusal, Answer(refusal, digest))
        try:
            if model.is_over:
                raise Rejection("the game is over", code="game/over")
            command = model.game.commands.load(dict(c.body), seat=seat)
            events, states = model.game.decide_with_states(model.state, command)
        except Rejection as exc:
            refusal = Reject(c.id, exc.code, exc.message, dict(exc.details))
            return Answered(c.peer, seat, refusal, Answer(refusal, digest))
        if not events:
            nothing = Ack(c.id, model.seq)
            return Answered(c.peer, seat, nothing, Answer(nothing, digest))
        records = played_records(events, c.now, seat, c.id, digest, None, to_data(command),
                                 (model.state, states))  # fmt: skip
        names = tuple(model.game.public_name(e) for e in events)
        return Accepted(c.peer, seat, c.id, tuple(records), names)

    # -- what follows a write --------------------------------------------------------------

    def acked(self, run: tuple[Accepted, ...]) -> None:
        """The run is durable: count it and ack each command."""
        self.state.out.append(Count("commands", (("game", self.state.model.game.name),), len(run)))
        for accepted in run:
            self.reply(accepted.peer, Ack(accepted.id, accepted.seq))

    def reply_saved(self, saved: ReplySaved) -> None:
        """The answer is stored: remember it for a repeated id, and send it."""
        self.state.answers.remember(saved.seat, saved.answer.reply.id, saved.answer)
        self.reply(saved.peer, saved.answer.reply)

    def reply(self, peer: PeerId, reply: Ack | Reject) -> None:
        if isinstance(reply, Reject):
            self.state.out.append(Count("rejections", (("code", reply.code),)))
        if peer in self.state.peers:
            self.state.send((peer,), reply)

    def unavailable(self, peer: PeerId, cmd_id: str) -> None:
        text = "the event log is unavailable; nothing changed; send it again"
        self.reply(peer, Reject(cmd_id, codes.UNAVAILABLE, text))
