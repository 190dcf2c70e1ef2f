"""The progress bar of long commands: drawn on a terminal only, never into piped or
JSON output."""

from __future__ import annotations

import argparse
import io

import pytest

from clients import progress
from clients.simulate import cli as simulate_cli


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_drawn_only_on_a_terminal_and_never_for_json() -> None:
    assert progress.wanted(False, Terminal()) is True
    assert progress.wanted(True, Terminal()) is False
    assert progress.wanted(False, io.StringIO()) is False


def test_the_bar_says_what_runs_and_the_time_left() -> None:
    screen = Terminal()
    with progress.bar("bench-all", 10, True, screen) as shown:
        shown.now("rollie: python -m clients.cli bench")
        shown.advance(4)
        shown.note("a line kept above the bar")
    drawn = screen.getvalue()
    assert "bench-all" in drawn and "rollie: python -m clients.cli bench" in drawn
    assert "left" in drawn and "a line kept above the bar" in drawn


def test_a_hidden_bar_writes_nothing() -> None:
    screen = Terminal()
    with progress.bar("bench", 3, False, screen) as shown:
        shown.now("memory store")
        shown.advance(1)
    assert screen.getvalue() == ""


def test_piped_simulate_prints_only_its_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """Piped (as under pytest), ``rollhouse simulate`` prints its summary, which names the
    policies it played and how fast, and nothing on stderr."""
    args = argparse.Namespace(
        game="rollie", players=3, games=2, seed=1, policies="push,random", option=[], json=False
    )
    assert simulate_cli.run(args) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "seats alternating between push, random" in out
    assert "commands/s" in out and "games/s" in out
