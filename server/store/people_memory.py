"""Players and sessions in process memory: the reference behaviour of the contract
(tests/store/test_people_contract.py). Each method runs without awaiting anything,
so it is atomic on the event loop. Counters keep at most ``COUNTER_KEYS`` keys each
(the least recently used go first)."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable

import attrs

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
    roll,
    window_estimate,
)

COUNTER_KEYS = 100_000
"""Keys each kind of counter remembers."""


class MemoryPeople:
    """A PeopleStore beside a MemoryStore (``MemoryStore.people``)."""

    def __init__(self, check_open: Callable[[], None]) -> None:
        self._check_open = check_open
        self._players: dict[str, StoredPlayer] = {}
        self._usernames: dict[str, str] = {}
        self._sessions: dict[str, dict[str, StoredSession]] = {}
        self._rooms: dict[str, dict[str, float]] = {}
        self._hits: OrderedDict[tuple[str, float], tuple[int, int, int]] = OrderedDict()
        self._attempts: OrderedDict[str, tuple[int, float]] = OrderedDict()

    async def create_player(self, player: StoredPlayer) -> bool:
        """Keep a new player unless the id is taken."""
        self._check_open()
        if check_player_id(player.id) in self._players:
            return False
        self._players[player.id] = player
        return True

    async def player(self, player_id: str) -> StoredPlayer | None:
        """The player, or None."""
        self._check_open()
        return self._players.get(check_player_id(player_id))

    async def rename(self, player_id: str, name: str) -> bool:
        """Set the display name."""
        self._check_open()
        player = self._players.get(check_player_id(player_id))
        if player is None:
            return False
        self._players[player_id] = attrs.evolve(player, name=name)
        return True

    async def register(
        self, player_id: str, username: str, password: str, now: float
    ) -> Registered:
        """Username and password hash, unless registered already or the name is taken."""
        self._check_open()
        player = self._players.get(check_player_id(player_id))
        if player is None:
            return "unknown"
        if player.username is not None:
            return "registered"
        if username in self._usernames:
            return "taken"
        self._usernames[username] = player_id
        self._players[player_id] = attrs.evolve(player, username=username, password=password)
        return "ok"

    async def by_username(self, username: str) -> StoredPlayer | None:
        """The player holding ``username``."""
        self._check_open()
        player_id = self._usernames.get(username)
        return None if player_id is None else self._players[player_id]

    async def set_password(self, player_id: str, password: str) -> None:
        """Replace a registered player's password hash."""
        self._check_open()
        player = self._players.get(check_player_id(player_id))
        if player is not None and player.username is not None:
            self._players[player_id] = attrs.evolve(player, password=password)

    async def add_session(
        self, player_id: str, sid: str, session: StoredSession, idle: float, keep: int
    ) -> None:
        """Keep a session; drop the player's stale ones and all but ``keep``."""
        self._check_open()
        sessions = self._sessions.setdefault(check_player_id(player_id), {})
        sessions[check_sid(sid)] = session
        cutoff = session.last_seen - idle
        live = sorted(
            ((s.last_seen, i) for i, s in sessions.items() if s.last_seen >= cutoff), reverse=True
        )
        kept = {i for _, i in live[:keep]}
        for stale in [i for i in sessions if i not in kept]:
            del sessions[stale]

    async def session(self, player_id: str, sid: str) -> StoredSession | None:
        """One session of the player, or None."""
        self._check_open()
        return self._sessions.get(check_player_id(player_id), {}).get(check_sid(sid))

    async def touch_session(self, player_id: str, sid: str, now: float, idle: float) -> bool:
        """Mark the session used at ``now``."""
        self._check_open()
        sessions = self._sessions.get(check_player_id(player_id), {})
        session = sessions.get(check_sid(sid))
        if session is None:
            return False
        sessions[sid] = attrs.evolve(session, last_seen=now)
        return True

    async def end_session(self, player_id: str, sid: str) -> None:
        """Forget one session."""
        self._check_open()
        self._sessions.get(check_player_id(player_id), {}).pop(check_sid(sid), None)

    async def end_sessions(self, player_id: str) -> None:
        """Forget every session of the player."""
        self._check_open()
        self._sessions.pop(check_player_id(player_id), None)

    async def add_room(self, player_id: str, room: str, at: float, keep: int) -> None:
        """Note a room the player joined (the first time counts)."""
        self._check_open()
        rooms = self._rooms.setdefault(check_player_id(player_id), {})
        rooms.setdefault(check_room(room), at)
        if len(rooms) > keep:
            for _, old in sorted((t, r) for r, t in rooms.items())[: len(rooms) - keep]:
                del rooms[old]

    async def rooms(
        self, player_id: str, cursor: int, limit: int
    ) -> tuple[list[tuple[str, float]], int | None]:
        """The player's rooms, newest first."""
        self._check_open()
        cursor, limit = check_page(cursor, limit)
        rooms = self._rooms.get(check_player_id(player_id), {})
        ordered = sorted(rooms.items(), key=lambda item: (item[1], item[0]), reverse=True)
        return page_of(ordered[cursor : cursor + limit + 1], cursor, limit)

    async def hit(self, key: str, window: float, now: float, add: int = 1) -> int:
        """Count attempts of ``key``; the attempts in the sliding window."""
        self._check_open()
        name = (check_key(key, window), window)
        stored: tuple[int | None, int, int] = self._hits.get(name) or (None, 0, 0)
        bucket, current, previous = roll(*stored, math.floor(now / window))
        current += add
        if add:
            self._hits[name] = (bucket, current, previous)
            self._hits.move_to_end(name)
            while len(self._hits) > COUNTER_KEYS:
                self._hits.popitem(last=False)
        return window_estimate(current, previous, bucket, window, now)

    async def attempt(self, key: str, now: float, rule: Backoff) -> float:
        """0.0 and counted if an attempt may go now, else the seconds to wait."""
        self._check_open()
        count, last = self._attempts.get(check_key(key), (0, 0.0))
        wait, count = rule.step(count, last, now)
        if wait == 0.0:
            self._attempts[key] = (count, now)
            self._attempts.move_to_end(key)
            while len(self._attempts) > COUNTER_KEYS:
                self._attempts.popitem(last=False)
        return wait

    async def forgive(self, key: str, everything: bool) -> None:
        """Uncount one attempt, or all."""
        self._check_open()
        count, last = self._attempts.get(check_key(key), (0, 0.0))
        if everything or count <= 1:
            self._attempts.pop(key, None)
        else:
            self._attempts[key] = (count - 1, last)
