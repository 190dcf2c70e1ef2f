"""Diff and patch between two plain-data views (JSON-Patch-like ops with list paths).

An op is a map ``{"op": "replace" | "add" | "remove", "path": [key or index, ...],
"value": ...}`` (no ``value`` for ``remove``). Paths are lists: a str steps into a
map, an int into a list. Semantics:

- ``replace``: the target must exist; ``path == []`` replaces the whole view.
- ``add``: into a map, the key must be absent; into a list, ``0 <= index <= len``
  inserts before ``index`` (``index == len`` appends).
- ``remove``: the key or index must exist; list items after it shift down.

:func:`diff` keeps ops small for the common cases: it recurses into maps, compares
same-length lists element by element, turns an append into ``add`` ops and a
truncation into ``remove`` ops (from the end), and replaces a list otherwise (also
when more than one item is added or removed and that is more than the list keeps).
Values compare strictly: ``1``, ``1.0`` and ``True`` differ.

:func:`apply` never mutates its inputs (neither the view nor the ops); the result
shares unchanged parts with both, so treat views as immutable.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from protocol.errors import PatchError

Op = dict[str, Any]
Path = list[str | int]

OPS = ("replace", "add", "remove")


# -- diff ---------------------------------------------------------------------------------------


def diff(old: Any, new: Any, prefix: Sequence[str | int] = ()) -> list[Op]:
    """The ops that turn plain-data ``old`` into ``new`` (``[]`` when strictly equal).

    ``prefix`` is put in front of every op's path: the ops that turn ``view[key]`` of one
    view into that of another are ``diff(a[key], b[key], [key])``."""
    ops: list[Op] = []
    _diff(old, new, list(prefix), ops)
    return ops


_SCALARS = (str, int, bool, type(None))
_LEAVES = frozenset(_SCALARS)
"""Types compared by ``==`` where they meet their own type (floats are not: ``-0.0``)."""
_ABSENT = object()

# The walk keeps one path list, pushing and popping a step around each child it goes
# into, and copies it only into the ops it makes: most of a view is the same object on
# both sides (``is``) or an equal leaf, and neither costs a path.


def _diff(old: Any, new: Any, path: Path, ops: list[Op]) -> None:
    if old is new:
        return
    kind = type(old)
    if kind is type(new):  # fast paths for the plain types views are made of
        if kind is dict:
            _diff_maps(old, new, path, ops)
            return
        if kind is list:
            _diff_lists(old, new, path, ops)
            return
        if kind in _LEAVES:
            if old != new:
                ops.append({"op": "replace", "path": path[:], "value": new})
            return
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        _diff_maps(old, new, path, ops)
    elif _is_list(old) and _is_list(new):
        _diff_lists(old, new, path, ops)
    elif not same(old, new):
        ops.append({"op": "replace", "path": path[:], "value": new})


def _diff_maps(old: Mapping[str, Any], new: Mapping[str, Any], path: Path, ops: list[Op]) -> None:
    if old.keys() != new.keys():
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": [*path, key]})
    for key, value in new.items():
        was = old.get(key, _ABSENT)
        if was is value:
            continue
        if was is _ABSENT:
            ops.append({"op": "add", "path": [*path, key], "value": value})
        else:
            _diff_child(was, value, key, path, ops)


def _diff_child(was: Any, value: Any, step: str | int, path: Path, ops: list[Op]) -> None:
    """The ops for one child (``step``) that is not the same object on both sides: an
    equal leaf needs none and makes no path."""
    kind = type(value)
    if kind is type(was) and kind in _LEAVES:
        if was != value:
            ops.append({"op": "replace", "path": [*path, step], "value": value})
        return
    path.append(step)
    _diff(was, value, path, ops)
    path.pop()


def _diff_lists(old: Sequence[Any], new: Sequence[Any], path: Path, ops: list[Op]) -> None:
    common = min(len(old), len(new))
    if len(old) != len(new) and (
        _many(abs(len(new) - len(old)), common)
        or not all(same(old[i], new[i]) for i in range(common))
    ):
        ops.append({"op": "replace", "path": path[:], "value": new})
        return
    for i in range(common):
        was, value = old[i], new[i]
        if was is not value:
            _diff_child(was, value, i, path, ops)
    for i in range(common, len(new)):
        ops.append({"op": "add", "path": [*path, i], "value": new[i]})
    for i in range(len(old) - 1, common - 1, -1):
        ops.append({"op": "remove", "path": [*path, i]})


def _many(changed: int, kept: int) -> bool:
    """More than one item added or removed, and more than the list keeps: replace it."""
    return changed > 1 and changed > kept


def _is_list(value: Any) -> bool:
    return isinstance(value, list | tuple)


def same(a: Any, b: Any) -> bool:
    """Strict structural equality of plain data: types must match (``1 != True != 1.0``)."""
    if a is b:
        return True
    kind = type(a)
    if kind is type(b) and kind in _SCALARS:
        return bool(a == b)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same(v, b[k]) for k, v in a.items())
    if _is_list(a) and _is_list(b):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


# -- apply --------------------------------------------------------------------------------------


def apply(view: Any, ops: Sequence[Mapping[str, Any]]) -> Any:
    """Apply ``ops`` in order to a copy of ``view``; PatchError if an op does not fit."""
    state = _Apply(view)
    for op in ops:
        check_op(op)
        state.apply(op)
    return state.root


def check_op(op: Any) -> None:
    """Raise PatchError unless ``op`` is a well-formed op map (whatever view it meets)."""
    if not isinstance(op, Mapping):
        raise PatchError("an op must be a map")
    kind = op.get("op")
    if kind not in OPS:
        raise PatchError(f"op must be one of {list(OPS)}, got {kind!r}", "op")
    allowed = {"op", "path"} if kind == "remove" else {"op", "path", "value"}
    for key in op:
        if key not in allowed:
            raise PatchError(f"{kind} op: unknown field {key!r}", str(key))
    if kind != "remove" and "value" not in op:
        raise PatchError(f"{kind} op: missing 'value'", "value")
    path = op.get("path")
    if not isinstance(path, list | tuple):
        raise PatchError("op path must be a list", "path")
    for step in path:
        if isinstance(step, bool) or not isinstance(step, str | int):
            raise PatchError("op path steps must be str or int", "path")
    if not path and kind != "replace":
        raise PatchError(f"{kind} op needs a non-empty path", "path")


class _Apply:
    """Copy-on-write application: each container on a touched path is copied once."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.owned: dict[int, Any] = {}  # id -> container we copied (kept alive: ids unique)

    def apply(self, op: Mapping[str, Any]) -> None:
        path = list(op["path"])
        if not path:
            self.root = op["value"]
            return
        parent = self._writable_parent(path[:-1])
        last = path[-1]
        if isinstance(parent, dict):
            _apply_map(parent, last, op)
        else:
            _apply_list(parent, last, op)

    def _writable_parent(self, steps: Path) -> dict[str, Any] | list[Any]:
        self.root = self._own(self.root, steps, 0)
        node = self.root
        for depth, step in enumerate(steps):
            child = self._own(_get(node, step, steps[: depth + 1]), steps, depth + 1)
            node[step] = child
            node = child
        return node  # type: ignore[no-any-return]

    def _own(self, node: Any, steps: Path, depth: int) -> Any:
        if id(node) in self.owned:
            return node
        if isinstance(node, Mapping):
            copy: Any = dict(node)
        elif _is_list(node):
            copy = list(node)
        else:
            raise PatchError(f"path {steps[:depth]} is not a map or a list", "path")
        self.owned[id(copy)] = copy
        return copy


def _get(node: Any, step: str | int, where: Path) -> Any:
    if isinstance(node, dict):
        if not isinstance(step, str) or step not in node:
            raise PatchError(f"path {where}: no such key", "path")
        return node[step]
    if isinstance(step, str) or not 0 <= step < len(node):
        raise PatchError(f"path {where}: no such index", "path")
    return node[step]


def _apply_map(parent: dict[str, Any], key: str | int, op: Mapping[str, Any]) -> None:
    if not isinstance(key, str):
        raise PatchError(f"map key must be str, got {key!r}", "path")
    kind = op["op"]
    if kind == "add":
        if key in parent:
            raise PatchError(f"add: key {key!r} already exists", "path")
        parent[key] = op["value"]
        return
    if key not in parent:
        raise PatchError(f"{kind}: no key {key!r}", "path")
    if kind == "remove":
        del parent[key]
    else:
        parent[key] = op["value"]


def _apply_list(parent: list[Any], index: str | int, op: Mapping[str, Any]) -> None:
    if isinstance(index, str):
        raise PatchError(f"list index must be int, got {index!r}", "path")
    kind = op["op"]
    if kind == "add":
        if not 0 <= index <= len(parent):
            raise PatchError(f"add: index {index} out of range 0..{len(parent)}", "path")
        parent.insert(index, op["value"])
        return
    if not 0 <= index < len(parent):
        raise PatchError(f"{kind}: index {index} out of range", "path")
    if kind == "remove":
        del parent[index]
    else:
        parent[index] = op["value"]
