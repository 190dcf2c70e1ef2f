"""The room list every node serves: summaries kept in Redis by each room's owner.

- ``{prefix}:rooms``  the store's sorted set of every room in creation order (the
  append script adds a room with its first record)
- ``{prefix}:index``  hash room id -> JSON summary (status, seats, counts, owner node),
  written by the owner when the room is created and whenever its summary changes
  (checked every renewal tick)

``GET /api/rooms`` pages through the sorted set newest first and reads the
summaries in one HMGET. A room the append script has added but whose owner has not
indexed it yet (the moments between its first record and its first summary, or for
good if its creator died in between) is summarised from its log by the node that
lists it, which fills the gap in the index (HSETNX: an owner's summary always wins).

A summary is written after its records are durable, so a node killed in between
leaves the index behind the log (issue 23: finished rooms listed as ``playing`` at an
older seq for good, since nobody loads a finished room again). Whoever reads a
summary therefore checks it against its room's log (:meth:`Index.behind`: one script
per page on one Redis, one pipeline on a Redis Cluster): one behind the log whose room no live node owns is folded again
from the log and written back (:meth:`Index.mend`, kept only if newer than what the
index holds), so the index never stays behind the log past a read.
"""

from __future__ import annotations

import json
from typing import Any

from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError

from server.store import StoreUnavailable
from server.store.redis_conn import REDIS_ERRORS, Client
from server.store.redis_keys import Keys

MAX_PAGE = 500

# KEYS: the index. ARGV: room, its summary (JSON), its seq. -> 1 written, 0 kept what
# was there (a summary at this seq or later: its owner's, with its live counts).
MEND = """
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local ok, old = pcall(cjson.decode, cur)
  if ok and type(old) == 'table' and tonumber(old['seq'] or 0) >= tonumber(ARGV[3]) then
    return 0
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""


# KEYS: each room's log stream and lease, in pairs. ARGV: each room's summary seq.
# -> the 1-based positions of the rooms whose log is past their seq, each followed by
# its lease holder (false: nobody). One Redis only: on a cluster each room is its own slot.
BEHIND = """
local out = {}
for i = 1, #ARGV do
  local top = redis.call('XREVRANGE', KEYS[2 * i - 1], '+', '-', 'COUNT', 1)
  if #top > 0 and tonumber(string.match(top[1][1], '%-(%d+)$')) > tonumber(ARGV[i]) then
    out[#out + 1] = i
    out[#out + 1] = redis.call('GET', KEYS[2 * i])
  end
end
return out
"""


class Index:
    def __init__(self, client: Client, prefix: str) -> None:
        self.client = client
        self.rooms_key = f"{prefix}:rooms"
        self.key = f"{prefix}:index"
        self._mend = client.register_script(MEND)
        self._behind = client.register_script(BEHIND)
        self._one_redis = not isinstance(client, RedisCluster)

    async def put(self, summaries: dict[str, dict[str, Any]]) -> None:
        """Store the summaries of these rooms (one HSET)."""
        if not summaries:
            return
        mapping: dict[Any, Any] = {r: json.dumps(s, sort_keys=True) for r, s in summaries.items()}
        try:
            await self.client.hset(self.key, mapping=mapping)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc

    async def fill(self, summaries: dict[str, dict[str, Any]]) -> None:
        """Store these summaries where the index has none (HSETNX each): a node that
        summarised an unindexed room from its log keeps the next listing from doing it
        again, and never overwrites what an owner wrote."""
        if not summaries:
            return
        try:
            async with self.client.pipeline(transaction=False) as pipe:
                for room, summary in summaries.items():
                    pipe.hsetnx(self.key, room, json.dumps(summary, sort_keys=True))
                await pipe.execute()
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc

    async def behind(self, keys: Keys, seqs: dict[str, int]) -> dict[str, str | None]:
        """Of these rooms (each with the seq its summary is at), those whose log has
        moved past that seq, each with its lease holder (None: nobody runs it)."""
        if not seqs:
            return {}
        if self._one_redis:  # one script: a page of 500 rooms costs one round trip
            names = [keys.room(r, part) for r in seqs for part in ("log", "lease")]
            try:
                found = await self._behind(keys=names, args=list(seqs.values()))
            except REDIS_ERRORS as exc:
                raise StoreUnavailable(f"redis unavailable: {exc}") from exc
            rooms = list(seqs)
            holders = [None if h is None else bytes(h).decode() for h in found[1::2]]
            return {rooms[int(i) - 1]: h for i, h in zip(found[0::2], holders, strict=True)}
        try:
            async with self.client.pipeline(transaction=False) as pipe:
                for room in seqs:
                    pipe.xrevrange(keys.room(room, "log"), "+", "-", count=1)
                    pipe.get(keys.room(room, "lease"))
                replies = await pipe.execute()
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc
        out = {}
        for i, (room, seq) in enumerate(seqs.items()):
            top, holder = replies[2 * i], replies[2 * i + 1]
            if top and _seq_of(top[0][0]) > seq:
                out[room] = None if holder is None else bytes(holder).decode()
        return out

    async def mend(self, summaries: dict[str, dict[str, Any]]) -> None:
        """Write these summaries (folded from the log) where the index holds an older one."""
        if not summaries:
            return
        for attempt in range(2):
            try:
                async with self.client.pipeline(transaction=False) as pipe:
                    for room, summary in summaries.items():
                        text = json.dumps(summary, sort_keys=True)
                        args: list[str | int] = [room, text, int(summary.get("seq", 0))]
                        await self._mend(keys=[self.key], args=args, client=pipe)  # type: ignore[arg-type]
                    await pipe.execute()
                return
            except NoScriptError:  # a cluster's pipeline does not load scripts itself
                if attempt == 1:
                    raise StoreUnavailable("redis: the mend script is not loaded") from None
                try:
                    await self.client.script_load(MEND)
                except REDIS_ERRORS as exc:
                    raise StoreUnavailable(f"redis unavailable: {exc}") from exc
            except REDIS_ERRORS as exc:
                raise StoreUnavailable(f"redis unavailable: {exc}") from exc

    async def get(self, room: str) -> dict[str, Any] | None:
        try:
            blob = await self.client.hget(self.key, room)
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc
        found: dict[str, Any] | None = None if blob is None else json.loads(blob)
        return found

    async def page(
        self, cursor: int, limit: int
    ) -> tuple[list[tuple[str, dict[str, Any] | None]], int | None]:
        """Rooms newest first from position ``cursor``, each with its summary (None for a
        room its owner has not indexed yet: just created); the next cursor (None at the
        end)."""
        limit = max(1, min(MAX_PAGE, limit))
        try:
            ids: list[Any] = await self.client.zrevrange(self.rooms_key, cursor, cursor + limit)
            page, more = [bytes(r).decode() for r in ids[:limit]], len(ids) > limit
            blobs = await self.client.hmget(self.key, page) if page else []
        except REDIS_ERRORS as exc:
            raise StoreUnavailable(f"redis unavailable: {exc}") from exc
        out = [
            (room, None if blob is None else json.loads(blob))
            for room, blob in zip(page, blobs, strict=True)
        ]
        return out, (cursor + limit if more else None)


def _seq_of(entry_id: Any) -> int:
    """The seq of a log entry (its stream id is ``0-{seq}``)."""
    return int(bytes(entry_id).split(b"-")[1])
