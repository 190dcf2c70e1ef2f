"""The numbers of the people service: how long a session lasts, and every limit on
guessing. Defaults below; the ones an operator may change are settings
(:class:`server.config.Settings`, ``ROLLHOUSE_<NAME>``).

| what | number | refusal (counted in ``rollhouse_limit_refusals_total{limit}``) |
|---|---|---|
| a session unused | ends after 30 days (``session_idle_days``); each use moves it on (recorded at most every 5 min) | 401 ``player/unauthorized`` |
| sessions per player | the 100 most recently used | the oldest ends |
| guests per client address | 30 a minute (``guests_per_minute``) | 429 ``http/rate_limited`` (``guests_per_address``) |
| session tokens that open nothing, per address | 30 a minute (``bad_sessions_per_minute``) | 429 ``player/login_limited`` (``session_guesses_per_address``) |
| failed sign-ins per account | 5 free (``signin_free_per_account``), then 1 s, 2 s, 4 s... up to 15 min | 429 ``player/login_limited`` (``signin_per_account``) |
| failed sign-ins per address | 20 free (``signin_free_per_address``), then 1 s, 2 s, 4 s... up to 1 h | 429 ``player/login_limited`` (``signin_per_address``) |
| rooms in a player's list | the 1000 newest | the oldest leaves the list |

Sign-in counts are forgotten 24 hours after an account's or address's last attempt;
a successful sign-in clears its account's count and uncounts itself from its
address's. Every refusal carries ``Retry-After``.
"""

from __future__ import annotations

import attrs

from server.config import Settings
from server.people.passwords import OWASP
from server.store.people_base import Backoff

DAY = 86_400.0
PER_ACCOUNT = Backoff(free=5, base=1.0, cap=900.0, forget=DAY)
PER_ADDRESS = Backoff(free=20, base=1.0, cap=3600.0, forget=DAY)


@attrs.frozen
class Policy:
    """How long sessions last and how much guessing the service allows."""

    session_idle: float = 30 * DAY
    """Seconds a session may go unused before it ends."""
    touch_every: float = 300.0
    """A session's last use is written at most this often (so expiry may come up to this
    much early)."""
    sessions_per_player: int = 100
    rooms_per_player: int = 1000
    guests_per_minute: int = 30
    bad_sessions_per_minute: int = 30
    signin_per_account: Backoff = PER_ACCOUNT
    signin_per_address: Backoff = PER_ADDRESS
    password_cost: tuple[int, ...] = OWASP
    hashing_at_once: int = 2
    """Password hashes computed at once (each takes ``password_cost``'s memory)."""

    @classmethod
    def of(cls, settings: Settings) -> Policy:
        """The policy with the operator's settings."""
        return cls(
            session_idle=settings.session_idle_days * DAY,
            guests_per_minute=settings.guests_per_minute,
            bad_sessions_per_minute=settings.bad_sessions_per_minute,
            signin_per_account=attrs.evolve(PER_ACCOUNT, free=settings.signin_free_per_account),
            signin_per_address=attrs.evolve(PER_ADDRESS, free=settings.signin_free_per_address),
            password_cost=settings.password_cost,
        )
