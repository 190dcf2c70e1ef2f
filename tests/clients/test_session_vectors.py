"""The shared session and error-outcome vectors (tests/vectors/sessions, tests/vectors/errors)
run through the SDK's sans-I/O Session; the JS SDK runs the same files."""

from __future__ import annotations

import json
from typing import Any

import pytest

from clients.sdk.session import Session, outcome
from protocol.codec import JSON, to_wire
from protocol.messages import ClientMessage
from tests.clients.test_mirror_vectors import observe
from tests.vectors.compare import SESSION_OUTPUTS, SESSION_STATE_KEYS, load, load_file, mismatches

VECTORS = load("sessions")
OUTCOMES = load_file("errors/outcomes.json")["cases"]


def run(vector: dict[str, Any], session: Session | None = None) -> list[str]:
    """Every mismatch of a session vector, as ``step N: ...``."""
    spec = vector["session"]
    session = session or Session(spec["room"], spec["role"], spec["name"], spec["seat_token"],
                                 new_seat_token=spec.get("new_seat_token"),
                                 client_id=spec.get("client"))  # fmt: skip
    failures: list[str] = []
    for n, step in enumerate(vector["steps"]):
        sent: list[ClientMessage] = []
        actions: list[Any] = []
        next_step = None
        if "open" in step:
            sent = session.opened()
        elif "send" in step:
            sent = session.command(step["send"]["id"], step["send"]["command"])
        elif "drop" in step:
            next_step = session.dropped(step["drop"]["reason"])
        else:
            result = session.receive(JSON.decode_server(json.dumps(step["receive"])))
            sent, actions, next_step = result.send, result.actions, result.outcome
        seen = observe(session.mirror, actions)
        del seen["resync_requested"]
        seen |= {
            "sent": [to_wire(msg) for msg in sent],
            "outcome": next_step,
            "pending": list(session.pending),
            "failure": None if session.failure is None else session.failure.code,
        }
        failures += [
            f"step {n}: {m}"
            for m in mismatches(step["expect"], seen, SESSION_STATE_KEYS, SESSION_OUTPUTS)
        ]
    return failures


V2_VECTORS = load("sessions-v2")


def run_v2(vector: dict[str, Any]) -> list[str]:
    """Every mismatch of a version 2 session vector: the session also holds the player's
    session token and an invite code, a step may be an ``act``, and ``player`` is the id
    the last welcome carried."""
    spec = vector["session"]
    session = Session(
        spec["room"], spec["role"], spec["name"], spec["seat_token"],
        session_token=spec["session"], invite=spec["invite"],
        new_seat_token=spec.get("new_seat_token"), client_id=spec.get("client"),
    )  # fmt: skip
    failures: list[str] = []
    for n, step in enumerate(vector["steps"]):
        sent: list[ClientMessage] = []
        actions: list[Any] = []
        next_step = None
        if "open" in step:
            sent = session.opened()
        elif "send" in step:
            sent = session.command(step["send"]["id"], step["send"]["command"])
        elif "act" in step:
            sent = session.act(step["act"]["id"], step["act"]["act"])
        elif "drop" in step:
            next_step = session.dropped(step["drop"]["reason"])
        else:
            result = session.receive(JSON.decode_server(json.dumps(step["receive"])))
            sent, actions, next_step = result.send, result.actions, result.outcome
        seen = observe(session.mirror, actions)
        del seen["resync_requested"]
        seen |= {
            "sent": [to_wire(msg) for msg in sent],
            "outcome": next_step,
            "pending": list(session.pending),
            "failure": None if session.failure is None else session.failure.code,
            "player": session.mirror.player,
        }
        state = (*SESSION_STATE_KEYS, "player")
        failures += [
            f"step {n}: {m}" for m in mismatches(step["expect"], seen, state, SESSION_OUTPUTS)
        ]
    return failures


@pytest.mark.parametrize("vector", V2_VECTORS, ids=lambda v: v["name"])
def test_a_version_2_session_follows_the_vector(vector: dict[str, Any]) -> None:
    """Sessions, invites and acts (tests/vectors/sessions-v2), as the JS SDK runs them."""
    assert run_v2(vector) == []


def test_there_are_vectors() -> None:
    """The session folder covers drops, re-sends, resyncs, moves and final errors."""
    names = {v["name"] for v in VECTORS}
    assert {"drop-mid-game-resume", "resync-pending-across-a-drop", "replaced-gives-up"} <= names


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["name"])
def test_session_follows_the_vector(vector: dict[str, Any]) -> None:
    """Each step's frames sent, mirror state, answers and outcome are what the vector expects."""
    assert run(vector) == []


class ForgetsCommands(Session):
    """A broken session: re-sends nothing after a reconnect."""

    def opened(self) -> list[ClientMessage]:
        self.open = True
        return [self.hello()]


def test_a_broken_session_fails_the_vectors() -> None:
    """The vectors can fail: a session that forgets unanswered commands fails the re-send ones."""
    failing = {v["name"] for v in VECTORS if run(v, ForgetsCommands(**_spec(v)))}
    assert {
        "drop-mid-game-resume",
        "command-while-away",
        "answered-commands-are-not-resent",
    } <= failing


def _spec(vector: dict[str, Any]) -> dict[str, Any]:
    spec = vector["session"]
    return {"room": spec["room"], "role": spec["role"], "name": spec["name"],
            "seat_token": spec["seat_token"], "client_id": spec.get("client")}  # fmt: skip


@pytest.mark.parametrize("case", OUTCOMES, ids=lambda c: f"{c['code']}-{c['fatal']}")
def test_error_outcome(case: dict[str, Any]) -> None:
    """After each error, the client continues, reconnects (at once) or gives up as the vector says."""
    assert outcome(case["code"], case["fatal"]) == case["outcome"], case["why"]
