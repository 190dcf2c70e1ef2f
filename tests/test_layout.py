"""The shape of server/: its packages, what each may import, and no import circles.

Every import counts, wherever it stands (module level, inside a function, or under
``TYPE_CHECKING``): a circle a reader must untangle is a circle, whether or not
Python happens to tolerate it at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocol", "server", "clients")

# What each part of server/ may import of server/ (besides itself). The base modules
# (config, errors, logs, metrics, limits, tasks) import nothing of server/ but each
# other; the store is below the room; the cluster is beside the edge, below the API.
BASE = {"server", "server.config", "server.errors", "server.logs", "server.metrics",
        "server.limits", "server.tasks"}  # fmt: skip
MAY_IMPORT: dict[str, set[str]] = {
    "base": set(),
    "server.store": {"base"},
    "server.room": {"base", "server.store"},
    "server.people": {"base", "server.store"},
    "server.cluster": {"base", "server.store", "server.room"},
    "server.match": {"base", "server.store"},
    "server.operator": {"base", "server.store", "server.room", "server.cluster"},
    "server.services": {
        "base",
        "server.store",
        "server.room",
        "server.cluster",
        "server.people",
        "server.match",
        "server.operator",
    },
    "server.edge": {"base", "server.room", "server.services", "server.people"},
    "server.api": {
        "base",
        "server.store",
        "server.room",
        "server.cluster",
        "server.services",
        "server.edge",
        "server.people",
        "server.match",
        "server.operator",
    },
    "server.serve_cmd": {"base", "server.api", "server.edge"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            out[module_name(path)] = path
    return out


def imports_of(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """The project modules ``path`` imports (``from a import b`` counts as ``a.b`` when
    that is a module, else ``a``: a package counts only for the names its
    ``__init__`` defines, as every submodule's parent is imported first anyway)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names]
            targets = [n if n in known else base for n in names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def graph() -> dict[str, set[str]]:
    modules = project_modules()
    known = set(modules)
    return {name: set(imports_of(name, path, known)) for name, path in modules.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles() -> None:
    """No module of the project reaches itself through its imports."""
    assert circles(graph()) == []


def part_of(name: str) -> str | None:
    if name in BASE:
        return "base"
    for part in MAY_IMPORT:
        if name == part or name.startswith(part + "."):
            return part
    return None


def test_every_server_module_belongs_to_a_part() -> None:
    """server/ is its packages and base modules; a new module says where it belongs."""
    strays = [m for m in project_modules() if m.startswith("server") and part_of(m) is None]
    assert strays == []


@pytest.mark.parametrize("part", sorted(MAY_IMPORT))
def test_each_part_of_the_server_imports_only_what_it_may(part: str) -> None:
    """The layers of server/ (see each package's docstring): nothing imports upwards."""
    wrong = []
    for name, targets in graph().items():
        if part_of(name) != part:
            continue
        for target in targets:
            owner = part_of(target)
            if target.startswith("server") and owner != part and owner not in MAY_IMPORT[part]:
                wrong.append(f"{name} imports {target}")
    assert wrong == []
