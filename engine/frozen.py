"""``replace``: ``attrs.evolve`` for the frozen values games and rooms evolve every event.

``attrs.evolve(inst, **changes)`` reads every field through ``attrs.fields`` and a
``getattr`` per call, then builds the new value with keyword arguments; a state of
twenty fields spends more there than in its own ``__init__``. :func:`replace` gives
the same value (through the class's ``__init__``, so converters and validators run
as before) from a function generated once per class and set of changed fields, which
passes every field by position (the unchanged ones read straight from the instance).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import attrs

T = TypeVar("T")

_REPLACERS: dict[tuple[type, tuple[str, ...]], Callable[..., Any]] = {}


def replace(inst: T, **changes: Any) -> T:
    """``inst`` with ``changes`` (field name -> value): ``attrs.evolve(inst, **changes)``."""
    key = (type(inst), tuple(changes))
    replacer = _REPLACERS.get(key)
    if replacer is None:
        replacer = _REPLACERS[key] = _compile(*key)
    return replacer(inst, **changes)  # type: ignore[no-any-return]


def _compile(cls: type, changed: tuple[str, ...]) -> Callable[..., Any]:
    """A function of ``inst`` and the ``changed`` fields that passes every field to
    ``cls`` by position: the changed ones as given, the others read from ``inst``."""
    fields = attrs.fields(cls)
    names = [f.name for f in fields]
    if (
        any(not f.init or f.kw_only or f.alias != f.name for f in fields)
        or any(n in ("inst", "cls") for n in names)
        or not set(changed) <= set(names)
    ):
        return lambda inst, **changes: attrs.evolve(inst, **changes)
    params = ", ".join(changed)
    args = ", ".join(n if n in changed else f"inst.{n}" for n in names)
    source = f"def replace(inst, *, {params}):\n    return cls({args})"
    if not changed:
        source = f"def replace(inst):\n    return cls({args})"
    scope: dict[str, Any] = {"cls": cls}
    exec(source, scope)  # generated from the class's own field names
    return scope["replace"]  # type: ignore[no-any-return]
