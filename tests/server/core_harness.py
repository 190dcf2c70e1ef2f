"""A table for the room core: a log in a list, a fake clock, and writes that can fail.

``Table`` plays the shell's part without asyncio: every Append lands in ``log`` (or
fails as told), every Settle reads ``log`` back, and every output is kept so a test
can say "given these records, when these inputs, then these outputs".
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import attrs
from msgpack import packb

from engine.core import get_game
from engine.data import to_data
from protocol.codec import MSGPACK
from protocol.messages import Ack, Reject, ServerMessage, Welcome
from protocol.patch import same
from server.room.core import CoreSettings, RoomCore
from server.room.io import (
    ActIn,
    Append,
    Arm,
    CommandIn,
    Input,
    Join,
    Leave,
    Output,
    SaveReply,
    Send,
    SendFrames,
    Settle,
    TailRead,
    TimerFired,
    WriteDone,
    WriteFailed,
)
from server.room.model.answers import reply_from_plain
from server.room.model.records import created_record, seated_record, to_plain
from server.room.rebuild import rebuild_core
from server.store.base import pack, unpack

T0 = 1_800_000_000.0


@attrs.define
class Table:
    """One room's core driven by hand."""

    core: RoomCore
    log: list[tuple[int, dict[str, Any]]]
    replies: list[tuple[int, str, dict[str, Any]]] = attrs.field(factory=list)
    now: float = T0
    outputs: list[Output] = attrs.field(factory=list)
    faults: list[str] = attrs.field(factory=list)
    """What the next writes do: ``ok``, ``certain`` (nothing written), ``lost`` (unknown,
    not written), ``landed`` (unknown, written), ``conflict``."""
    armed: dict[str, float] = attrs.field(factory=dict)

    @classmethod
    def new(
        cls,
        game: str = "rollie",
        seats: int = 2,
        options: Mapping[str, Any] | None = None,
        clock: float = 0.0,
        seed: int = 1,
        settings: Mapping[str, Any] | None = None,
        bots: int = 0,
        core_settings: CoreSettings | None = None,
    ) -> Table:
        created = created_record(get_game(game), seats, options or {}, seed, clock, T0,
                                 {"bot_delay": 0.5, **(settings or {})},
                                 salt=f"salt{seed:x}feedface")  # fmt: skip
        records = [created, *(seated_record(s, f"bot {s + 1}", None, "", T0) for s in range(bots))]
        log = [(seq, unpack(pack(to_plain(r)))) for seq, r in enumerate(records, start=1)]
        table = cls(rebuild_core("r-test", log, settings=core_settings or CoreSettings()), log)
        return table

    def rebuilt(self) -> Table:
        """The same room rebuilt from its log and stored replies (a restart)."""
        core = rebuild_core("r-test", self.log, self.replies, self.core.settings)
        return Table(core, self.log, self.replies, self.now)

    # -- driving -------------------------------------------------------------------------

    def feed(self, inp: Input) -> list[Output]:
        """Handle ``inp`` and carry out every write as the shell would; all outputs."""
        seen: list[Output] = []
        pending: Input | None = inp
        while pending is not None:
            outs = self.core.handle(pending)
            seen += outs
            pending = None
            for out in outs:
                result = self._do(out)
                if result is not None:
                    pending = result
        self.outputs += seen
        return seen

    def _do(self, out: Output) -> Input | None:
        match out:
            case Append():
                fault = self.faults.pop(0) if self.faults else "ok"
                last = self.log[-1][0]
                if fault == "conflict" or out.expected != last:
                    return WriteFailed(True, "conflict", self.now, conflict=True)
                if fault == "certain":
                    return WriteFailed(True, "store down", self.now)
                if fault in ("ok", "landed"):
                    for i, record in enumerate(out.records, start=1):
                        self.log.append((last + i, unpack(pack(to_plain(record)))))
                if fault in ("lost", "landed"):
                    return WriteFailed(False, "timeout after send", self.now)
                return WriteDone(self.now)
            case SaveReply():
                fault = self.faults.pop(0) if self.faults else "ok"
                if fault != "ok":
                    return WriteFailed(True, "store down", self.now)
                self.replies.append((out.seat, out.cmd_id, dict(out.data)))
                return WriteDone(self.now)
            case Settle():
                tail = tuple((s, d) for s, d in self.log if s > out.after)
                return TailRead(tail, self.now)
            case Arm():
                self.armed[out.key] = out.at
        return None

    def random_move(
        self, rng: random.Random, policy_share: float = 0.0
    ) -> tuple[int, dict[str, Any]] | None:
        """A legal command of a seat that has one, as its peer ``seat + 1`` would send it
        (the game's first bot's pick ``policy_share`` of the time, else a random legal
        one); when no seat has one, time moves on by 1000 s instead. None at the end."""
        while not self.model.is_over:
            commands = self.core.views.commands
            movers = [s for s in range(self.model.seats) if commands.get(s)]
            if not movers:
                self.fire_due(self.now + 1000)
                continue
            seat = rng.choice(movers)
            legal = commands[seat]
            if rng.random() < policy_share:
                policy = next(iter(self.model.game.policies.values()))
                command = policy(self.model.game.view(self.model.state, seat), seat, legal, rng)
            else:
                command = rng.choice(legal)
            body = to_data(command)
            body.pop("seat", None)
            return seat, body
        return None

    def at(self, now: float) -> Table:
        self.now = now
        return self

    def join(self, peer: int, name: str | None = None, token: str | None = None,
             last_seq: int | None = None, role: str = "player", codec: str = "rollhouse.v1.json",
             player: str | None = None, invite: str | None = None,
             own: str | None = None, client: str | None = None,
             attempt: int | None = None) -> list[Output]:  # fmt: skip
        """A hello (``own``: its ``new_seat_token``; ``client``, ``attempt``: which
        connection of which client)."""
        fresh = own or f"tok-{peer}-{len(self.outputs)}"
        return self.feed(Join(peer, codec, role, name, token, last_seq, fresh, self.now,
                              player, invite, own is not None, client, attempt))  # fmt: skip

    def act(self, peer: int, act_id: str, **act: Any) -> list[Output]:
        return self.feed(ActIn(peer, act_id, act, self.now))

    def command(self, peer: int, cmd_id: str, body: Mapping[str, Any]) -> list[Output]:
        return self.feed(CommandIn(peer, cmd_id, body, self.now))

    def leave(self, peer: int) -> list[Output]:
        return self.feed(Leave(peer, self.now))

    def fire_due(self, until: float) -> None:
        """Advance the clock to ``until``, firing every armed timer due on the way."""
        while True:
            due = sorted((t, k) for k, t in self.armed.items() if t <= until)
            if not due:
                break
            at, key = due[0]
            del self.armed[key]
            self.now = max(self.now, at)
            self.feed(TimerFired(key, self.now))
        self.now = until

    # -- reading outputs -------------------------------------------------------------------

    @staticmethod
    def sent(outputs: list[Output], peer: int) -> list[ServerMessage]:
        """What ``peer`` was sent, in order (frames the core kept encoded, decoded)."""
        out: list[ServerMessage] = []
        for o in outputs:
            if isinstance(o, Send) and peer in o.peers:
                out.append(o.message)
            elif isinstance(o, SendFrames) and o.peer == peer:
                out += [MSGPACK.decode_server(frame) for frame in o.frames]
        return out

    def answers(self, outputs: list[Output], peer: int) -> list[Ack | Reject]:
        return [m for m in self.sent(outputs, peer) if isinstance(m, Ack | Reject)]

    def welcome(self, outputs: list[Output], peer: int) -> Welcome:
        return next(m for m in self.sent(outputs, peer) if isinstance(m, Welcome))

    @property
    def model(self) -> Any:
        return self.core.model

    def records(self, kind: str) -> list[dict[str, Any]]:
        return [d for _, d in self.log if d["k"] == kind]

    def stored_answer(self, seat: int, cmd_id: str) -> Ack | Reject | None:
        for s, i, data in self.replies:
            if (s, i) == (seat, cmd_id):
                return reply_from_plain(i, data).reply
        return None


def strictly_same(a: Any, b: Any) -> bool:
    """:func:`protocol.patch.same` (types must match: ``1``, ``True`` and ``1.0`` differ),
    mostly at C speed: values that are equal and whose msgpack forms are equal byte for
    byte, of exact plain types (``strict_types``), are the same; anything else (the keys of
    a map in another order, a tuple, a type msgpack refuses) is left to ``same``."""
    try:
        if a == b and packb(a, strict_types=True) == packb(b, strict_types=True):
            return True
    except (TypeError, ValueError, OverflowError):
        pass
    return same(a, b)
