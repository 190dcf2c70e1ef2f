"""Room leases with fencing: exactly one node runs a live room, and only it can write.

Keys of room ``id`` (beside the store's, same prefix and layout: in the tagged layout
``{prefix}:room:{<id>}:lease``, one slot with the room's log; server/store/redis_keys.py):

- ``{prefix}:room:{id}:lease``   the holder's node id, ``SET ... PX lease`` (renewed)
- ``{prefix}:room:{id}:fence``   the fence epoch (the store's own key): a claim INCRs it
  in the same script that takes the lease, so the holder's epoch is the newest and
  every append of an older holder is refused inside the append script
- ``{prefix}:room:{id}:holder``  the last holder, kept after the lease lapses ('' once
  handed over): a claim that finds another node here took the room over (a failover)
- ``{prefix}:node:{id}:alive``   a node's heartbeat, ``PX 2 * lease`` (written at start
  and with every renewal): an owner drops the relayed peers of a node without one

A lease alone never decides a write (a paused holder may still believe it holds it);
the epoch does. The lease only decides who *tries*.
"""

from __future__ import annotations

from typing import Any

import attrs
import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from server.room.ownership import RoomElsewhere
from server.store import StoreFenced, StoreUnavailable
from server.store.redis_keys import Keys

ALIVE_LEASES = 2
"""A heartbeat outlives the lease: a relay node late by a tick keeps its peers."""

# KEYS: lease, fence, holder. ARGV: node, px. -> {1, epoch, previous holder} or {0, holder}
CLAIM = """
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return {0, cur} end
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local last = redis.call('GET', KEYS[3]) or ''
redis.call('SET', KEYS[3], ARGV[1])
if cur then last = '' end
return {1, epoch, last}
"""

# KEYS: lease, fence. ARGV: node, px, the epoch the node writes with. -> 1 renewed, 0 lost.
# A lease that lapsed while nobody claimed the room (the epoch is still ours: every
# claim moves it) is taken again: a node cut off from Redis keeps its rooms if nobody
# else could have taken them.
RENEW = """
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

# KEYS: lease, fence. ARGV: node. -> the new epoch, or the error NOTOWNER
REFENCE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('NOTOWNER') end
return redis.call('INCR', KEYS[2])
"""


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

    def __init__(self, client: aioredis.Redis, prefix: str, node: str, lease: float) -> None:
        self.client = client
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

    def key(self, room: str, what: str) -> str:
        return self.keys.room(room, what)

    def alive_key(self, node: str) -> str:
        return f"{self.prefix}:node:{node}:alive"

    async def take(self, room: str) -> Claimed:
        """Take the lease of ``room`` (and a new epoch); RoomElsewhere while another holds it."""
        keys = [self.key(room, "lease"), self.key(room, "fence"), self.key(room, "holder")]
        try:
            reply = await self._claim(keys=keys, args=[self.node, self.px])
        except RedisError as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc
        if int(reply[0]) == 0:
            raise RoomElsewhere(room, reply[1].decode())
        return Claimed(int(reply[1]), reply[2].decode())

    async def renew(self, rooms: dict[str, int]) -> dict[str, bool]:
        """Renew the lease of every room (by the epoch we write it with) in one pipeline,
        with the heartbeat; which are still ours."""
        pipe = self.client.pipeline(transaction=False)
        for room, epoch in rooms.items():
            keys = [self.key(room, "lease"), self.key(room, "fence")]
            await self._renew(keys=keys, args=[self.node, self.px, epoch], client=pipe)
        pipe.set(self.alive_key(self.node), b"1", px=ALIVE_LEASES * self.px)
        try:
            replies = await pipe.execute()
        except RedisError as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc
        return {room: int(r) == 1 for room, r in zip(rooms, replies, strict=False)}

    async def release(self, room: str) -> bool:
        """Hand ``room`` over: delete our lease so the next claimer needs not wait."""
        keys = [self.key(room, "lease"), self.key(room, "holder")]
        try:
            return int(await self._release(keys=keys, args=[self.node])) == 1
        except RedisError as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc

    async def refence(self, room: str) -> int:
        """A new epoch for a room we hold; StoreFenced when the lease is not ours."""
        keys = [self.key(room, "lease"), self.key(room, "fence")]
        try:
            return int(await self._refence(keys=keys, args=[self.node]))
        except ResponseError as exc:
            if "NOTOWNER" in str(exc):
                raise StoreFenced(room, 0, 0) from exc
            raise StoreUnavailable(f"redis: {exc}") from exc
        except RedisError as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc

    async def holders(self, rooms: list[str]) -> dict[str, str | None]:
        """The current lease holder of each room (None: nobody)."""
        if not rooms:
            return {}
        try:
            values = await self.client.mget([self.key(r, "lease") for r in rooms])
        except RedisError as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc
        return {r: _text(v) for r, v in zip(rooms, values, strict=True)}

    async def alive(self, nodes: list[str]) -> dict[str, bool]:
        """Whether each node's heartbeat is current."""
        if not nodes:
            return {}
        try:
            values = await self.client.mget([self.alive_key(n) for n in nodes])
        except RedisError as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc
        return {n: v is not None for n, v in zip(nodes, values, strict=True)}
