"""Dice anyone can verify: check a finished game against the seed its room committed to.

A room commits to its random seed when it is created: it publishes
``sha256(salt + ":" + seed)`` and reveals ``seed`` and ``salt`` once the game is
over. Every random thing in a game is drawn in ``decide`` from ``rng_for(seed,
draws)`` (:mod:`engine.core`), so with the seed, the options and the commands anyone
can recompute every roll, draw and shuffle. :func:`verify` does that: it checks the
commitment, rebuilds the setup from the seed, then re-decides every command in order
and compares the events with the ones the server logged. The first difference is
reported; nothing here trusts the server. The scheme is written down in
``docs/fairness.md``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from engine.core import get_game
from engine.data import to_data
from engine.errors import Rejection


@attrs.frozen
class Step:
    """One command and the events the log says it caused."""

    seq: int
    """The seq of the command's last event."""
    command: Mapping[str, Any]
    events: Sequence[Mapping[str, Any]]


@attrs.frozen
class Verdict:
    """What :func:`verify` found: ``ok``, how many commands it re-decided, and why not."""

    ok: bool
    checked: int
    problem: str | None = None
    seq: int | None = None
    """Where the first mismatch is (the seq of the command's last event)."""

    def to_data(self) -> dict[str, Any]:
        return {"ok": self.ok, "checked": self.checked, "problem": self.problem, "seq": self.seq}


def commitment(seed: int, salt: str) -> str:
    """The published commitment to ``seed``."""
    return hashlib.sha256(f"{salt}:{seed}".encode()).hexdigest()


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON would carry them (tuples and lists alike)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def verify(
    game_name: str,
    seats: int,
    options: Mapping[str, Any],
    seed: int,
    salt: str,
    commit: str,
    setup: Mapping[str, Any],
    steps: Sequence[Step],
) -> Verdict:
    """Check the commitment, the setup and every command's events against the seed."""
    if commitment(seed, salt) != commit:
        return Verdict(False, 0, "the revealed seed does not match the room's commitment", 1)
    game = get_game(game_name)
    if not _same(to_data(game.setup(seats, options, seed)), setup):
        return Verdict(False, 0, "the setup (shuffles, first player) is not the seed's", 1)
    state = game.create(game.events.load(setup))
    for checked, step in enumerate(steps):
        try:
            expected = [to_data(e) for e in game.decide(state, game.commands.load(step.command))]
        except Rejection as exc:
            return Verdict(
                False, checked, f"the engine refuses the logged command: {exc.code}", step.seq
            )
        if not _same(expected, list(step.events)):
            return Verdict(
                False, checked, "the logged events are not what the seed gives", step.seq
            )
        for event in step.events:
            state = game.evolve(state, game.events.load(event))
    return Verdict(True, len(steps))
