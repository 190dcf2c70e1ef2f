"""``People``: players and their sessions, the async service every node holds
(``Services.people``), over the store's :class:`~server.store.people_base.PeopleStore`.

The clock is an attribute (``clock``, unix seconds), so tests move time by hand.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from collections import OrderedDict
from collections.abc import Callable

from protocol import errors as codes
from protocol.text import clean_name
from server.metrics import Metrics
from server.people.errors import PeopleRefusal, limited
from server.people.passwords import Passwords
from server.people.player import (
    Player,
    Token,
    check_password,
    check_username,
    guest_name,
    is_player_id,
    new_player_id,
)
from server.people.policy import Policy
from server.store.people_base import Backoff, PeopleStore, StoredPlayer, StoredSession

BLOCKED_ADDRESSES = 100_000
"""Addresses a node remembers as blocked for guessing session tokens."""
_PLAIN_ADDRESS = re.compile(r"[!-z|~]{1,150}")


def address_key(address: str) -> str:
    """``address`` as part of a counter's key (a hash of it if it has odd characters)."""
    if _PLAIN_ADDRESS.fullmatch(address):
        return address
    return "h-" + hashlib.sha256(address.encode("utf-8", "replace")).hexdigest()[:32]


class People:
    """Players, sessions, sign-in and its limits (see :mod:`server.people`)."""

    def __init__(
        self,
        store: PeopleStore,
        policy: Policy | None = None,
        metrics: Metrics | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.policy = policy or Policy()
        self.metrics = metrics or Metrics()
        self.clock = clock
        self.passwords = Passwords(self.policy.password_cost, self.policy.hashing_at_once)
        self.blocked: OrderedDict[str, float] = OrderedDict()
        """Address -> until when this node refuses its sessions (too many bad tokens)."""

    # --- players ---

    async def guest(self, name: str | None = None) -> tuple[Player, str]:
        """A new guest player (named ``name``, cleaned, or ``Guest xxxx``) and the token
        of its first session."""
        cleaned = None if name is None else clean_name(name)
        now = self.clock()
        for _ in range(3):  # 64 random bits: a clash is as good as never
            player_id = new_player_id()
            player = Player(player_id, cleaned or guest_name(player_id), now)
            if await self.store.create_player(StoredPlayer(player.id, player.name, now)):
                return player, await self._open_session(player.id, now)
        raise RuntimeError("three fresh player ids were all taken")

    async def get(self, player_id: str) -> Player | None:
        """The player with this id, or None (also for a string that is no player id)."""
        if not is_player_id(player_id):
            return None
        stored = await self.store.player(player_id)
        return None if stored is None else Player.of(stored)

    async def rename(self, player: Player, name: str) -> Player:
        """The player with a new display name (``protocol.text.clean_name``)."""
        cleaned = clean_name(name)
        if not await self.store.rename(player.id, cleaned):
            raise PeopleRefusal(codes.UNAUTHORIZED, "no such player")
        return Player(player.id, cleaned, player.created_at, player.username)

    async def register(self, player: Player, username: str, password: str) -> Player:
        """The player with a username and password, so they can sign in elsewhere."""
        username, password = check_username(username), check_password(password)
        if player.username is not None:
            raise PeopleRefusal(codes.ALREADY_REGISTERED, "you have a username already")
        if await self.store.by_username(username) is not None:  # before paying for a hash
            raise _taken(username)
        hashed = await self.passwords.hash(password)
        outcome = await self.store.register(player.id, username, hashed, self.clock())
        if outcome == "taken":
            raise _taken(username)
        if outcome == "registered":
            raise PeopleRefusal(codes.ALREADY_REGISTERED, "you have a username already")
        if outcome == "unknown":
            raise PeopleRefusal(codes.UNAUTHORIZED, "no such player")
        return Player(player.id, player.name, player.created_at, username)

    # --- sessions ---

    async def sign_in(self, username: str, password: str, address: str) -> tuple[Player, str]:
        """The player with this username and password, and a new session's token.

        Refused alike (``player/bad_credentials``, after one argon2 verification) for an
        unknown username and a wrong password; ``player/login_limited`` once the
        account or the address has failed too often (:mod:`server.people.policy`)."""
        username, password = check_username(username), check_password(password)
        await self.passwords.ready()
        now = self.clock()
        by_address = f"signin-address:{address_key(address)}"
        by_account = f"signin-account:{username}"
        policy = self.policy
        await self._attempt(by_address, now, policy.signin_per_address, "address")
        try:
            await self._attempt(by_account, now, policy.signin_per_account, "account")
        except PeopleRefusal:
            await self.store.forgive(by_address, everything=False)  # nothing was tried
            raise
        stored = await self.store.by_username(username)
        if not await self.passwords.verify(None if stored is None else stored.password, password):
            self.metrics.signins.inc(outcome="bad_credentials")
            raise PeopleRefusal(codes.BAD_CREDENTIALS, "that username and password do not match")
        assert stored is not None and stored.password is not None
        await self.store.forgive(by_account, everything=True)
        await self.store.forgive(by_address, everything=False)
        if self.passwords.needs_rehash(stored.password):
            await self.store.set_password(stored.id, await self.passwords.hash(password))
        self.metrics.signins.inc(outcome="ok")
        return Player.of(stored), await self._open_session(stored.id, self.clock())

    async def authenticate(self, token: str | None, address: str) -> Player | None:
        """The player whose live session ``token`` is, or None (no token, or one that is
        unknown, expired or signed out); each use moves the session's expiry on.

        Tokens that open nothing are counted per address in the store (every node
        sees them); past the limit this node refuses that address's sessions for a
        minute with ``player/login_limited``, before looking at the token."""
        if token is None:
            return None
        now = self.clock()
        key = address_key(address)
        until = self.blocked.get(key, 0.0)
        if now < until:
            self.metrics.refused.inc(limit="session_guesses_per_address")
            raise limited("too many unknown session tokens from your address", until - now)
        player = await self._session_player(Token.parse(token), now)
        if player is None:
            await self._bad_token(key, now)
        return player

    async def sign_out(self, token: str) -> None:
        """End the session of ``token`` (nothing if it is no token)."""
        parsed = Token.parse(token)
        if parsed is not None:
            await self.store.end_session(parsed.player_id, parsed.sid)

    async def sign_out_everywhere(self, player: Player) -> None:
        """End every session of the player, this one included (one atomic step)."""
        await self.store.end_sessions(player.id)

    # --- a player's rooms, shared counters ---

    async def add_room(self, player_id: str, room_id: str, at: float) -> None:
        """Note that the player joined ``room_id`` at ``at`` (the first join counts)."""
        await self.store.add_room(player_id, room_id, at, self.policy.rooms_per_player)

    async def rooms(
        self, player_id: str, cursor: int = 0, limit: int = 20
    ) -> tuple[list[tuple[str, float]], int | None]:
        """The rooms the player joined, newest first, as ``(room id, joined at)``, from
        position ``cursor``, at most ``limit``; and the next page's cursor (None at the
        end)."""
        return await self.store.rooms(player_id, cursor, limit)

    async def hit(self, key: str, window: float, add: int = 1) -> int:
        """Count ``add`` attempts for ``key`` now (0: only look); the attempts in the last
        ``window`` seconds, these included, on every node (a sliding-window estimate).
        ``key``: 1-200 printable ASCII characters, no spaces or braces (use
        :func:`address_key`)."""
        return await self.store.hit(key, window, self.clock(), add)

    # --- inside ---

    async def _open_session(self, player_id: str, now: float) -> str:
        token = Token.new(player_id)
        session = StoredSession(token.digest, now, now)
        policy = self.policy
        await self.store.add_session(
            player_id, token.sid, session, policy.session_idle, policy.sessions_per_player
        )
        return str(token)

    async def _session_player(self, token: Token | None, now: float) -> Player | None:
        """The player of ``token``'s live session (touched), or None."""
        if token is None:
            return None
        session = await self.store.session(token.player_id, token.sid)
        if session is None or not hmac.compare_digest(session.digest, token.digest):
            return None
        idle = self.policy.session_idle
        if now - session.last_seen > idle:
            await self.store.end_session(token.player_id, token.sid)
            return None
        if now - session.last_seen >= self.policy.touch_every and not (
            await self.store.touch_session(token.player_id, token.sid, now, idle)
        ):
            return None  # signed out meanwhile
        return await self.get(token.player_id)

    async def _bad_token(self, key: str, now: float) -> None:
        """Count a token that opened nothing; block the address here past the limit."""
        if await self.store.hit(f"session:{key}", 60.0, now) > self.policy.bad_sessions_per_minute:
            self.blocked[key] = now + 60.0
            self.blocked.move_to_end(key)
            while len(self.blocked) > BLOCKED_ADDRESSES:
                self.blocked.popitem(last=False)

    async def _attempt(self, key: str, now: float, rule: Backoff, per: str) -> None:
        """Count a sign-in attempt on ``key``, or refuse it while it must wait."""
        wait = await self.store.attempt(key, now, rule)
        if wait:
            self.metrics.refused.inc(limit=f"signin_per_{per}")
            self.metrics.signins.inc(outcome="limited")
            raise limited(f"too many failed sign-ins for this {per}", wait)


def _taken(username: str) -> PeopleRefusal:
    return PeopleRefusal(codes.USERNAME_TAKEN, f"the username {username!r} is taken")
