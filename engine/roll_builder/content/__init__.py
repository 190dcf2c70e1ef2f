"""Roll Builder's designed content: two city sheets, seven events, nine visionaries.

The JSON files beside this module are the data (their formats: ``README.md`` here);
they are read and validated once, at import, into :data:`CITIES`, :data:`EVENTS` and
:data:`VISIONARIES`. The shapes they become, and the ability vocabulary, are in
``shapes.py`` (re-exported here); ``loader.py`` reads JSON and names a bad entry;
``check.py`` refuses a card dealt where it cannot work.

City files are ``<id>.json`` listed in ``index.json``; events and visionaries have one
file each. Any malformed entry raises ``ContentError`` naming the file and the entry,
so a broken sheet can never reach a game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, TypeVar

from engine.roll_builder.content.check import check_content
from engine.roll_builder.content.loader import (
    Json,
    ability,
    array,
    condition,
    effect,
    fail,
    integer,
    obj,
    read_json,
    resource,
    text,
)
from engine.roll_builder.content.shapes import (
    ABILITY_KINDS,
    EDGE_KINDS,
    FAVOR,
    FOOD,
    IDEA,
    METRICS,
    NO_GAINS,
    NOTHING,
    RESOURCES,
    STRENGTH,
    SUPPLIES,
    VISIONARY_GOALS,
    WEALTH,
    Ability,
    Box,
    Building,
    City,
    Condition,
    Effect,
    Gains,
    GameEvent,
    Innovation,
    Space,
    Visionary,
    edge_matches,
    single,
)
from engine.roll_builder.hexmap import Edge, Geometry, Hex, are_neighbours, edge, offset_to_axial

__all__ = [
    "ABILITY_KINDS",
    "CITIES",
    "EDGE_KINDS",
    "EVENTS",
    "FAVOR",
    "FOOD",
    "IDEA",
    "METRICS",
    "NOTHING",
    "NO_GAINS",
    "RESOURCES",
    "STRENGTH",
    "SUPPLIES",
    "VISIONARIES",
    "VISIONARIES_BY_GOALS",
    "VISIONARY_GOALS",
    "WEALTH",
    "Ability",
    "Box",
    "Building",
    "City",
    "Condition",
    "Effect",
    "Gains",
    "GameEvent",
    "Innovation",
    "Space",
    "Visionary",
    "edge_matches",
    "load_cities",
    "load_events",
    "load_visionaries",
    "parse_city",
    "parse_event",
    "parse_visionary",
    "single",
]

_TERRAIN = {"L": ("land", False), "W": ("water", False), "l": ("land", True), "w": ("water", True)}
_CITY_KEYS = {"id", "name", "band", "legend", "rows", "cliffs", "start_roads", "buildings"}
_CITY_KEYS |= {"wonder", "innovations", "tracks", "storage", "specials"}


def parse_city(data: Json, where: str) -> City:
    """A city sheet from its JSON object."""
    d = obj(data, where, _CITY_KEYS, {"notes"})
    band = array(d["band"], f"{where}.band")
    if len(band) != 2 or integer(band[0], f"{where}.band[0]", 0) >= integer(
        band[1], f"{where}.band[1]", 0
    ):
        raise fail(f"{where}.band", "expected [low, high] with low < high")
    spaces = _spaces(d, where)
    terrain = {h: s.terrain for h, s in spaces.items()}
    partial = [h for h, s in spaces.items() if s.partial]
    cliffs = _edges(d["cliffs"], f"{where}.cliffs", spaces)
    geometry = Geometry.build(terrain, partial, cliffs)
    roads = _edges(d["start_roads"], f"{where}.start_roads", spaces)
    for i, e in enumerate(sorted(roads)):
        if e not in geometry.edges:
            raise fail(f"{where}.start_roads[{i}]", "edge is cut off by the map border")
    wonder = obj(d["wonder"], f"{where}.wonder", {"name", "rule", "boxes"})
    tracks = obj(d["tracks"], f"{where}.tracks", {"favor", "strength"})
    specials = array(d["specials"], f"{where}.specials")
    return City(
        id=text(d["id"], f"{where}.id"),
        name=text(d["name"], f"{where}.name"),
        band=(band[0], band[1]),
        spaces=spaces,
        geometry=geometry,
        start_roads=roads,
        buildings=_buildings(d["buildings"], f"{where}.buildings"),
        wonder=text(wonder["name"], f"{where}.wonder.name"),
        wonder_rule=text(wonder["rule"], f"{where}.wonder.rule"),
        boxes=_boxes(wonder["boxes"], f"{where}.wonder.boxes"),
        innovations=_innovations(d["innovations"], f"{where}.innovations"),
        favor_track=_track(tracks["favor"], f"{where}.tracks.favor"),
        strength_track=_track(tracks["strength"], f"{where}.tracks.strength"),
        storage=integer(d["storage"], f"{where}.storage", 1, 99),
        specials=tuple(_special(s, f"{where}.specials[{i}]")[0] for i, s in enumerate(specials)),
        special_text=tuple(
            _special(s, f"{where}.specials[{i}]")[1] for i, s in enumerate(specials)
        ),
    )


def _spaces(d: dict[str, Json], where: str) -> dict[Hex, Space]:
    legend = obj(
        d["legend"], f"{where}.legend", set(), {c for c in "abcdefghijklmnopqrstuvwxyz0123456789"}
    )
    features: dict[str, tuple[Effect | None, int, str]] = {}
    for code, entry in legend.items():
        p = f"{where}.legend.{code}"
        e = obj(entry, p, set(), {"points", "effect", "name"})
        eff = effect(e["effect"], f"{p}.effect") if "effect" in e else None
        name = text(e["name"], f"{p}.name") if "name" in e else ""
        features[code] = (eff, integer(e.get("points", 0), f"{p}.points", 0, 9), name)
    spaces: dict[Hex, Space] = {}
    for row, line in enumerate(array(d["rows"], f"{where}.rows")):
        for col, token in enumerate(text(line, f"{where}.rows[{row}]").split()):
            path = f"{where}.rows[{row}][{col}]"
            if token == "..":
                continue
            if (
                len(token) != 2
                or token[0] not in _TERRAIN
                or (token[1] != "." and token[1] not in features)
            ):
                raise fail(path, f"bad token {token!r}")
            kind, partial = _TERRAIN[token[0]]
            eff, points, name = features.get(token[1], (None, 0, ""))
            if (eff or points) and kind == "water" and token[1] != ".":
                raise fail(path, "features belong on land")
            h = offset_to_axial(col, row)
            icon = token[1] if token[1] != "." else ""
            spaces[h] = Space(h, kind, partial, eff, points, icon, name)
    if not spaces:
        raise fail(f"{where}.rows", "the map has no spaces")
    return spaces


def _edges(data: Json, path: str, spaces: Mapping[Hex, Space]) -> frozenset[Edge]:
    out: set[Edge] = set()
    for i, pair in enumerate(array(data, path)):
        cells = array(pair, f"{path}[{i}]")
        if len(cells) != 2:
            raise fail(f"{path}[{i}]", "expected two [col, row] cells")
        hexes = []
        for j, cell in enumerate(cells):
            c = array(cell, f"{path}[{i}][{j}]")
            if len(c) != 2:
                raise fail(f"{path}[{i}][{j}]", "expected [col, row]")
            h = offset_to_axial(
                integer(c[0], f"{path}[{i}][{j}]"), integer(c[1], f"{path}[{i}][{j}]")
            )
            if h not in spaces:
                raise fail(f"{path}[{i}][{j}]", f"no space at {c}")
            hexes.append(h)
        if not are_neighbours(hexes[0], hexes[1]):
            raise fail(f"{path}[{i}]", "the two cells are not neighbours")
        out.add(edge(hexes[0], hexes[1]))
    return frozenset(out)


def _buildings(data: Json, path: str) -> tuple[Building, ...]:
    items = array(data, path)
    out = []
    for i, raw in enumerate(items):
        p = f"{path}[{i}]"
        b = obj(raw, p, {"n", "id", "name", "letter", "effect"})
        if integer(b["n"], f"{p}.n", 1, 6) != i + 1:
            raise fail(f"{p}.n", f"buildings are listed 1 to 6 in order; expected {i + 1}")
        out.append(
            Building(
                b["n"],
                text(b["id"], f"{p}.id"),
                text(b["name"], f"{p}.name"),
                text(b["letter"], f"{p}.letter"),
                effect(b["effect"], f"{p}.effect"),
            )
        )
    if len(out) != 6:
        raise fail(path, "a city has exactly six buildings, one per die face")
    return tuple(out)


def _boxes(data: Json, path: str) -> tuple[Box, ...]:
    items = array(data, path)
    out = []
    for i, raw in enumerate(items):
        p = f"{path}[{i}]"
        b = obj(raw, p, {"n", "row", "col"}, {"after", "opens", "effect"})
        after = tuple(
            integer(a, f"{p}.after", 0, i - 1) for a in array(b.get("after", []), f"{p}.after")
        )
        out.append(
            Box(
                index=i,
                n=integer(b["n"], f"{p}.n", 1, 6),
                row=integer(b["row"], f"{p}.row", 0),
                col=integer(b["col"], f"{p}.col", 0),
                after=after,
                opens=condition(b["opens"], f"{p}.opens") if "opens" in b else None,
                effect=effect(b["effect"], f"{p}.effect") if "effect" in b else NOTHING,
            )
        )
    if not out:
        raise fail(path, "a wonder needs boxes")
    return tuple(out)


def _innovations(data: Json, path: str) -> tuple[Innovation, ...]:
    out: list[Innovation] = []
    for i, raw in enumerate(array(data, path)):
        p = f"{path}[{i}]"
        d = obj(raw, p, {"id", "name", "cost", "points"}, {"effect", "ability", "text"})
        cost = tuple(
            resource(c, f"{p}.cost[{j}]") for j, c in enumerate(array(d["cost"], f"{p}.cost"))
        )
        if not cost:
            raise fail(f"{p}.cost", "an innovation costs something")
        ident = text(d["id"], f"{p}.id")
        if any(o.id == ident for o in out):
            raise fail(f"{p}.id", f"duplicate innovation {ident!r}")
        out.append(
            Innovation(
                id=ident,
                name=text(d["name"], f"{p}.name"),
                cost=cost,
                points=integer(d["points"], f"{p}.points", 0, 20),
                effect=effect(d["effect"], f"{p}.effect") if "effect" in d else NOTHING,
                ability=ability(d["ability"], f"{p}.ability") if "ability" in d else None,
                text=str(d.get("text", "")),
            )
        )
    return tuple(out)


def _track(data: Json, path: str) -> tuple[int, ...]:
    values = tuple(integer(v, f"{path}[{i}]", 0) for i, v in enumerate(array(data, path)))
    if len(values) < 2 or values[0] != 0 or list(values) != sorted(values):
        raise fail(path, "a track starts at 0 and never decreases")
    return values


def _special(data: Json, path: str) -> tuple[Ability, str]:
    d = obj(data, path, {"text", "ability"})
    return ability(d["ability"], f"{path}.ability"), text(d["text"], f"{path}.text")


def parse_event(data: Json, where: str) -> GameEvent:
    """An event from its JSON object."""
    d = obj(data, where, {"id", "name", "target", "text", "abilities"}, {"cities"})
    abilities = array(d["abilities"], f"{where}.abilities")
    return GameEvent(
        cities=_names(d.get("cities", []), f"{where}.cities"),
        id=text(d["id"], f"{where}.id"),
        name=text(d["name"], f"{where}.name"),
        target=integer(d["target"], f"{where}.target", 1),
        text=text(d["text"], f"{where}.text"),
        abilities=tuple(ability(a, f"{where}.abilities[{i}]") for i, a in enumerate(abilities)),
    )


def parse_visionary(data: Json, where: str) -> Visionary:
    """A visionary from its JSON object."""
    d = obj(data, where, {"id", "name", "goal", "corner", "bonus", "text"}, {"cities", "hard"})
    goal = condition(d["goal"], f"{where}.goal")
    hard, hard_text = None, ""
    if "hard" in d:
        h = obj(d["hard"], f"{where}.hard", {"at", "text"})
        hard = Condition(goal.metric, integer(h["at"], f"{where}.hard.at", goal.at + 1))
        hard_text = text(h["text"], f"{where}.hard.text")
    return Visionary(
        cities=_names(d.get("cities", []), f"{where}.cities"),
        id=text(d["id"], f"{where}.id"),
        name=text(d["name"], f"{where}.name"),
        goal=goal,
        corner=integer(d["corner"], f"{where}.corner", 0),
        bonus=effect(d["bonus"], f"{where}.bonus"),
        text=text(d["text"], f"{where}.text"),
        hard_goal=hard,
        hard_text=hard_text,
    )


def _names(data: Json, path: str) -> tuple[str, ...]:
    return tuple(text(c, f"{path}[{i}]") for i, c in enumerate(array(data, path)))


def load_cities() -> dict[str, City]:
    """Every city listed in ``content/index.json``."""
    index = obj(read_json("index.json"), "index.json", {"cities"})
    cities: dict[str, City] = {}
    for i, name in enumerate(array(index["cities"], "index.json.cities")):
        file = text(name, f"index.json.cities[{i}]")
        city = parse_city(read_json(file), file)
        if city.id in cities:
            raise fail(file, f"duplicate city id {city.id!r}")
        cities[city.id] = city
    return cities


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


Entry = TypeVar("Entry", bound=_HasId)


def _load_list(file: str, what: str, parse: Callable[[Json, str], Entry]) -> dict[str, Entry]:
    """Every entry of ``content/<file>`` by id; a repeated id names itself."""
    out: dict[str, Entry] = {}
    for i, raw in enumerate(array(read_json(file), file)):
        entry = parse(raw, f"{file}[{i}]")
        if entry.id in out:
            raise fail(f"{file}[{i}].id", f"duplicate {what} {entry.id!r}")
        out[entry.id] = entry
    return out


def load_events() -> dict[str, GameEvent]:
    """Every event in ``content/events.json``."""
    return _load_list("events.json", "event", parse_event)


def load_visionaries() -> dict[str, Visionary]:
    """Every visionary in ``content/visionaries.json``."""
    return _load_list("visionaries.json", "visionary", parse_visionary)


CITIES: Mapping[str, City] = load_cities()
EVENTS: Mapping[str, GameEvent] = load_events()
VISIONARIES: Mapping[str, Visionary] = load_visionaries()
"""Every visionary as printed (``visionary_goals=rulebook``, the default)."""
check_content(CITIES, EVENTS, VISIONARIES)
VISIONARIES_BY_GOALS: Mapping[str, Mapping[str, Visionary]] = {
    goals: {name: v.played(goals) for name, v in VISIONARIES.items()} for goals in VISIONARY_GOALS
}
"""Every visionary as a table plays it, by the option ``visionary_goals``."""
