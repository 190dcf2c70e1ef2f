"""A player, its id, its session tokens, and the checks of usernames and passwords.

Pure values and functions (the randomness comes from :mod:`secrets`, the only input
they draw); the service (:mod:`server.people.service`) stores and times them.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from typing import Any

import attrs

from protocol.errors import BAD_PASSWORD, BAD_USERNAME, ProtocolError
from server.store.people_base import StoredPlayer

USERNAME = re.compile(r"[a-z0-9._-]{3,32}")
PASSWORD_MIN, PASSWORD_MAX = 10, 256
"""Characters in a password (after NFKC normalisation)."""
_PLAYER_ID = re.compile(r"p-[0-9a-f]{16}")
_TOKEN = re.compile(r"(p-[0-9a-f]{16})\.([A-Za-z0-9_-]{43})")
SECRET_BYTES = 32
"""A session token's random part: 256 bits (43 characters of URL-safe base64)."""


@attrs.frozen
class Player:
    """A player: ``id`` is public (``p-`` and 16 hex digits), ``username`` is set once
    the player has added a password (None for a guest)."""

    id: str
    name: str
    created_at: float
    username: str | None = None

    @classmethod
    def of(cls, stored: StoredPlayer) -> Player:
        """The player of a stored record (its password hash left behind)."""
        return cls(stored.id, stored.name, stored.created_at, stored.username)

    def to_data(self) -> dict[str, Any]:
        """The player as the HTTP API shows it to themselves."""
        return {
            "id": self.id,
            "name": self.name,
            "created_at": self.created_at,
            "username": self.username,
        }


def new_player_id() -> str:
    """A fresh random player id (64 bits)."""
    return "p-" + secrets.token_hex(8)


def is_player_id(text: object) -> bool:
    """Whether ``text`` has the shape of a player id."""
    return isinstance(text, str) and _PLAYER_ID.fullmatch(text) is not None


def guest_name(player_id: str) -> str:
    """The display name a guest who gave none starts with."""
    return f"Guest {player_id[2:6]}"


@attrs.frozen
class Token:
    """A session token, ``<player id>.<secret>``: the player id says where the
    player's sessions are kept, the secret (256 random bits) proves the session.
    The store keeps only ``digest`` (SHA-256 of the secret) under ``sid`` (its first
    half), so a stolen database opens no session."""

    player_id: str
    secret: str = attrs.field(repr=False)

    @property
    def digest(self) -> str:
        """SHA-256 of the secret, hex: what the store keeps (a fast hash suffices for
        256 random bits; a slow one is for passwords people choose)."""
        return hashlib.sha256(self.secret.encode()).hexdigest()

    @property
    def sid(self) -> str:
        """The session's id in the store: the first 128 bits of the digest."""
        return self.digest[:32]

    def __str__(self) -> str:
        return f"{self.player_id}.{self.secret}"

    @classmethod
    def new(cls, player_id: str) -> Token:
        """A fresh token of ``player_id``."""
        return cls(player_id, secrets.token_urlsafe(SECRET_BYTES))

    @classmethod
    def parse(cls, text: object) -> Token | None:
        """The token ``text`` spells, or None if it is not one."""
        if not isinstance(text, str) or len(text) > 80:
            return None
        found = _TOKEN.fullmatch(text)
        return None if found is None else cls(found[1], found[2])


def check_username(text: object) -> str:
    """A username, case-folded: 3-32 of ``a-z 0-9 . _ -`` (``player/bad_username``)."""
    if isinstance(text, str) and text.isascii() and USERNAME.fullmatch(text.lower()):
        return text.lower()
    raise ProtocolError(
        BAD_USERNAME, "a username is 3-32 characters of a-z, 0-9, '.', '_' or '-'", "username"
    )


def check_password(text: object) -> str:
    """A password, NFKC-normalised (so every device types the same one): 10-256
    characters (``player/bad_password``)."""
    if isinstance(text, str) and len(text) <= 4 * PASSWORD_MAX:
        text = unicodedata.normalize("NFKC", text)
        if PASSWORD_MIN <= len(text) <= PASSWORD_MAX:
            return text
    raise ProtocolError(
        BAD_PASSWORD, f"a password is {PASSWORD_MIN}-{PASSWORD_MAX} characters", "password"
    )
