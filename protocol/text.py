"""Text people type that other people read: display names and chat lines.

Both are normalised to NFKC (so a name cannot pass for another with compatibility
forms) and refused when they hold characters that can hide or reorder what others
see: control characters (a chat line may keep line breaks), bidi overrides and
isolates, and zero-width characters. Markup is refused too: a name may hold no ``<``
or ``>``, a chat line no HTML tag (``<`` before a letter, ``/``, ``!`` or ``?``) and
no link that runs script (``javascript:``, ``vbscript:``, ``data:``), so "a < b" and
"<3" are fine. Clients render both as text, never as HTML, all the same.
Pure functions; each refusal is a :class:`~protocol.errors.ProtocolError` with its
code, so a server answer and a client's own check say the same.
"""

from __future__ import annotations

import re
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


_TAG = re.compile(r"<[A-Za-z/!?]")
_SCRIPT_LINK = re.compile(r"(?:java|vb)script\s*:|data\s*:\s*text/html", re.IGNORECASE)


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
    """A display name: 1-32 characters, one line, no ``<`` or ``>`` (``player/bad_name``)."""
    name = clean(text, limit=NAME_MAX, code=BAD_NAME, what=what)
    if "<" in name or ">" in name:
        raise ProtocolError(BAD_NAME, f"{what} may not hold < or >", what)
    return name


def clean_chat(text: object) -> str:
    """A chat message: 1-500 characters, line breaks allowed, no HTML tag and no link
    that runs script (``chat/bad_text``)."""
    line = clean(text, limit=CHAT_MAX, code=BAD_TEXT, what="text", newlines=True)
    if _TAG.search(line):
        raise ProtocolError(BAD_TEXT, "text may not hold HTML tags (it is shown as text)", "text")
    if _SCRIPT_LINK.search(line):
        raise ProtocolError(BAD_TEXT, "text may not hold a link that runs script", "text")
    return line
