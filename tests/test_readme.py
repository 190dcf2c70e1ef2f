"""The README's SDK example runs as written against a real server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.server import LiveServer

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.timeout(60)
async def test_readme_sdk_example_plays_a_game(
    live_server: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's Python example creates a room, plays against a hosted bot, and prints scores."""
    block = re.search(r"```python\n(.*?)```", README.read_text(), re.S)
    assert block is not None
    source = block.group(1).replace("asyncio.run(main())", "")
    namespace: dict[str, object] = {}
    exec(compile(source, "README.md", "exec"), namespace)
    await namespace["main"](live_server.url)  # type: ignore[operator]
    assert "scores:" in capsys.readouterr().out
