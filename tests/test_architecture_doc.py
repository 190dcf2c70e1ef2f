"""docs/architecture.md names functions that exist: a newcomer who follows the path of
a command there finds every step in the code."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"
NAME = re.compile(r"`((?:server|protocol|engine)(?:\.\w+)+)`")


def resolve(dotted: str) -> object:
    """The object ``dotted`` names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


NAMES = sorted(set(NAME.findall(DOC.read_text())))


def test_the_doc_names_the_steps() -> None:
    """The page walks the command path through the edge, the room and the store."""
    for step in ("server.edge.protocol.WebSocketEdge.data_received",
                 "server.room.core.RoomCore.handle", "server.store.base.EventStore.append",
                 "server.room.commands.Deciding.acked"):  # fmt: skip
        assert step in NAMES


@pytest.mark.parametrize("dotted", NAMES)
def test_every_name_in_the_doc_exists(dotted: str) -> None:
    """Each dotted name in docs/architecture.md imports (a module, class or function)."""
    resolve(dotted)
