"""Text people type that other people read: display names and chat lines.

Both are normalised to NFKC (so a name cannot pass for another with compatibility
forms) and refused when they hold characters that can hide or reorder what others
see: control characters (a chat line may keep line breaks), bidi overrides and
isolates, and zero-width characters. Clients render them as text, never as HTML.
Pure functions; each refusal is a :class:`~protocol.errors.ProtocolError` with its
code, so a server answer and a client's own check say the same.
"""

from __future__ import annotations

import unicodedata

from protocol.errors import BAD_NAME, BAD_TEXT, ProtocolError

NAME_MAX = 32
"""Characters in a display name (after normalisation)."""
CHAT_MAX = 500
"""Characters in a chat message (after normalisation)."""

BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)
"""Embeddings, overrides, isolates and directional marks: they reorder text around them."""
ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff\u180e\u2061\u2062\u2063\u2064")
"""Characters that take no room: two names that differ only by them look the same."""


def _bad_char(char: str, newlines: bool) -> str | None:
    """Why ``char`` may not appear, or None."""
    if char in BIDI_CONTROLS:
        return "a bidi control character"
    if char in ZERO_WIDTH:
        return "a zero-width character"
    category = unicodedata.category(char)
    if category == "Cc" and not (newlines and char == "\n"):
        return "a control character"
    if category in {"Cs", "Co", "Cn"}:
        return "an unassigned, private-use or surrogate code point"
    return None


def clean(text: object, *, limit: int, code: str, what: str, newlines: bool = False) -> str:
    """``text`` normalised (NFKC, ends trimmed), or ProtocolError(``code``) naming why."""
    if not isinstance(text, str):
        raise ProtocolError(code, f"{what} must be a string", what)
    text = unicodedata.normalize("NFKC", text).strip()
    if not 1 <= len(text) <= limit:
        raise ProtocolError(code, f"{what} must be 1-{limit} characters, got {len(text)}", what)
    for i, char in enumerate(text):
        why = _bad_char(char, newlines)
        if why is not None:
            raise ProtocolError(code, f"{what} holds {why} (U+{ord(char):04X}) at {i}", what)
    return text


def clean_name(text: object, what: str = "name") -> str:
    """A display name: 1-32 characters, one line (``player/bad_name``)."""
    return clean(text, limit=NAME_MAX, code=BAD_NAME, what=what)


def clean_chat(text: object) -> str:
    """A chat message: 1-500 characters, line breaks allowed (``chat/bad_text``)."""
    return clean(text, limit=CHAT_MAX, code=BAD_TEXT, what="text", newlines=True)
