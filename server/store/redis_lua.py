"""The Lua scripts of the Redis event store (each runs atomically inside Redis).

Stream entry ids are ``0-{seq}``: Redis itself refuses an XADD whose explicit id is
not above the stream's top, so even a writer that bypasses these scripts cannot
write a stale or duplicate position.
"""

from __future__ import annotations

import hashlib

# Reads the stream's last seq into `last` (0 for no stream); id must be "0-<n>".
_TOP = """
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local last = 0
if #top > 0 then
  local n = string.match(top[1][1], '^0%-(%d+)$')
  if not n then return redis.error_reply('CORRUPT unexpected stream id ' .. top[1][1]) end
  last = tonumber(n)
end
"""

# KEYS: log stream, fence (one room's keys: one slot on a Redis Cluster). ARGV:
# expected, fence epoch ("" for none), record blobs... Returns the new last seq, or
# the error "FENCED <epoch>" or "CONFLICT <actual last seq>" (nothing written either
# way). A new room enters the room index after its first append, outside the script.
# A fenced record keeps its epoch (field ``e``): a checker of the history can tell
# which claim wrote it (server/cluster/leases.py keeps each epoch's node).
APPEND = (
    _TOP
    + """
if ARGV[2] ~= '' then
  local epoch = tonumber(redis.call('GET', KEYS[2]) or '0')
  if epoch ~= tonumber(ARGV[2]) then return redis.error_reply('FENCED ' .. epoch) end
end
local expected = tonumber(ARGV[1])
if last ~= expected then return redis.error_reply('CONFLICT ' .. last) end
for i = 3, #ARGV do
  if ARGV[2] ~= '' then
    redis.call('XADD', KEYS[1], '0-' .. (expected + i - 2), 'd', ARGV[i], 'e', ARGV[2])
  else
    redis.call('XADD', KEYS[1], '0-' .. (expected + i - 2), 'd', ARGV[i])
  end
end
return expected + #ARGV - 2
"""
)

# KEYS: replies hash, the seat's order list, fence. ARGV: field, blob, how many to keep,
# fence epoch ("" for none). Error "FENCED <epoch>" (nothing written) on a stale epoch.
SAVE_REPLY = """
if ARGV[4] ~= '' then
  local epoch = tonumber(redis.call('GET', KEYS[3]) or '0')
  if epoch ~= tonumber(ARGV[4]) then return redis.error_reply('FENCED ' .. epoch) end
end
if redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('RPUSH', KEYS[2], ARGV[1])
  while redis.call('LLEN', KEYS[2]) > tonumber(ARGV[3]) do
    redis.call('HDEL', KEYS[1], redis.call('LPOP', KEYS[2]))
  end
end
return 1
"""

# KEYS: log stream, snapshot hash. ARGV: seq, blob. Keeps the snapshot with the
# highest seq; returns 1 if stored, 0 if a newer one exists, "BEYOND <last>" error.
SAVE_SNAPSHOT = (
    _TOP
    + """
local seq = tonumber(ARGV[1])
if seq > last then return redis.error_reply('BEYOND ' .. last) end
local current = redis.call('HGET', KEYS[2], 's')
if current and tonumber(current) > seq then return 0 end
redis.call('HSET', KEYS[2], 's', ARGV[1], 'd', ARGV[2])
return 1
"""
)


# KEYS: log streams (one Redis only: on a cluster each room is its own slot). Returns
# each stream's top entry id, or false for a room with no log.
LAST_SEQS = """
local out = {}
for i, key in ipairs(KEYS) do
  local top = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  if #top > 0 then out[i] = top[1][1] else out[i] = false end
end
return out
"""


def sha1(script: str) -> str:
    """The id under which Redis caches ``script`` (what EVALSHA takes)."""
    return hashlib.sha1(script.encode()).hexdigest()
