"""The room model: everything a room's log says about it, as one frozen value.

:class:`RoomModel` holds the game's state, who holds each seat (:class:`SeatInfo`), the
seats' clocks, the host's settings and acts, and the latest chat lines
(:class:`ChatLine`); :mod:`~.fold` builds it record by record. Pure; reads no clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from engine.core import Game
from server.room.model.digests import token_hash


@attrs.frozen
class SeatInfo:
    """Who holds a seat: a person (with a token hash, a player id, or both) or a hosted bot."""

    name: str | None
    token: str | None = None
    bot: str | None = None
    player: str | None = None
    hold: float | None = None
    """Held for ``player`` until this time, and not yet claimed (a quick match)."""


@attrs.frozen
class ChatLine:
    """One line of table chat (``seq``: its record's)."""

    seq: int
    channel: str
    """``players`` (everyone reads it) or ``spectators`` (spectators only)."""
    text: str
    at: float
    name: str | None
    seat: int | None
    player: str | None


CHAT_KEPT = 200
"""Chat lines a room's model keeps per channel (the history has every line)."""


@attrs.frozen
class RoomModel:
    """Everything the log says about a room, rebuilt record by record."""

    room_id: str
    game: Game[Any]
    seats: int
    options: Mapping[str, Any]
    clock: float
    created_at: float
    settings: Mapping[str, Any]
    state: Any
    seq: int = 1
    holders: Mapping[int, SeatInfo] = attrs.field(factory=dict)
    awaiting_since: Mapping[int, float] = attrs.field(factory=dict)
    """When each awaited seat's clock started."""
    away: Mapping[int, float] = attrs.field(factory=dict)
    """Seats whose player left (rooms with takeover), and since when."""
    taken_over: frozenset[int] = frozenset()
    """Seats a bot plays for their absent player."""
    rematch: str | None = None
    last_move: tuple[int, str | None] | None = None
    """The seat that made the last move, and why the room made it (``timeout``...)."""
    seed: int = attrs.field(default=0, repr=False)
    """Secret until the game is over (with ``salt``); ``commit`` is public."""
    salt: str = attrs.field(default="", repr=False)
    commit: str = ""
    host: str | None = None
    """The host's player id (None: a room with no host)."""
    invite: str | None = attrs.field(default=None, repr=False)
    """The SHA-256 of the room's invite code (None: none issued, or revoked)."""
    members: frozenset[str] = frozenset()
    """Players let in (by the host, or with the invite code) besides the seated."""
    banned: frozenset[str] = frozenset()
    """Players the host removed: they may not come back."""
    banned_tokens: frozenset[str] = attrs.field(default=frozenset(), repr=False)
    """The seat-token digests of seats the host emptied."""
    locked: bool = False
    chat: tuple[ChatLine, ...] = ()
    """The latest lines of every channel (hidden lines removed)."""
    closed: str | None = None
    """Why an operator closed the room (None: open). A closed room takes nobody and
    time no longer moves it; its log stays readable."""

    @property
    def visibility(self) -> str:
        return str(self.settings.get("visibility", "public"))

    @property
    def watchable(self) -> bool:
        """Whether spectators may watch (invited ones only in a private room)."""
        return bool(self.settings.get("watch", True))

    @property
    def host_grace(self) -> float:
        return float(self.settings.get("host_grace", 60.0))

    def players(self) -> frozenset[str]:
        """The player ids holding a seat."""
        return frozenset(h.player for h in self.holders.values() if h.player is not None)

    def seat_of(self, player: str | None) -> int | None:
        """The seat ``player`` holds, if any."""
        if player is None:
            return None
        for seat, info in self.holders.items():
            if info.player == player:
                return seat
        return None

    @property
    def is_over(self) -> bool:
        return bool(self.game.is_over(self.state))

    @property
    def started(self) -> bool:
        """Play (and every clock) starts once every seat is taken (and every seat held
        for a player is claimed by them)."""
        return len(self.holders) >= self.seats and all(
            h.hold is None for h in self.holders.values()
        )

    @property
    def live(self) -> bool:
        return self.started and not self.is_over and self.closed is None

    @property
    def status(self) -> str:
        """``waiting`` for players, ``playing``, ``finished``, or ``closed`` (by an operator)."""
        if self.closed is not None:
            return "closed"
        if self.is_over:
            return "finished"
        return "playing" if self.started else "waiting"

    @property
    def takeover_after(self) -> float | None:
        grace = self.settings.get("takeover_after")
        return None if grace is None else float(grace)

    def deadlines(self) -> dict[int, float]:
        """When each awaited seat's clock runs out (unix time); empty without a clock."""
        if self.clock <= 0 or self.is_over or self.closed is not None:
            return {}
        return {seat: since + self.clock for seat, since in self.awaiting_since.items()}

    def free_seats(self) -> list[int]:
        return [s for s in range(self.seats) if s not in self.holders]

    def humans(self) -> list[int]:
        """Seats held by people (not hosted bots)."""
        return [s for s, info in self.holders.items() if info.bot is None]

    def seat_for_token(self, token: str) -> int | None:
        digest = token_hash(token)
        for seat, info in self.holders.items():
            if info.token is not None and info.token == digest:
                return seat
        return None
