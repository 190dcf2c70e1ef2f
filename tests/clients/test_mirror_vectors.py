"""The shared mirror vectors (tests/vectors/mirror/*.json) run through the SDK's Mirror."""

from __future__ import annotations

import json
from typing import Any

import pytest

from clients.sdk.mirror import (
    Acked,
    Action,
    Mirror,
    Rejected,
    RequestResync,
    ServerError,
    ViewChanged,
    Welcomed,
)
from protocol.codec import JSON, to_wire
from tests.vectors.compare import load, mismatches

VECTORS = load()


def observe(mirror: Mirror, actions: list[Action]) -> dict[str, Any]:
    """The step as plain data, named as in the vectors' ``expect``."""
    seen: dict[str, Any] = {
        "seq": mirror.seq,
        "view": mirror.view,
        "seat": mirror.seat,
        "seat_token": mirror.seat_token,
        "game": mirror.game,
        "role": mirror.role,
        "presence": None if mirror.presence is None else to_wire(mirror.presence),
        "resyncing": mirror.resyncing,
        "resume_seq": mirror.resume_seq,
        "welcomed": False,
        "changed": None,
        "resync_requested": False,
        "answers": {},
        "error": None,
    }
    for action in actions:
        match action:
            case Welcomed():
                seen["welcomed"] = True
            case ViewChanged(events=events):
                seen["changed"] = list(events)
            case RequestResync():
                assert not seen["resync_requested"], "one resync per step"
                seen["resync_requested"] = True
            case Acked(id=cmd_id, seq=seq):
                seen["answers"][cmd_id] = {"ack": seq}
            case Rejected(reject=r):
                body = {"code": r.code, "message": r.message, "details": r.details}
                seen["answers"][r.id] = {"reject": body}
            case ServerError(error=e):
                seen["error"] = {"code": e.code, "fatal": e.fatal}
    return seen


def run(vector: dict[str, Any], mirror: Mirror | None = None) -> list[str]:
    """Every mismatch of ``vector`` run through a fresh ``Mirror``, as ``step N: ...``."""
    mirror = mirror or Mirror()
    failures: list[str] = []
    for n, step in enumerate(vector["steps"]):
        msg = JSON.decode_server(json.dumps(step["receive"]))  # a vector holds real wire data
        actions = mirror.receive(msg)
        failures += [f"step {n}: {m}" for m in mismatches(step["expect"], observe(mirror, actions))]
    return failures


def test_there_are_vectors() -> None:
    """The vector folder holds the scenarios the README lists."""
    names = {v["name"] for v in VECTORS}
    assert {"welcome-snapshot", "gap-then-resync", "bad-op-resyncs", "fatal-error"} <= names


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["name"])
def test_mirror_follows_the_vector(vector: dict[str, Any]) -> None:
    """Each step's state and actions are what the vector expects."""
    assert run(vector) == []


class AppliesEveryPatch(Mirror):
    """A broken mirror: applies any patch that fits, ignoring from/to (never resyncs on a gap)."""

    def _patch(self, msg: Any) -> list[Action]:
        from protocol.patch import apply

        try:
            self.view = apply(self.view, msg.ops)
        except Exception:
            return []
        self.seq = msg.to
        return [ViewChanged(msg.to, msg.events)]


def test_a_broken_mirror_fails_the_vectors() -> None:
    """The vectors can fail: a mirror that ignores sequence numbers fails the gap scenarios."""
    failing = {v["name"] for v in VECTORS if run(v, AppliesEveryPatch())}
    assert {"gap-then-resync", "old-patch-ignored", "bad-op-resyncs"} <= failing
