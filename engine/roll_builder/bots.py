"""Bot policies for Roll Builder: ``greedy`` (a one-step heuristic) and ``random``.

A policy sees only the seat's view and the legal commands; it returns one of them.
The greedy bot values each command by what it gains right away (resources,
actions, points, newly connected spaces) and plays the best until nothing is
worth more than finishing the turn.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.core import Policy
from engine.roll_builder.hexmap import Hex, edge_vertices
from engine.roll_builder.model import Build, Done, FillWonder, MarkSpace, Pay, PlaceRoad, UseDie

WORTH: Mapping[str, float] = {
    "food": 0.5,
    "supplies": 0.5,
    "wealth": 0.6,
    "favor": 1.0,
    "strength": 0.8,
    "idea": 1.5,
}
ACTIONS: Mapping[str, float] = {"roads": 0.5, "build": 2.0, "wonder": 2.0, "points": 1.0}


def effect_value(effect: Mapping[str, Any] | None) -> float:
    """A rough worth in points of an effect shown in the view."""
    if not effect:
        return 0.0
    value = float(sum(WORTH[r] * n for r, n in effect.get("gain", {}).items()))
    value += float(sum(ACTIONS[k] * effect.get(k, 0) for k in ACTIONS))
    return value + 1.0 * len(effect.get("abilities", ()))


def random_policy(view: dict[str, Any], seat: int, legal: list[Any], rng: random.Random) -> Any:
    """Any legal command, uniformly (finishing the turn only one time in ten when
    something else is possible)."""
    others = [c for c in legal if not isinstance(c, Done)]
    if others and rng.random() < 0.9:
        return rng.choice(others)
    return rng.choice(legal)


def greedy_policy(view: dict[str, Any], seat: int, legal: list[Any], rng: random.Random) -> Any:
    """The legal command worth the most now; ``Done`` when nothing is worth anything."""
    me = view["players"][seat]
    ctx = _Context(view, me)
    best, best_value = None, 0.0
    for command in legal:
        value = ctx.value(command) + rng.random() * 0.01
        if value > best_value:
            best, best_value = command, value
    return best if best is not None else next(c for c in legal if isinstance(c, Done))


class _Context:
    """What the greedy bot reads from the view, indexed once per decision."""

    def __init__(self, view: dict[str, Any], me: dict[str, Any]) -> None:
        self.view = view
        self.me = me
        self.spaces: dict[Hex, dict[str, Any]] = {(s["q"], s["r"]): s for s in me["map"]["spaces"]}
        self.buildings = {b["n"]: b for b in me["buildings"]}
        self.boxes = me["wonder"]["boxes"]
        self.open_spaces = sum(
            1
            for s in self.spaces.values()
            if s["terrain"] == "land"
            and not s["partial"]
            and s["connected"]
            and s["building"] is None
        )
        self.roads = {tuple(e) for e in me["map"]["roads"]}

    def value(self, c: Any) -> float:
        match c:
            case MarkSpace(space=h):
                return 30.0 + effect_value(self.spaces[h]["effect"])
            case Build(building=n, space=h):
                return 20.0 + effect_value(self.buildings[n]["effect"]) + self._cluster(h, n)
            case FillWonder(box=i):
                return 19.0 + effect_value(self.boxes[i]["effect"])
            case UseDie():
                return 10.0 + self._die(c)
            case PlaceRoad(edge=e):
                return 5.0 + self._road(e)
            case Pay():
                return self._pay(c)
        return 0.0

    def _cluster(self, h: Hex, n: int) -> float:
        return 0.1 * sum(1 for s in self.spaces.values() if s["building"] == n and _near(h, s))

    def _die(self, c: UseDie) -> float:
        face = self.view["dice"][c.die] + c.shift
        if c.action == "build":
            if self.open_spaces == 0:
                return -20.0
            return 1.0 + effect_value(self.buildings[face]["effect"])
        if c.action == "wonder":
            free = [b for b in self.boxes if b["available"] and b["n"] == face]
            return max((1.2 + effect_value(b["effect"]) for b in free), default=-20.0)
        return 0.45 * float(face) + (1.5 if self.open_spaces < 3 else 0.0)

    def _road(self, e: tuple[int, int, int, int]) -> float:
        touched = {h for v in edge_vertices(e) for h in v}
        value = 0.2
        for h in touched:
            s = self.spaces.get(h)
            if s is None or s["connected"]:
                continue
            value += s["points"] + (0.0 if s["marked"] else effect_value(s["effect"]))
            value += 0.3 if s["terrain"] == "land" and not s["partial"] else 0.0
        return value

    def _pay(self, c: Pay) -> float:
        inv = next(i for i in self.me["innovations"] if i["id"] == c.innovation)
        left = sum(1 for circle in inv["cost"] if not circle["paid"])
        if c.resource in ("food", "supplies", "idea"):
            return 3.0 + 1.0 / left
        return 2.0 if left <= 2 else 0.0


def _near(h: Hex, s: dict[str, Any]) -> bool:
    dq, dr = s["q"] - h[0], s["r"] - h[1]
    return (dq, dr) in ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


policies: dict[str, Policy] = {"greedy": greedy_policy, "random": random_policy}
