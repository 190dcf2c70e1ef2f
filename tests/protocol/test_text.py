"""protocol.text: names and chat lines are normalised, and what hides or reorders text
is refused with the right code."""

from __future__ import annotations

import pytest

from protocol.errors import BAD_NAME, BAD_TEXT, ProtocolError
from protocol.text import clean_chat, clean_name


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Ana", "Ana"),
        ("  Bruno  ", "Bruno"),
        ("\uff21\uff2e\uff21", "ANA"),  # fullwidth letters fold under NFKC
        ("\ufb01ona", "fiona"),  # a ligature
        ("x" * 32, "x" * 32),
        ("José", "José"),
    ],
)
def test_names_are_normalised(raw: str, clean: str) -> None:
    """NFKC, ends trimmed; markup is just text (clients never render it as HTML)."""
    assert clean_name(raw) == clean


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "x" * 33,
        "An\u202ea",  # right-to-left override
        "An\u2066a",  # isolate
        "A\u200bna",  # zero-width space
        "A\u200dna",  # zero-width joiner
        "An\x00a",
        "An\na",  # names are one line
        "\ufeffAna",
        "Ana\ue000",  # private use
        "<b>Ana</b>",  # markup
        "Ana<script>",
        "a>b",
        42,
        None,
    ],
)
def test_bad_names_are_refused(raw: object) -> None:
    """Empty, too long, or holding control, bidi or zero-width characters: player/bad_name."""
    with pytest.raises(ProtocolError) as info:
        clean_name(raw)
    assert info.value.code == BAD_NAME


def test_chat_keeps_line_breaks_and_refuses_the_rest() -> None:
    """A chat line may hold line breaks, nothing else invisible; 500 characters at most."""
    assert clean_chat("hi\nthere") == "hi\nthere"
    assert clean_chat("x" * 500) == "x" * 500
    assert clean_chat("a < b, and <3 > 2") == "a < b, and <3 > 2"
    bad = ("<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "</b>", "<!-- x -->",
           "see JavaScript :alert(1)", "data: text/html;base64,xx")  # fmt: skip
    for raw in ("", "x" * 501, "a\u202eb", "a\tb", "x" * 10_000, "a\u200bb", *bad):
        with pytest.raises(ProtocolError) as info:
            clean_chat(raw)
        assert info.value.code == BAD_TEXT
