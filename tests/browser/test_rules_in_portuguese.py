"""Issue 24: the Portuguese rules are as complete as the English ones (before: Rollie's
Portuguese section had 5 items against 13, Roll Player's was a summary): each game's
rules file has as many sections, list items and table rows in Portuguese as in English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "clients" / "web" / "rules"


def parts(text: str) -> tuple[str, str]:
    lines = text.splitlines()
    at = next(
        i for i, line in enumerate(lines) if re.match(r"^#{1,3}\s.*(Portugu[eê]s|pt-BR)", line)
    )
    return "\n".join(lines[:at]), "\n".join(lines[at + 1 :])


def shape(md: str) -> tuple[int, int, int]:
    sections = len(re.findall(r"^## ", md, re.M))
    items = len(re.findall(r"^\s*(?:[-*]|\d+\.)\s", md, re.M))
    rows = len(re.findall(r"^\|", md, re.M))
    return sections, items, rows


@pytest.mark.parametrize("game", ["rollie", "roll-player", "roll-builder", "fairness"])
def test_the_portuguese_rules_are_whole(game: str) -> None:
    en, pt = parts((RULES / f"{game}.md").read_text())
    assert shape(pt) == shape(en), (shape(en), shape(pt))
