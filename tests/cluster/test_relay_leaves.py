"""Issue 23, first bug: a relay judged a connection opened during its lease read as
"the room moved", closed it 3 ms after its hello and told the owner nothing, so the
owner kept a seat held by a token no client had (the player came back to
``room/full``). Every close a relay makes is now a leave to the owner, and a seat
whose welcome never reached its client is given back."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest
import redis.asyncio as aioredis

from protocol.codec import codec_for
from protocol.messages import Hello, Welcome
from server.cluster.leases import ANY_INCARNATION, Leases, restarted
from server.cluster.node import Node
from server.cluster.relay import RemotePeer, RemoteRoom, unpack, without_gone_hellos
from server.config import Settings
from server.metrics import Metrics
from server.room.io import Leave
from server.room.rooms import Rooms
from server.store import open_store
from tests.server.core_harness import Table
from tests.support.redis_server import free_port, start_redis

pytestmark = pytest.mark.timeout(60)

OWNER = "owner-node"


class LocalPeer:
    """A local websocket connection as the relay sees it (what it was sent, how it closed)."""

    codec_name = "rollhouse.v1.json"

    def __init__(self) -> None:
        self.codec = codec_for(self.codec_name)
        self.frames: list[bytes | str] = []
        self.closed: tuple[str, str] | None = None
        self.seat: int | None = None
        self.role: str | None = None

    def send_frame(self, frame: bytes | str) -> None:
        self.frames.append(frame)

    def close_with(self, code: str, message: str) -> None:
        self.closed = (code, message)


class OpensDuringRead(Leases):
    """Leases whose holders read lets a hello in while it waits (as the event loop may)."""

    during: list[Any]

    async def holders(self, rooms: list[str]) -> dict[str, str | None]:
        answer = await super().holders(rooms)
        while self.during:
            self.during.pop(0)()
        return answer


def _hello(room: str) -> Hello:
    return Hello(room, "player", "ann", None, None)


async def _owner_inbox(url: str) -> list[dict[str, Any]]:
    client = aioredis.Redis.from_url(url)
    try:
        entries = await client.xrange(f"rollhouse:node:{OWNER}:in")
    finally:
        await client.aclose()
    return [unpack(fields[b"m"]) for _, fields in entries]


async def test_a_connection_opened_during_the_lease_read_is_not_taken_for_moved(
    redis_url: str,
) -> None:
    """A hello to a room the read did not ask about stays open; a connection whose room
    really moved is closed, and its owner is told it left before its welcome came."""
    store = open_store(redis_url)
    node = Node(Settings(store_url=redis_url, node_id="relay-node"), store, Metrics())
    leases = OpensDuringRead(node.client, "rollhouse", node.id, node.lease)
    leases.during = []
    node.leases = leases
    try:
        for room in ("r-old", "r-new"):
            await node.client.set(f"rollhouse:room:{{{room}}}:lease", OWNER)
        old_peer, new_peer = LocalPeer(), LocalPeer()
        old_room = RemoteRoom(node.streams, node.sessions, "r-old", OWNER, node.metrics)
        new_room = RemoteRoom(node.streams, node.sessions, "r-new", OWNER, node.metrics)
        old_pid = old_room.join(old_peer, _hello("r-old"))
        await node.streams.flush()  # the owner has it (a hello still queued is taken back)
        opened: list[int] = []
        leases.during.append(lambda: opened.append(new_room.join(new_peer, _hello("r-new"))))
        await node._watch_relayed()
        assert new_peer.closed is None and opened[0] in node.sessions
        assert old_peer.closed is None and old_pid in node.sessions

        await node.client.set("rollhouse:room:{r-old}:lease", "another-node")  # it moved
        await node._watch_relayed()
        assert old_peer.closed is not None and old_peer.closed[0] == "room/moved"
        assert old_pid not in node.sessions and new_peer.closed is None
        await node.streams.flush()
        sent = [(m["k"], m["p"], m.get("u")) for m in await _owner_inbox(redis_url)]
        assert sent == [("hello", old_pid, None), ("hello", opened[0], None),
                        ("leave", old_pid, True)]  # fmt: skip
    finally:
        await node.close()
        await store.close()


def test_a_seat_whose_welcome_never_arrived_is_given_back() -> None:
    """The owner seated a relayed hello and sent its welcome; the relay then says the
    connection left before the welcome reached it: an ``unseated`` record frees the seat."""
    table = Table.new()
    table.join(1, "ann")
    assert table.model.holders and table.core.seated == {0: 1}
    table.feed(Leave(1, table.now, undelivered=True))
    assert [d["k"] for _, d in table.log] == ["created", "seated", "unseated"]
    assert table.model.free_seats() == [0, 1]


def test_a_leave_after_a_delivered_welcome_keeps_the_seat() -> None:
    """The usual leave: the client has its token, so the seat stays its own."""
    table = Table.new()
    table.join(1, "ann")
    table.feed(Leave(1, table.now, undelivered=False))
    assert [d["k"] for _, d in table.log] == ["created", "seated"]
    assert table.model.free_seats() == [1]


def test_an_undelivered_resume_keeps_the_seat() -> None:
    """A resume with its own token gives nothing back: that client holds the token."""
    table = Table.new()
    out = table.join(1, "ann")
    token = table.welcome(out, 1).seat_token
    table.leave(1)
    table.join(2, token=token)
    table.feed(Leave(2, table.now, undelivered=True))
    assert [d["k"] for _, d in table.log] == ["created", "seated"]
    assert table.model.free_seats() == [1]


def test_a_hello_whose_connection_left_in_the_same_batch_is_not_joined() -> None:
    """Redis came back and the relay sent a closed connection's hello again with its
    leave: the owner reads that hello as nothing (joined, it would replace the client's
    newer connection: ``room/replaced``); the leave and other connections' messages pass."""
    batch = [
        ("1-0", {"k": "hello", "n": "n1", "p": 7, "r": "r-1"}),
        ("1-1", {"k": "hello", "n": "n1", "p": 8, "r": "r-1"}),
        ("1-2", {"k": "cmd", "n": "n1", "p": 7, "i": "a"}),
        ("1-3", {"k": "leave", "n": "n1", "p": 7, "u": True}),
        ("1-4", {"k": "hello", "n": "n2", "p": 7, "r": "r-1"}),
    ]
    kept = without_gone_hellos(batch)
    assert [entry for entry, _ in kept] == ["1-0", "1-1", "1-2", "1-3", "1-4"]
    assert [m and (m["k"], m["n"], m["p"]) for _, m in kept] == [
        None, ("hello", "n1", 8), ("cmd", "n1", 7), ("leave", "n1", 7), ("hello", "n2", 7),
    ]  # fmt: skip


async def test_a_relayed_connection_whose_owner_restarted_is_moved(redis_url: str) -> None:
    """The owner was killed and started again within its lease: it took its room back
    under the same node id, but none of the connections its earlier process served are
    in its memory, and a relayed player waited for patches that never came (the soak's
    "did not finish"). Its heartbeat names another incarnation now: the relay moves the
    connection (its client resumes), and tells the owner it left."""
    store = open_store(redis_url)
    node = Node(Settings(store_url=redis_url, node_id="relay-node"), store, Metrics())
    alive = f"rollhouse:node:{OWNER}:alive"
    try:
        await node.client.set("rollhouse:room:{r-1}:lease", OWNER)
        await node.client.set(alive, "first-process")
        peer = LocalPeer()
        room = RemoteRoom(node.streams, node.sessions, "r-1", OWNER, node.metrics)
        pid = room.join(peer, _hello("r-1"))
        await node.streams.flush()
        welcome = Welcome("r-1", "rollie", "player", 0, "tok", 3, {"room": {}}, 0.0)
        frame = codec_for(peer.codec_name).encode(welcome)
        await node.on_message({"k": "frames", "p": [pid], "f": frame, "mid": "first-process:9"})
        assert peer.frames == [frame] and node.sessions[pid].owner_incarnation == "first-process"

        await node._watch_relayed()
        await node.client.set(alive, "1")  # a release that wrote no incarnation: no restart seen
        await node._watch_relayed()
        assert peer.closed is None and pid in node.sessions

        await node.client.set(alive, "second-process")
        await node._watch_relayed()
        assert peer.closed is not None and peer.closed[0] == "room/moved"
        await node.streams.flush()
        sent = [(m["k"], m["p"], m.get("u")) for m in await _owner_inbox(redis_url)]
        assert sent == [("hello", pid, None), ("leave", pid, False)]
    finally:
        await node.close()
        await store.close()


class LeftRoom:
    """A room as the owner's relay handling sees it: who left, and how."""

    def __init__(self) -> None:
        self.left: list[tuple[int, bool]] = []

    def leave(self, pid: int, undelivered: bool = False) -> None:
        self.left.append((pid, undelivered))


async def test_the_owner_lets_go_of_the_peers_of_a_relays_earlier_process(redis_url: str) -> None:
    """A relay node killed and started again within its heartbeat: its new process
    never says the old connections left. The owner sees the heartbeat name another
    incarnation and lets them go; the new process's connections stay."""
    store = open_store(redis_url)
    node = Node(Settings(store_url=redis_url, node_id=OWNER), store, Metrics())
    try:
        old = RemotePeer(node.streams, "relay-x", 5, "rollhouse.v1.json", "first-process")
        new = RemotePeer(node.streams, "relay-x", 6, "rollhouse.v1.json", "second-process")
        room = LeftRoom()
        node.owned.remote[("relay-x", 5)] = (room, 11, old)  # type: ignore[assignment]
        node.owned.remote[("relay-x", 6)] = (room, 12, new)  # type: ignore[assignment]
        await node.client.set("rollhouse:node:relay-x:alive", "second-process")
        await node._drop_dead_relays()
        assert room.left == [(11, False)] and old.gone and not new.gone
        assert list(node.owned.remote) == [("relay-x", 6)]
    finally:
        await node.close()
        await store.close()


def test_what_counts_as_a_restart() -> None:
    cases = [
        ("a", "a", False), ("a", "b", True), (None, "b", False), ("a", None, False),
        ("a", ANY_INCARNATION, False), (ANY_INCARNATION, "b", False),
    ]  # fmt: skip
    assert [restarted(k, c) for k, c, _ in cases] == [want for _, _, want in cases]


async def test_a_connection_that_leaves_while_its_hello_waits_for_redis_sends_no_hello(
    tmp_path: Any,
) -> None:
    """The soak's last "did not finish": a relay cut from Redis held a client's hello;
    the client gave up on it and came back through another node; when Redis came back
    the relay sent the hello and the leave in one pipeline, the owner's blocked read
    woke between the two, and the stale hello replaced the client's newer connection
    (``room/replaced``, final). A connection that leaves while its hello is unsent takes
    it back (and what it sent after it); the leave still goes, and other connections'
    messages are untouched."""
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    store = open_store(url)
    node = Node(Settings(store_url=url, node_id="relay-node"), store, Metrics())
    failed = asyncio.Event()

    class Failed(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "cannot send" in record.getMessage():
                failed.set()

    handler = Failed()
    logging.getLogger("rollhouse.cluster").addHandler(handler)
    stop = None
    try:
        gone_peer, kept_peer = LocalPeer(), LocalPeer()
        room = RemoteRoom(node.streams, node.sessions, "r-1", OWNER, node.metrics)
        gone = room.join(gone_peer, _hello("r-1"))
        room.command(gone, "c1", {"type": "roll"})
        kept = room.join(kept_peer, _hello("r-1"))
        sending = asyncio.create_task(node.streams.flush())
        await asyncio.wait_for(failed.wait(), 10)  # the try failed: the hellos wait in memory
        room.command(gone, "c2", {"type": "secure"})
        room.leave(gone)  # the client gave up on this connection
        room.command(kept, "c3", {"type": "roll"})
        _url, stop = start_redis(tmp_path, port=port)  # Redis is back
        await asyncio.wait_for(sending, 20)
        await node.streams.flush()
        inbox = [(m["k"], m["p"], m.get("i"), m.get("u")) for m in await _owner_inbox(url)]
        assert inbox == [("hello", kept, None, None), ("leave", gone, None, True),
                         ("cmd", kept, "c3", None)]  # fmt: skip
    finally:
        logging.getLogger("rollhouse.cluster").removeHandler(handler)
        await node.close()
        await store.close()
        if stop is not None:
            stop()


async def test_a_node_without_a_renewal_for_a_lease_refuses_relayed_hellos(
    redis_url: str,
) -> None:
    """An owner whose last renewal is older than a lease (cut off, or its ticks stalled)
    answers a relayed hello ``room/unavailable``, as it answers a local one, instead of
    joining it to a copy of the room that may be stale; renewing again, it serves it."""
    store = open_store(redis_url)
    node = Node(Settings(store_url=redis_url, node_id=OWNER), store, Metrics())
    node.rooms = Rooms(store, node.settings, node.metrics, fencer=node)
    node.lets_go = True  # as on a Redis Cluster
    client = aioredis.Redis.from_url(redis_url)
    try:
        node.last_renewed = time.monotonic() - 2 * node.lease
        node.owned.hello({"k": "hello", "n": "relay-node", "p": 1, "r": "r-gone"})
        node.last_renewed = time.monotonic()
        node.owned.hello({"k": "hello", "n": "relay-node", "p": 2, "r": "r-gone"})
        for _attempt in range(100):  # the second is loaded aside
            if not node.owned.joining:
                break
            await asyncio.sleep(0.02)
        await node.streams.flush()
        entries = await client.xrange("rollhouse:node:relay-node:in")
        closes = {m["p"]: m["c"] for m in (unpack(f[b"m"]) for _, f in entries)}
        assert closes == {1: "room/unavailable", 2: "room/not_found"}
    finally:
        await client.aclose()
        await node.close()
        await store.close()
