"""The web client's translations of Roll Builder content follow the engine's content:
every event and visionary text the server sends has its English key (else the board
falls back to English in Portuguese too)."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STRINGS = ROOT / "clients" / "web" / "js" / "i18n" / "roll-builder-content.js"
CONTENT = ROOT / "engine" / "roll_builder" / "content"
PAIR = re.compile(r'"(rb\.c\.[^"]+)":\s*"((?:[^"\\]|\\.)*)"')


def english() -> dict[str, str]:
    text = STRINGS.read_text()
    en = text.split('"pt-BR"')[0]
    return {k: json.loads(f'"{v}"') for k, v in PAIR.findall(en)}


def test_every_event_and_visionary_text_is_translated() -> None:
    """The English of each event and visionary text equals the engine's, word for word."""
    strings = english()
    for kind, file in (("event", "events.json"), ("visionary", "visionaries.json")):
        for card in json.loads((CONTENT / file).read_text()):
            key = f"rb.c.{kind}.{card['id']}.text"
            assert strings.get(key) == card["text"], key
            if "hard" in card:  # the text of the harder goal (visionary_goals=hard)
                key = f"rb.c.{kind}.{card['id']}.hard.text"
                assert strings.get(key) == card["hard"]["text"], key
