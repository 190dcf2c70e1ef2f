"""Lossless, strict conversion between attrs values and plain data.

Plain data is what both msgpack and JSON carry: ``None``, ``bool``, ``int``,
``str``, lists and string-keyed dicts. Commands and events are ``@attrs.frozen``
classes with a class-level ``TYPE`` tag; :func:`to_data` writes
``{"type": TYPE, **fields}`` and :func:`from_data` reads it back, checking every
field's type (``True`` is not an int here, ``"1"`` is not a number) and refusing
unknown or missing fields with :class:`~engine.errors.InvalidCommand` naming the
field.

Supported field types: ``int``, ``str``, ``bool``, ``None``, ``X | None``,
``tuple[X, ...]``, ``tuple[X, Y]``, ``frozenset[X]`` (written as a sorted list),
``dict[str|int, X]`` (int keys written as strings for JSON's sake), ``Literal``,
and nested attrs classes.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar, Literal, Protocol, TypeVar, get_args, get_origin

import attrs

from engine.errors import InvalidCommand

T = TypeVar("T")


class Tagged(Protocol):
    """An attrs class with a stable wire tag."""

    TYPE: ClassVar[str]


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def to_data(value: Any) -> Any:
    """Convert an attrs value (or a container of them) to plain data."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    dump = _DUMPERS.get(kind)
    if dump is not None:
        return dump(value)
    if value is None or isinstance(value, bool | int | str):
        return value
    if attrs.has(kind):
        dump = _DUMPERS[kind] = _compile_dumper(kind)
        return dump(value)
    if isinstance(value, tuple | list):
        return [to_data(v) for v in value]
    if isinstance(value, frozenset | set):
        return [to_data(v) for v in sorted(value)]
    if isinstance(value, Mapping):
        return {str(k): to_data(v) for k, v in value.items()}
    raise TypeError(f"cannot convert {type(value).__name__} to plain data")


_PLAIN = frozenset({int, str, bool, type(None)})
_DUMPERS: dict[type, typing.Callable[[Any], dict[str, Any]]] = {}
"""One compiled ``to_data`` per attrs class (see :func:`_compile_dumper`)."""


def _compile_dumper(cls: type) -> typing.Callable[[Any], dict[str, Any]]:
    """``to_data`` for instances of ``cls``: the tag, then each field by name, a plain
    field as it is and any other through :func:`to_data` (one generated function, no
    loop over the fields and no lookups per call)."""
    names = [f.name for f in attrs.fields(cls)]
    tag = getattr(cls, "TYPE", None)
    lines = ["def dump(value):"]
    items = [] if tag is None else ["'type': tag"]
    for i, name in enumerate(names):
        lines.append(f"    v{i} = value.{name}")
        lines.append(f"    if type(v{i}) not in plain: v{i} = convert(v{i})")
        items.append(f"{name!r}: v{i}")
    lines.append("    return {" + ", ".join(items) + "}")
    scope: dict[str, Any] = {"tag": tag, "plain": _PLAIN, "convert": to_data}
    exec("\n".join(lines), scope)  # generated from the class's own field names
    return typing.cast(typing.Callable[[Any], dict[str, Any]], scope["dump"])


def from_data(cls: type[T], data: Any, where: str = "") -> T:
    """Build ``cls`` from plain data, strictly. Raises InvalidCommand naming the field.

    Data of the usual shape is checked and built by a function generated for ``cls``
    (:func:`_strict`); anything it cannot vouch for (a wrong type, a missing field, a
    refusal by a validator) goes the general way, which accepts or refuses it and
    names the field, so the outcome is the same either way."""
    value = _strict_for(cls)(data)
    if value is not _SLOW:
        return typing.cast(T, value)
    return typing.cast(T, _convert(cls, data, where or cls.__name__))


_SLOW: Any = object()
"""What a generated strict loader returns for data it does not vouch for."""
_STRICT: dict[Any, typing.Callable[[Any], Any]] = {}


def _no_fast_path(_data: Any) -> Any:
    return _SLOW


def _strict(cls: Any) -> typing.Callable[[Any], Any]:
    """A loader for ``cls`` that builds the value when the data is plainly right (every
    field of the exact type, no unknown key, the constructor happy) and otherwise
    returns ``_SLOW`` (see :func:`from_data`). Generated once per class from its type
    hints; a class with a field type it does not cover gets none."""
    if not (isinstance(cls, type) and attrs.has(cls)):
        return _no_fast_path
    scope: dict[str, Any] = {"cls": cls, "SLOW": _SLOW, "SCALARS": (str, int, bool)}
    try:
        body = _strict_body(cls, scope)
    except _Uncovered:
        return _no_fast_path
    exec("\n".join(body), scope)  # generated from the class's own fields and hints
    return typing.cast(typing.Callable[[Any], Any], scope["load"])


class _Uncovered(Exception):
    """A field type the generated loaders leave to the general path."""


def _strict_body(cls: type, scope: dict[str, Any]) -> list[str]:
    hints = _hints(cls)
    fields = attrs.fields(cls)
    allowed = {f.name for f in fields} | ({"type"} if getattr(cls, "TYPE", None) else set())
    scope["ALLOWED"] = frozenset(allowed)
    lines = [
        "def load(data):",
        "    if type(data) is not dict or not data.keys() <= ALLOWED:",
        "        return SLOW",
        "    kwargs = {}",
    ]
    for i, field in enumerate(fields):
        name = field.name
        lines.append(f"    if {name!r} in data:")
        lines.append(f"        v = data[{name!r}]")
        lines += ["        " + line for line in _strict_check(hints[name], "v", f"f{i}", scope)]
        lines.append(f"        kwargs[{name!r}] = v")
        if field.default is attrs.NOTHING:
            lines.append("    else:")
            lines.append("        return SLOW")
    lines += [
        "    try:",
        "        return cls(**kwargs)",
        "    except Exception:",
        "        return SLOW",
    ]
    return lines


def _strict_check(tp: Any, v: str, key: str, scope: dict[str, Any]) -> list[str]:
    """Lines that return SLOW unless ``v`` is plainly a ``tp``, and leave in ``v`` the
    value the general path would build from it."""
    origin = get_origin(tp)
    if tp is Any:
        return []
    if tp in (int, str, bool):
        scope[key] = tp
        return [f"if type({v}) is not {key}:", "    return SLOW"]
    if tp is None or tp is type(None):
        return [f"if {v} is not None:", "    return SLOW"]
    if origin is Literal:
        scope[key] = frozenset((type(a), a) for a in get_args(tp))
        return [f"if type({v}) not in SCALARS or (type({v}), {v}) not in {key}:", "    return SLOW"]
    if origin in (types.UnionType, typing.Union):
        arms = [a for a in get_args(tp) if a is not type(None)]
        if len(arms) != 1 or len(get_args(tp)) != 2:
            raise _Uncovered(tp)
        inner = _strict_check(arms[0], v, key, scope)
        return [f"if {v} is not None:", *("    " + line for line in inner)] if inner else []
    if origin is tuple or origin is frozenset:
        args = get_args(tp)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            raise _Uncovered(tp)
        item = f"{v}_i"
        inner = _strict_check(args[0], item, key + "_i", scope)
        made = "tuple" if origin is tuple else "frozenset"
        loop = [f"if type({v}) is not list and type({v}) is not tuple:", "    return SLOW",
                f"{v}_out = []", f"for {item} in {v}:", *("    " + line for line in inner),
                f"    {v}_out.append({item})", f"{v} = {made}({v}_out)"]  # fmt: skip
        return loop
    if origin is dict or origin is Mapping:
        key_t, val_t = get_args(tp)
        if key_t is not str or val_t is not Any:
            raise _Uncovered(tp)
        return [f"if type({v}) is not dict:", "    return SLOW",
                f"for k in {v}:", "    if type(k) is not str:", "        return SLOW",
                f"{v} = dict({v})"]  # fmt: skip
    if isinstance(tp, type) and attrs.has(tp):
        scope[key] = lambda data: _strict_for(tp)(data)  # looked up late: classes may nest
        return [f"{v} = {key}({v})", f"if {v} is SLOW:", "    return SLOW"]
    raise _Uncovered(tp)


def _strict_for(cls: Any) -> typing.Callable[[Any], Any]:
    fast = _STRICT.get(cls)
    if fast is None:
        fast = _STRICT[cls] = _strict(cls)
    return fast


def _fail(where: str, expected: str, got: Any) -> InvalidCommand:
    return InvalidCommand(
        f"{where}: expected {expected}, got {type(got).__name__}",
        code="command/bad_field",
        field=where,
    )


def _convert(tp: Any, data: Any, where: str) -> Any:
    origin = get_origin(tp)
    if tp is Any:
        return data
    if tp is type(None) or tp is None:
        if data is not None:
            raise _fail(where, "null", data)
        return None
    if tp is bool:
        if not isinstance(data, bool):
            raise _fail(where, "bool", data)
        return data
    if tp is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise _fail(where, "int", data)
        return data
    if tp is str:
        if not isinstance(data, str):
            raise _fail(where, "str", data)
        return data
    if origin is Literal:
        if data not in get_args(tp) or isinstance(data, bool) != isinstance(get_args(tp)[0], bool):
            raise _fail(where, f"one of {list(get_args(tp))}", data)
        return data
    if origin in (types.UnionType, typing.Union):
        errors = []
        for arm in get_args(tp):
            try:
                return _convert(arm, data, where)
            except InvalidCommand as exc:
                errors.append(exc)
        raise _fail(where, " or ".join(_name(a) for a in get_args(tp)), data)
    if origin is tuple:
        if not isinstance(data, list | tuple):
            raise _fail(where, "list", data)
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v, f"{where}[{i}]") for i, v in enumerate(data))
        if len(args) != len(data):
            raise _fail(where, f"list of {len(args)}", data)
        pairs = enumerate(zip(args, data, strict=True))
        return tuple(_convert(a, v, f"{where}[{i}]") for i, (a, v) in pairs)
    if origin is frozenset:
        if not isinstance(data, list | tuple):
            raise _fail(where, "list", data)
        (arg,) = get_args(tp)
        return frozenset(_convert(arg, v, f"{where}[{i}]") for i, v in enumerate(data))
    if origin is dict or origin is Mapping:
        if not isinstance(data, Mapping):
            raise _fail(where, "map", data)
        key_t, val_t = get_args(tp)
        out = {}
        for k, v in data.items():
            out[_key(key_t, k, where)] = _convert(val_t, v, f"{where}.{k}")
        return out
    if isinstance(tp, type) and attrs.has(tp):
        return _structure(tp, data, where)
    raise TypeError(f"{where}: unsupported field type {tp!r}")


def _key(key_t: Any, k: Any, where: str) -> Any:
    if key_t is int:
        if isinstance(k, int) and not isinstance(k, bool):
            return k
        if isinstance(k, str) and (k.isdigit() or (k.startswith("-") and k[1:].isdigit())):
            return int(k)
        raise _fail(f"{where} key", "int", k)
    if not isinstance(k, str):
        raise _fail(f"{where} key", "str", k)
    return k


def _structure(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, Mapping):
        raise _fail(where, "map", data)
    hints = _hints(cls)
    tag = getattr(cls, "TYPE", None)
    names = {f.name for f in attrs.fields(cls)}
    for key in data:
        if key == "type" and tag is not None:
            continue
        if key not in names:
            raise InvalidCommand(
                f"{where}: unknown field {key!r}", code="command/unknown_field", field=str(key)
            )
    kwargs = {}
    for field in attrs.fields(cls):
        if field.name not in data:
            if field.default is attrs.NOTHING:
                raise InvalidCommand(
                    f"{where}: missing field {field.name!r}",
                    code="command/missing_field",
                    field=field.name,
                )
            continue
        kwargs[field.name] = _convert(hints[field.name], data[field.name], f"{where}.{field.name}")
    try:
        return cls(**kwargs)
    except (ValueError, TypeError) as exc:
        raise InvalidCommand(f"{where}: {exc}", code="command/bad_field") from exc


def _name(tp: Any) -> str:
    return getattr(tp, "__name__", repr(tp))


# -- trusted data: what this code wrote itself ------------------------------------------


def trusted_data(cls: type[T], data: Any) -> T:
    """Build ``cls`` from plain data that :func:`to_data` wrote (a room's own log, its
    snapshots), without checking it as client input: no type checks, no unknown-field
    check, no paths built. Several times faster than :func:`from_data`; for the same data
    it builds an equal value (``tests/engine/test_trusted_data.py``). Data of the wrong
    shape still fails (``KeyError``, ``TypeError``, ``ValueError``), but data of the
    wrong types may pass: never use it on what a client sent."""
    return typing.cast(T, _loader(typing.cast(Any, cls))(data))


def _same(data: Any) -> Any:
    return data


@cache
def _loader(tp: Any) -> typing.Callable[[Any], Any]:
    """A function that builds ``tp`` from trusted plain data (compiled once per type)."""
    origin = get_origin(tp)
    if tp in (Any, int, str, bool, None, type(None)) or origin is Literal:
        return _same
    if origin in (types.UnionType, typing.Union):
        arms = [a for a in get_args(tp) if a is not type(None)]
        if all(_loader(a) is _same for a in arms):
            return _same
        if len(arms) == 1:
            arm = _loader(arms[0])
            return lambda d: None if d is None else arm(d)
        return lambda d: _convert(tp, d, _name(tp))  # a union of structures: which is it?
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _loader(args[0])
            return tuple if item is _same else lambda d: tuple(map(item, d))
        items = tuple(_loader(a) for a in args)
        if all(i is _same for i in items):
            return tuple
        return lambda d: tuple(i(v) for i, v in zip(items, d, strict=True))
    if origin is frozenset:
        item = _loader(get_args(tp)[0])
        return frozenset if item is _same else lambda d: frozenset(map(item, d))
    if origin is dict or origin is Mapping:
        key_t, val_t = get_args(tp)
        key, value = (int if key_t is int else _same), _loader(val_t)
        if key is _same and value is _same:
            return dict
        return lambda d: {key(k): value(v) for k, v in d.items()}
    if isinstance(tp, type) and attrs.has(tp):
        return _attrs_loader(tp)
    raise TypeError(f"unsupported field type {tp!r}")


_ATTRS_LOADERS: dict[type, typing.Callable[[Any], Any]] = {}


def _attrs_loader(cls: type) -> typing.Callable[[Any], Any]:
    if cls in _ATTRS_LOADERS:
        return _ATTRS_LOADERS[cls]
    compiled: list[typing.Callable[[Any], Any]] = []
    # a class that contains itself (a condition of conditions) finds this while compiling
    _ATTRS_LOADERS[cls] = lambda data: compiled[0](data)
    compiled.append(_compile_attrs(cls))
    _ATTRS_LOADERS[cls] = compiled[0]
    return compiled[0]


def _compile_attrs(cls: type) -> typing.Callable[[Any], Any]:
    hints = _hints(cls)
    fields = [(f.name, _loader(hints[f.name])) for f in attrs.fields(cls)]
    required = [name for name, _ in fields if attrs.fields_dict(cls)[name].default is attrs.NOTHING]
    plain = [name for name, load in fields if load is _same]
    built = [(name, load) for name, load in fields if load is not _same]

    def load(data: Mapping[str, Any]) -> Any:
        if len(data) - ("type" in data) == len(fields):  # every field there: the usual case
            kwargs = {name: data[name] for name in plain}
            for name, field_load in built:
                kwargs[name] = field_load(data[name])
            return cls(**kwargs)
        for name in required:
            if name not in data:
                raise KeyError(f"{cls.__name__}.{name}")
        kwargs = {name: data[name] for name in plain if name in data}
        for name, field_load in built:
            if name in data:
                kwargs[name] = field_load(data[name])
        return cls(**kwargs)

    return load


class Registry:
    """Tag -> class table for one game's commands or events."""

    def __init__(self, kind: str, classes: list[type]) -> None:
        self.kind = kind
        self.by_tag: dict[str, type] = {}
        for cls in classes:
            tag = cls.TYPE  # type: ignore[attr-defined]
            if tag in self.by_tag:
                raise ValueError(f"duplicate {kind} tag {tag!r}")
            self.by_tag[tag] = cls

    def load(self, data: Any, **extra: Any) -> Any:
        """Build the tagged value described by ``data`` (plus server-side ``extra`` fields)."""
        if not isinstance(data, Mapping):
            raise InvalidCommand(f"{self.kind}: expected a map", code="command/bad_field")
        tag = data.get("type")
        cls = self.by_tag.get(tag) if isinstance(tag, str) else None
        if cls is None:
            raise InvalidCommand(
                f"unknown {self.kind} type {tag!r}; known: {sorted(self.by_tag)}",
                code="command/unknown_type",
                field="type",
            )
        for key in extra:
            if key in data:
                raise InvalidCommand(
                    f"{self.kind}: field {key!r} is set by the server",
                    code="command/unknown_field",
                    field=key,
                )
        return from_data(cls, {**data, **extra}, where=str(tag))

    def trusted(self, data: Mapping[str, Any]) -> Any:
        """The tagged value that trusted ``data`` describes (see :func:`trusted_data`)."""
        return _loader(self.by_tag[data["type"]])(data)
