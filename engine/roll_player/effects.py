"""The effect vocabulary: attribute actions, skills and class abilities as events.

Every ability in the data file is one of :data:`~engine.roll_player.content.ACTIVE`
with parameters; this module is the only interpreter of them. The six attribute
actions are the same effects (:data:`ROW_EFFECTS`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import attrs

from engine.roll_player import errors as E
from engine.roll_player.content import DIRECTIONS, Effect
from engine.roll_player.events import (
    Adjusted,
    AlignmentMoved,
    CharismaTaken,
    CreditGained,
    Flipped,
    GoldGained,
    Rerolled,
    Salvaged,
    Swapped,
)
from engine.roll_player.model import (
    Die,
    Player,
    State,
    moved,
)

ROW_EFFECTS = (
    Effect("flip"),
    Effect("swap"),
    Effect("adjust", by=1),
    Effect("reroll"),
    Effect("align"),
    Effect("charisma"),
)
"""The attribute action of each row: STR, DEX, CON, INT, WIS, CHA."""


@attrs.frozen
class Target:
    """The targets a command names for an effect."""

    slot: int = -1
    other: int = -1
    delta: int = 0
    direction: str = ""
    card: str = ""


def unused(effect: Effect, t: Target) -> bool:
    """Whether the command leaves an optional effect unused (no target named)."""
    match effect.kind:
        case "flip" | "swap" | "adjust" | "reroll":
            return t.slot < 0
        case "align":
            return t.direction == ""
        case "salvage":
            return t.card == ""
    return False


def effect_events(
    state: State,
    seat: int,
    effect: Effect,
    t: Target,
    source: str,
    rng_of: Callable[[], random.Random],
) -> list[Any]:
    """The events of ``effect`` used by ``seat`` on targets ``t``; raises a Rejection.
    ``rng_of()`` gives the generator of a draw (made only for a reroll)."""
    player = state.players[seat]
    kind = effect.kind
    if kind in ("flip", "swap", "adjust", "reroll") and player.die(t.slot) is None:
        raise E.BadTarget(f"no die at slot {t.slot}", slot=t.slot)
    match kind:
        case "flip":
            return [Flipped(seat, t.slot)]
        case "swap":
            if t.other == t.slot or player.die(t.other) is None:
                raise E.BadTarget("swap needs two different dice", other=t.other)
            return [Swapped(seat, t.slot, t.other)]
        case "adjust":
            die = player.die(t.slot)
            assert die is not None
            if not 0 < abs(t.delta) <= effect.by or not 1 <= die.value + t.delta <= 6:
                raise E.BadTarget("the face must stay 1-6 and change by the allowed step")
            return [Adjusted(seat, t.slot, t.delta)]
        case "reroll":
            return [Rerolled(seat, t.slot, rng_of().randint(1, 6), source)]
        case "align":
            if t.direction not in DIRECTIONS:
                raise E.UnknownName(f"no direction {t.direction!r}", direction=t.direction)
            if moved(player.cell, t.direction) is None:
                raise E.AlignmentBlocked("the token is at that edge", direction=t.direction)
            return [AlignmentMoved(seat, t.direction)]
        case "charisma":
            return [CharismaTaken(seat)]
        case "gold":
            return [GoldGained(seat, effect.gold)]
        case "credit":
            return [CreditGained(seat, effect.gold)]
        case "salvage":
            if t.card not in state.discard:
                raise E.NotInMarket(f"{t.card!r} is not in the discard pile", card=t.card)
            return [Salvaged(seat, t.card)]
    raise E.UnknownName(f"no effect {kind!r}")  # pragma: no cover


NO_TARGET = Target()
"""The target of an effect that names none."""


def targets(state: State, seat: int, effect: Effect) -> list[Target]:
    """Every target worth offering for ``effect`` (for legal commands and bots)."""
    return player_targets(state.players[seat], state.discard, effect)


def player_targets(player: Player, discard: tuple[str, ...], effect: Effect) -> list[Target]:
    """:func:`targets` from what they read: the seat's sheet and the discard pile."""
    match effect.kind:
        case "flip" | "reroll":
            return [Target(slot=s) for s in player.slots()]
        case "swap":
            dice = _dice(player)
            return [
                Target(slot=a, other=b)
                for i, (a, die) in enumerate(dice)
                for b, other in dice[i + 1 :]
                if die != other
            ]
        case "adjust":
            return [
                Target(slot=s, delta=d)
                for s, die in _dice(player)
                for d in range(-effect.by, effect.by + 1)
                if d and 1 <= die.value + d <= 6
            ]
        case "align":
            return [Target(direction=d) for d in DIRECTIONS if moved(player.cell, d) is not None]
        case "salvage":
            return [Target(card=c) for c in dict.fromkeys(discard)]
    return [Target()]


def _dice(player: Player) -> list[tuple[int, Die]]:
    """Each die on the sheet with its slot, in slot order."""
    return [(r * 3 + i, d) for r, row in enumerate(player.rows) for i, d in enumerate(row)]
