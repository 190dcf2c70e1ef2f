"""What every players-and-sessions backend shares: the stored values, the
:class:`PeopleStore` protocol, the input checks and the two counting rules
(:func:`window_estimate`, :class:`Backoff`) every backend applies the same way.

The store keeps plain values and decides nothing about people: the service
(:mod:`server.people`) makes ids and tokens, hashes passwords and secrets, and reads
the clock; every method here that depends on time takes ``now`` (unix seconds), so
expiry follows the caller's clock on every backend (a Redis key's own TTL only
collects what the logic has already dropped).

What one player's data is, on every backend: the player (id, display name,
created-at, username and password hash once registered), their sessions (session id
-> secret digest, created-at, last use), and the rooms they joined (room -> when).
Beside them: usernames (unique, case-folded by the service), and two kinds of shared
counters keyed by a caller's string: ``hit`` (attempts in a sliding window) and
``attempt`` (failures with exponential backoff).
"""

from __future__ import annotations

import math
import re
from typing import Literal, Protocol

import attrs

from server.store.errors import StoreError

Registered = Literal["ok", "taken", "registered", "unknown"]
"""How ``register`` went: done; the username is another player's; this player has
credentials already; no such player."""

KEY_MAX = 200
"""Characters in a counter's key."""
_KEY = re.compile(r"[!-z|~]{1,200}")
"""Printable ASCII without spaces or braces (a brace would break a Redis hash tag)."""
_PLAYER = re.compile(r"p-[0-9a-f]{16}")
_SID = re.compile(r"[0-9a-f]{32}")


@attrs.frozen
class StoredPlayer:
    """A player as stored: ``password`` is the argon2id hash (PHC string), never a password."""

    id: str
    name: str
    created_at: float
    username: str | None = None
    password: str | None = None


@attrs.frozen
class StoredSession:
    """One session as stored: the SHA-256 hex digest of its secret, never the secret."""

    digest: str
    created_at: float
    last_seen: float


@attrs.frozen
class Backoff:
    """Exponential backoff over a count of attempts: ``free`` attempts go through at
    once; after them each attempt waits ``base`` seconds after the one before, then
    twice that, and so on, at most ``cap``; the count is forgotten ``forget`` seconds
    after the last attempt."""

    free: int
    base: float
    cap: float
    forget: float

    def step(self, count: int, last: float, now: float) -> tuple[float, int]:
        """An attempt at ``now`` after ``count`` counted ones, the last at ``last``:
        ``(0.0, the new count)`` if it may go, else ``(seconds it must still wait, the
        count unchanged)``. A count whose last attempt is ``forget`` old starts again."""
        if now >= last + self.forget:
            count = 0
        if count >= self.free:
            step = min(self.cap, self.base * 2.0 ** min(count - self.free, 40))
            if now < last + step:
                return last + step - now, count
        return 0.0, count + 1


def window_estimate(current: int, previous: int, bucket: int, window: float, now: float) -> int:
    """Attempts in the sliding ``window`` ending at ``now``, estimated from two fixed
    windows (as Cloudflare's rate limiter does): all of the current one, and the part
    of the previous one the sliding window still covers."""
    into = min(1.0, max(0.0, (now - bucket * window) / window))
    return current + math.floor(previous * (1.0 - into))


def roll(stored: int | None, current: int, previous: int, bucket: int) -> tuple[int, int, int]:
    """A key's ``(bucket, current, previous)`` moved to ``bucket`` (never backwards: a
    caller whose clock is behind counts in the newest bucket)."""
    if stored is None or stored < bucket - 1:
        return bucket, 0, 0
    if stored == bucket - 1:
        return bucket, 0, current
    return stored, current, previous


class PeopleStore(Protocol):
    """Players, sessions, a player's rooms and shared counters (module docstring)."""

    async def create_player(self, player: StoredPlayer) -> bool:
        """Keep a new player; False (nothing written) if the id is taken."""
        ...

    async def player(self, player_id: str) -> StoredPlayer | None:
        """The player, or None."""
        ...

    async def rename(self, player_id: str, name: str) -> bool:
        """Set the player's display name; False if there is no such player."""
        ...

    async def register(
        self, player_id: str, username: str, password: str, now: float
    ) -> Registered:
        """Give the player a username and password hash, unless they have them already
        or another player holds the username (checked in that order)."""
        ...

    async def by_username(self, username: str) -> StoredPlayer | None:
        """The player holding ``username``, or None."""
        ...

    async def set_password(self, player_id: str, password: str) -> None:
        """Replace a registered player's password hash (a rehash with new parameters)."""
        ...

    async def add_session(
        self, player_id: str, sid: str, session: StoredSession, idle: float, keep: int
    ) -> None:
        """Keep a session of the player; in the same step drop their sessions unused for
        ``idle`` seconds before ``session.last_seen`` and all but the ``keep`` most
        recently used."""
        ...

    async def session(self, player_id: str, sid: str) -> StoredSession | None:
        """One session of the player, or None."""
        ...

    async def touch_session(self, player_id: str, sid: str, now: float, idle: float) -> bool:
        """Mark the session used at ``now``; False (nothing written) if it is gone."""
        ...

    async def end_session(self, player_id: str, sid: str) -> None:
        """Forget one session."""
        ...

    async def end_sessions(self, player_id: str) -> None:
        """Forget every session of the player, in one atomic step."""
        ...

    async def add_room(self, player_id: str, room: str, at: float, keep: int) -> None:
        """Note that the player joined ``room`` at ``at`` (the first time counts), keeping
        their ``keep`` newest rooms."""
        ...

    async def rooms(
        self, player_id: str, cursor: int, limit: int
    ) -> tuple[list[tuple[str, float]], int | None]:
        """The player's rooms, newest first (then by room id, descending), from position
        ``cursor``, at most ``limit``; and the next page's cursor (None at the end)."""
        ...

    async def hit(self, key: str, window: float, now: float, add: int = 1) -> int:
        """Count ``add`` attempts for ``key`` at ``now`` and return the attempts in the
        sliding ``window`` (:func:`window_estimate`); ``add=0`` only reads."""
        ...

    async def attempt(self, key: str, now: float, rule: Backoff) -> float:
        """0.0 if an attempt for ``key`` may go at ``now`` (it is counted), else the
        seconds it must still wait (nothing counted): :meth:`Backoff.step`."""
        ...

    async def forgive(self, key: str, everything: bool) -> None:
        """Uncount one attempt of ``key`` (an attempt that succeeded), or all of them."""
        ...


def check_player_id(player_id: object) -> str:
    """``player_id`` if it is ``p-`` and 16 hex digits, else StoreError."""
    if not isinstance(player_id, str) or _PLAYER.fullmatch(player_id) is None:
        raise StoreError(f"invalid player id {player_id!r}", code="store/bad_player")
    return player_id


def check_sid(sid: object) -> str:
    """``sid`` if it is 32 hex digits, else StoreError."""
    if not isinstance(sid, str) or _SID.fullmatch(sid) is None:
        raise StoreError(f"invalid session id {sid!r}", code="store/bad_session")
    return sid


def check_key(key: object, window: float = 1.0) -> str:
    """A counter's key (1-200 printable ASCII, no space or brace) and a window > 0."""
    if not isinstance(key, str) or _KEY.fullmatch(key) is None:
        raise StoreError(
            f"invalid counter key {key!r}: 1-{KEY_MAX} printable ASCII characters, "
            "no spaces or braces",
            code="store/bad_key",
        )
    if not (isinstance(window, int | float) and 0 < window < math.inf):
        raise StoreError(f"invalid window {window!r}", code="store/bad_key")
    return key


def page_of(
    rows: list[tuple[str, float]], cursor: int, limit: int
) -> tuple[list[tuple[str, float]], int | None]:
    """A page of ``rows`` fetched from ``cursor`` with one extra row past ``limit``."""
    return rows[:limit], (cursor + limit if len(rows) > limit else None)
