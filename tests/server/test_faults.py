"""Fault tests of the room core: what a room says while its event log fails.

Black-box, against a real ``rollhouse serve`` child process and a real store (a
redis-server we can freeze, kill and restart on its AOF; a SQLite file whose write
lock another connection holds), seen from the protocol: SDK clients, the HTTP API,
and the log read directly afterwards (tests/support/faults.py). The behaviours
(the room-core issue):

- rooms driven by hosted bots or clocks finish by themselves once the store is
  back, with nobody connected, and rooms with a pending deadline or a bot to move
  are loaded at start-up (nobody opens them);
- an append whose outcome is unknown is never answered as a reject: every ack
  names its command's last record, no reject names a logged command, nothing twice;
- a hello whose seat append failed leaves no ghost seat;
- every answer is durable: the same id from the same seat gets the same answer
  after a restart or an idle unload; the same id with another body gets
  ``command/id_reused``;
- timeouts that fall due together apply in turn order from the First player.

Redis runs with ``socket_timeout=1`` in the store URL and is frozen for clearly
longer (3.5 s); SQLite's busy timeout is 5 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import attrs
import pytest

from clients.bots.play import play_seat
from clients.sdk import Client, CommandRejected, ConnectionLost, create_room
from engine.core import get_game
from protocol.messages import Ack, Reject, ServerMessage
from tests.support.faults import (
    RedisProcess,
    SqliteWriteLock,
    commands_in,
    eventually,
    game_events,
    health,
    is_finished,
    last_seq,
    read_log,
    report,
    room_summary,
    seat_tokens,
    token_hash,
)
from tests.support.server import ServerProcess

REDIS_PAUSE = 3.5  # seconds frozen: clearly past the 1 s socket timeout
REDIS_DOWN = 2.0  # seconds between SIGKILL and the restart on the same AOF
SETTLE = 30.0  # seconds a room gets to finish once the fault is over


@attrs.define
class Backend:
    """The store under test: its URL for the server and for our reader, and its faults."""

    store_url: str
    redis: RedisProcess | None = None
    db: Path | None = None

    async def inject(self, fault: str) -> None:
        """Run the named fault to its end (the store is healthy again on return)."""
        kind, _, arg = fault.partition(":")
        if kind == "redis-pause":
            assert self.redis is not None
            await self.redis.pause(REDIS_PAUSE)
        elif kind == "redis-kill":
            assert self.redis is not None
            await self.redis.crash(REDIS_DOWN)
        elif kind == "sqlite-lock":
            assert self.db is not None
            await SqliteWriteLock(self.db, float(arg)).hold()
        else:  # pragma: no cover
            raise AssertionError(f"unknown fault {fault!r}")


def redis_param(fault: str) -> Any:
    return pytest.param(fault, marks=pytest.mark.redis, id=fault)


def sqlite_param(fault: str) -> Any:
    return pytest.param(fault, id=fault.replace(":", "-") + "s")


@pytest.fixture
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """A fresh store for the test's ``fault`` (or ``store``) parameter: Redis or SQLite."""
    name = str(request.node.callspec.params.get("fault") or request.node.callspec.params["store"])
    if name.startswith("redis"):
        redis = RedisProcess(tmp_path / "redis")
        redis.start()
        try:
            yield Backend(redis.store_url, redis=redis)
        finally:
            redis.stop()
        return
    db = tmp_path / "rollhouse.db"
    yield Backend(f"sqlite:///{db}", db=db)


@contextlib.asynccontextmanager
async def running(backend: Backend, tmp_path: Path, *args: str) -> AsyncIterator[ServerProcess]:
    """``rollhouse serve`` on the backend's store in a child process; stopped on exit."""
    server = ServerProcess(backend.store_url, tmp_path, args=args)
    await asyncio.to_thread(server.start)
    try:
        yield server
    finally:
        await asyncio.to_thread(server.stop)


# -- helpers ------------------------------------------------------------------------


@attrs.frozen
class Answer:
    """One ack or reject a client received."""

    seat: int  # -1 before the first welcome
    id: str
    kind: str  # "ack" | "reject"
    seq: int | None
    code: str | None
    at: float  # time.monotonic() on arrival


class Recorder(Client):
    """An SDK client that records every command it sends and every answer it receives."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.answers: list[Answer] = []
        self.sent: dict[str, tuple[float, dict[str, Any]]] = {}

    async def send(self, command: dict[str, Any], cmd_id: str | None = None) -> int:
        cmd_id = cmd_id or self.next_id()
        self.sent.setdefault(cmd_id, (time.monotonic(), command))
        return await super().send(command, cmd_id)

    def _handle(self, msg: ServerMessage) -> None:
        if isinstance(msg, Ack | Reject):
            self.answers.append(
                Answer(
                    -1 if self.seat is None else self.seat,
                    msg.id,
                    msg.TYPE,
                    msg.seq if isinstance(msg, Ack) else None,
                    msg.code if isinstance(msg, Reject) else None,
                    time.monotonic(),
                )
            )
        super()._handle(msg)


def held_by(records: list[Any]) -> dict[int, str]:
    """``seat -> short token hash`` of the log's seats, for failure messages."""
    return {seat: (token or "bot")[:8] for seat, token in seat_tokens(records).items()}


async def answer(client: Client, body: dict[str, Any], cmd_id: str) -> tuple[str, Any]:
    """Send one command; ``("ack", seq)`` or ``("reject", code)``."""
    try:
        return "ack", await asyncio.wait_for(client.send(body, cmd_id), 15)
    except CommandRejected as exc:
        return "reject", exc.code


async def take_and_leave(ws_url: str, room: str) -> None:
    """Take a free seat and go away for good (the seat's clock plays it)."""
    gone = await Client(ws_url, room, name="gone", reconnect=False).connect()
    assert gone.seat is not None
    await gone.close()


async def log_reaches(backend: Backend, room: str, seq: int, timeout: float = 15) -> int:
    """Wait until the room's log holds ``seq`` records; its last seq."""
    reached = await eventually(
        lambda: _at_least(last_seq(backend.store_url, room), seq), timeout, 0.05
    )
    assert reached, f"room {room}: the log did not reach seq {seq} within {timeout}s"
    return reached


async def _at_least(value: Any, floor: int) -> int | None:
    got = int(await value)
    return got if got >= floor else None


async def finished_via_api(base_url: str, room: str) -> dict[str, Any] | None:
    summary = await room_summary(base_url, room)
    return summary if summary and summary["status"] == "finished" else None


def calm_seed(seats: int, options: dict[str, Any], first: int | None = None) -> int:
    """A seed whose first roll is not a double (play goes on to the deciding phase)."""
    game = get_game("rollie")
    for seed in range(1000):
        state = game.create(game.setup(seats, options, seed))
        if first is not None and state.first_player != first:
            continue
        roll = game.commands.load({"type": "roll"}, seat=state.first_player)
        if len(game.decide(state, roll)) == 1:
            return seed
    raise AssertionError("no calm seed in 0..999")


def check_log_shape(records: list[Any]) -> list[str]:
    """Problems with the log itself: gaps in seq, one command closing twice."""
    problems = []
    seqs = [r.seq for r in records]
    if seqs != list(range(1, len(seqs) + 1)):
        problems.append(f"the log's seqs are not 1..n: {seqs}")
    for key, at in commands_in(records).items():
        if len(at) > 1:
            problems.append(f"command {key} is in the log {len(at)} times, at {at}")
    return problems


# -- a. rooms driven by bots and clocks finish by themselves across a fault -----------

ROOM_FAULTS = [
    redis_param("redis-pause"),
    redis_param("redis-kill"),
    sqlite_param("sqlite-lock:12"),
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fault", ROOM_FAULTS)
async def test_bot_and_clock_rooms_finish_by_themselves_across_a_fault(
    fault: str, backend: Backend, tmp_path: Path
) -> None:
    """An all-bot room and a 1 s clock room finish with nobody connected across the fault."""
    async with running(backend, tmp_path) as server:
        clocked = await create_room(
            server.url,
            "rollie",
            2,
            # five rounds at 1 s last 8-10 s: still playing when the fault comes on a busy
            # machine (two rounds, 3-4 s, sometimes finished before it)
            options={"rounds": 5},
            room={"bots": 1, "bot_delay": 0.05, "clock": 1},
        )
        await take_and_leave(server.ws_url, clocked["room"])
        await log_reaches(backend, clocked["room"], 4)
        # an all-bot game lasts a few seconds: start it last, just before the fault
        bots = await create_room(
            server.url, "rollie", 2, room={"bots": 2, "bot_delay": 0.05, "clock": 0}
        )
        rooms = [bots["room"], clocked["room"]]
        label = {bots["room"]: "the all-bot room", clocked["room"]: "the clock room"}
        await log_reaches(backend, bots["room"], 6)
        for room in rooms:
            assert not is_finished(await read_log(backend.store_url, room)), "finished too soon"
        started = time.monotonic()
        await backend.inject(fault)
        fault_took = time.monotonic() - started
        for room in rooms:
            summary = await eventually(partial(finished_via_api, server.url, room), SETTLE)
            assert summary is not None, (
                f"{label[room]} did not finish within {SETTLE}s after the fault"
                f" ({fault_took:.1f}s); the API says {await _quiet_summary(server.url, room)},"
                f" the log is at seq {await last_seq(backend.store_url, room)}"
            )
    for room in rooms:
        records = await read_log(backend.store_url, room)
        assert not check_log_shape(records)
        assert is_finished(records)


async def _quiet_summary(base_url: str, room: str) -> Any:
    try:
        summary = await room_summary(base_url, room)
    except Exception as exc:  # diagnostics only
        return repr(exc)
    return summary and {k: summary[k] for k in ("status", "seq")}


# -- b. players' answers agree with the log through a fault --------------------------

PLAY_FAULTS = [redis_param("redis-pause"), redis_param("redis-kill"), sqlite_param("sqlite-lock:7")]


async def play_fast(client: Recorder, rng: random.Random, until: float) -> None:
    """Pick a random legal command, send it, wait for the answer; until finished or ``until``."""
    while time.monotonic() < until:
        try:
            view = await client.wait_for(
                lambda v: v["room"]["status"] == "finished" or bool(v["you"]["legal"]),
                timeout=max(0.1, until - time.monotonic()),
            )
        except (TimeoutError, ConnectionLost):
            return
        if view["room"]["status"] == "finished":
            return
        seq = client.seq
        await asyncio.sleep(0.02)
        try:
            await asyncio.wait_for(client.send(dict(rng.choice(view["you"]["legal"]))), 20)
        except CommandRejected:
            await asyncio.sleep(0.05)
            continue
        except (TimeoutError, ConnectionLost):
            return
        with contextlib.suppress(TimeoutError, ConnectionLost):
            await client.wait_for(moved_past(client, seq), timeout=5)


def moved_past(client: Client, seq: int) -> Callable[[dict[str, Any]], bool]:
    return lambda _: client.seq > seq


@pytest.mark.timeout(90)
@pytest.mark.parametrize("fault", PLAY_FAULTS)
async def test_every_answer_agrees_with_the_log_through_a_fault(
    fault: str, backend: Backend, tmp_path: Path
) -> None:
    """No reject for a logged command, every ack at its command's last record, nothing twice."""
    async with running(backend, tmp_path) as server:
        info = await create_room(server.url, "rollie", 2, options={"rounds": 7}, room={"clock": 0})
        players = [
            Recorder(server.ws_url, info["room"], name=f"p{i}", backoff=(0.05, 0.5))
            for i in range(2)
        ]
        for p in players:
            await p.connect()
        until = time.monotonic() + 40
        games = [
            asyncio.create_task(play_fast(p, random.Random(i), until))
            for i, p in enumerate(players)
        ]
        await log_reaches(backend, info["room"], 8)
        fault_from = time.monotonic()
        await backend.inject(fault)
        fault_to = time.monotonic()
        await asyncio.wait_for(asyncio.gather(*games), 50)
        views = [p.view for p in players]
        for p in players:
            await p.close()
    records = await read_log(backend.store_url, info["room"])
    logged = commands_in(records)
    problems = check_log_shape(records)
    answers = [a for p in players for a in p.answers]
    seen: dict[tuple[int, str], set[tuple[str, Any]]] = {}
    for a in answers:
        key = (a.seat, a.id)
        seen.setdefault(key, set()).add((a.kind, a.seq if a.kind == "ack" else a.code))
        if a.kind == "reject" and key in logged:
            problems.append(f"reject {a.code} for {key}, which is in the log at {logged[key]}")
        if a.kind == "ack" and logged.get(key) != [a.seq]:
            problems.append(f"ack seq {a.seq} for {key}; the log has it at {logged.get(key)}")
    problems += [
        f"{key} answered differently: {sorted(got)}" for key, got in seen.items() if len(got) > 1
    ]
    unanswered = [(p.seat, i) for p in players for i in p.sent if (p.seat, i) not in seen]
    problems += [f"never answered: {key}" for key in unanswered]
    answered_at: dict[tuple[int, str], float] = {}
    for a in answers:
        answered_at.setdefault((a.seat, a.id), a.at)
    during = [  # sent before the fault ended, not answered before it began
        (p.seat, i)
        for p in players
        for i, (at, _) in p.sent.items()
        if at <= fault_to and answered_at.get((p.seat or 0, i), fault_to) >= fault_from
    ]
    assert during, "no command was in flight while the store failed: the test proved nothing"
    acked = {(a.seat, a.id) for a in answers if a.kind == "ack"}
    report(
        "players through a store fault",
        fault,
        sent=sum(len(p.sent) for p in players),
        in_flight_during_fault=len(during),
        acked=len(acked),
        rejected=len({(a.seat, a.id) for a in answers if a.kind == "reject"}),
        acked_found_in_log=sum(1 for key in acked if key in logged),
        lost=sum(1 for key in acked if key not in logged),
        duplicated=sum(1 for seqs in logged.values() if len(seqs) > 1),
    )
    if not all(v is not None and v["room"]["status"] == "finished" for v in views):
        problems.append("the game did not finish for every player")
    finals = {p.seq for p in players}
    if finals != {records[-1].seq}:
        problems.append(f"clients ended at seqs {finals}, the log at {records[-1].seq}")
    assert not problems, "\n".join(problems)


# -- c. a hello through a fault leaves no ghost seat ---------------------------------

HELLO_FAULTS = [redis_param("redis-pause"), sqlite_param("sqlite-lock:7")]


@pytest.mark.timeout(90)
@pytest.mark.parametrize("fault", HELLO_FAULTS)
async def test_a_hello_through_a_fault_leaves_no_ghost_seat(
    fault: str, backend: Backend, tmp_path: Path
) -> None:
    """A hello while the store fails: afterwards every seat of the log belongs to a client."""
    async with running(backend, tmp_path) as server:
        info = await create_room(server.url, "rollie", 2, options={"rounds": 1}, room={"clock": 0})
        room = info["room"]
        ann = Client(server.ws_url, room, name="ann", backoff=(0.1, 1.0))
        bob = Client(server.ws_url, room, name="bob", backoff=(0.1, 1.0))
        faulty = asyncio.create_task(backend.inject(fault))
        await asyncio.sleep(0.3)  # the store is failing now
        ann_joined = asyncio.create_task(ann.connect(timeout=30))
        await faulty
        try:
            await asyncio.wait_for(ann_joined, 30)
            assert ann.seat is not None and ann.seat_token
            try:
                await bob.connect(timeout=15)
            except ConnectionLost as exc:
                seats = held_by(await read_log(backend.store_url, room))
                mine = token_hash(ann.seat_token)[:8]
                pytest.fail(
                    f"the second player cannot take the free seat: {exc}; the log's seats are"
                    f" {seats}, the first player holds seat {ann.seat} with {mine}"
                )
            assert bob.seat is not None and bob.seat != ann.seat
            finals = await asyncio.wait_for(
                asyncio.gather(
                    play_seat(ann, "push", seed=1, patience=15),
                    play_seat(bob, "push", seed=2, patience=15),
                ),
                40,
            )
            assert all(v["room"]["status"] == "finished" for v in finals)
        finally:
            for c in (ann, bob):
                await c.close()
    records = await read_log(backend.store_url, room)
    assert not check_log_shape(records)
    held = seat_tokens(records)
    ours = {token_hash(c.seat_token) for c in (ann, bob) if c.seat_token}
    assert sorted(held) == [0, 1]
    assert set(held.values()) <= ours, f"seats held by tokens no client has: {held}"


# -- d. answers are durable: restart, idle unload; an id reused with another body ---

DURABLE_CASES = [
    pytest.param("sqlite", "restart", id="sqlite-restart"),
    pytest.param("redis", "restart", marks=pytest.mark.redis, id="redis-restart"),
    pytest.param("sqlite", "unload", id="sqlite-idle-unload"),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("store", "how"), DURABLE_CASES)
async def test_answers_are_durable_across_restart_and_unload(
    store: str, how: str, backend: Backend, tmp_path: Path
) -> None:
    """After a restart or an unload, a repeated id gets its first answer; another body id_reused."""
    options = {"rounds": 2}
    seed = calm_seed(2, options)
    args = ("--idle-unload", "0.5") if how == "unload" else ()
    async with running(backend, tmp_path, *args) as server:
        info = await create_room(
            server.url, "rollie", 2, options={**options, "seed": seed}, room={"clock": 0}
        )
        room = info["room"]
        seated = [await Client(server.ws_url, room, name=f"p{i}").connect() for i in range(2)]
        view = await seated[0].wait_for(lambda v: v["room"]["status"] == "playing")
        roller = next(c for c in seated if c.seat == view["game"]["first_player"])
        early = await answer(roller, {"type": "secure"}, "early-secure")
        assert early[0] == "reject" and early[1].startswith("rollie/"), early
        rolled = await answer(roller, {"type": "roll"}, "the-roll")
        assert rolled[0] == "ack", rolled
        await roller.wait_for(lambda v: {"type": "secure"} in v["you"]["legal"])
        token = roller.seat_token
        for c in seated:
            await c.close()
        if how == "restart":
            server.kill()
            await asyncio.to_thread(server.start)
        else:
            unloaded = await eventually(lambda: _no_live_rooms(server.url), 10, 0.1)
            assert unloaded, "the idle room was not unloaded"
        before = await read_log(backend.store_url, room)
        back = await Client(server.ws_url, room, seat_token=token).connect()
        try:
            again = await answer(back, {"type": "secure"}, "early-secure")
            rolled_again = await answer(back, {"type": "roll"}, "the-roll")
            after = await read_log(backend.store_url, room)
            reused = [
                await answer(back, {"type": "roll"}, "early-secure"),
                await answer(back, {"type": "secure"}, "the-roll"),
            ]
            last = await read_log(backend.store_url, room)
        finally:
            await back.close()
    assert again == early, "a rejected id re-sent after the restart got another answer"
    assert rolled_again == rolled, "an acked id re-sent after the restart got another answer"
    assert [(r.seq, r.data) for r in after] == [(r.seq, r.data) for r in before]
    assert reused == [("reject", "command/id_reused")] * 2
    assert game_events(last) == game_events(before), "a reused id changed the game"


async def _no_live_rooms(base_url: str) -> bool:
    status = await health(base_url)
    return status is not None and status["rooms_live"] == 0


# -- e. after a server crash, clocks and bots go on without anyone opening the room --

CRASH_STORES = [pytest.param("sqlite", id="sqlite"), redis_param("redis")]


@pytest.mark.timeout(90)
@pytest.mark.parametrize("store", CRASH_STORES)
async def test_rooms_go_on_after_a_server_crash_without_being_opened(
    store: str, backend: Backend, tmp_path: Path
) -> None:
    """SIGKILL mid-game, restart: the clock room's deadline fires, the bot room moves, unopened."""
    async with running(backend, tmp_path) as server:
        clocked = await create_room(
            server.url,
            "rollie",
            2,
            # five rounds at 1 s last 8-10 s: still playing when the fault comes on a busy
            # machine (two rounds, 3-4 s, sometimes finished before it)
            options={"rounds": 5},
            room={"bots": 1, "bot_delay": 0.05, "clock": 1},
        )
        await take_and_leave(server.ws_url, clocked["room"])
        await log_reaches(backend, clocked["room"], 4)
        bots = await create_room(
            server.url, "rollie", 2, room={"bots": 2, "bot_delay": 0.05, "clock": 0}
        )
        rooms = [clocked["room"], bots["room"]]
        label = {bots["room"]: "the all-bot room", clocked["room"]: "the clock room"}
        await log_reaches(backend, bots["room"], 6)
        server.kill()
        at_kill = {room: await last_seq(backend.store_url, room) for room in rooms}
        for room in rooms:
            assert not is_finished(await read_log(backend.store_url, room)), "finished too soon"
        await asyncio.to_thread(server.start)
        restarted = time.monotonic()
        for room in rooms:  # only the log is read: nothing may load the room for it
            moved = await eventually(partial(_beyond, backend, room, at_kill[room]), 10, 0.1)
            assert moved, (
                f"{label[room]} did not move past seq {at_kill[room]} within 10s of the restart"
            )
        for room in rooms:
            done = await eventually(partial(_log_finished, backend, room), SETTLE)
            assert done, f"{label[room]} did not finish within {SETTLE}s of the restart"
        assert time.monotonic() - restarted < SETTLE + 10


async def _beyond(backend: Backend, room: str, seq: int) -> bool:
    return await last_seq(backend.store_url, room) > seq


async def _log_finished(backend: Backend, room: str) -> bool:
    return is_finished(await read_log(backend.store_url, room))


# -- f. timeouts that fall due together apply in turn order ------------------------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize("store", [pytest.param("sqlite", id="sqlite")])
async def test_simultaneous_timeouts_apply_in_turn_order(
    store: str, backend: Backend, tmp_path: Path
) -> None:
    """Three deciders time out together: secured First player first, then clockwise."""
    options = {"rounds": 1}
    seed = calm_seed(3, options, first=1)  # seat order 0, 1, 2 differs from turn order 1, 2, 0
    async with running(backend, tmp_path) as server:
        info = await create_room(
            server.url, "rollie", 3, options={**options, "seed": seed}, room={"clock": 1}
        )
        room = info["room"]
        for _ in range(3):
            await take_and_leave(server.ws_url, room)

        async def three_decisions() -> list[dict[str, Any]] | None:
            events = game_events(await read_log(backend.store_url, room))
            decided = [e for e in events if e["type"] in ("secured", "took")]
            return decided[:3] if len(decided) >= 3 else None

        decided = await eventually(three_decisions, 15, 0.2)
    assert decided, "the clocks did not decide for the three seats"
    assert [e["seat"] for e in decided] == [1, 2, 0]
