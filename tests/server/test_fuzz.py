"""The edge, fuzzed against a real server process: the websocket endpoint, the HTTP API,
and a stateful run of several clients checked against the log after every step.

Time-boxed here (``ROLLHOUSE_FUZZ_EXAMPLES``, default 25 per test; ``make fuzz`` runs
2000). Every loop is bounded; everything talks to 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.support.server import ServerProcess

EXAMPLES = int(os.environ.get("ROLLHOUSE_FUZZ_EXAMPLES", "25"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
JSON_PROTO, MSGPACK_PROTO = "rollhouse.v1.json", "rollhouse.v1.msgpack"
pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir = tmp_path_factory.mktemp("fuzz")
    env = {"ROLLHOUSE_REFUSALS_BURST": "100000", "ROLLHOUSE_RATE": "100000",
           "ROLLHOUSE_RESYNC_BURST": "100000", "ROLLHOUSE_CREATIONS_PER_MINUTE": "100000"}  # fmt: skip
    proc = ServerProcess(f"sqlite:///{workdir}/fuzz.db", workdir, env=env)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
        log = "".join(p.read_text() for p in workdir.glob("server-*.log"))
        assert "Traceback" not in log, log[-4000:]


def new_room(server: ServerProcess, seats: int = 2) -> str:
    body = {"game": "rollie", "seats": seats, "options": {"rounds": 2}, "room": {"clock": 0}}
    reply = httpx.post(server.url + "/api/rooms", json=body, timeout=10)
    assert reply.status_code == 201
    return str(reply.json()["room"])


def room_seq(server: ServerProcess, room: str) -> int:
    return int(httpx.get(f"{server.url}/api/rooms/{room}", timeout=10).json()["seq"])


def read_log(server: ServerProcess, room: str) -> list[tuple[int, dict[str, Any]]]:
    """The room's log straight from the SQLite file (read-only)."""
    db = sqlite3.connect(f"file:{server.workdir}/fuzz.db?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT seq, data FROM events WHERE room = ? ORDER BY seq", (room,))
        return [(seq, msgpack.unpackb(blob, raw=False)) for seq, blob in rows]
    finally:
        db.close()


def drain_until(ws: ClientConnection, kind: str, limit: int = 200) -> list[dict[str, Any]]:
    """Messages up to and including the first of ``kind`` (bounded)."""
    out = []
    for _ in range(limit):
        raw = ws.recv(timeout=10)
        message = msgpack.unpackb(raw, raw=False) if isinstance(raw, bytes) else json.loads(raw)
        out.append(message)
        if message.get("type") == kind:
            return out
    raise AssertionError(f"no {kind} in {limit} messages")


# -- strategies ------------------------------------------------------------------------------

plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
TYPES = ["hello", "command", "resync", "ping", "welcome", "patch", "", "ack"]
message_like = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES)},
    optional={
        "id": st.text(max_size=70) | st.integers(),
        "command": plain | st.fixed_dictionaries({"type": st.sampled_from(["roll", "take", "secure", "x"])},
                                                 optional={"value": plain}),
        "room": st.text(max_size=70),
        "role": st.sampled_from(["player", "spectator", "judge"]) | plain,
        "last_seq": st.integers(-5, 2**64) | plain,
        "seat_token": st.text(max_size=30) | plain,
        "nonce": plain,
        "name": plain,
    },
)  # fmt: skip
frames = st.one_of(
    message_like.map(lambda m: ("json", json.dumps(m, allow_nan=True))),
    plain.map(lambda m: ("json", json.dumps(m, allow_nan=True))),
    st.text(max_size=200).map(lambda t: ("json", t)),
    st.binary(max_size=200).map(lambda b: ("msgpack", b)),
    message_like.map(lambda m: ("msgpack", msgpack.packb(m, default=str))),
)


def _fuzz_frames_into(server: ServerProcess, room: str, batch: list[tuple[str, Any]]) -> None:
    for proto in (JSON_PROTO, MSGPACK_PROTO):
        with (
            contextlib.suppress(ConnectionClosed),
            connect(server.ws_url, subprotocols=[proto]) as ws,
        ):  # type: ignore[list-item]
            hello = {"type": "hello", "room": room, "role": "spectator"}
            ws.send(json.dumps(hello) if proto == JSON_PROTO else msgpack.packb(hello))
            for kind, frame in batch:
                if (kind == "json") == (proto == JSON_PROTO) or kind == "msgpack":
                    ws.send(frame)
            ws.send(json.dumps({"type": "ping", "nonce": 1}) if proto == JSON_PROTO
                    else msgpack.packb({"type": "ping", "nonce": 1}))  # fmt: skip
            for _ in range(300):  # every frame answered or ignored; the socket stays usable
                raw = ws.recv(timeout=10)
                message = (
                    msgpack.unpackb(raw, raw=False) if isinstance(raw, bytes) else json.loads(raw)
                )
                if message.get("type") == "pong" and message.get("nonce") == 1:
                    break


@FUZZ
@given(batch=st.lists(frames, min_size=1, max_size=8))
def test_websocket_fuzz_never_crashes_or_changes_a_room(
    server: ServerProcess, batch: list[tuple[str, Any]]
) -> None:
    """Random frames (valid, broken, hostile) from a spectator of a room: the server
    answers or closes, never crashes, and the room does not change."""
    room = FUZZ_ROOM.setdefault("room", new_room(server))
    before = room_seq(server, room)
    _fuzz_frames_into(server, room, batch)
    assert room_seq(server, room) == before
    assert httpx.get(server.url + "/api/health", timeout=10).status_code == 200


FUZZ_ROOM: dict[str, str] = {}

headers = st.dictionaries(
    st.sampled_from(
        ["content-type", "idempotency-key", "origin", "x-forwarded-for", "accept", "authorization"]
    ),
    st.text(
        alphabet=st.characters(min_codepoint=33, max_codepoint=126), max_size=40
    ),  # legal header text
    max_size=3,
)
bodies = st.one_of(
    st.binary(max_size=300),
    plain.map(lambda p: json.dumps(p).encode()),
    st.fixed_dictionaries({"game": st.sampled_from(["rollie", "roll-player", "roll-builder", "chess"]) | plain},
                          optional={"seats": plain | st.integers(-3, 9), "options": plain, "room": plain})
    .map(lambda p: json.dumps(p).encode()),
    st.fixed_dictionaries({}, optional={"name": plain | st.text(max_size=40),
                                        "username": plain | st.text(max_size=40),
                                        "password": plain | st.text(max_size=300)})
    .map(lambda p: json.dumps(p).encode()),
)  # fmt: skip
paths = st.sampled_from(["/api/rooms", "/api/rooms/r-00000000", "/api/games", "/api/health", "/api/x",
                         "/api/rooms/../../etc", "/api/rooms/r-1/rematch", "/metrics", "/",
                         "/api/players", "/api/me", "/api/me/credentials", "/api/me/rooms?limit=x",
                         "/api/sessions", "/api/sessions/current"])  # fmt: skip


@FUZZ
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]),
    path=paths,
    body=bodies,
    extra=headers,
)
def test_http_fuzz_never_answers_500(
    server: ServerProcess, method: str, path: str, body: bytes, extra: dict[str, str]
) -> None:
    """Any method, path, body and header a client can send: never a 500, always JSON on /api."""
    reply = httpx.request(method, server.url + path, content=body, headers=extra, timeout=10)
    assert reply.status_code < 500, (reply.status_code, reply.text[:300])
    if path.startswith("/api") and reply.status_code >= 400:
        assert "code" in reply.json()["error"]


# -- a stateful run ------------------------------------------------------------------------


class Table(RuleBasedStateMachine):
    """Two players and a spectator on one Rollie room, joining, dropping, resuming with
    stale and future seqs, sending legal, illegal, repeated and reused commands."""

    server: ServerProcess

    def __init__(self) -> None:
        super().__init__()
        self.room = new_room(self.server)
        self.tokens: dict[int, str | None] = {0: None, 1: None}
        self.sockets: dict[int, ClientConnection | None] = {0: None, 1: None, 2: None}
        self.views: dict[int, tuple[int, dict[str, Any]] | None] = {0: None, 1: None, 2: None}
        self.sent: dict[tuple[int, str], dict[str, Any]] = {}
        self.answers: dict[tuple[int, str], dict[str, Any]] = {}
        self.seats: dict[int, int] = {}
        self.opened = contextlib.ExitStack()  # every socket opened, closed again at teardown

    # -- plumbing --------------------------------------------------------------------------

    def _take(self, who: int, messages: list[dict[str, Any]]) -> None:
        for m in messages:
            if m["type"] in ("welcome", "snapshot") and m.get("view") is not None:
                self.views[who] = (m["seq"], m["view"])
                if m["type"] == "welcome" and m.get("seat") is not None:
                    self.seats[who] = m["seat"]
                    self.tokens[who] = m["seat_token"]
            elif m["type"] == "patch" and self.views[who] is not None:
                from protocol.patch import apply

                seq, view = self.views[who]  # type: ignore[misc]
                if m["from"] == seq:
                    self.views[who] = (m["to"], apply(view, m["ops"]))
            elif m["type"] in ("ack", "reject"):
                key = (who, m["id"])
                first = self.answers.get(key)
                if first is None or m.get("code") == "command/id_reused":
                    self.answers.setdefault(key, m)
                else:
                    assert m == first, (m, first)  # a repeated id gets the same answer

    def _sync(self, who: int) -> None:
        ws = self.sockets[who]
        if ws is None:
            return
        ws.send(json.dumps({"type": "resync"}))
        self._take(who, drain_until(ws, "snapshot"))

    def _open(self, who: int, last_seq: int | None) -> None:
        ws = self.opened.enter_context(
            connect(self.server.ws_url, subprotocols=[JSON_PROTO])  # type: ignore[list-item]
        )
        hello: dict[str, Any] = {"type": "hello", "room": self.room}
        if who == 2:
            hello["role"] = "spectator"
        else:
            hello["role"] = "player"
            if self.tokens[who]:
                hello["seat_token"] = self.tokens[who]
        if last_seq is not None:
            hello["last_seq"] = last_seq
        ws.send(json.dumps(hello))
        self.sockets[who] = ws
        self._take(who, drain_until(ws, "welcome"))
        self._sync(who)

    # -- rules -----------------------------------------------------------------------------

    @rule(who=st.sampled_from([0, 1, 2]), lag=st.sampled_from([None, 0, 2, -3, 50]))
    def join(self, who: int, lag: int | None) -> None:
        """Join or rejoin, resuming from the seq held, an older one, or one from the future."""
        if self.sockets[who] is not None:
            return
        held = self.views[who]
        last = None if lag is None or held is None else max(0, held[0] - lag)
        self._open(who, last)

    @rule(who=st.sampled_from([0, 1, 2]))
    def drop(self, who: int) -> None:
        ws = self.sockets[who]
        if ws is not None:
            ws.close()
            self.sockets[who] = None

    @precondition(lambda self: any(self.sockets[w] for w in (0, 1)))
    @rule(who=st.sampled_from([0, 1]), pick=st.integers(0, 20),
          body=st.sampled_from([None, {"type": "roll"}, {"type": "secure"}, {"type": "take", "value": 7},
                                {"type": "take", "value": "5"}, {"type": "nope"}]))  # fmt: skip
    def command(self, who: int, pick: int, body: dict[str, Any] | None) -> None:
        """A legal command from the view (body None), or an illegal one."""
        ws, held = self.sockets[who], self.views[who]
        if ws is None or held is None:
            return
        if body is None:
            legal = held[1].get("you", {}).get("legal") or []
            if not legal:
                return
            body = legal[pick % len(legal)]
        cmd_id = uuid.uuid4().hex[:12]
        self.sent[(who, cmd_id)] = body
        ws.send(json.dumps({"type": "command", "id": cmd_id, "command": body}))
        self._sync(who)

    @precondition(lambda self: bool(self.sent))
    @rule(pick=st.integers(0, 1000), reuse=st.booleans())
    def repeat(self, pick: int, reuse: bool) -> None:
        """An earlier id again: the same body (same answer) or another (command/id_reused)."""
        (who, cmd_id), body = sorted(self.sent.items())[pick % len(self.sent)]
        ws = self.sockets[who]
        if ws is None:
            return
        other = (
            {"type": "take", "value": 10}
            if body != {"type": "take", "value": 10}
            else {"type": "roll"}
        )
        ws.send(json.dumps({"type": "command", "id": cmd_id, "command": other if reuse else body}))
        self._sync(who)

    @rule()
    def spectator_command(self) -> None:
        ws = self.sockets[2]
        if ws is not None:
            ws.send(json.dumps({"type": "command", "id": "spy", "command": {"type": "roll"}}))
            messages = drain_until(ws, "reject")
            assert messages[-1]["code"] == "room/read_only"

    @rule(who=st.sampled_from([0, 1, 2]), count=st.integers(5, 40))
    def flood(self, who: int, count: int) -> None:
        ws = self.sockets[who]
        if ws is not None:
            for i in range(count):
                ws.send(json.dumps({"type": "ping", "nonce": i}))
            self._sync(who)

    # -- invariants against the log --------------------------------------------------------

    @invariant()
    def answers_agree_with_the_log(self) -> None:
        log = read_log(self.server, self.room)
        last = log[-1][0]
        commanded = {}
        for seq, data in log:
            if data.get("k") == "event" and data.get("cmd") is not None:
                key = (data["seat"], data["cmd"])
                assert key not in commanded, f"command {key} logged twice"
                commanded[key] = seq
        for (who, cmd_id), answer in self.answers.items():
            seat = self.seats.get(who)
            if answer["type"] == "ack":
                assert answer["seq"] <= last
                if (seat, cmd_id) in commanded:
                    assert commanded[(seat, cmd_id)] == answer["seq"]
            elif answer["code"] != "command/id_reused":
                assert (seat, cmd_id) not in commanded, f"rejected {cmd_id} is in the log"
        for held in self.views.values():
            if held is not None:
                assert held[0] <= last, "a view ahead of the log"

    def teardown(self) -> None:
        self.opened.close()


def test_a_stateful_table_never_contradicts_its_log(server: ServerProcess) -> None:
    """Hypothesis drives joins, drops, resumes, commands, repeats, reuses, spectator
    commands and floods; after every step the answers and views agree with the log."""
    Table.server = server
    machine = settings(max_examples=max(3, EXAMPLES // 5), stateful_step_count=25, deadline=None,
                       suppress_health_check=[HealthCheck.too_slow])(Table)  # fmt: skip
    machine.TestCase().runTest()
