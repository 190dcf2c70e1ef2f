"""Reads and validates the JSON content files, naming the bad entry on any error.

The package (``content/__init__.py``) reads every file through it once, at import; a
bad file raises :class:`ContentError` such as ``tidehaven.json: innovations[2].cost[1]:
unknown resource 'gold'``. The file formats are described in ``content/README.md``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from importlib import resources
from typing import Any

from engine.roll_builder.content.shapes import (
    ABILITY_KINDS,
    EDGE_KINDS,
    METRICS,
    RESOURCES,
    Ability,
    Condition,
    Effect,
    Gains,
)

Json = Any

_ABILITY_PARAMS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = {
    # kind: (required, optional)
    "road_gain": (frozenset({"where", "gain"}), frozenset()),
    "build_gain": (frozenset({"building", "gain"}), frozenset()),
    "wonder_gain": (frozenset({"gain"}), frozenset()),
    "ring_gain": (frozenset({"gain"}), frozenset({"limit"})),
    "allow": (frozenset({"where"}), frozenset()),
    "substitute": (frozenset({"resource", "pay"}), frozenset()),
    "die_shift": (frozenset(), frozenset()),
    "end_points": (frozenset({"metric", "points"}), frozenset({"per"})),
    "ring_points": (frozenset({"points"}), frozenset()),
    "gain_adjust": (frozenset({"resource", "delta"}), frozenset()),
    "forbid_road": (frozenset({"where"}), frozenset({"turns"})),
    "turn_gain": (frozenset({"turns", "effect"}), frozenset()),
}
assert set(_ABILITY_PARAMS) == set(ABILITY_KINDS)


class ContentError(ValueError):
    """A content file is malformed; the message names the file and the entry."""


def read_json(name: str) -> Json:
    """The parsed content file ``name`` from the package's ``content`` folder."""
    text = (
        resources.files("engine.roll_builder").joinpath("content").joinpath(name).read_text("utf-8")
    )
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ContentError(f"{name}: not JSON: {exc}") from exc


def fail(path: str, message: str) -> ContentError:
    """An error naming ``path``."""
    return ContentError(f"{path}: {message}")


def obj(
    data: Json, path: str, required: Collection[str], optional: Collection[str] = ()
) -> dict[str, Json]:
    """``data`` as a dict with exactly the ``required`` keys and some ``optional`` ones."""
    if not isinstance(data, dict):
        raise fail(path, "expected an object")
    missing = set(required) - set(data)
    if missing:
        raise fail(path, f"missing {sorted(missing)}")
    unknown = set(data) - set(required) - set(optional)
    if unknown:
        raise fail(path, f"unknown keys {sorted(unknown)}")
    return data


def integer(data: Json, path: str, lo: int | None = None, hi: int | None = None) -> int:
    """``data`` as an int within ``[lo, hi]``."""
    if isinstance(data, bool) or not isinstance(data, int):
        raise fail(path, "expected an integer")
    if (lo is not None and data < lo) or (hi is not None and data > hi):
        raise fail(path, f"{data} is outside [{lo}, {hi}]")
    return data


def text(data: Json, path: str) -> str:
    """``data`` as a non-empty string."""
    if not isinstance(data, str) or not data:
        raise fail(path, "expected a non-empty string")
    return data


def array(data: Json, path: str) -> list[Json]:
    """``data`` as a list."""
    if not isinstance(data, list):
        raise fail(path, "expected a list")
    return data


def choice(data: Json, path: str, options: tuple[str, ...] | Mapping[str, str]) -> str:
    """``data`` as one of ``options``."""
    if data not in options:
        raise fail(path, f"{data!r} is not one of {sorted(options)}")
    return str(data)


def gains(data: Json, path: str, signed: bool = False) -> Gains:
    """A ``{resource: amount}`` object as :data:`Gains`."""
    d = obj(data, path, set(), set(RESOURCES))
    lo = None if signed else 0
    g = tuple(integer(d.get(r, 0), f"{path}.{r}", lo) for r in RESOURCES)
    return (g[0], g[1], g[2], g[3], g[4], g[5])


def resource(data: Json, path: str) -> str:
    """One resource name."""
    if data not in RESOURCES:
        raise fail(path, f"unknown resource {data!r}")
    return str(data)


def condition(data: Json, path: str) -> Condition:
    """A ``{metric, at}`` object."""
    d = obj(data, path, {"metric", "at"})
    return Condition(
        choice(d["metric"], f"{path}.metric", METRICS), integer(d["at"], f"{path}.at", 1)
    )


def effect(data: Json, path: str) -> Effect:
    """An effect object (see ``content/README.md``)."""
    d = obj(data, path, set(), {"gain", "roads", "build", "wonder", "points", "abilities"})
    raw = array(d.get("abilities", []), f"{path}.abilities")
    return Effect(
        gain=gains(d.get("gain", {}), f"{path}.gain", signed=True),
        roads=integer(d.get("roads", 0), f"{path}.roads", 0, 12),
        build=integer(d.get("build", 0), f"{path}.build", 0, 3),
        wonder=integer(d.get("wonder", 0), f"{path}.wonder", 0, 3),
        points=integer(d.get("points", 0), f"{path}.points", 0, 20),
        abilities=tuple(ability(a, f"{path}.abilities[{i}]") for i, a in enumerate(raw)),
    )


def ability(data: Json, path: str) -> Ability:
    """An ability object: ``kind`` plus exactly that kind's parameters."""
    kind = choice(
        obj(data, path, {"kind"}, set(_PARAM_NAMES))["kind"], f"{path}.kind", ABILITY_KINDS
    )
    required, optional = _ABILITY_PARAMS[kind]
    d = obj(data, path, {"kind", *required}, set(optional))
    out: dict[str, Any] = {"kind": kind}
    if "where" in d:
        out["where"] = choice(d["where"], f"{path}.where", EDGE_KINDS)
        if kind == "allow" and out["where"] not in ("water", "cliff"):
            raise fail(f"{path}.where", "allow takes water or cliff")
    if "gain" in d:
        out["gain"] = gains(d["gain"], f"{path}.gain")
    if "building" in d:
        out["building"] = integer(d["building"], f"{path}.building", 0, 6)
    if "limit" in d:
        out["limit"] = integer(d["limit"], f"{path}.limit", 0)
    for key in ("resource", "pay"):
        if key in d:
            out[key] = resource(d[key], f"{path}.{key}")
    if "metric" in d:
        out["metric"] = choice(d["metric"], f"{path}.metric", METRICS)
    if "per" in d:
        out["per"] = integer(d["per"], f"{path}.per", 1)
    if "points" in d:
        out["points"] = integer(d["points"], f"{path}.points", -10, 10)
    if "delta" in d:
        out["delta"] = integer(d["delta"], f"{path}.delta", -5, 5)
    if "turns" in d:
        turns = array(d["turns"], f"{path}.turns")
        out["turns"] = tuple(integer(t, f"{path}.turns[{i}]", 1, 15) for i, t in enumerate(turns))
    if "effect" in d:
        out["effect"] = effect(d["effect"], f"{path}.effect")
    return Ability(**out)


_PARAM_NAMES = {name for req, opt in _ABILITY_PARAMS.values() for name in req | opt}
