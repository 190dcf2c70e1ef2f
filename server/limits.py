"""The limits a public node enforces, as small pure pieces the shell drives.

Each takes the time as an argument (the shell reads the clock), so each is tested
with a table of times. What they guard, their settings and their refusals:

| limit | setting (default) | refusal |
|---|---|---|
| API request body | ``max_body_bytes`` (65536) | HTTP 413 ``http/too_large`` |
| live rooms per node | ``max_rooms`` (5000) | HTTP 429 ``room/too_many_rooms`` |
| room creations per client address | ``creations_per_minute`` (30) | HTTP 429 ``http/rate_limited`` + Retry-After |
| websockets per client address | ``connections_per_address`` (200) | HTTP 429 at the handshake, ``room/too_many_connections`` |
| time to send ``hello`` | ``hello_timeout_seconds`` (10) | close 4000 ``room/hello_timeout`` |
| messages per connection | ``rate_per_second`` (30, bursts of 60) | ``room/rate_limited`` (reject or error) |
| resync requests per connection | ``resyncs_per_second`` (1, bursts of 5) | ``room/rate_limited`` error |
| refusals per connection | ``refusals_burst`` (20, refilled at the message rate) | close 4000 ``room/rate_limited`` |
| wrong invite codes per address | :data:`INVITE_GUESSES` (30 a minute) | HTTP 429 ``http/rate_limited``, close 4000 ``room/rate_limited`` |

The client address is the socket's peer, or, when that peer is one of
``trusted_proxies``, the last address in ``X-Forwarded-For`` that is not itself a
trusted proxy.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Iterable, Mapping

INVITE_GUESSES = 30
"""Wrong invite codes one address may bring in a minute, over HTTP and websockets
together (counted in the store, so on every node); past them every code is refused,
a right one too, so that the answers tell nothing."""


class TokenBucket:
    """``rate`` events a second on average, ``burst`` at once; the caller passes the time."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.stamp = now

    def allow(self, now: float) -> bool:
        """Take one token if there is one."""
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class WindowCounter:
    """At most ``limit`` events per key in any ``window`` seconds (a sliding log),
    remembering at most ``keys`` keys (the least recently seen go first)."""

    def __init__(self, limit: int, window: float = 60.0, keys: int = 100_000) -> None:
        self.limit, self.window, self.keys = limit, window, keys
        self._events: OrderedDict[str, deque[float]] = OrderedDict()

    def retry_after(self, key: str, now: float) -> float:
        """0 if an event for ``key`` is allowed now (and counts it), else seconds to wait."""
        events = self._events.setdefault(key, deque())
        self._events.move_to_end(key)
        while events and events[0] <= now - self.window:
            events.popleft()
        if len(events) >= self.limit:
            return max(0.001, events[0] + self.window - now)
        events.append(now)
        while len(self._events) > self.keys:
            self._events.popitem(last=False)
        return 0.0

    def full(self, key: str, now: float) -> float:
        """0 while another event for ``key`` would be allowed now (nothing is counted),
        else seconds to wait."""
        events = self._events.get(key)
        if not events:
            return 0.0
        while events and events[0] <= now - self.window:
            events.popleft()
        if len(events) >= self.limit:
            return max(0.001, events[0] + self.window - now)
        return 0.0


class AddressCount:
    """Open connections per client address, refusing past ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open: dict[str, int] = {}

    def enter(self, address: str) -> bool:
        count = self.open.get(address, 0)
        if count >= self.limit:
            return False
        self.open[address] = count + 1
        return True

    def leave(self, address: str) -> None:
        count = self.open.get(address, 0) - 1
        if count > 0:
            self.open[address] = count
        else:
            self.open.pop(address, None)


def client_address(peer: str | None, headers: Mapping[str, str], trusted: Iterable[str]) -> str:
    """Who the client is: the peer, or what a trusted proxy says it forwarded."""
    trusted = set(trusted)
    peer = peer or "unknown"
    if peer not in trusted:
        return peer
    hops = [h.strip() for h in headers.get("x-forwarded-for", "").split(",") if h.strip()]
    for hop in reversed(hops):
        if hop not in trusted:
            return hop
    return peer
