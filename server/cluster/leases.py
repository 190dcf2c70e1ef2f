"""Room leases with fencing: exactly one node runs a live room, and only it can write.

Keys of room ``id`` (beside the store's, same prefix and layout: in the tagged layout
``{prefix}:room:{<id>}:lease``, one slot with the room's log; server/store/redis_keys.py):

- ``{prefix}:room:{id}:lease``   the holder's node id, ``SET ... PX lease`` (renewed)
- ``{prefix}:room:{id}:fence``   the fence epoch (the store's own key): a claim INCRs it
  in the same script that takes the lease, so the holder's epoch is the newest and
  every append of an older holder is refused inside the append script
- ``{prefix}:room:{id}:holder``  the last holder, kept after the lease lapses ('' once
  handed over): a claim that finds another node here took the room over (a failover)
- ``{prefix}:room:{id}:epochs`` hash epoch -> the node that took it (by a claim or a
  refence); an epoch given twice (only a failover that lost a claim could) is kept as
  ``dup:<epoch>``: what a history checker reads beside each record's epoch
- ``{prefix}:node:{id}:alive``   a node's heartbeat, ``PX 2 * lease`` (written at start
  and with every renewal), holding the node's *incarnation* (a random token per
  process): an owner drops the relayed peers of a node without one, or of an earlier
  incarnation (the node restarted under the same id within the heartbeat), and a relay
  moves its connections to an owner that restarted (they were never in its memory)

A lease alone never decides a write (a paused holder may still believe it holds it);
the epoch does. The lease only decides who *tries*.

On a Redis Cluster (server/store/redis_conn.py) a claim and a refence are followed by
``WAIT`` on the same connection: the node uses the new epoch only once a replica
holds it, so a master failover can never hand the same epoch to two nodes. Fences
never go backwards: a renewal that finds the room's fence below the epoch the node
writes with (a failover lost writes) puts the fence back up to that epoch and says
the room is lost, so the node stops serving it and the next claim reloads it from
the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import attrs
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError, ResponseError

from server.room.ownership import RoomElsewhere
from server.store import StoreError, StoreFenced, StoreUnavailable
from server.store.redis_conn import (
    MOVING,
    REDIS_ERRORS,
    Client,
    add_wait,
    check_wait,
    mget,
    ready,
    refresh,
)
from server.store.redis_keys import Keys

log = logging.getLogger("rollhouse.cluster")

ALIVE_LEASES = 2
"""A heartbeat outlives the lease: a relay node late by a tick keeps its peers."""

# KEYS: epochs. ARGV[1]: node. The epoch just taken, noted with its node.
_NOTE = """
if redis.call('HSETNX', KEYS[4], epoch, ARGV[1]) == 0 then
  redis.call('HSET', KEYS[4], 'dup:' .. epoch, ARGV[1])
end
"""

# KEYS: lease, fence, holder, epochs. ARGV: node, px. -> {1, epoch, previous holder} or
# {0, holder}
CLAIM = (
    """
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return {0, cur} end
local epoch = redis.call('INCR', KEYS[2])
"""
    + _NOTE
    + """
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local last = redis.call('GET', KEYS[3]) or ''
redis.call('SET', KEYS[3], ARGV[1])
if cur then last = '' end
return {1, epoch, last}
"""
)

# KEYS: lease, fence. ARGV: node, px, the epoch the node writes with. -> 1 renewed, 0 lost,
# -1 lost because the fence went backwards (put back up to the node's epoch).
# A lease that lapsed while nobody claimed the room (the epoch is still ours: every
# claim moves it) is taken again: a node cut off from Redis keeps its rooms if nobody
# else could have taken them.
RENEW = """
local fence = tonumber(redis.call('GET', KEYS[2]) or '0')
if fence < tonumber(ARGV[3]) then
  redis.call('SET', KEYS[2], ARGV[3])
  return -1
end
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not cur and tonumber(redis.call('GET', KEYS[2]) or '0') == tonumber(ARGV[3]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

# KEYS: lease, holder. ARGV: node. -> 1 released, 0 not ours
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], '')
  return 1
end
return 0
"""

# KEYS: lease, fence, (unused), epochs. ARGV: node. -> the new epoch, or the error NOTOWNER
REFENCE = (
    """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('NOTOWNER') end
local epoch = redis.call('INCR', KEYS[2])
"""
    + _NOTE
    + """
return epoch
"""
)


@attrs.frozen
class Claimed:
    epoch: int
    previous: str
    """The node that held the room before and did not hand it over ('' if none)."""


def _text(value: Any) -> str | None:
    return None if value is None else bytes(value).decode()


class Leases:
    """The lease operations of one node (``node``) on one Redis."""

    exclusive = True

    def __init__(
        self,
        client: Client,
        prefix: str,
        node: str,
        lease: float,
        *,
        replicas: int = 0,
        wait_timeout: float = 1.0,
        writer: Client | None = None,
        incarnation: str = "1",
        on_backwards: Callable[[str], None] | None = None,
    ) -> None:
        self.client = client
        self.on_backwards = on_backwards
        """Told each room found with its fence below this node's epoch (the metrics)."""
        self.incarnation = incarnation
        """What this node's heartbeat holds: its process's token (see :meth:`alive`)."""
        self.writer = writer or client
        """What claims and refences go through on a cluster: a client that never retries
        (a retried pipeline could send its WAIT to another connection than the script)."""
        self.replicas, self.wait_timeout = replicas, wait_timeout
        """Replicas a claim waits for (WAIT; 0 on one Redis), and for how long."""
        self.prefix = prefix
        self.keys = Keys(prefix)
        """The store's key names (the node sets the store's layout at start)."""
        self.node = node
        self.px = max(1, int(lease * 1000))
        self._claim = client.register_script(CLAIM)
        self._renew = client.register_script(RENEW)
        self._release = client.register_script(RELEASE)
        self._refence = client.register_script(REFENCE)
        self.on_claimed: list[object] = []
        self.failovers = 0
        self.backwards = 0
        """Rooms found with a fence below the epoch this node wrote them with."""

    def key(self, room: str, what: str) -> str:
        return self.keys.room(room, what)

    def alive_key(self, node: str) -> str:
        return f"{self.prefix}:node:{node}:alive"

    async def take(self, room: str) -> Claimed:
        """Take the lease of ``room`` (and a new epoch); RoomElsewhere while another holds it."""
        keys = [self.key(room, "lease"), self.key(room, "fence"), self.key(room, "holder"),
                self.key(room, "epochs")]  # fmt: skip
        try:
            reply = await self._replicated(self._claim, keys, [self.node, self.px])
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc
        if int(reply[0]) == 0:
            raise RoomElsewhere(room, reply[1].decode())
        return Claimed(int(reply[1]), reply[2].decode())

    async def renew(self, rooms: dict[str, int]) -> dict[str, bool | None]:
        """Renew the lease of every room (by the epoch we write it with), with the
        heartbeat; which are still ours (True), another's (False), or unknown (None).

        On one Redis, one pipeline: StoreUnavailable when it fails. On a Redis Cluster,
        one pipeline per master (and one for the heartbeat), each on its own with half
        a lease to answer: the rooms of a master that does not answer (failing over)
        are unknown while the others' are renewed, so one master's failover costs only
        its own rooms; StoreUnavailable only when no master answered (the node is cut
        off). Before, one master down failed every renewal, and after a lease the node
        let go of every room it ran (the soak: 52 rooms and their players at once)."""
        if not isinstance(self.client, RedisCluster):
            return dict(await self._renew_once(rooms, heartbeat=True))
        limit = self.px / 2000
        with contextlib.suppress(TimeoutError, *REDIS_ERRORS):  # the slots known so far do
            await asyncio.wait_for(ready(self.client), limit)
        groups: dict[str, dict[str, int]] = {}
        try:
            for room, epoch in rooms.items():
                node = self.client.get_node_from_key(self.key(room, "lease"))
                groups.setdefault("" if node is None else node.name, {})[room] = epoch
        except REDIS_ERRORS as exc:  # no slots known yet
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc
        parts: list[tuple[dict[str, int], bool]] = [({}, True)]
        parts += [(group, False) for group in groups.values()]
        results = await asyncio.gather(
            *(
                asyncio.wait_for(self._renew_once(group, heartbeat), limit)
                for group, heartbeat in parts
            ),
            return_exceptions=True,
        )
        failed = [r for r in results if isinstance(r, BaseException)]
        for bug in (r for r in failed if not isinstance(r, StoreError | TimeoutError)):
            raise bug
        if len(failed) == len(results):
            raise StoreUnavailable(f"no master answered a renewal: {failed[0]!r}")
        out: dict[str, bool | None] = {}
        for (group, _), result in zip(parts, results, strict=True):
            out.update(dict.fromkeys(group) if isinstance(result, BaseException) else result)
        return out

    async def _renew_once(self, rooms: dict[str, int], heartbeat: bool) -> dict[str, bool]:
        """One pipeline renewing ``rooms`` (and the heartbeat): which are still ours."""
        for attempt in range(2):
            pipe = self.client.pipeline(transaction=False)
            for room, epoch in rooms.items():
                keys = [self.key(room, "lease"), self.key(room, "fence")]
                await self._renew(keys=keys, args=[self.node, self.px, epoch], client=pipe)  # type: ignore[arg-type]
            if heartbeat:
                pipe.set(self.alive_key(self.node), self.incarnation, px=ALIVE_LEASES * self.px)
            try:
                replies = await pipe.execute(raise_on_error=attempt == 1)
            except REDIS_ERRORS as exc:
                raise StoreUnavailable(f"redis unavailable: {exc}") from exc
            if not any(isinstance(r, NoScriptError) for r in replies):
                break
            # a master that never ran it (a failover): loaded there only, not on every
            # master (one away would hold the others' renewals up)
            await self._load(self._renew, next(iter(rooms), None))
        for bad in (r for r in replies if isinstance(r, BaseException)):
            raise StoreUnavailable(f"redis: {bad}")
        backwards = [room for room, r in zip(rooms, replies, strict=False) if int(r) == -1]
        for room in backwards:
            self.backwards += 1
            if self.on_backwards is not None:
                self.on_backwards(room)
            log.error("room %s: its fence was below epoch %d (a failover lost writes); "
                      "put back, the room is reloaded", room, rooms[room])  # fmt: skip
        return {room: int(r) == 1 for room, r in zip(rooms, replies, strict=False)}

    async def _load(self, script: AsyncScript, room: str | None = None) -> None:
        """SCRIPT LOAD ``script``: on a cluster, on the master of ``room``'s slot alone
        (every master without a room)."""
        try:
            if isinstance(self.client, RedisCluster) and room is not None:
                node = self.client.get_node_from_key(self.key(room, "lease"))
                await self.client.execute_command("SCRIPT LOAD", script.script, target_nodes=node)
            else:
                await self.client.script_load(script.script)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc

    async def _replicated(self, script: AsyncScript, keys: list[str], args: list[Any]) -> Any:
        """Run ``script``; on a cluster, then WAIT for the replicas on the same connection
        (NotReplicated, a RedisError, if too few hold it in time)."""
        if self.replicas == 0 or not isinstance(self.writer, RedisCluster):
            return await script(keys=keys, args=args)
        writer = self.writer
        await ready(writer)
        for attempt in range(2):
            pipe = writer.pipeline(transaction=False)
            await script(keys=keys, args=args, client=pipe)  # type: ignore[arg-type]
            add_wait(pipe, writer, keys[0], self.replicas, self.wait_timeout)
            reply, waited = await pipe.execute(raise_on_error=False, allow_redirections=False)
            if isinstance(reply, NoScriptError) and attempt == 0:
                await writer.script_load(script.script)
                continue
            if isinstance(reply, MOVING) and attempt == 0:  # did not run: the slot moved
                await refresh(writer)
                continue
            if isinstance(reply, BaseException):
                raise reply
            check_wait(waited, self.replicas)
            return reply
        raise AssertionError("unreachable")

    async def release(self, room: str) -> bool:
        """Hand ``room`` over: delete our lease so the next claimer needs not wait."""
        keys = [self.key(room, "lease"), self.key(room, "holder")]
        try:
            return int(await self._release(keys=keys, args=[self.node])) == 1
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc

    async def refence(self, room: str) -> int:
        """A new epoch for a room we hold; StoreFenced when the lease is not ours.

        Either way, on a cluster, whatever this node wrote to the room's master before
        (an append whose outcome it does not know) is on a replica once this returns:
        the refence WAITs, and a fenced one first writes a marker to the room's slot
        and WAITs (:meth:`_barrier`). The room then settles from the log and answers
        what it finds there: without the barrier a lapsed lease (nobody's, so no
        claim's WAIT either) let it acknowledge records only the master held, which a
        failover could lose. Too few replicas in time: StoreUnavailable (try again)."""
        keys = [self.key(room, "lease"), self.key(room, "fence"), self.key(room, "holder"),
                self.key(room, "epochs")]  # fmt: skip
        try:
            return int(await self._replicated(self._refence, keys, [self.node]))
        except ResponseError as exc:
            if "NOTOWNER" not in str(exc):
                raise StoreUnavailable(f"redis: {exc}") from exc
            await self._barrier(room)
            raise StoreFenced(room, 0, 0) from exc
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc

    async def _barrier(self, room: str) -> None:
        """On a cluster: a write to the room's slot, then WAIT, so every earlier write
        to its master is on a replica (replication is one stream per master: WAIT on a
        later write covers the earlier ones). StoreUnavailable when it is not."""
        if self.replicas == 0 or not isinstance(self.writer, RedisCluster):
            return
        writer, key = self.writer, self.key(room, "synced")
        try:
            await ready(writer)
            pipe = writer.pipeline(transaction=False)
            pipe.set(key, self.node, px=self.px)
            add_wait(pipe, writer, key, self.replicas, self.wait_timeout)
            done, waited = await pipe.execute(raise_on_error=False, allow_redirections=False)
            if isinstance(done, BaseException):  # not written: the WAIT counted nothing
                raise done
            check_wait(waited, self.replicas)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc

    async def holders(self, rooms: list[str]) -> dict[str, str | None]:
        """The current lease holder of each room (None: nobody)."""
        if not rooms:
            return {}
        try:
            values = await mget(self.client, [self.key(r, "lease") for r in rooms])
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc
        return {r: _text(v) for r, v in zip(rooms, values, strict=True)}

    async def alive(self, nodes: list[str]) -> dict[str, str | None]:
        """Each node's incarnation by its current heartbeat (None: no heartbeat, the
        node is dead or cut off; :data:`ANY_INCARNATION` from a node that does not say
        which, a release before incarnations were written)."""
        if not nodes:
            return {}
        try:
            values = await mget(self.client, [self.alive_key(n) for n in nodes])
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc
        return {n: _text(v) for n, v in zip(nodes, values, strict=True)}


ANY_INCARNATION = "1"
"""The heartbeat of a node that does not name its incarnation (what releases before
incarnations wrote): alive, and never taken for a restart."""


def restarted(known: str | None, current: str | None) -> bool:
    """Whether a node whose messages came from incarnation ``known`` runs as another
    one now (``current``, from :meth:`Leases.alive`): what it held in memory for us is
    gone. Unknown on either side (no message yet, no heartbeat, an older release's
    heartbeat) is not a restart: the lease and the heartbeat's lapse decide those."""
    return (
        known is not None
        and current is not None
        and ANY_INCARNATION not in (known, current)
        and known != current
    )
