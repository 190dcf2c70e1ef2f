"""The names of Rollhouse's Redis keys, in one of two layouts.

- ``tagged`` (every store made since issue 10): a room's keys share the hash tag of
  its id, ``{prefix}:room:{<id>}:log`` (the braces are literal), so on a Redis Cluster
  they live in one slot and every Lua script (append, stored replies, snapshots,
  claim, renew, release, refence) touches one slot only.
- ``plain`` (stores made before): ``{prefix}:room:<id>:log``. Still read and written
  as they are; ``rollhouse migrate-keys`` renames them to the tagged layout.

The layout of a store is written once, at ``{prefix}:layout``: a store that has no
such key and no room is new (tagged); one that has rooms but no layout key is plain.
The keys that are not a room's (``rooms``, ``rooms:counter``, ``driven``, ``index``,
``node:{id}:*``) are the same in both layouts and are never touched by a script
together with a room's keys.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import attrs
import redis.asyncio as aioredis

log = logging.getLogger("rollhouse.store")

Layout = Literal["plain", "tagged"]
ROOM_KEYS = ("log", "snap", "fence", "replies", "lease", "holder", "epochs")
"""What a room keeps beside its log (``replies:{seat}`` lists too)."""


@attrs.frozen
class Keys:
    prefix: str
    layout: Layout = "tagged"

    def room(self, room: str, what: str) -> str:
        """The key of ``room``'s ``what`` (``log``, ``fence``, ``lease``...)."""
        if self.layout == "tagged":
            return f"{self.prefix}:room:{{{room}}}:{what}"
        return f"{self.prefix}:room:{room}:{what}"

    @property
    def layout_key(self) -> str:
        return f"{self.prefix}:layout"

    @property
    def rooms(self) -> str:
        return f"{self.prefix}:rooms"

    @property
    def counter(self) -> str:
        return f"{self.prefix}:rooms:counter"

    @property
    def driven(self) -> str:
        return f"{self.prefix}:driven"


async def detect(client: aioredis.Redis, prefix: str) -> Keys:
    """The store's layout: as written, else plain if it holds rooms, else tagged (written)."""
    key = Keys(prefix).layout_key
    found: Any = await client.get(key)
    if found is None:
        if await client.exists(f"{prefix}:rooms"):
            log.warning(
                "store %s uses the plain key layout (not Redis Cluster ready); "
                "`rollhouse migrate-keys` renames its keys",
                prefix,
            )
            return Keys(prefix, "plain")
        await client.set(key, b"tagged", nx=True)
        found = await client.get(key)
    layout = bytes(found).decode()
    if layout not in ("plain", "tagged"):
        raise ValueError(f"unknown key layout {layout!r} at {key}")
    return Keys(prefix, layout)  # type: ignore[arg-type]


async def migrate(client: aioredis.Redis, prefix: str) -> int:
    """Rename a plain store's room keys to the tagged layout; the rooms moved.

    Run it with every node stopped (a node running meanwhile would write the old
    names). Idempotent: a store already tagged is left as it is."""
    plain, tagged = Keys(prefix, "plain"), Keys(prefix, "tagged")
    layout: Any = await client.get(plain.layout_key)
    if layout == b"tagged":
        return 0
    listed: list[Any] = [*await client.zrange(plain.rooms, 0, -1)]
    listed += [*await client.smembers(plain.driven)]
    rooms = [r.decode() if isinstance(r, bytes) else str(r) for r in listed]
    moved = 0
    for room in sorted(set(rooms)):
        found: list[Any] = [k async for k in client.scan_iter(plain.room(room, "*"))]
        old_keys = [k.decode() if isinstance(k, bytes) else str(k) for k in found]
        for old in old_keys:
            await client.rename(old, tagged.room(room, old[len(plain.room(room, "")) :]))
        moved += bool(old_keys)
    await client.set(plain.layout_key, b"tagged")
    return moved
