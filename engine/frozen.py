"""``replace``: ``attrs.evolve`` for the frozen values games and rooms evolve every event.

``attrs.evolve(inst, **changes)`` reads every field through ``attrs.fields`` and a
``getattr`` per call, then builds the new value with keyword arguments; a state of
twenty fields spends more there than in its own ``__init__``. :func:`replace` gives
the same value (through the class's ``__init__``, so converters and validators run
as before) from a function generated once per class that names each field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import attrs

T = TypeVar("T")

_REPLACERS: dict[type, Callable[..., Any]] = {}
_KEEP = object()


def replace(inst: T, **changes: Any) -> T:
    """``inst`` with ``changes`` (field name -> value): ``attrs.evolve(inst, **changes)``."""
    replacer = _REPLACERS.get(type(inst))
    if replacer is None:
        replacer = _REPLACERS[type(inst)] = _compile(type(inst))
    return replacer(inst, **changes)  # type: ignore[no-any-return]


def _compile(cls: type) -> Callable[..., Any]:
    fields = attrs.fields(cls)
    if any(not f.init or f.alias != f.name or f.name in ("inst", "cls", "KEEP") for f in fields):
        return lambda inst, **changes: attrs.evolve(inst, **changes)
    names = [f.name for f in fields]
    params = ", ".join(f"{n}=KEEP" for n in names)
    args = ", ".join(f"{n}=inst.{n} if {n} is KEEP else {n}" for n in names)
    source = f"def replace(inst, *, {params}):\n    return cls({args})"
    scope: dict[str, Any] = {"cls": cls, "KEEP": _KEEP}
    exec(source, scope)  # generated from the class's own field names
    return scope["replace"]  # type: ignore[no-any-return]
