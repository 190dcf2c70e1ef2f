"""The Redis Streams event store: one stream per room, entry ids = sequence numbers.

Keys (prefix configurable, default ``rollhouse``; a room's keys share the hash tag
``{<id>}`` in the ``tagged`` layout, see server/store/redis_keys.py; stores made
before it keep the ``plain`` names ``{prefix}:room:<id>:log``):

- ``{prefix}:room:{<id>}:log``   stream; entry ``0-{seq}`` with one field ``d`` (msgpack)
- ``{prefix}:room:{<id>}:snap``  hash ``s`` (seq), ``d`` (msgpack) of the latest snapshot
- ``{prefix}:room:{<id>}:fence`` the room's fence epoch (INCR), checked by every append
- ``{prefix}:room:{<id>}:replies`` hash ``{seat}:{cmd id}`` -> stored answer (msgpack),
  with ``...:replies:{seat}`` lists keeping each seat's order for the bound
- ``{prefix}:rooms``           sorted set of room ids, score = creation counter
- ``{prefix}:rooms:counter``   that counter
- ``{prefix}:driven``          set of the rooms that time alone moves
- ``{prefix}:layout``          ``tagged`` or ``plain``

An append is one EVALSHA of a Lua script (server/store/redis_lua.py) that checks
the stream's top against the expected seq and XADDs every record, atomically.
Appends from all rooms within one event-loop turn are group-committed: sent as one
(non-transactional) pipeline of EVALSHAs, each caller awaiting its own outcome.

Appends use a client with retries disabled: if the connection drops or times out
mid-pipeline the outcome is unknown, and a blind retry would report a StoreConflict
for an append that did succeed. The caller gets StoreUnknown; it calls ``fence`` (an
INCR that every later-executed append script sees, so a write still sitting in a
paused server's buffers can never land afterwards) and then reads the log's tail.
Both clients time out after ``socket_timeout`` seconds (default 5, set in the URL
as ``?socket_timeout=S``).

On a Redis Cluster (``redis+cluster://``, server/store/redis_conn.py) both clients are
redis-py's ``RedisCluster`` and a batch is one cluster pipeline: the append scripts,
then, on each master they went to, ``WAIT <replicas> <timeout>`` on the same
connection. An append is acknowledged only once WAIT counts enough replicas; fewer
(a replica down or slow past the timeout) make its outcome unknown, settled like a
lost connection (``fence`` on a cluster also WAITs: a fence a replica holds was
preceded on it by every append before it). A script Redis refused without running
it (NOSCRIPT, or MOVED/ASK/TRYAGAIN/CLUSTERDOWN while a failover moves its slot) is
sent again after loading the script or re-reading the slots, a few times.
Every script touches one room's keys only (one slot on a Redis Cluster); a new room
enters ``{prefix}:rooms`` after its first append succeeded (INCR, then ZADD NX,
retried a few times: a crash in between leaves the room out of the list, never a
listed room without a log).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    NoScriptError,
    RedisClusterException,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store import redis_lua
from server.store.base import (
    Record,
    check_limit,
    check_page,
    check_room,
    check_seq,
    pack,
    snapshot_beyond_log,
    unpack,
)
from server.store.batch import Append, Batcher, GroupCommitted
from server.store.errors import (
    StoreConflict,
    StoreError,
    StoreFenced,
    StoreUnavailable,
    StoreUnknown,
)
from server.store.match import RedisMatches
from server.store.operator import RedisOperator
from server.store.people_redis import RedisPeople
from server.store.redis_conn import (
    REDIS_ERRORS,
    REDIS_OR_OS_ERRORS,
    add_wait,
    check_wait,
    cluster_client,
    is_cluster_url,
    parse_cluster,
    ready,
)
from server.store.redis_keys import Keys, detect

log = logging.getLogger("rollhouse.store")

APPEND_SHA = redis_lua.sha1(redis_lua.APPEND)
SNAPSHOT_SHA = redis_lua.sha1(redis_lua.SAVE_SNAPSHOT)
REPLY_SHA = redis_lua.sha1(redis_lua.SAVE_REPLY)
LAST_SEQS_SHA = redis_lua.sha1(redis_lua.LAST_SEQS)
TIMEOUTS = {"socket_timeout": 5.0, "socket_connect_timeout": 5.0}
POOL_SIZE = 100
"""Connections a node's store client opens to Redis at most (redis-py's default)."""
POOL_WAIT = 5.0
"""Seconds a command waits for a free connection of the pool before it fails."""
REFUSED = (NoScriptError, MovedError, AskError, TryAgainError, ClusterDownError)
"""Replies that say a script did not run (sent again, a few times)."""
RESENDS = 3


def _seq_of(entry_id: bytes) -> int:
    return int(entry_id.split(b"-", 1)[1])


class RedisStore(GroupCommitted):
    """An EventStore on Redis Streams (redis.asyncio, bytes responses)."""

    def __init__(self, url: str, *, prefix: str = "rollhouse", max_batch: int = 512) -> None:
        self.prefix = prefix
        self.cluster = is_cluster_url(url)
        """On a Redis Cluster: appends WAIT for ``replicas`` (module docstring)."""
        self.replicas, self.wait_timeout = 0, 0.0
        self._client: Any
        self._writer: Any
        if self.cluster:
            target = parse_cluster(url)
            self.replicas, self.wait_timeout = target.wait, target.wait_timeout
            options = {**TIMEOUTS, **target.options}
            self._client = cluster_client(target, max_connections=POOL_SIZE, **options)
            self._writer = cluster_client(target, retry=Retry(NoBackoff(), 0), **options)
        else:
            # A burst of requests waits for a free connection (up to the pool's timeout)
            # rather than failing with "Too many connections" (redis-py's default pool).
            pool = aioredis.BlockingConnectionPool.from_url(
                url, max_connections=POOL_SIZE, timeout=POOL_WAIT, **TIMEOUTS
            )
            self._client = aioredis.Redis(connection_pool=pool, decode_responses=False)
            self._writer = aioredis.Redis.from_url(
                url,
                decode_responses=False,
                retry=Retry(NoBackoff(), 0),
                **TIMEOUTS,  # type: ignore[arg-type]
            )
        self._closed = False
        self.keys = Keys(prefix)
        """The key names: the tagged layout until the store says otherwise."""
        self._layout_known = False
        self.batcher: Batcher[Append, int] = Batcher(self._flush, max_batch=max_batch)
        self.people = RedisPeople(self._client, prefix, self._guard, self._check_open)
        """Players and sessions, on the same server (server/store/people_redis.py)."""
        self.matches = RedisMatches(self._client, prefix, self._guard)
        """Quick match's queues and claims (server/store/match.py)."""
        self.operator = RedisOperator(self._client, prefix, self._guard)
        """The operator console's audit log, bans and node reports (server/store/operator.py)."""

    async def layout(self) -> Keys:
        """The store's key names, read once (server/store/redis_keys.py)."""
        if not self._layout_known:
            self.keys = await self._guard(detect(self._client, self.prefix))
            self._layout_known = True
        return self.keys

    def log_key(self, room: str) -> str:
        """The stream key of ``room``'s log."""
        return self.keys.room(room, "log")

    def snapshot_key(self, room: str) -> str:
        """The hash key of ``room``'s latest snapshot."""
        return self.keys.room(room, "snap")

    def fence_key(self, room: str) -> str:
        """The counter holding ``room``'s fence epoch."""
        return self.keys.room(room, "fence")

    def replies_key(self, room: str) -> str:
        """The hash of ``room``'s stored answers."""
        return self.keys.room(room, "replies")

    @property
    def driven_key(self) -> str:
        """The set of rooms that time alone moves."""
        return self.keys.driven

    @property
    def rooms_key(self) -> str:
        """The sorted set of every room, in creation order."""
        return self.keys.rooms

    @property
    def summaries_key(self) -> str:
        """The hash of every room's lobby summary (msgpack)."""
        return f"{self.prefix}:summaries"

    # --- the EventStore interface ---

    async def read(self, room: str, after: int = 0, limit: int | None = None) -> list[Record]:
        """Records with seq > ``after`` in order, at most ``limit`` (XRANGE from 0-{after+1})."""
        self._check_open()
        await self.layout()
        check_room(room)
        check_seq(after, "after")
        limit = check_limit(limit)
        if limit == 0:
            return []
        key = self.log_key(room)
        entries = await self._guard(self._client.xrange(key, f"0-{after + 1}", "+", count=limit))
        return [Record(seq=_seq_of(eid), data=unpack(fields[b"d"])) for eid, fields in entries]

    async def last_seq(self, room: str) -> int:
        """The room's last seq (the stream's top id), 0 without a log."""
        self._check_open()
        await self.layout()
        key = self.log_key(check_room(room))
        top = await self._guard(self._client.xrevrange(key, "+", "-", count=1))
        return _seq_of(top[0][0]) if top else 0

    async def last_seqs(self, rooms: Sequence[str]) -> dict[str, int]:
        """Each room's last seq, 0 without a log: on one Redis a script reads every
        stream's top; on a cluster (each room its own slot) a pipeline of XREVRANGEs,
        which redis-py sends to each master at once."""
        self._check_open()
        await self.layout()
        wanted = [check_room(room) for room in rooms]
        if not wanted:
            return {}
        keys = [self.log_key(room) for room in wanted]
        if not self.cluster:
            ids = await self._eval(redis_lua.LAST_SEQS, LAST_SEQS_SHA, keys, ())
            return {room: _seq_of(top) if top else 0 for room, top in zip(wanted, ids, strict=True)}
        pipe = self._client.pipeline(transaction=False)
        for key in keys:
            pipe.xrevrange(key, "+", "-", count=1)
        tops = await self._guard(pipe.execute())
        return {
            room: _seq_of(top[0][0]) if top else 0 for room, top in zip(wanted, tops, strict=True)
        }

    async def list_rooms(self) -> list[str]:
        """Rooms in creation order."""
        self._check_open()
        await self.layout()
        rooms = await self._guard(self._client.zrange(self.rooms_key, 0, -1))
        return [r.decode() for r in rooms]

    async def save_summaries(self, summaries: Mapping[str, dict[str, Any]]) -> None:
        """Keep the rooms' lobby summaries (one HSET)."""
        self._check_open()
        mapping = {check_room(room): pack(data) for room, data in summaries.items()}
        if mapping:
            await self._guard(self._client.hset(self.summaries_key, mapping=mapping))

    async def room_page(
        self, cursor: int, limit: int
    ) -> tuple[list[tuple[str, dict[str, Any] | None]], int | None]:
        """Rooms newest first (ZREVRANGE), with their summaries (one HMGET)."""
        self._check_open()
        await self.layout()
        cursor, limit = check_page(cursor, limit)
        ids = await self._guard(self._client.zrevrange(self.rooms_key, cursor, cursor + limit))
        page = [bytes(r).decode() for r in ids[:limit]]
        blobs = await self._guard(self._client.hmget(self.summaries_key, page)) if page else []
        rooms = [(r, None if b is None else unpack(b)) for r, b in zip(page, blobs, strict=True)]
        return rooms, (cursor + limit if len(ids) > limit else None)

    async def save_snapshot(self, room: str, seq: int, data: dict[str, Any]) -> None:
        """Keep the snapshot unless one with a higher seq is already stored."""
        self._check_open()
        await self.layout()
        check_room(room)
        check_seq(seq, "seq")
        keys = (self.log_key(room), self.snapshot_key(room))
        args = (seq, pack(data))
        try:
            await self._eval(redis_lua.SAVE_SNAPSHOT, SNAPSHOT_SHA, keys, args)
        except StoreError as exc:
            reply = str(exc.__cause__)
            if isinstance(exc.__cause__, ResponseError) and reply.startswith("BEYOND "):
                raise snapshot_beyond_log(room, seq, int(reply.split()[1])) from None
            raise

    async def load_snapshot(self, room: str) -> tuple[int, dict[str, Any]] | None:
        """The latest snapshot ``(seq, data)`` or None."""
        self._check_open()
        await self.layout()
        key = self.snapshot_key(check_room(room))
        seq, blob = await self._guard(self._client.hmget(key, ["s", "d"]))
        return None if seq is None else (int(seq), unpack(blob))

    async def fence(self, room: str) -> int:
        """Move the room's fence epoch on (INCR); returns the new epoch. On a cluster
        the INCR is on a replica before this returns (WAIT), and with it every write
        the master took before it."""
        self._check_open()
        await self.layout()
        key = self.fence_key(check_room(room))
        if not self.cluster or self.replicas == 0:
            return int(await self._guard(self._client.incr(key)))
        await self._guard(ready(self._writer))  # never retried: WAIT on the INCR's connection
        pipe = self._writer.pipeline(transaction=False)
        pipe.incr(key)
        add_wait(pipe, self._writer, key, self.replicas, self.wait_timeout)
        epoch, waited = await self._guard(pipe.execute(raise_on_error=False))
        if isinstance(epoch, BaseException):
            await self._guard(_raise(epoch))
        await self._guard(_checked(waited, self.replicas))
        return int(epoch)

    async def save_reply(
        self,
        room: str,
        seat: int,
        cmd_id: str,
        data: dict[str, Any],
        keep: int,
        *,
        fence: int | None = None,
    ) -> None:
        """Keep one answer of ``seat`` (at most ``keep`` per seat), fenced like an append.
        On a cluster the answer is on a replica before this returns (WAIT, as an append):
        an answer a failover lost would let a repeated command id be decided again, and
        perhaps accepted after it was refused. Too few replicas in time: StoreUnavailable
        (the answer is not sent; the client's retry finds it, or decides it afresh)."""
        self._check_open()
        await self.layout()
        key = self.replies_key(check_room(room))
        keys = (key, f"{key}:{seat}", self.fence_key(room))
        args = (f"{seat}:{cmd_id}", pack(data), keep, "" if fence is None else fence)
        try:
            if self.cluster and self.replicas:
                await self._guard(
                    self._replicated_eval(redis_lua.SAVE_REPLY, REPLY_SHA, keys, args)
                )
            else:
                await self._eval(redis_lua.SAVE_REPLY, REPLY_SHA, keys, args)
        except StoreError as exc:
            reply = str(exc.__cause__)
            if isinstance(exc.__cause__, ResponseError) and reply.startswith("FENCED "):
                raise StoreFenced(room, fence or 0, int(reply.split()[1])) from None
            raise

    async def load_replies(self, room: str) -> list[tuple[int, str, dict[str, Any]]]:
        """Stored answers (each seat's in no particular order)."""
        self._check_open()
        await self.layout()
        stored = await self._guard(self._client.hgetall(self.replies_key(check_room(room))))
        out = []
        for field, blob in stored.items():
            seat, _, cmd_id = field.decode().partition(":")
            out.append((int(seat), cmd_id, unpack(blob)))
        return out

    async def set_driven(self, room: str, driven: bool) -> None:
        """Mark or unmark ``room`` as driven by time."""
        self._check_open()
        await self.layout()
        check_room(room)
        call = self._client.sadd if driven else self._client.srem
        await self._guard(call(self.driven_key, room))

    async def driven_rooms(self) -> list[str]:
        """Rooms marked driven."""
        self._check_open()
        await self.layout()
        return sorted(r.decode() for r in await self._guard(self._client.smembers(self.driven_key)))

    async def close(self) -> None:
        """Flush pending appends and close both connection pools."""
        if self._closed:
            return
        self._closed = True
        await self.batcher.close()
        await self._client.aclose()
        await self._writer.aclose()

    # --- plumbing ---

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailable("the store is closed")

    async def _guard(self, call: Awaitable[Any]) -> Any:
        try:
            return await call
        except (RedisConnectionError, RedisTimeoutError, RedisClusterException) as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc
        except REDIS_ERRORS as exc:
            raise StoreError(f"redis: {exc}") from exc

    async def _eval(self, script: str, sha: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        try:
            return await self._guard(self._client.evalsha(sha, len(keys), *keys, *args))
        except StoreError as exc:
            if not isinstance(exc.__cause__, NoScriptError):
                raise
        await self._guard(self._client.script_load(script))
        return await self._guard(self._client.evalsha(sha, len(keys), *keys, *args))

    async def _replicated_eval(
        self, script: str, sha: str, keys: Sequence[str], args: Sequence[Any]
    ) -> Any:
        """EVALSHA, then WAIT for the replicas on the same connection (the writer's, which
        never retries); sent again once if Redis refused it without running it (NOSCRIPT,
        or a slot moving). NotReplicated (a timeout) when too few replicas hold it."""
        writer = self._writer
        await ready(writer)
        for attempt in range(RESENDS + 1):
            pipe = writer.pipeline(transaction=False)
            pipe.evalsha(sha, len(keys), *keys, *args)
            add_wait(pipe, writer, keys[0], self.replicas, self.wait_timeout)
            reply, waited = await pipe.execute(raise_on_error=False, allow_redirections=False)
            if isinstance(reply, NoScriptError) and attempt < RESENDS:
                await writer.script_load(script)
                continue
            if isinstance(reply, REFUSED) and attempt < RESENDS:  # a slot moving: not run
                await asyncio.sleep(0.05 * (attempt + 1))
                await writer.nodes_manager.initialize()
                continue
            if isinstance(reply, BaseException):
                raise reply
            check_wait(waited, self.replicas)
            return reply
        raise AssertionError("unreachable")

    async def _flush(self, items: list[Append]) -> list[int | BaseException]:
        if self.cluster:
            outcomes = await self._cluster_flush(items)
        else:
            outcomes = await self._single_flush(items)
        new = [
            i.room
            for i, o in zip(items, outcomes, strict=True)
            if i.expected == 0 and isinstance(o, int)
        ]
        if new:
            await self._list_new(new)
        return outcomes

    async def _single_flush(self, items: list[Append]) -> list[int | BaseException]:
        replies = await self._pipeline(items)
        missing = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
        if missing:  # first use, or Redis restarted: load once, re-send those (they did not run)
            await self._guard(self._writer.script_load(redis_lua.APPEND))
            again = await self._pipeline([items[i] for i in missing])
            for i, reply in zip(missing, again, strict=True):
                replies[i] = reply
        return [self._outcome(item, reply) for item, reply in zip(items, replies, strict=True)]

    async def _cluster_flush(self, items: list[Append]) -> list[int | BaseException]:
        """The batch as cluster pipelines (module docstring): the appends a master
        refused without running them are sent again, a few times."""
        await self.layout()
        outcomes: list[int | BaseException | None] = [None] * len(items)
        todo = list(range(len(items)))
        for attempt in range(RESENDS + 1):
            replies = await self._cluster_pipeline([items[i] for i in todo])
            refused = [i for i, reply in zip(todo, replies, strict=True)
                       if isinstance(reply, REFUSED)]  # fmt: skip
            for i, reply in zip(todo, replies, strict=True):
                if not isinstance(reply, REFUSED) or attempt == RESENDS:
                    outcomes[i] = self._outcome(items[i], reply)
            if not refused or attempt == RESENDS:
                break
            try:
                if any(isinstance(replies[todo.index(i)], NoScriptError) for i in refused):
                    await self._writer.script_load(redis_lua.APPEND)
                else:  # a slot moved (a failover): read the slots again
                    await asyncio.sleep(0.05 * (attempt + 1))
                    await self._writer.nodes_manager.initialize()
            except REDIS_OR_OS_ERRORS as exc:
                log.warning("cannot prepare to send %d appends again: %s", len(refused), exc)
            todo = refused
        return [o if o is not None else StoreUnavailable("not sent") for o in outcomes]

    async def _cluster_pipeline(self, items: list[Append]) -> list[Any]:
        """The append scripts of ``items`` and a WAIT per master, in one cluster pipeline;
        each item's reply (an exception for one that failed or is not on enough replicas)."""
        writer = self._writer
        await writer.initialize()
        pipe = writer.pipeline(transaction=False)
        nodes: dict[str, list[int]] = {}
        for i, item in enumerate(items):
            fence = "" if item.fence is None else item.fence
            key = self.log_key(item.room)
            pipe.evalsha(APPEND_SHA, 2, key, self.fence_key(item.room), item.expected, fence,
                         *item.blobs)  # fmt: skip
            if self.replicas:
                nodes.setdefault(writer.get_node_from_key(key).name, []).append(i)
        waited: dict[str, int] = {}
        for name, members in nodes.items():
            waited[name] = len(items) + len(waited)
            add_wait(pipe, writer, self.log_key(items[members[0]].room), self.replicas,
                     self.wait_timeout)  # fmt: skip
        try:
            replies = await pipe.execute(raise_on_error=False, allow_redirections=False)
        except REDIS_OR_OS_ERRORS as exc:  # sent, perhaps: nobody knows what ran
            raise StoreUnknown(f"append outcome unknown: redis unavailable: {exc}") from exc
        out = list(replies[: len(items)])
        for name, members in nodes.items():
            try:
                check_wait(replies[waited[name]], self.replicas)
            except REDIS_ERRORS as exc:
                for i in members:
                    if not isinstance(out[i], BaseException):
                        out[i] = StoreUnknown(f"append outcome unknown: {exc}")
        return out

    async def _list_new(self, rooms: list[str]) -> None:
        """Enter rooms whose log was just begun in the room list (a few tries)."""
        for attempt in range(3):
            try:
                for room in rooms:
                    number = await self._client.incr(self.keys.counter)
                    await self._client.zadd(self.rooms_key, {room: number}, nx=True)
                return
            except REDIS_ERRORS as exc:
                if attempt == 2:
                    log.error("rooms %s not entered in the room list: %s", rooms, exc)
                    return
                await asyncio.sleep(0.05 * (attempt + 1))

    async def _pipeline(self, items: list[Append]) -> list[Any]:
        """One append script per item, sent as one pipeline of the writer's client (not a
        transaction: each script is atomic on its own); each reply, or the error Redis
        answered it with, in order.

        The writer never retries (its ``Retry`` has no attempts): a connection that fails
        on the way leaves the outcome unknown, and the pipeline gives its connection back
        disconnected, so the next batch connects again."""
        await self.layout()
        async with self._writer.pipeline(transaction=False) as pipe:
            for item in items:
                fence = "" if item.fence is None else item.fence
                pipe.evalsha(APPEND_SHA, 2, self.log_key(item.room), self.fence_key(item.room),
                             item.expected, fence, *item.blobs)  # fmt: skip
            try:
                return list(await pipe.execute(raise_on_error=False))
            except REDIS_OR_OS_ERRORS as exc:  # sent, perhaps: nobody knows what ran
                raise StoreUnknown(f"append outcome unknown: redis unavailable: {exc}") from exc

    @staticmethod
    def _outcome(item: Append, reply: Any) -> int | BaseException:
        if not isinstance(reply, BaseException):
            return int(reply)
        if isinstance(reply, StoreError):
            return reply
        if isinstance(reply, REFUSED):  # not run
            return StoreUnavailable(f"redis refused the append: {reply}")
        if isinstance(reply, RedisConnectionError | RedisTimeoutError | OSError):  # sent, perhaps
            return StoreUnknown(f"append outcome unknown: redis unavailable: {reply}")
        if isinstance(reply, ResponseError) and str(reply).startswith("CONFLICT "):
            return StoreConflict(item.room, item.expected, int(str(reply).split()[1]))
        if isinstance(reply, ResponseError) and str(reply).startswith("FENCED "):
            return StoreFenced(item.room, item.fence or 0, int(str(reply).split()[1]))
        return StoreError(f"redis: {reply}")


async def _raise(exc: BaseException) -> Any:
    raise exc


async def _checked(answer: Any, replicas: int) -> None:
    check_wait(answer, replicas)
