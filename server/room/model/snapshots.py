"""A room's model and acks at one seq, as plain data: what loading a long room starts from.

Every ``snapshot_every`` events the room core asks its shell to keep a snapshot beside
the log (:meth:`server.store.EventStore.save_snapshot`, best effort: a snapshot that is
not written only makes the next load longer). Loading then reads the first record
(the room's ``created``: game, seats, options, seed), the snapshot and the records
after it, instead of folding the whole log through the engine.

A snapshot is derived from the log alone (the model folded up to ``seq``, and the acks
the log's records carry up to there), so it can never disagree with the log, whoever
wrote it. The acks come along so that a command acked before the snapshot is still
answered with its first ack (docs/protocol.md: acks are remembered for the room's
lifetime). A snapshot that does not parse (another version, missing parts) is ignored
and the room is rebuilt from its whole log. Its values are read as the room's own
writing (:func:`engine.data.trusted_data`: shapes are checked, types are not).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from engine.data import to_data, trusted_data
from server.room.model.room import ChatLine, RoomModel, SeatInfo

VERSION = 2
"""2: seats held by players, the host, invites, members, bans, the lock and chat."""


def snapshot_of(
    model: RoomModel, acks: list[list[Any]], acts: list[list[Any]] | None = None
) -> dict[str, Any]:
    """The plain data that rebuilds ``model`` (and its acks, of commands and of acts) from
    its ``created`` record."""
    return {
        "v": VERSION,
        "seq": model.seq,
        "game": model.game.name,
        "state": to_data(model.state),
        "holders": [
            [s, h.name, h.token, h.bot, h.player, h.hold] for s, h in sorted(model.holders.items())
        ],
        "awaiting_since": [[s, t] for s, t in sorted(model.awaiting_since.items())],
        "away": [[s, t] for s, t in sorted(model.away.items())],
        "taken_over": sorted(model.taken_over),
        "rematch": model.rematch,
        "last_move": None if model.last_move is None else list(model.last_move),
        "acks": acks,
        "acts": acts or [],
        "host": model.host,
        "invite": model.invite,
        "members": sorted(model.members),
        "banned": sorted(model.banned),
        "banned_tokens": sorted(model.banned_tokens),
        "locked": model.locked,
        "chat": [[c.seq, c.channel, c.text, c.at, c.name, c.seat, c.player] for c in model.chat],
    }


class BadSnapshot(ValueError):
    """A snapshot this code cannot use (the room is then rebuilt from its whole log)."""


def model_from(base: RoomModel, data: Mapping[str, Any]) -> RoomModel:
    """``base`` (the model after ``created``) moved to the snapshot's seq; BadSnapshot
    if ``data`` is not a snapshot of this room that this version reads."""
    try:
        if data["v"] != VERSION or data["game"] != base.game.name:
            raise BadSnapshot(f"snapshot version {data['v']!r} of game {data['game']!r}")
        state = trusted_data(type(base.state), data["state"])
        holders = {
            int(s): SeatInfo(n, t, b, p, None if h is None else float(h))
            for s, n, t, b, p, h in data["holders"]
        }
        last = data["last_move"]
        return attrs.evolve(
            base,
            state=state,
            seq=int(data["seq"]),
            holders=holders,
            awaiting_since={int(s): float(t) for s, t in data["awaiting_since"]},
            away={int(s): float(t) for s, t in data["away"]},
            taken_over=frozenset(int(s) for s in data["taken_over"]),
            rematch=data["rematch"],
            last_move=None if last is None else (int(last[0]), last[1]),
            host=data["host"],
            invite=data["invite"],
            members=frozenset(data["members"]),
            banned=frozenset(data["banned"]),
            banned_tokens=frozenset(data["banned_tokens"]),
            locked=bool(data["locked"]),
            chat=tuple(
                ChatLine(int(q), c, x, float(a), n, s, p) for q, c, x, a, n, s, p in data["chat"]
            ),
        )
    except BadSnapshot:
        raise
    except Exception as exc:  # any shape this code does not expect
        raise BadSnapshot(f"unreadable snapshot: {type(exc).__name__}: {exc}") from exc
