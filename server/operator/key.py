"""The operator token: set by the operator (``ROLLHOUSE_OPERATOR_TOKEN``, or its SHA-256
``ROLLHOUSE_OPERATOR_TOKEN_SHA256``), never a default; without one the console is off.

Only the token's SHA-256 is kept; a presented token is hashed and the two digests are
compared with :func:`hmac.compare_digest` (the time does not depend on where they
differ, and hashing first makes it independent of the token's length too).
"""

from __future__ import annotations

import hashlib
import hmac
import re

import attrs

from server.config import Settings

MIN_LENGTH = 32
"""Characters of a token at least (``secrets.token_urlsafe(24)`` gives 32)."""
_HEX = re.compile(r"[0-9a-f]{64}")


@attrs.frozen
class OperatorKey:
    """The SHA-256 digest of the operator token."""

    digest: bytes = attrs.field(repr=False)

    @classmethod
    def of(cls, settings: Settings) -> OperatorKey | None:
        """The key the settings name (None: the console is off); a token shorter than
        :data:`MIN_LENGTH` or a digest that is not 64 hex digits is refused at start-up."""
        token, digest = settings.operator_token, settings.operator_token_sha256.strip().lower()
        if token:
            if len(token) < MIN_LENGTH:
                raise ValueError(f"ROLLHOUSE_OPERATOR_TOKEN: at least {MIN_LENGTH} characters")
            return cls(hashlib.sha256(token.encode()).digest())
        if digest:
            if not _HEX.fullmatch(digest):
                raise ValueError("ROLLHOUSE_OPERATOR_TOKEN_SHA256: 64 hex digits")
            return cls(bytes.fromhex(digest))
        return None

    def admits(self, token: str | None) -> bool:
        """Whether ``token`` is the operator token (in constant time)."""
        given = hashlib.sha256((token or "").encode()).digest()
        return hmac.compare_digest(given, self.digest) and bool(token)
