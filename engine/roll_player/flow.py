"""What happens by itself between decisions: draws, deals, rolls, cleanup, the end.

``decide`` collects a command's events in an :class:`Emitter`, which evolves a
working state as it goes; :func:`advance` then adds the automatic events until a
player has a decision again. Every random draw uses ``rng_for(seed, draws)`` of the
working state and is written into an event.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.core import rng_for
from engine.roll_player.content import CATALOG, COLOURS, GOLD
from engine.roll_player.events import (
    CardsDealt,
    ClassDiceDrawn,
    CleanedUp,
    DiceArranged,
    DiceRolled,
    GameEnded,
    StartingDiceDrawn,
)
from engine.roll_player.evolve import evolve
from engine.roll_player.model import (
    Die,
    State,
    order_from,
)
from engine.roll_player.scoring import winners


class Emitter:
    """Events of one command, and the state after each."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[Any] = []
        self.states: list[State] = []

    def emit(self, *events: Any) -> None:
        """Record ``events`` and apply them."""
        for event in events:
            self.events.append(event)
            self.state = evolve(self.state, event)
            self.states.append(self.state)

    def rng(self) -> random.Random:
        """The generator for the next draw."""
        return rng_for(self.state.seed, self.state.draws)


def draw(bag: tuple[int, ...], count: int, rng: random.Random) -> tuple[Die, ...]:
    """``count`` dice drawn blind from ``bag`` and rolled."""
    dice = [c for c, n in zip(COLOURS, bag, strict=True) for _ in range(n)]
    return tuple(Die(c, rng.randint(1, 6)) for c in rng.sample(dice, min(count, len(dice))))


def needs_arranging(pool: tuple[Die, ...]) -> bool:
    """Whether two distinguishable dice share a value (the Start Player decides)."""
    return any(a.value == b.value and a != b for i, a in enumerate(pool) for b in pool[i + 1 :])


def advance(em: Emitter) -> None:
    """Emit automatic events until someone has a decision (or the game is over)."""
    while (event := _automatic(em.state, em.rng)) is not None:
        em.emit(event)


def _automatic(s: State, rng_of: Callable[[], random.Random]) -> Any | None:
    """The next automatic event, if any; ``rng_of()`` gives the generator of its draws
    (made only for an event that draws)."""
    if s.phase == "sheets" and not s.queue and s.class_mode == "draw":
        return ClassDiceDrawn(_class_draws(s, rng_of()))
    if s.phase == "classes" and all(p.klass for p in s.players):
        rng = rng_of()
        if not s.players[0].backstory:
            return CardsDealt(
                tuple(rng.sample(sorted(CATALOG.backstories), s.seats)),
                tuple(rng.sample(sorted(CATALOG.alignments), s.seats)),
            )
        return StartingDiceDrawn(_starting(s, rng))
    if s.phase == "placing" and len(s.done) == s.seats:
        return DiceRolled(1, draw(s.bag, len(s.initiative), rng_of()))
    if s.phase == "arrange" and not s.pool and s.round > 0 and s.turn is None:
        return DiceRolled(s.round + 1, draw(s.bag, len(s.initiative), rng_of()))
    if s.phase == "arrange" and s.pool and not needs_arranging(s.pool):
        return DiceArranged(tuple(sorted(s.pool, key=lambda d: d.value)))
    if s.phase == "refresh" and all(p.full() for p in s.players):
        totals, best = winners(s.players)
        return GameEnded(totals, best)
    if s.phase == "refresh" and len(s.done) == s.seats:
        return CleanedUp(_reshuffle(s, rng_of()))
    return None


def _class_draws(s: State, rng: random.Random) -> tuple[tuple[str, ...], ...]:
    bag = [c for c, n in zip(COLOURS, s.bag, strict=True) for _ in range(n)]
    rng.shuffle(bag)
    taken: set[str] = set()
    draws: dict[int, tuple[str, ...]] = {}
    for seat in order_from(s.start, s.seats):
        drawn: list[str] = []
        while not drawn or drawn[-1] == GOLD or drawn[-1] in taken:
            drawn.append(bag.pop())
        taken.add(drawn[-1])
        draws[seat] = tuple(drawn)
    return tuple(draws[seat] for seat in range(s.seats))


def _starting(s: State, rng: random.Random) -> tuple[tuple[Die, ...], ...]:
    count = s.seats + CATALOG.rules.starting_dice_extra
    dice = draw(s.bag, count * s.seats, rng)
    by_seat: dict[int, tuple[Die, ...]] = {}
    for k, seat in enumerate(order_from(s.start, s.seats)):
        by_seat[seat] = dice[k * count : (k + 1) * count]
    return tuple(by_seat[seat] for seat in range(s.seats))


def _reshuffle(s: State, rng: random.Random) -> tuple[str, ...] | None:
    if len(s.deck) >= len(s.initiative):
        return None
    cards = list((*s.discard, *s.market))
    rng.shuffle(cards)
    return tuple(cards)
