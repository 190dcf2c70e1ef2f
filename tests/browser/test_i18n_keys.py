"""Static checks of the web client's strings: both languages complete, no missing key."""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
KEY = re.compile(r'^\s*"([\w./-]+)":', re.M)


def dictionaries() -> tuple[set[str], set[str]]:
    """The keys of both languages: js/i18n.js plus each game's js/i18n/<game>.js."""
    source = (WEB / "js" / "i18n.js").read_text()
    en_start, pt_start = source.index("const en = {"), source.index("const pt = {")
    end = source.index("export const DICTIONARIES")
    en = set(KEY.findall(source[en_start:pt_start]))
    pt = set(KEY.findall(source[pt_start:end]))
    for path in sorted((WEB / "js" / "i18n").glob("*.js")):
        text = path.read_text()
        marker = '"pt-BR": {'
        split = text.index(marker)
        en |= set(KEY.findall(text[:split]))
        pt |= set(KEY.findall(text[split + len(marker) :]))
    return en, pt


def test_english_and_portuguese_have_the_same_keys() -> None:
    """Every UI string exists in English and in pt-BR (no key only in one language)."""
    en, pt = dictionaries()
    assert len(en) > 100
    assert en - pt == set(), "missing in pt-BR"
    assert pt - en == set(), "missing in English"


def test_every_key_the_pages_use_is_defined() -> None:
    """Each t("key") in the scripts and data-i18n* key in the pages is in the dictionary."""
    en, _ = dictionaries()
    used: set[str] = set()
    for path in WEB.rglob("*.js"):
        text = path.read_text()
        used |= set(re.findall(r'\bt\(\s*"([\w./-]+)"', text))
        used |= set(re.findall(r'\bkey:\s*"([\w./-]+)"', text))
        used |= set(re.findall(r'\bline\(\s*"([\w./-]+)"', text))
    for path in WEB.glob("*.html"):
        used |= set(re.findall(r'data-i18n(?:-aria|-placeholder)?="([\w./-]+)"', path.read_text()))
    assert len(used) > 50
    assert used - en == set()
