"""Players and sessions on the Redis server of the event store (``RedisStore.people``).

Keys (``{prefix}`` as the store's, default ``rollhouse``); every key is under a hash
tag, so on a Redis Cluster a player's keys share one slot and no script touches two
slots:

- ``{prefix}:{p:<player id>}:player``    hash ``n`` (name), ``c`` (created at), ``u``
  (username) and ``h`` (password hash) once registered
- ``{prefix}:{p:<player id>}:sessions``  hash session id -> ``"<digest> <created> <last use>"``;
  its TTL is the idle time, renewed by every use, so abandoned sessions go by themselves;
  "sign out everywhere" is one DEL
- ``{prefix}:{p:<player id>}:rooms``     sorted set room -> when the player joined it
- ``{prefix}:{u:<username>}``            ``"<player id> <claimed at>"``: who holds the username
- ``{prefix}:{hit:<key>}:<window>``      hash ``b`` (window number), ``c``, ``p`` (counts of
  this window and the one before), kept two windows
- ``{prefix}:{try:<key>}``               hash ``c`` (count), ``t`` (last attempt), kept
  ``forget`` seconds

A username and its player are in two slots, so registering is two steps: claim the
username (SET if free), then write the credentials into the player (a script that
refuses a player who has some). A claim whose player never got the username (a
crash between the steps, or a player who registered another name meanwhile) is
released at once when the second step refuses, and otherwise taken over by the
next player to want the name once it is ``CLAIM_STALE`` seconds old; a sign-in reads
the claim's player and checks that the player holds the name.

Every script is loaded through redis-py's ``register_script`` (EVALSHA, loading on
NOSCRIPT); numbers travel as Python's ``repr`` of a float, which Lua reads back exactly.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import redis.asyncio as aioredis

from server.store.base import check_page, check_room
from server.store.people_base import (
    Backoff,
    Registered,
    StoredPlayer,
    StoredSession,
    check_key,
    check_player_id,
    check_sid,
    page_of,
)

CLAIM_STALE = 60.0
"""Seconds after which a username claim whose player does not hold the name may be
taken over (a registration takes far less)."""

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'n', ARGV[1], 'c', ARGV[2])
return 1
"""
_RENAME = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'n', ARGV[1])
return 1
"""
# KEYS: the username. ARGV: player id, now, the stale claim to replace ("" for none).
# 1 if the player holds the claim now, else the holder's value "<player id> <at>".
_CLAIM = """
local v = redis.call('GET', KEYS[1])
if v and v ~= ARGV[3] then
  if string.sub(v, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' then return 1 end
  return v
end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2])
return 1
"""
_CREDENTIALS = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'unknown' end
if redis.call('HEXISTS', KEYS[1], 'u') == 1 then return 'registered' end
redis.call('HSET', KEYS[1], 'u', ARGV[1], 'h', ARGV[2])
return 'ok'
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""
_PASSWORD = """
if redis.call('HEXISTS', KEYS[1], 'u') == 1 then redis.call('HSET', KEYS[1], 'h', ARGV[1]) end
return 1
"""
# KEYS: sessions. ARGV: session id, "<digest> <created> <last>", cutoff, keep, ttl ms.
_ADD_SESSION = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local all = redis.call('HGETALL', KEYS[1])
local cutoff = tonumber(ARGV[3])
local live = {}
for i = 1, #all, 2 do
  local last = tonumber(string.match(all[i + 1], '(%S+)$'))
  if last < cutoff then redis.call('HDEL', KEYS[1], all[i])
  else live[#live + 1] = {last, all[i]} end
end
table.sort(live, function(a, b)
  if a[1] ~= b[1] then return a[1] > b[1] end
  return a[2] > b[2]
end)
for i = tonumber(ARGV[4]) + 1, #live do redis.call('HDEL', KEYS[1], live[i][2]) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
"""
# KEYS: sessions. ARGV: session id, now, ttl ms. Never brings back a session that is gone.
_TOUCH = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], string.match(v, '^(%S+ %S+) ') .. ' ' .. ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""
_ADD_ROOM = """
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
local n = redis.call('ZCARD', KEYS[1])
local keep = tonumber(ARGV[3])
if n > keep then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - keep - 1) end
return 1
"""
# KEYS: the counter. ARGV: now, window, add, ttl ms. As people_base.roll and
# people_base.window_estimate.
_HIT = """
local now, w, add = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local b = math.floor(now / w)
local v = redis.call('HMGET', KEYS[1], 'b', 'c', 'p')
local sb, c, p = tonumber(v[1]), tonumber(v[2]) or 0, tonumber(v[3]) or 0
if sb == nil or sb < b - 1 then c, p = 0, 0
elseif sb == b - 1 then p, c = c, 0
else b = sb end
c = c + add
if add > 0 then
  redis.call('HSET', KEYS[1], 'b', b, 'c', c, 'p', p)
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
local into = (now - b * w) / w
if into < 0 then into = 0 elseif into > 1 then into = 1 end
return c + math.floor(p * (1 - into))
"""
# KEYS: the counter. ARGV: now, free, base, cap, forget, ttl ms. As people_base.Backoff.
_ATTEMPT = """
local now, free, base = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local cap, forget = tonumber(ARGV[4]), tonumber(ARGV[5])
local v = redis.call('HMGET', KEYS[1], 'c', 't')
local n, t = tonumber(v[1]) or 0, tonumber(v[2]) or 0
if now >= t + forget then n = 0 end
if n >= free then
  local step = math.min(cap, base * 2 ^ math.min(n - free, 40))
  if now < t + step then return tostring(t + step - now) end
end
redis.call('HSET', KEYS[1], 'c', n + 1, 't', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return '0'
"""
_FORGIVE = """
local n = tonumber(redis.call('HGET', KEYS[1], 'c') or '0')
if ARGV[1] == '1' or n <= 1 then redis.call('DEL', KEYS[1])
else redis.call('HSET', KEYS[1], 'c', n - 1) end
return 1
"""


def _ms(seconds: float) -> int:
    return max(1, math.ceil(seconds * 1000))


def _text(value: Any) -> str:
    return bytes(value).decode()


class RedisPeople:
    """A PeopleStore on the event store's Redis (``guard`` maps redis-py's errors to
    the store's, as ``RedisStore`` does for its own calls; ``check_open`` raises once
    the store is closed)."""

    def __init__(
        self,
        client: aioredis.Redis,
        prefix: str,
        guard: Callable[[Awaitable[Any]], Awaitable[Any]],
        check_open: Callable[[], None],
    ) -> None:
        self.prefix = prefix
        self._client = client
        self._store_guard = guard
        self._check_open = check_open
        self._scripts = {
            name: client.register_script(text)
            for name, text in (
                ("create", _CREATE), ("rename", _RENAME), ("claim", _CLAIM),
                ("credentials", _CREDENTIALS), ("release", _RELEASE), ("password", _PASSWORD),
                ("add_session", _ADD_SESSION), ("touch", _TOUCH), ("add_room", _ADD_ROOM),
                ("hit", _HIT), ("attempt", _ATTEMPT), ("forgive", _FORGIVE),
            )
        }  # fmt: skip

    def player_key(self, player_id: str, what: str = "player") -> str:
        """A player's key: ``player``, ``sessions`` or ``rooms``."""
        return f"{self.prefix}:{{p:{player_id}}}:{what}"

    def username_key(self, username: str) -> str:
        """Who holds ``username``."""
        return f"{self.prefix}:{{u:{username}}}"

    async def create_player(self, player: StoredPlayer) -> bool:
        """Keep a new player unless the id is taken."""
        key = self.player_key(check_player_id(player.id))
        return bool(await self._run("create", [key], [player.name, repr(player.created_at)]))

    async def player(self, player_id: str) -> StoredPlayer | None:
        """The player, or None."""
        key = self.player_key(check_player_id(player_id))
        name, created, username, password = await self._guard(
            self._client.hmget(key, ["n", "c", "u", "h"])
        )
        if name is None:
            return None
        return StoredPlayer(
            player_id,
            _text(name),
            float(created),
            None if username is None else _text(username),
            None if password is None else _text(password),
        )

    async def rename(self, player_id: str, name: str) -> bool:
        """Set the display name."""
        return bool(
            await self._run("rename", [self.player_key(check_player_id(player_id))], [name])
        )

    async def register(
        self, player_id: str, username: str, password: str, now: float
    ) -> Registered:
        """Claim the username, then write the credentials (module docstring)."""
        player = await self.player(player_id)
        if player is None:
            return "unknown"
        if player.username is not None:
            return "registered"
        key, mine = self.username_key(username), f"{player_id} {now!r}"
        stale = b""
        for _ in range(3):
            got = await self._run("claim", [key], [player_id, repr(now), stale])
            if got == 1:
                break
            holder, _, at = _text(got).partition(" ")
            other = await self.player(holder)
            if (other is not None and other.username == username) or now - float(at) < CLAIM_STALE:
                return "taken"
            stale = got  # a registration that never finished: take the name over
        else:
            return "taken"
        outcome = _text(
            await self._run("credentials", [self.player_key(player_id)], [username, password])
        )
        if outcome != "ok":
            await self._run("release", [key], [mine])
        return outcome  # type: ignore[return-value]

    async def by_username(self, username: str) -> StoredPlayer | None:
        """The player holding ``username`` (the claim's player, if it holds the name)."""
        claim = await self._guard(self._client.get(self.username_key(username)))
        if claim is None:
            return None
        player = await self.player(_text(claim).partition(" ")[0])
        return player if player is not None and player.username == username else None

    async def set_password(self, player_id: str, password: str) -> None:
        """Replace a registered player's password hash."""
        await self._run("password", [self.player_key(check_player_id(player_id))], [password])

    async def add_session(
        self, player_id: str, sid: str, session: StoredSession, idle: float, keep: int
    ) -> None:
        """Keep a session; drop the player's stale ones and all but ``keep``."""
        key = self.player_key(check_player_id(player_id), "sessions")
        value = f"{session.digest} {session.created_at!r} {session.last_seen!r}"
        cutoff = repr(session.last_seen - idle)
        await self._run("add_session", [key], [check_sid(sid), value, cutoff, keep, _ms(idle)])

    async def session(self, player_id: str, sid: str) -> StoredSession | None:
        """One session of the player, or None."""
        key = self.player_key(check_player_id(player_id), "sessions")
        value = await self._guard(self._client.hget(key, check_sid(sid)))
        if value is None:
            return None
        digest, created, last = _text(value).split(" ")
        return StoredSession(digest, float(created), float(last))

    async def touch_session(self, player_id: str, sid: str, now: float, idle: float) -> bool:
        """Mark the session used at ``now`` (never bringing back one that is gone)."""
        key = self.player_key(check_player_id(player_id), "sessions")
        return bool(await self._run("touch", [key], [check_sid(sid), repr(now), _ms(idle)]))

    async def end_session(self, player_id: str, sid: str) -> None:
        """Forget one session."""
        key = self.player_key(check_player_id(player_id), "sessions")
        await self._guard(self._client.hdel(key, check_sid(sid)))

    async def end_sessions(self, player_id: str) -> None:
        """Forget every session of the player (one DEL)."""
        await self._guard(
            self._client.delete(self.player_key(check_player_id(player_id), "sessions"))
        )

    async def add_room(self, player_id: str, room: str, at: float, keep: int) -> None:
        """Note a room the player joined (the first time counts)."""
        key = self.player_key(check_player_id(player_id), "rooms")
        await self._run("add_room", [key], [check_room(room), repr(at), keep])

    async def rooms(
        self, player_id: str, cursor: int, limit: int
    ) -> tuple[list[tuple[str, float]], int | None]:
        """The player's rooms, newest first (ZREVRANGE)."""
        cursor, limit = check_page(cursor, limit)
        key = self.player_key(check_player_id(player_id), "rooms")
        rows = await self._guard(
            self._client.zrevrange(key, cursor, cursor + limit, withscores=True)
        )
        return page_of([(_text(room), float(at)) for room, at in rows], cursor, limit)

    async def hit(self, key: str, window: float, now: float, add: int = 1) -> int:
        """Count attempts of ``key``; the attempts in the sliding window."""
        name = f"{self.prefix}:{{hit:{check_key(key, window)}}}:{float(window)!r}"
        args = [repr(now), repr(float(window)), add, _ms(2 * window)]
        return int(await self._run("hit", [name], args))

    async def attempt(self, key: str, now: float, rule: Backoff) -> float:
        """0.0 and counted if an attempt may go now, else the seconds to wait."""
        name = f"{self.prefix}:{{try:{check_key(key)}}}"
        args = [repr(now), rule.free, repr(rule.base), repr(rule.cap), repr(rule.forget)]
        return float(await self._run("attempt", [name], [*args, _ms(rule.forget)]))

    async def forgive(self, key: str, everything: bool) -> None:
        """Uncount one attempt, or all."""
        name = f"{self.prefix}:{{try:{check_key(key)}}}"
        await self._run("forgive", [name], ["1" if everything else "0"])

    async def _run(self, script: str, keys: list[str], args: list[Any]) -> Any:
        return await self._guard(self._scripts[script](keys=keys, args=args))

    async def _guard(self, call: Awaitable[Any]) -> Any:
        try:
            self._check_open()
        except BaseException:
            if isinstance(call, Coroutine):
                call.close()  # never awaited: say so to nobody
            raise
        return await self._store_guard(call)
