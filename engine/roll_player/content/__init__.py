"""Roll Player's components: ``base.json`` (beside this module), validated at import.

Every card is data. Abilities (class abilities and skills) use one small vocabulary
of effects, :data:`ACTIVE` (used on demand) and :data:`PASSIVE` (standing rules); trait
stars use the vocabulary :data:`SCORES`. A bad entry raises :class:`ContentError`
naming it, so a broken data file fails at import, not mid-game.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from engine.roll_player.content.shapes import (
    ACTIVE,
    ATTRS,
    CLASS_COLOURS,
    COLOURS,
    COLUMNS,
    DIRECTIONS,
    GOLD,
    KINDS,
    PASSIVE,
    ROWS,
    SCORES,
    WHEN,
    Card,
    Catalog,
    ClassCard,
    ContentError,
    Effect,
    Goal,
    Rules,
    Score,
)

__all__ = [
    "ACTIVE",
    "ATTRS",
    "CATALOG",
    "CLASS_COLOURS",
    "COLOURS",
    "COLUMNS",
    "DIRECTIONS",
    "GOLD",
    "KINDS",
    "PASSIVE",
    "ROWS",
    "SCORES",
    "WHEN",
    "Card",
    "Catalog",
    "ClassCard",
    "ContentError",
    "Effect",
    "Goal",
    "Rules",
    "Score",
    "load",
    "parse",
]


def _need(cond: bool, where: str, what: str) -> None:
    if not cond:
        raise ContentError(f"{where}: {what}")


def _int(d: Mapping[str, Any], key: str, where: str, low: int = 0) -> int:
    v = d.get(key)
    _need(
        isinstance(v, int) and not isinstance(v, bool) and v >= low,
        where,
        f"{key} must be an int >= {low}",
    )
    assert isinstance(v, int)
    return v


def _mods(d: Mapping[str, Any], where: str) -> tuple[int, ...]:
    mods = d.get("mods", {})
    _need(isinstance(mods, dict) and set(mods) <= set(ATTRS), where, "mods must map attributes")
    return tuple(_int(mods, a, where, -6) if a in mods else 0 for a in ATTRS)


def _goal(spec: Any, where: str) -> Goal:
    _need(
        isinstance(spec, list) and len(spec) == 2 and isinstance(spec[0], str),
        where,
        "goal is [text, stars]",
    )
    text, stars = spec
    _need(isinstance(stars, int) and stars > 0, where, "stars must be positive")
    try:
        if text.endswith("+"):
            return Goal(int(text[:-1]), None, stars, text)
        low, _, high = text.partition("-")
        return Goal(int(low), int(high or low), stars, text)
    except ValueError:
        raise ContentError(f"{where}: bad goal {text!r}") from None


def _effect(d: Any, where: str, allowed: frozenset[str]) -> Effect:
    _need(
        isinstance(d, dict) and d.get("kind") in allowed,
        where,
        f"kind must be one of {sorted(allowed)}",
    )
    _known(d, EFFECT_KEYS, where)
    when = d.get("when", "any")
    _need(when in WHEN, where, f"when must be one of {sorted(WHEN)}")
    card = d.get("card", "")
    _need(card == "" or card in KINDS, where, "card must be a market card kind")
    return Effect(
        kind=d["kind"],
        when=when,
        gold=_int(d, "gold", where) if "gold" in d else 0,
        by=_int(d, "by", where, 1) if "by" in d else 1,
        count=_int(d, "count", where, 1) if "count" in d else 1,
        card=card,
    )


def _score(d: Any, where: str) -> Score:
    _need(
        isinstance(d, dict) and d.get("kind") in SCORES,
        where,
        f"score kind must be one of {sorted(SCORES)}",
    )
    _known(d, SCORE_KEYS, where)
    kind = d["kind"]
    attr = d.get("attr", "STR")
    _need(attr in ATTRS, where, "attr must be an attribute")
    _need(
        d.get("row", "good") in ROWS and d.get("column", "lawful") in COLUMNS,
        where,
        "bad row/column",
    )
    _need(d.get("card", "") in ("", *KINDS), where, "card must be a market card kind")
    return Score(
        kind=kind,
        stars=_int(d, "stars", where) if "stars" in d else 0,
        attr=ATTRS.index(attr),
        value=_int(d, "value", where) if "value" in d else 0,
        row=ROWS[d.get("row", "good")],
        column=COLUMNS[d.get("column", "lawful")],
        card=d.get("card", ""),
        gold=_int(d, "gold", where, 1) if "gold" in d else 1,
        max=_int(d, "max", where) if "max" in d else 0,
    )


def _source(d: Mapping[str, Any], where: str) -> str:
    src = d.get("source")
    _need(src in ("published", "rollhouse"), where, "source must be 'published' or 'rollhouse'")
    return str(src)


CARD_KEYS = frozenset({"name", "kind", "pile", "cost", "source", "published"})
KIND_KEYS = {
    "weapon": frozenset({"hands", "mods"}),
    "armor": frozenset({"set", "colour"}),
    "trait": frozenset({"arrow", "score"}),
    "skill": frozenset({"arrow", "effect"}),
}
EFFECT_KEYS = frozenset({"kind", "when", "gold", "by", "count", "card", "name", "source"})
SCORE_KEYS = frozenset({"kind", "stars", "attr", "value", "row", "column", "card", "gold", "max"})


def _known(d: Mapping[str, Any], keys: frozenset[str], where: str) -> None:
    unknown = sorted(set(d) - keys)
    _need(not unknown, where, f"unknown keys {unknown}")


def _card(d: Any, armor_sets: Mapping[str, tuple[int, ...]]) -> Card:
    _need(
        isinstance(d, dict) and isinstance(d.get("name"), str), "market", f"entry {d!r} has no name"
    )
    where = f"market card {d['name']!r}"
    kind = d.get("kind")
    _need(kind in KINDS, where, f"kind must be one of {KINDS}")
    _known(d, CARD_KEYS | KIND_KEYS[kind], where)
    _need(d.get("pile") in (1, 2), where, "pile must be 1 or 2")
    base = {
        "name": d["name"],
        "kind": kind,
        "pile": d["pile"],
        "cost": _int(d, "cost", where, 1),
        "source": _source(d, where),
    }
    if kind == "weapon":
        _need(d.get("hands") in (1, 2), where, "hands must be 1 or 2")
        return Card(**base, hands=d["hands"], mods=_mods(d, where))
    if kind == "armor":
        _need(d.get("set") in armor_sets, where, f"set must be one of {sorted(armor_sets)}")
        _need(d.get("colour") in CLASS_COLOURS, where, "colour must be a class colour")
        return Card(**base, set=d["set"], colour=d["colour"])
    _need(d.get("arrow") in DIRECTIONS, where, f"arrow must be one of {sorted(DIRECTIONS)}")
    if kind == "trait":
        return Card(**base, arrow=d["arrow"], score=_score(d.get("score"), where))
    return Card(**base, arrow=d["arrow"], effect=_effect(d.get("effect"), where, ACTIVE))


def _klass(d: Any) -> ClassCard:
    _need(
        isinstance(d, dict) and isinstance(d.get("name"), str),
        "classes",
        f"entry {d!r} has no name",
    )
    where = f"class {d['name']!r}"
    _need(d.get("colour") in CLASS_COLOURS, where, "colour must be a class colour")
    goals = d.get("goals")
    _need(
        isinstance(goals, dict) and set(goals) == set(ATTRS),
        where,
        "goals must name all six attributes",
    )
    ability = d.get("ability")
    _need(
        isinstance(ability, dict) and isinstance(ability.get("name"), str),
        where,
        "ability needs a name",
    )
    _source(ability, where + " ability")
    klass = ClassCard(
        name=d["name"],
        colour=d["colour"],
        goals=tuple(_goal(goals[a], f"{where} goal {a}") for a in ATTRS),
        ability_name=ability["name"],
        ability=_effect(ability, where + " ability", ACTIVE | PASSIVE),
        source=_source(d, where),
    )
    _need(sum(g.stars for g in klass.goals) == 12, where, "goals must total 12 stars")
    return klass


def _rules(d: Any) -> Rules:
    w = "rules"
    _need(isinstance(d, dict), w, "must be a map")
    return Rules(
        supply=_int(d, "supply", w, 1),
        start_gold=_int(d, "start_gold", w),
        extra_gold_by_seat=tuple(d["extra_gold_by_seat"]),
        starting_dice_extra=_int(d, "starting_dice_extra", w),
        pile_discards={int(k): v for k, v in d["pile_discards"].items()},
        initiative=tuple(d["initiative"]),
        gold_die_gold=_int(d, "gold_die_gold", w),
        full_row_gold=_int(d, "full_row_gold", w),
        market_discard_gold=_int(d, "market_discard_gold", w),
        backstory_stars=tuple(d["backstory_stars"]),
        class_die_stars=_int(d, "class_die_stars", w),
        armor_class_bonus=_int(d, "armor_class_bonus", w),
    )


def _named(items: Any, where: str) -> dict[str, Any]:
    _need(isinstance(items, list), where, "must be a list")
    out: dict[str, Any] = {}
    for item in items:
        _need(
            isinstance(item, dict) and isinstance(item.get("name"), str),
            where,
            f"entry {item!r} has no name",
        )
        _need(item["name"] not in out, where, f"duplicate name {item['name']!r}")
        _source(item, f"{where} {item['name']!r}")
        out[item["name"]] = item
    return out


def _alignment(name: str, d: Mapping[str, Any]) -> tuple[int, ...]:
    grid: Any = d.get("grid")
    ok = (
        isinstance(grid, list)
        and len(grid) == 3
        and all(isinstance(r, list) and len(r) == 3 for r in grid)
    )
    _need(ok, f"alignment {name!r}", "grid must be 3x3")
    return tuple(int(v) for row in grid for v in row)


def _backstory(name: str, d: Mapping[str, Any]) -> tuple[tuple[str, int], ...]:
    wants: Any = d.get("wants")
    where = f"backstory {name!r}"
    _need(isinstance(wants, list) and len(wants) == 6, where, "wants six [colour, space] pairs")
    for want in wants:
        ok = isinstance(want, list) and len(want) == 2
        _need(ok and want[0] in CLASS_COLOURS and want[1] in (1, 2, 3), where, f"bad want {want!r}")
    return tuple((str(c), int(s)) for c, s in wants)


def parse(raw: Mapping[str, Any]) -> Catalog:
    """Validate the raw data file and build the catalog."""
    dice = raw.get("dice", {})
    _need(
        isinstance(dice, dict) and all(c in dice for c in COLOURS),
        "dice",
        "needs a count per colour",
    )
    sets = raw.get("armor_sets", {})
    armor_sets = {k: tuple(v) for k, v in sets.items() if k != "source"}
    classes = {name: _klass(d) for name, d in _named(raw.get("classes"), "classes").items()}
    cards = [_card(d, armor_sets) for d in raw.get("market", [])]
    names = [c.name for c in cards]
    _need(len(set(names)) == len(names), "market", "card names must be unique")
    return Catalog(
        rules=_rules(raw.get("rules")),
        dice=tuple(_int(dice, c, "dice", 1) for c in COLOURS),
        races={n: _mods(d, f"race {n!r}") for n, d in _named(raw.get("races"), "races").items()},
        classes=classes,
        alignments={
            n: _alignment(n, d) for n, d in _named(raw.get("alignments"), "alignments").items()
        },
        backstories={
            n: _backstory(n, d) for n, d in _named(raw.get("backstories"), "backstories").items()
        },
        armor_sets=armor_sets,
        cards={c.name: c for c in cards},
    )


def load(name: str = "base.json") -> Catalog:
    """Read and validate a data file from this package's ``content`` folder."""
    text = resources.files("engine.roll_player").joinpath("content", name).read_text("utf-8")
    return parse(json.loads(text))


CATALOG = load()
"""The base game."""
