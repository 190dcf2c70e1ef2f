"""We use other libraries through their public APIs only: a release of uvicorn,
Starlette, websockets or redis-py must never break us silently (docs/architecture.md).

Scanned: every module of engine/, protocol/, server/ and clients/. Refused:

- importing a private module (a path segment that starts with ``_``) or one of a
  library's internals (:data:`INTERNAL_MODULES`);
- reading or writing a private attribute of anything but ``self``/``cls``/``super()``
  (``x._name``, ``getattr(x, "_name")``, ``x.__dict__``);
- driving redis-py's raw connections (:data:`RAW_REDIS`): pipelines, scripts and
  commands of the public client do everything we need.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("engine", "protocol", "server", "clients")

INTERNAL_MODULES = ("uvicorn.protocols", "uvicorn.loops", "uvicorn.lifespan", "websockets.legacy")
"""Modules of the libraries that are not theirs to promise: uvicorn's protocol
implementations, event loops and lifespan machinery; websockets' legacy layer."""
RAW_REDIS = {"make_connection", "send_packed_command", "pack_commands", "pack_command",
             "read_response", "send_command", "get_connection"}  # fmt: skip
"""redis-py's connection-level calls (under its public client, pipeline and script APIs)."""
ALLOWED = {"os._exit", "_replace", "_asdict", "_fields", "_make"}
"""Documented names that begin with an underscore: ``os._exit``, and namedtuples' API."""


def modules() -> list[Path]:
    return sorted(p for package in SCANNED for p in (ROOT / package).rglob("*.py"))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own(node: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``: our own object."""
    if isinstance(node, ast.Name):
        return node.id in {"self", "cls"}
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


def problems(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""] * (node.level == 0)
            )
            for name in names:
                if name == "__future__":
                    continue
                if any(_private(part) for part in name.split(".")) or name.startswith(
                    INTERNAL_MODULES
                ):
                    yield f"{where}: imports {name}"
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                for alias in node.names:
                    if _private(alias.name) and (node.module or "").split(".")[0] not in SCANNED:
                        yield f"{where}: imports {node.module}.{alias.name}"
        elif isinstance(node, ast.Attribute):
            text = ast.unparse(node)
            if node.attr == "__dict__" and not _own(node.value):
                yield f"{where}: reads {text}"
            elif _private(node.attr) and not _own(node.value):
                if text not in ALLOWED and node.attr not in ALLOWED:
                    yield f"{where}: reaches {text}"
            elif node.attr in RAW_REDIS:
                yield f"{where}: drives a raw redis connection ({text})"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"getattr", "setattr", "hasattr", "delattr"}
            and len(node.args) > 1
        ):
            name = node.args[1]
            if isinstance(name, ast.Constant) and (
                isinstance(name.value, str) and (_private(name.value) or name.value == "__dict__")
            ):
                yield f"{where}: {node.func.id}(..., {name.value!r})"


PENDING: dict[str, str] = {}
"""Modules known to break the rule, each with why (none today)."""


def cases() -> list[object]:
    return [
        pytest.param(p, marks=pytest.mark.xfail(reason=PENDING[rel], strict=True))
        if (rel := str(p.relative_to(ROOT))) in PENDING
        else p
        for p in modules()
    ]


@pytest.mark.parametrize("path", cases(), ids=lambda p: str(p.relative_to(ROOT)))
def test_only_public_library_apis(path: Path) -> None:
    """No private module, private attribute or raw redis connection of another library."""
    assert list(problems(path)) == []
