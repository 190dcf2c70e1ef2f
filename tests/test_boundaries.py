"""The shape of the code: engine/ and protocol/ do no I/O and read no clock."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "asyncio", "redis", "starlette", "websockets", "uvicorn", "sqlite3", "time", "datetime",
    "socket", "httpx", "subprocess", "threading", "server", "clients",
}  # fmt: skip
GLOBAL_RANDOM = {"random", "randint", "choice", "shuffle", "sample", "uniform", "seed", "randrange"}


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize(
    "path", modules("engine") + modules("protocol"), ids=lambda p: str(p.relative_to(ROOT))
)
def test_pure_packages_import_no_io(path: Path) -> None:
    """No engine/ or protocol/ module imports an I/O, clock or shell module, or draws from global random."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            if node.module == "random":
                assert not {a.name for a in node.names} & GLOBAL_RANDOM, f"{path}: global random"
        else:
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
                and node.attr in GLOBAL_RANDOM
            ):
                pytest.fail(
                    f"{path}:{node.lineno}: random.{node.attr} draws from the global generator"
                )
            continue
        for name in names:
            assert name.split(".")[0] not in FORBIDDEN, f"{path}:{node.lineno} imports {name}"


ROOM_SHELL = {"shell.py", "writes.py", "rooms.py", "mailbox.py", "handle.py"}
"""The room package's asyncio shell; every other module of it is pure (the shell's
peers.py too: it holds frames and awaits nothing)."""
ROOM_CORE = sorted(
    str(p.relative_to(ROOT))
    for p in (ROOT / "server" / "room").rglob("*.py")
    if p.name not in ROOM_SHELL
)
SHELL = {"asyncio", "redis", "starlette", "websockets", "uvicorn", "sqlite3", "time", "datetime",
         "socket", "httpx", "subprocess", "threading", "secrets", "server.room.shell", "server.room.rooms",
         "server.room.mailbox", "server.room.writes", "server.room.peers", "server.edge",
         "server.api", "server.cluster", "server.store.redis", "server.store.sqlite"}  # fmt: skip


@pytest.mark.parametrize("rel", ROOM_CORE)
def test_the_room_core_is_sans_io(rel: str) -> None:
    """The room core and its records take time and randomness only from their inputs:
    no clock, no sockets, no store backends, no shell modules, no global random."""
    path = ROOT / rel
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
            and node.attr in GLOBAL_RANDOM
        ):
            pytest.fail(f"{rel}:{node.lineno}: random.{node.attr} draws from the global generator")
        for name in names:
            parts = name.split(".")
            prefixes = {".".join(parts[: i + 1]) for i in range(len(parts))}
            assert not prefixes & SHELL, f"{rel} imports {name}"


@pytest.mark.parametrize("module", ["mirror", "session"])
def test_the_sdk_core_is_sans_io(module: str) -> None:
    """The SDK's mirror and session import no I/O, clock, shell or server module (the Client is their shell)."""
    path = ROOT / f"clients/sdk/{module}.py"
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            if name == "clients.sdk.mirror":
                continue  # the session holds the mirror: both are sans-I/O
            assert name.split(".")[0] not in FORBIDDEN | {"random"}, f"{module}.py imports {name}"
