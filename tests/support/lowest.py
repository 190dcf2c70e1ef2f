"""The lowest version pyproject.toml allows of every dependency, as pip constraints.

``python -m tests.support.lowest`` prints one ``name==lower-bound`` line (with its
environment marker) per requirement of the project's runtime dependencies and of the
extras named on the command line (default: ``fast`` and ``test``), read from
pyproject.toml. ``make lowest`` installs the project with these constraints into
``.venv-lowest`` and runs the suite's fast part there, so a lower bound that is not
true (the code imports something a lower version lacks, or two lower bounds cannot be
installed together) fails in CI instead of at a user's install. Every requirement must
have a ``>=`` lower bound: one without is reported and the command fails.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
DEFAULT_EXTRAS = ("fast", "test")
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*([^;]*?)\s*(;.*)?$")
_LOWER = re.compile(r">=\s*([^,\s]+)")


def requirements(pyproject: dict[str, object], extras: tuple[str, ...]) -> list[str]:
    """The runtime requirements and those of ``extras``, as written in pyproject."""
    project = pyproject["project"]
    assert isinstance(project, dict)
    found: list[str] = list(project["dependencies"])
    optional = project.get("optional-dependencies", {})
    for extra in extras:
        found += optional[extra]
    return found


def pin_lowest(requirement: str) -> str:
    """``name>=x,<y; marker`` -> ``name==x; marker``; ValueError without a ``>=``."""
    match = _REQUIREMENT.match(requirement)
    lower = _LOWER.search(match.group(2)) if match else None
    if match is None or lower is None:
        raise ValueError(f"no >= lower bound in {requirement!r}")
    return f"{match.group(1)}=={lower.group(1)}{match.group(3) or ''}"


def main(argv: list[str]) -> int:
    extras = tuple(argv) or DEFAULT_EXTRAS
    with PYPROJECT.open("rb") as f:
        pyproject = tomllib.load(f)
    try:
        lines = [pin_lowest(r) for r in requirements(pyproject, extras)]
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
