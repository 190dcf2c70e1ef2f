"""The ``rollhouse`` command line: one entry point, a subcommand per capability.

Each subcommand lives in its own module exposing ``add_parser(subparsers)`` that
registers it and sets ``func`` (called with the parsed args, returning an exit
code). Modules are imported lazily so ``rollhouse --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# subcommand name -> module providing add_parser(subparsers)
SUBCOMMANDS: dict[str, str] = {
    "serve": "server.serve_cmd",
    "migrate-keys": "server.store.migrate_cmd",
    "simulate": "clients.simulate.cli",
    "bench": "clients.bench.cli",
    "bench-cluster": "clients.bench.cluster",
    "bench-all": "clients.bench.suite",
    "soak": "clients.soak.cli",
    "play": "clients.terminal.cli",
    "watch": "clients.terminal.cli",
    "login": "clients.terminal.account",
    "register": "clients.terminal.account",
    "whoami": "clients.terminal.account",
    "logout": "clients.terminal.account",
    "games": "clients.terminal.account",
    "bots": "clients.bots.cli",
    "verify": "clients.replay.cli",
    "export": "clients.replay.cli",
    "import": "clients.replay.cli",
    "replay": "clients.replay.cli",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rollhouse", description="Rollhouse dice game service")
    sub = parser.add_subparsers(dest="command", required=True)
    seen: set[str] = set()
    for module_name in dict.fromkeys(SUBCOMMANDS.values()):
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue  # capability not built yet
            raise
        module.add_parser(sub)
        seen.add(module_name)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
