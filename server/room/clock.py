"""The room core's sense of time: clock timeouts, hosted-bot and takeover moves, the
bookkeeping records a room owes its log, and the timers that wake it (a part of
:class:`server.room.core.RoomCore`; pure like it: the time is always an argument).

After every input the core calls :meth:`Clockwork.drive`: it writes what is due now,
one write at a time (bookkeeping first, then the first clock timeout in turn order),
and otherwise brings the armed timers in line with what the model waits for. A failed
write pushes everything back by the core's backoff.

A hosted bot that reads its view moves at once. A searching bot
(:class:`engine.core.SearchBot`) would hold the event loop for a while, so the core
asks the shell to think (:class:`~server.room.io.Think`, with the frozen state) and
plays the answer (:class:`~server.room.io.BotThought`) only if the room has not moved
on since; a stale answer is dropped and the bot thinks again.
"""

from __future__ import annotations

import logging
import random
from typing import Any

from engine.core import SearchBot
from engine.data import to_data
from engine.errors import Rejection
from server.room.io import Arm, BotThought, Disarm, Reopened, Think
from server.room.model.records import (
    Left,
    Record,
    Returned,
    RoomAct,
    TakenOver,
    Unseated,
    played_records,
)
from server.room.state import RoomState
from server.room.table import Table
from server.room.then import Bookkept, Moved

log = logging.getLogger("rollhouse.room")

EARLY = 0.002
"""A timer counts as due this long before its time (the shell's timers are not exact)."""


class Clockwork:
    """What time alone makes a room do."""

    def __init__(self, state: RoomState, table: Table) -> None:
        self.state = state
        self.table = table
        self.backoff_until = 0.0
        """No write before this time (a failed write backs off)."""
        self.bot_due: dict[int, float] = {}
        self.thinking: dict[int, int] = {}
        """Seats whose searching bot is thinking off the loop, with the seq it thinks on."""
        self.stuck: set[tuple[int, int]] = set()
        """(seat, seq) pairs whose move was refused: tried again once the room moves."""

    def _play(self, seat: int, command: Any, now: float, by: str, cmd: str | None) -> bool:
        """Append the events of a move the room makes for ``seat``; False if refused."""
        model = self.state.model
        try:
            events, states = model.game.decide_with_states(model.state, command)
        except Rejection as exc:
            log.warning(
                "room %s: %s move for seat %s refused: %s", model.room_id, by, seat, exc.code
            )
            self.stuck.add((seat, model.seq))
            return False
        if not events:
            self.stuck.add((seat, model.seq))
            return False
        records = played_records(events, now, seat, cmd, None, by, to_data(command),
                                 (model.state, states))  # fmt: skip
        names = (by, *(model.game.public_name(e) for e in events))
        self.state.write(tuple(records), names, Moved())
        return True

    def timer(self, key: str, now: float) -> None:
        self.state.armed.pop(key, None)
        if key == "presence":
            if self.table.presence_at is not None:
                self.table.presence_now(now)
        elif key.startswith("bot:"):
            seat = int(key[4:])
            due = self.bot_due.get(seat)
            if due is not None and due <= now + EARLY and now >= self.backoff_until - EARLY:
                self._bot_move(seat, now)

    def _bot_seats(self) -> list[int]:
        """Awaited seats a bot plays now: hosted bots, and seats taken over."""
        model = self.state.model
        if not model.live:
            return []
        out = []
        for seat in sorted(model.game.awaiting(model.state)):
            info = model.holders.get(seat)
            if info is None:
                continue
            if info.bot is not None or (seat in model.taken_over and seat not in self.state.seated):
                out.append(seat)
        return out

    def _bot_move(self, seat: int, now: float) -> None:
        model = self.state.model
        if self.thinking.get(seat) == model.seq:
            return  # its thought is on the way
        if seat not in self._bot_seats() or (seat, model.seq) in self.stuck:
            self.bot_due.pop(seat, None)
            return
        info = model.holders[seat]
        by = "bot" if info.bot is not None else "takeover"
        name = info.bot or str(model.settings.get("takeover_policy") or "")
        policies = model.game.policies
        policy = policies.get(name) or next(iter(policies.values()))
        legal = model.game.legal_commands(model.state, seat)
        if not legal:
            return
        seed = f"{model.room_id}:{model.seq}:{seat}"
        if isinstance(policy, SearchBot):  # it searches the state: off the event loop
            self.thinking[seat] = model.seq
            self.state.out.append(Think(seat, model.seq, model.game, model.state, policy, seed))
            return
        command = policy(self.state.views.game[seat], seat, legal, random.Random(seed))
        if self._play(seat, command, now, by, f"{by}-{model.seq}"):
            self.bot_due.pop(seat, None)

    def thought(self, thought: BotThought) -> None:
        """A searching bot's command, played if the room is still where it thought;
        otherwise dropped (the bot's timer brings a fresh thought)."""
        model = self.state.model
        if self.thinking.get(thought.seat) != thought.seq:
            return
        del self.thinking[thought.seat]
        seat = thought.seat
        if model.seq != thought.seq or seat not in self._bot_seats():
            return
        if thought.command is None:
            self.stuck.add((seat, model.seq))
            return
        by = "bot" if model.holders[seat].bot is not None else "takeover"
        if self._play(seat, thought.command, thought.now, by, f"{by}-{model.seq}"):
            self.bot_due.pop(seat, None)

    def drive(self, now: float) -> None:
        """Do what is due now (one write at a time), then arm the timers for what is next."""
        if self._still():
            return
        if now + EARLY >= self.backoff_until:
            record = self._bookkeeping(now)
            if record is not None:
                self.state.write((record,), (), Bookkept(record))
                return
            due = self._due_timeout(now)
            if due is not None and self._timeout(due, now):
                return
        self._arm(now)

    def _still(self) -> bool:
        """Nothing for time to do: no clock, hosted bot or takeover in this room, no seat
        to give back, no retry or presence waiting, and no timer armed (so nothing to
        disarm). Most commands of most rooms: :meth:`drive` need not look further."""
        state, model = self.state, self.state.model
        if state.armed or self.bot_due or self.table.unconfirmed or self.backoff_until:
            return False
        over = model.is_over or model.closed is not None
        if (self.table.host_gone is not None and not over) or waits_for_people(model):
            return False
        if (
            self.table.presence_at is not None
            or model.clock > 0
            or model.takeover_after is not None
        ):
            return False
        return not model.taken_over and all(h.bot is None for h in model.holders.values())

    def bookkept(self, record: Record, now: float) -> None:
        """A bookkeeping record is durable: a seat given back is no longer owed; tell
        everyone who is here."""
        if isinstance(record, Unseated):
            self.table.unconfirmed.discard(record.seat)
            if self.state.model.status == "waiting":
                self.state.out.append(Reopened())
        self.table.note_host(now)
        self.table.presence(now)

    def _bookkeeping(self, now: float) -> Record | None:
        """The next record the room owes its log: seats to give back, time away."""
        state, model, table = self.state, self.state.model, self.table
        for seat in sorted(table.unconfirmed):
            if seat in model.holders and seat not in state.seated:
                return Unseated(seat, now)
            table.unconfirmed.discard(seat)
        for seat, info in sorted(model.holders.items()):  # a quick match's seat, never claimed
            if info.hold is not None and now + EARLY >= info.hold:
                return Unseated(seat, now)
        due = _fill_due(model)
        if due is not None and now + EARLY >= due:
            policy = str(model.settings.get("takeover_policy") or "")
            return RoomAct({"type": "fill", "seats": model.free_seats(), "policy": policy}, now)
        heir = self._heir(now)
        if heir is not None:
            return RoomAct({"type": "host", "player": heir}, now)
        grace = model.takeover_after
        if grace is None or not model.live:
            return None
        for seat in sorted(model.humans()):
            here, away = seat in state.seated, seat in model.away
            if not here and not away:
                return Left(seat, table.left_at.get(seat, now))
            if here and away:
                return Returned(seat, now)
            if away and seat not in model.taken_over and now + EARLY >= model.away[seat] + grace:
                return TakenOver(seat, now)
        return None

    def _heir(self, now: float) -> str | None:
        """Who the host role passes to, if the host has been gone past the room's grace:
        the seated player in the lowest seat who is here."""
        state, model, gone = self.state, self.state.model, self.table.host_gone
        if gone is None or model.is_over or now + EARLY < gone + model.host_grace:
            return None
        for seat in sorted(state.seated):
            info = model.holders.get(seat)
            if info is not None and info.player is not None and info.player != model.host:
                return info.player
        return None

    def _due_timeout(self, now: float) -> int | None:
        """The first seat in turn order whose clock has run out."""
        model = self.state.model
        deadlines = model.deadlines()
        if not deadlines or not model.live:
            return None
        for seat in model.game.turn_order(model.state, model.seats):
            if (
                seat in deadlines
                and deadlines[seat] <= now + EARLY
                and (seat, model.seq) not in self.stuck
            ):
                return seat
        return None

    def _timeout(self, seat: int, now: float) -> bool:
        model = self.state.model
        command = model.game.timeout_command(model.state, seat)
        if command is None:
            self.stuck.add((seat, model.seq))
            return False
        return self._play(seat, command, now, "timeout", None)

    def _arm(self, now: float) -> None:
        """Bring the armed timers in line with what the model waits for."""
        state, model = self.state, self.state.model
        wanted: dict[str, float] = {}
        deadlines = [t for s, t in model.deadlines().items() if (s, model.seq) not in self.stuck]
        if deadlines and model.live:
            wanted["clock"] = min(deadlines)
        grace = model.takeover_after
        if grace is not None and model.live:
            ends = [t + grace for s, t in model.away.items() if s not in model.taken_over]
            if ends:
                wanted["wake"] = min(ends)
        playing = {
            s
            for s in self._bot_seats()
            if (s, model.seq) not in self.stuck and self.thinking.get(s) != model.seq
        }
        delay = float(model.settings.get("bot_delay", 0.8))
        for seat in list(self.bot_due):
            if seat not in playing:
                del self.bot_due[seat]
        for seat in playing:
            wanted[f"bot:{seat}"] = self.bot_due.setdefault(seat, now + delay)
        people = [info.hold for info in model.holders.values() if info.hold is not None]
        fill = _fill_due(model)
        if fill is not None:
            people.append(fill)
        over = model.is_over or model.closed is not None
        if self.table.host_gone is not None and model.host is not None and not over:
            people.append(self.table.host_gone + model.host_grace)
        if people:
            wanted["people"] = min(people)
        if self.backoff_until > now:
            wanted = {k: max(t, self.backoff_until) for k, t in wanted.items()}
            wanted["retry"] = self.backoff_until
        if self.table.presence_at is not None:  # not a write: never held back by a retry
            wanted["presence"] = self.table.presence_at
        armed = state.armed
        for key in [k for k in armed if k not in wanted]:
            del armed[key]
            state.out.append(Disarm(key))
        for key, at in wanted.items():
            if armed.get(key) != at:
                armed[key] = at
                state.out.append(Arm(key, at))


def _fill_due(model: Any) -> float | None:
    """When a room that asked for it fills its free seats with bots (None: never)."""
    after = model.settings.get("fill_bots_after")
    if after is None or model.started or model.is_over or model.closed or not model.free_seats():
        return None
    return float(model.created_at) + float(after)


def waits_for_people(model: Any) -> bool:
    """Seats held for players, or a fill with bots to come."""
    if model.closed is not None:
        return False
    return any(h.hold is not None for h in model.holders.values()) or _fill_due(model) is not None
