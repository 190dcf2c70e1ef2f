"""Static checks of Roll Player's board: its catalog copy and its string families.

Run as a module to rewrite ``clients/web/js/games/roll-player-catalog.js`` from the
engine's data file: ``.venv/bin/python -m tests.browser.test_roll_player_static``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "engine" / "roll_player" / "content" / "base.json"
CATALOG_JS = ROOT / "clients" / "web" / "js" / "games" / "roll-player-catalog.js"
STRINGS_JS = ROOT / "clients" / "web" / "js" / "i18n" / "roll-player.js"
KEY = re.compile(r'^\s*"([\w./-]+)":', re.M)
HEADER = (
    "// Roll Player's catalog for the board: a copy of engine/roll_player/content/base.json\n"
    "// (the view names cards, races and classes; their numbers live here). Regenerate with\n"
    "// `.venv/bin/python -m tests.browser.test_roll_player_static`; a test checks it is in sync.\n"
)


def catalog_source() -> str:
    """The catalog module's text, from the engine's data file."""
    data = json.loads(DATA.read_text("utf-8"))
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"{HEADER}export default {body};\n"


def slug(name: str) -> str:
    """A name as the board's string keys spell it (``Heavy Crossbow`` -> ``Heavy_Crossbow``)."""
    return name.replace(" ", "_")


def english_keys() -> set[str]:
    text = STRINGS_JS.read_text("utf-8")
    return set(KEY.findall(text[: text.index('"pt-BR": {')]))


def test_the_board_catalog_is_the_engine_data_file() -> None:
    """roll-player-catalog.js holds exactly engine/roll_player/content/base.json."""
    assert CATALOG_JS.read_text("utf-8") == catalog_source()


def test_every_name_the_board_translates_has_a_string() -> None:
    """Attributes, races, classes, cards, alignments, backstories, phases, effects have keys."""
    data = json.loads(DATA.read_text("utf-8"))
    keys = english_keys()
    attrs = ["STR", "DEX", "CON", "INT", "WIS", "CHA"]
    wanted = {f"rp.{family}.{a}" for a in attrs for family in ("attr", "attr_short", "action")}
    wanted |= {f"rp.{family}.{a}" for a in attrs for family in ("action_long", "action_short")}
    wanted |= {f"rp.race.{r['name']}" for r in data["races"]}
    wanted |= {f"rp.class.{c['name']}" for c in data["classes"]}
    wanted |= {f"rp.colour.{c}" for c in data["dice"] if c != "source"}
    wanted |= {f"rp.set.{s}" for s in data["armor_sets"] if s != "source"}
    kinds = ("weapon", "armor", "trait", "skill")
    wanted |= {f"rp.kind.{k}" for k in kinds} | {f"rp.kinds.{k}" for k in kinds}
    phases = ("sheets", "classes", "placing", "arrange", "dice", "action", "market", "refresh")
    wanted |= {f"rp.phase.{p}" for p in (*phases, "over")}
    wanted |= {f"rp.prompt.you_{p}" for p in phases if p != "action"}
    wanted |= {f"rp.prompt.other_{p}" for p in phases}
    wanted |= {f"rp.prompt.wait_{p}" for p in ("classes", "placing", "refresh")}
    effects = [c["effect"]["kind"] for c in data["market"] if "effect" in c]
    effects += [c["ability"]["kind"] for c in data["classes"]]
    wanted |= {f"rp.effect.{e}" for e in effects}
    wanted |= {f"rp.dir.{d}" for d in ("up", "down", "left", "right")}
    wanted |= {f"rp.side.{s}" for s in ("female", "male")}
    wanted |= {f"rp.align_row.{r}" for r in ("good", "neutral", "evil")}
    wanted |= {f"rp.align_col.{c}" for c in ("lawful", "neutral", "chaotic")}
    events = ("flipped", "swapped", "adjusted", "alignment_moved", "charisma_taken")
    wanted |= {f"rp.ev.{e}" for e in (*events, "gold_gained", "credit_gained", "salvaged")}
    wanted |= {f"rp.card.{slug(c['name'])}" for c in data["market"]}
    wanted |= {f"rp.ability.{slug(c['ability']['name'])}" for c in data["classes"]}
    wanted |= {f"rp.align_name.{slug(a['name'])}" for a in data["alignments"]}
    wanted |= {f"rp.story.{slug(b['name'])}" for b in data["backstories"]}
    assert wanted - keys == set()


if __name__ == "__main__":
    CATALOG_JS.write_text(catalog_source(), "utf-8")
    print(f"wrote {CATALOG_JS.relative_to(ROOT)}")
