"""What a room's log keeps instead of a secret or a whole body: digests.

A seat token is kept only as its SHA-256 (:func:`token_hash`), so a log or a backup
never lets anyone take a seat; a command's body as a short digest (:func:`body_digest`),
enough to refuse a command id reused for another command.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any


def token_hash(token: str) -> str:
    """What the log keeps of a seat token: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


def body_digest(body: Mapping[str, Any]) -> str:
    """A short digest of a command's body, the same for equal bodies (key order aside)."""
    text = repr(sorted((str(k), repr(v)) for k, v in body.items()))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
