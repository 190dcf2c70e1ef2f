"""A progress bar for the commands that run for minutes (``simulate``, ``bench``,
``bench-all``, ``bench-cluster``, ``soak``): what runs now, how far along, and the time left.

It draws on the terminal only: on stderr, and only when stderr is a terminal and the
command was not asked for ``--json``. Piped or redirected, the command prints exactly
what it printed before, nothing more. The bar is rich's (already a dependency).

Work is counted in units the command knows in advance: games for ``simulate``, the
expected seconds of each part for the benchmarks (their windows are fixed), so the
time left is the rate of the units done so far applied to the units to go.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)


def wanted(json_output: bool, stream: IO[str] | None = None) -> bool:
    """Whether to draw: not for ``--json``, and only on a terminal."""
    stream = stream if stream is not None else sys.stderr
    return not json_output and stream.isatty()


class Bar:
    """One bar over ``total`` units; a no-op when not ``shown``.

    ``now(text)`` says what runs; ``advance(units)`` counts work done. Use it as a
    context manager (:func:`bar`) so the terminal is left clean when the work ends or
    fails.
    """

    def __init__(self, title: str, total: float, shown: bool, stream: IO[str] | None = None):
        self.title = title
        self.shown = shown
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        if shown:
            console = Console(file=stream if stream is not None else sys.stderr)
            self._progress = Progress(
                TextColumn("[bold]{task.fields[title]}[/bold]"),
                BarColumn(bar_width=20),
                TaskProgressColumn(),
                TimeRemainingColumn(),
                TextColumn("left"),
                TextColumn("{task.description}"),
                console=console,
                transient=True,
            )
            self._task = self._progress.add_task("", total=total, title=title)

    def start(self) -> None:
        if self._progress is not None:
            self._progress.start()

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()

    def now(self, text: str) -> None:
        """Say what runs now (shown beside the title)."""
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=text)

    def advance(self, units: float = 1.0) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task, units)

    def note(self, line: str) -> None:
        """A line printed above the bar (kept after it goes)."""
        if self._progress is not None:
            self._progress.console.print(line, highlight=False, markup=False)


@contextmanager
def bar(title: str, total: float, shown: bool, stream: IO[str] | None = None) -> Iterator[Bar]:
    """A :class:`Bar` drawn for the ``with`` block (nothing drawn when not ``shown``)."""
    progress = Bar(title, total, shown, stream)
    progress.start()
    try:
        yield progress
    finally:
        progress.stop()
