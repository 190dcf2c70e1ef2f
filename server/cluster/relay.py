"""Connections to rooms run by another node, carried over Redis Streams.

Every node reads one inbox stream, ``{prefix}:node:{id}:in``, from the id of the last
entry it read (``XREAD BLOCK``), so a node that loses Redis for a moment resumes where
it stopped and misses nothing; entries are msgpack maps in field ``m``:

- to a room's owner, from the node holding the socket (the *relay*):
  ``hello`` (codec, the hello's fields), ``cmd`` (id, body, send time), ``resync``,
  ``leave`` (``u``: the welcome never reached the client, whose fresh seat is then
  given back); each names the relay node ``n`` and its connection ``p``. Every
  connection the relay closes itself (the room moved, the owner never answered, a
  drain) is a ``leave`` too;
- back to the relay: ``frames`` (one encoded frame and every connection of that node
  it is for: a patch for ten spectators on one node crosses Redis once), ``close``
  (a fatal error code and message), and ``result`` of a ``call``.

Every message carries an id (``mid``: the sender's incarnation and a counter): a batch
sent again (its pipeline failed, or on a Redis Cluster its WAIT found no replica
holding it) is handled once by its reader, so a late copy of a hello, a command or
a leave never acts twice. The incarnation (:func:`sender`) also tells each side which
process of the other it deals with: a node killed and started again under the same id
within its heartbeat holds none of the connections its earlier process held, and the
other side finds that out by the heartbeat (server/cluster/leases.py) naming another
incarnation. Connection ids start at random, so a restarted relay's ids are not taken
for its earlier process's.

The owner serves a relayed connection as one more peer (:class:`RemotePeer`), so
seats, presence, answers, resumes and arrival order are exactly those of a local
connection: the owner's room mailbox decides arrival order, and a forwarded command
enters it when the owner's inbox reader reads it. What is relayed is encoded frames:
the owner encodes once per codec and the relay writes the bytes to the socket.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import msgpack
from redis.exceptions import TimeoutError as RedisTimeoutError

from protocol.codec import codec_for
from protocol.errors import ProtocolError
from protocol.messages import Ack, Hello, Reject, Welcome
from server.metrics import Metrics
from server.store.redis_conn import (
    MOVING,
    REDIS_ERRORS,
    Client,
    add_wait,
    check_wait,
    ready,
    refresh,
)
from server.tasks import cancel_and_wait

log = logging.getLogger("rollhouse.cluster")

INBOX_MAXLEN = 100_000
"""Entries kept per inbox (approximate trim); a reader this far behind has lost its peers."""

SEEN_KEPT = 100_000
"""Message ids a reader remembers to handle a resent batch once."""

RELAYED = frozenset({"hello", "cmd", "act", "resync"})
"""What a relay sends an owner for one of its connections, before that connection's leave."""

Message = dict[str, Any]


def pack(msg: Message) -> bytes:
    return msgpack.packb(msg, use_bin_type=True)  # type: ignore[no-any-return]


def unpack(blob: bytes) -> Message:
    return msgpack.unpackb(blob, raw=False, strict_map_key=False)  # type: ignore[no-any-return]


class Streams:
    """This node's inbox reader and its ordered, pipelined sender to other inboxes."""

    def __init__(
        self,
        client: Client,
        reader: Client,
        prefix: str,
        node: str,
        handle: Callable[[Message], Awaitable[None]],
    ) -> None:
        self.client, self.reader, self.prefix, self.node = client, reader, prefix, node
        self.handle = handle
        self._queue: list[tuple[str, Message]] = []
        self._unsent: list[tuple[str, Message, bytes]] = []
        """Messages (with their ids) whose pipeline failed, and their encoding: sent
        first next time."""
        self._unsent_hellos: set[tuple[str, int]] = set()
        """(owner node, connection) of each of this node's hellos queued or unsent: the
        only connections :meth:`retract_hello` need look for (a leave is O(1) when its
        hello went long ago, however long the queue is)."""
        self._wake = asyncio.Event()
        self._sending = asyncio.Lock()  # one pipeline at a time keeps each inbox in order
        self._tasks: list[asyncio.Task[None]] = []
        self.last_id: Any = b"$"
        self._ids = itertools.count(1)
        self.incarnation = secrets.token_hex(6)
        """This process's token: in every message id and in the node's heartbeat."""
        self._seen: collections.OrderedDict[str, None] = collections.OrderedDict()
        """The ids of the messages handled lately: a batch sent again (its WAIT failed,
        or its pipeline did) is handled once."""
        self.replicas, self.wait_timeout = 0, 1.0
        """On a Redis Cluster, a batch counts as sent once this many replicas hold it
        (WAIT): a master failover loses no relayed message (one resent after a failed
        WAIT may arrive twice; the receiver ignores what it has seen)."""

    def inbox(self, node: str) -> str:
        return f"{self.prefix}:node:{node}:in"

    async def start(self) -> None:
        """Find the inbox's end (what an earlier incarnation was sent is skipped), then
        start reading and sending. The end is found before the node serves anything, so
        no message sent to this incarnation can fall before it."""
        await self._find_end()
        self._tasks = [
            asyncio.create_task(_forever(self._send_loop, "send"), name="relay-send"),
            asyncio.create_task(_forever(self._read_loop, "read"), name="relay-read"),
        ]

    async def close(self) -> None:
        await self.flush()
        for task in self._tasks:
            await cancel_and_wait(task)

    def send(self, node: str, msg: Message) -> None:
        """Queue ``msg`` for ``node``'s inbox (never waits; order per node is kept)."""
        self._queue.append((node, msg))
        if msg.get("k") == "hello":
            self._unsent_hellos.add((node, msg["p"]))
        self._wake.set()

    def retract_hello(self, node: str, pid: int) -> bool:
        """Take back connection ``pid``'s hello to ``node`` and what followed it, when
        they are still queued here (not being sent): the connection closed while Redis
        was away. Sent later, its hello could reach the owner after the client's newer
        connection did, and replace it (``room/replaced``, which a client takes as
        final). The caller still sends the leave: a no-op at an owner that never saw
        the hello, and the end of the peer if an earlier, failed try delivered it."""
        if (node, pid) not in self._unsent_hellos:
            return False
        self._unsent_hellos.discard((node, pid))

        def ours(to: str, msg: Message) -> bool:
            return (to == node and msg.get("k") in RELAYED and msg.get("n") == self.node
                    and msg.get("p") == pid)  # fmt: skip

        def hello(to: str, msg: Message) -> bool:
            return ours(to, msg) and msg["k"] == "hello"

        at = next((i for i, (to, msg, _) in enumerate(self._unsent) if hello(to, msg)), None)
        if at is not None:  # a failed try held it: what was queued since goes too
            self._unsent[at:] = [u for u in self._unsent[at:] if not ours(u[0], u[1])]
            self._queue = [q for q in self._queue if not ours(*q)]
            return True
        at = next((i for i, (to, msg) in enumerate(self._queue) if hello(to, msg)), None)
        if at is None:
            return False
        self._queue[at:] = [q for q in self._queue[at:] if not ours(*q)]
        return True

    async def flush(self) -> None:
        """Send what is queued (retried while Redis does not answer, bounded)."""
        async with self._sending:
            await self._flush()

    async def _flush(self) -> None:
        for _attempt in range(50):
            batch = self._unsent + _packed(_coalesce(self._queue), self._stamp)
            self._unsent, self._queue = [], []
            if not batch:
                return
            pipe = self.client.pipeline(transaction=False)
            try:
                await ready(self.client)
            except REDIS_ERRORS as exc:
                log.warning("relay: cannot send %d messages yet: %s", len(batch), exc)
                self._unsent = batch
                await asyncio.sleep(0.1)
                continue
            for node, _msg, blob in batch:
                pipe.xadd(self.inbox(node), {"m": blob}, maxlen=INBOX_MAXLEN, approximate=True)
            waits = sum(add_wait(pipe, self.client, key, self.replicas, self.wait_timeout)
                        for key in {self.inbox(node) for node, _, _ in batch})  # fmt: skip
            try:
                options = {"allow_redirections": False} if waits else {}  # WAIT's connection
                replies = await pipe.execute(**options)
                for answer in replies[len(replies) - waits :]:
                    check_wait(answer, self.replicas)
                self._unsent_hellos.difference_update(
                    (node, msg["p"]) for node, msg, _ in batch if msg.get("k") == "hello"
                )
            except REDIS_ERRORS as exc:
                if isinstance(exc, MOVING):  # not run: read the slots again, then resend
                    with contextlib.suppress(*REDIS_ERRORS):
                        await refresh(
                            self.client
                        )  # sent again whole: a receiver ignores what it has seen
                log.warning("relay: cannot send %d messages yet: %s", len(batch), exc)
                self._unsent = batch
                await asyncio.sleep(0.1)

    async def _send_loop(self) -> None:
        while True:
            if self._unsent:  # Redis refused the last tries: try again even if nothing new
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), 1.0)
            else:
                await self._wake.wait()
            self._wake.clear()
            await self.flush()

    async def _find_end(self) -> None:
        key = self.inbox(self.node)
        for _attempt in range(50):  # start after what an earlier incarnation was sent
            try:
                top = await self.reader.xrevrange(key, "+", "-", count=1)
                self.last_id = top[0][0] if top else b"0-0"
                return
            except REDIS_ERRORS as exc:
                log.warning("relay: cannot find the inbox's end yet: %s", exc)
                await asyncio.sleep(0.2)
        self.last_id = b"0-0"  # Redis is away: read whatever it holds once it is back

    def _stamp(self) -> str:
        return f"{self.incarnation}:{next(self._ids)}"

    def _again(self, uid: str | None) -> bool:
        """Whether the message ``uid`` was handled already (remembering it if not)."""
        if uid is None:
            return False
        if uid in self._seen:
            return True
        self._seen[uid] = None
        if len(self._seen) > SEEN_KEPT:
            self._seen.popitem(last=False)
        return False

    async def _read_loop(self) -> None:
        key = self.inbox(self.node)
        while True:
            try:
                reply: Any = await self.reader.xread({key: self.last_id}, count=512, block=1000)
            except RedisTimeoutError:  # an idle block outlasted the store URL's socket_timeout
                continue  # (1 s or less): read again from the same id, nothing is lost
            except REDIS_ERRORS as exc:
                log.warning("relay: inbox read failed (%s); resuming from %r", exc, self.last_id)
                await asyncio.sleep(0.2)
                continue
            for _key, entries in reply or []:
                for entry_id, msg in without_gone_hellos(_decoded(entries)):
                    self.last_id = entry_id
                    if msg is None:
                        continue
                    try:
                        if self._again(msg.get("mid")):
                            continue
                        await self.handle(msg)
                    except Exception:
                        log.exception("relay: cannot handle a message")


def sender(msg: Message) -> str | None:
    """The incarnation of the process that sent ``msg`` (None: an id-less message)."""
    mid = msg.get("mid")
    return mid.split(":", 1)[0] if isinstance(mid, str) else None


def _decoded(entries: list[tuple[Any, Any]]) -> list[tuple[Any, Message | None]]:
    """Each inbox entry's message (None for one that cannot be read: logged)."""
    out: list[tuple[Any, Message | None]] = []
    for entry_id, fields in entries:
        try:
            out.append((entry_id, unpack(fields[b"m"])))
        except Exception:
            log.exception("relay: cannot read inbox entry %r", entry_id)
            out.append((entry_id, None))
    return out


def without_gone_hellos(
    batch: list[tuple[Any, Message | None]],
) -> list[tuple[Any, Message | None]]:
    """The batch with each ``hello`` whose connection leaves later in the same batch
    read as nothing (None): the connection is gone already (its relay closed it while
    Redis was away, and sent the hello again with the leave), and joining it would
    seat a ghost that replaces its client's newer connection (``room/replaced``, which
    a client takes as final). The leave still goes through: harmless when the owner
    never saw the hello, and it ends the peer when an earlier copy of the hello came."""
    leaving = {(m["n"], m["p"]) for _, m in batch if m is not None and m.get("k") == "leave"}
    if not leaving:
        return batch
    return [
        (entry_id, None if m is not None and m.get("k") == "hello" and (m["n"], m["p"]) in leaving
         else m)
        for entry_id, m in batch
    ]  # fmt: skip


async def _forever(loop: Callable[[], Awaitable[None]], what: str) -> None:
    """Run ``loop`` again if it ever fails: a relay loop that died would lose every
    later message in silence (a bug is logged, not swallowed)."""
    while True:
        try:
            await loop()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("relay: the %s loop failed; restarting it", what)
            await asyncio.sleep(0.1)


def _packed(
    batch: list[tuple[str, Message]], stamp: Callable[[], str]
) -> list[tuple[str, Message, bytes]]:
    """Each message with its own id (``mid``) and its encoding; one that cannot be
    encoded (a bug) is logged and left out."""
    out = []
    for node, msg in batch:
        try:
            stamped = {**msg, "mid": stamp()}
            out.append((node, stamped, pack(stamped)))
        except (TypeError, ValueError, OverflowError):
            log.exception("relay: cannot encode a %r message for node %s", msg.get("k"), node)
    return out


def _coalesce(queue: list[tuple[str, Message]]) -> list[tuple[str, Message]]:
    """Merge the messages of one frame object for several connections of one node into
    one message: a connection joins the latest such message if nothing for it was
    queued after that message (each connection's own frames and closes keep their
    order; order between connections is no promise). So a patch for 50 spectators
    crosses once even when each of them also gets another frame in the same input
    (patch, presence, patch, presence...: two messages, not 100)."""
    out: list[tuple[str, Message]] = []
    latest: dict[tuple[str, int], int] = {}
    """(node, id of the frame) -> index in ``out`` of the latest frames message of it."""
    last: dict[tuple[str, Any], int] = {}
    """(node, connection) -> index in ``out`` of the latest message for it."""
    for node, msg in queue:
        kind = msg.get("k")
        if kind == "frames":
            pids, key = msg["p"], (node, id(msg["f"]))
            at = latest.get(key)
            if at is not None and all(last.get((node, pid), -1) <= at for pid in pids):
                out[at][1]["p"].extend(pids)
                for pid in pids:
                    last[(node, pid)] = at
                continue
            latest[key] = len(out)
            for pid in pids:
                last[(node, pid)] = len(out)
            out.append((node, {**msg, "p": list(pids)}))
            continue
        if kind == "close":
            last[(node, msg["p"])] = len(out)
        out.append((node, msg))
    return out


# -- the owner's side ------------------------------------------------------------------


class RemotePeer:
    """A connection held by another node, as the owner's room sees it (a ``Peer``)."""

    def __init__(
        self, streams: Streams, node: str, pid: int, codec_name: str, incarnation: str | None
    ) -> None:
        self.streams, self.node, self.pid = streams, node, pid
        self.incarnation = incarnation
        """The relay process that sent the hello (:func:`sender`): a heartbeat naming
        another one means that process is gone, and this connection with it."""
        self.codec_name = codec_name
        self.codec = codec_for(codec_name)
        self.gone = False
        self.seat: int | None = None
        self.role: str | None = None
        self.closed = False

    def encode(self, message: Any) -> bytes | str:
        return self.codec.encode(message)

    def send_frame(self, frame: bytes | str) -> None:
        if not self.closed:
            self.streams.send(self.node, {"k": "frames", "p": [self.pid], "f": frame})

    def send_frames(self, frames: list[bytes | str]) -> None:
        for frame in frames:
            self.send_frame(frame)

    def close_with(self, code: str, message: str) -> None:
        if not self.closed:
            self.closed = True
            self.streams.send(self.node, {"k": "close", "p": self.pid, "c": code, "m": message})


def hello_of(msg: Message) -> Hello:
    h = msg["h"]
    return Hello(msg["r"], h["role"], h.get("name"), h.get("seat_token"), h.get("last_seq"),
                 invite=h.get("invite"), new_seat_token=h.get("new_seat_token"),
                 client=h.get("client"), attempt=h.get("attempt"))  # fmt: skip


# -- the relay's side ------------------------------------------------------------------


_pids = itertools.count(secrets.randbits(40) << 16)
"""Connection ids from a random start: an owner still holding the peers of this node's
earlier process (until it sees the new heartbeat) never takes a new id for an old one."""


SENT_KEPT = 256
"""Forwarded commands a session times at once (older ones are forgotten)."""


@attrs.define
class Session:
    """One local connection to a room run elsewhere.

    The relay passes the owner's frames through unread, except while it waits for the
    welcome (to learn the connection's seat and role, for this node's gauges) or for
    the answer of a forwarded command (to time the round trip)."""

    peer: Any
    room: RemoteRoom
    opened: float
    answered: bool = False
    welcomed: bool = False
    sent: dict[str, float] = attrs.field(factory=dict)
    """Forwarded command id -> when it was forwarded (monotonic)."""
    owner_incarnation: str | None = None
    """The owner's process that answered (:func:`sender` of its first frame): once the
    owner's heartbeat names another, the owner restarted and this connection is nobody's."""

    def read(self, frame: bytes | str, metrics: Metrics) -> None:
        try:
            message = self.peer.codec.decode_server(frame)
        except ProtocolError:
            return
        if isinstance(message, Welcome):
            self.welcomed = True
            self.peer.seat, self.peer.role = message.seat, message.role
        elif isinstance(message, Ack | Reject):
            started = self.sent.pop(message.id, None)
            if started is not None:
                metrics.relay_latency.observe(time.monotonic() - started)


class RemoteRoom:
    """A room run by ``owner``: what a local connection calls instead of a ``Room``."""

    broken = False

    def __init__(
        self,
        streams: Streams,
        sessions: dict[int, Session],
        room: str,
        owner: str,
        metrics: Metrics,
    ) -> None:
        self.streams, self.sessions = streams, sessions
        self.room_id, self.owner = room, owner
        self.metrics = metrics

    def _send(self, kind: str, pid: int, **fields: Any) -> None:
        self.metrics.forwarded.inc(direction="out", kind=kind)
        self.streams.send(self.owner, {"k": kind, "n": self.streams.node, "p": pid, **fields})

    def join(self, peer: Any, hello: Hello, player: str | None = None) -> int:
        pid = next(_pids)
        self.sessions[pid] = Session(peer, self, time.monotonic())
        h = {"role": hello.role, "name": hello.name, "seat_token": hello.seat_token,
             "last_seq": hello.last_seq, "invite": hello.invite, "player": player,
             "new_seat_token": hello.new_seat_token, "client": hello.client,
             "attempt": hello.attempt}  # fmt: skip
        self._send("hello", pid, r=self.room_id, c=peer.codec_name, h=h)
        return pid

    def command(self, pid: int, cmd_id: str, body: dict[str, Any]) -> None:
        session = self.sessions.get(pid)
        if session is not None:
            if len(session.sent) >= SENT_KEPT:
                del session.sent[next(iter(session.sent))]
            session.sent[cmd_id] = time.monotonic()
        self._send("cmd", pid, i=cmd_id, b=body, t=time.time())

    def act(self, pid: int, act_id: str, act: dict[str, Any]) -> None:
        self._send("act", pid, i=act_id, a=act)

    def resync(self, pid: int) -> None:
        self._send("resync", pid)

    def leave(self, pid: int) -> None:
        """The local socket is gone: the owner is told (``u``: its welcome never came
        through, so a seat it gave is nobody's and goes back)."""
        session = self.sessions.pop(pid, None)
        if session is not None:
            self.streams.retract_hello(self.owner, pid)
            self._send("leave", pid, u=not session.welcomed)

    def close(self, pid: int, code: str, message: str) -> None:
        """Close the local connection ``pid`` from this side (the room moved, or its
        owner never answered): the owner is told it left, like any other leave, so no
        seat stays held for a client that never got its token."""
        session = self.sessions.get(pid)
        if session is not None and session.room is self:
            self.leave(pid)
            session.peer.close_with(code, message)
