"""Password hashes: argon2id (``argon2-cffi``), computed off the event loop.

Each hash or verification runs in a worker thread (``asyncio.to_thread``), at most
``at_once`` of them together, so a flood of sign-ins costs a bounded amount of
memory (``memory_kib`` each) and never stalls the rooms sharing the loop; the others
wait their turn. A sign-in for a username nobody has verifies the password against a
dummy hash made with the same parameters, so it costs the same time as a wrong
password for a real player.
"""

from __future__ import annotations

import asyncio
import secrets

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

OWASP = (2, 19_456, 1)
"""argon2id time cost, memory (KiB), parallelism: OWASP's first choice (19 MiB, 2
passes, 1 lane)."""


class Passwords:
    """Hashes and verifies passwords with argon2id at the given cost."""

    def __init__(self, cost: tuple[int, ...] = OWASP, at_once: int = 2) -> None:
        time_cost, memory_kib, parallelism = cost
        self.hasher = PasswordHasher(
            time_cost=time_cost, memory_cost=memory_kib, parallelism=parallelism, type=Type.ID
        )
        self.slots = asyncio.Semaphore(at_once)
        self.dummy: str | None = None
        """A hash of a random password, made on first need (``ready``)."""
        self._making = asyncio.Lock()

    async def hash(self, password: str) -> str:
        """The PHC string of ``password`` (``$argon2id$v=19$m=...``), with a fresh salt."""
        async with self.slots:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored``; with no ``stored`` (no such player),
        False after the same work against the dummy hash."""
        await self.ready()
        against = stored if stored is not None else self.dummy
        assert against is not None
        async with self.slots:
            matches = await asyncio.to_thread(self._check, against, password)
        return matches and stored is not None

    async def ready(self) -> None:
        """Make the dummy hash if it is not made yet."""
        async with self._making:
            if self.dummy is None:
                self.dummy = await self.hash(secrets.token_urlsafe(16))

    def needs_rehash(self, stored: str) -> bool:
        """Whether ``stored`` was made with other parameters than ours."""
        try:
            return self.hasher.check_needs_rehash(stored)
        except InvalidHashError:
            return False

    def _check(self, stored: str, password: str) -> bool:
        try:
            return self.hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False
