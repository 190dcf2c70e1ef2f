"""Shared helpers and Hypothesis strategies for the Roll Player tests.

``given(*events)`` rebuilds a state from events (the setup event first), so rule
tests read as given events / when command / then events. ``table(...)`` writes the
usual opening: sheets, classes, starting dice and a first roll, all scripted.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from engine.core import replay
from engine.roll_player import GAME
from engine.roll_player.content import CATALOG
from engine.roll_player.events import (
    ActionDone,
    CardsDealt,
    ClassChosen,
    ClassDiceDrawn,
    DiceArranged,
    DiceRolled,
    Drafted,
    SetUp,
    SheetChosen,
    StartingDiceDrawn,
    StartingDicePlaced,
)
from engine.roll_player.model import (
    Die,
    State,
)

RACES = ("Human", "Dwarf", "Elf", "Orc")
CLASSES = ("Cleric", "Warrior", "Rogue", "Bard")
STORIES = ("Brawler", "Savage", "Craftsman", "Lost Soul")
ALIGNS = ("Arbiter", "Champion", "Eccentric", "Hermit")


def die(spec: str) -> Die:
    """``"green6"`` -> a green die showing 6."""
    return Die(spec[:-1], int(spec[-1]))


def dice(*specs: str) -> tuple[Die, ...]:
    """Several dice from specs."""
    return tuple(die(s) for s in specs)


def given(*events: Any) -> State:
    """The state the events lead to."""
    return replay(GAME, list(events))


def when(state: State, command: Any) -> tuple[Any, ...]:
    """The events ``command`` causes."""
    return GAME.decide(state, command)


def then(state: State, command: Any) -> State:
    """The state after ``command``."""
    for event in GAME.decide(state, command):
        state = GAME.evolve(state, event)
    return state


def deck(seats: int = 3) -> tuple[str, ...]:
    """The market deck in data order (single-dot pile first), without setup discards."""
    drop = CATALOG.rules.pile_discards[seats]
    ones = [c.name for c in CATALOG.cards.values() if c.pile == 1][drop:]
    twos = [c.name for c in CATALOG.cards.values() if c.pile == 2][drop:]
    return (*ones, *twos)


def opening(
    seats: int = 3,
    *,
    start: int = 0,
    classes: Sequence[str] = CLASSES,
    starting: Sequence[tuple[Die, ...]] | None = None,
    rows: Sequence[tuple[int, ...]] | None = None,
    market_deck: tuple[str, ...] | None = None,
    class_mode: str = "draw",
) -> list[Any]:
    """Events up to the first roll: sheets, classes, cards dealt, starting dice placed."""
    n = seats + 4
    starting = starting or tuple(dice(*(["green1"] * n)) for _ in range(seats))
    rows = rows or tuple(tuple(i // 3 for i in range(len(s))) for s in starting)
    order = [(start + i) % seats for i in range(seats)]
    events: list[Any] = [SetUp(seats, 7, class_mode, start, market_deck or deck(seats))]
    events += [SheetChosen(s, RACES[s], "female") for s in order]
    colours = tuple((CATALOG.classes[classes[s]].colour,) for s in range(seats))
    events.append(ClassDiceDrawn(colours))
    events += [ClassChosen(s, classes[s]) for s in range(seats)]
    events.append(CardsDealt(STORIES[:seats], ALIGNS[:seats]))
    events.append(StartingDiceDrawn(tuple(starting)))
    events += [StartingDicePlaced(s, rows[s], 0) for s in range(seats)]
    return events


def rolled(pool: tuple[Die, ...], round_: int = 1) -> list[Any]:
    """The roll and (already value-ordered) arrangement of ``pool``."""
    return [DiceRolled(round_, pool), DiceArranged(tuple(sorted(pool, key=lambda d: d.value)))]


def dice_phase(picks: Sequence[tuple[int, int, int]]) -> list[Any]:
    """``(seat, card, row)`` drafts, each followed by a skipped action."""
    out: list[Any] = []
    for seat, card, row in picks:
        out += [Drafted(seat, card, row, 0, 0), ActionDone(seat)]
    return out


def play(
    seats: int, seed: int, policy: str = "random", hook: Any = None, mode: str = "draw"
) -> list[Any]:
    """A whole game by one policy; ``hook(state)`` runs on every state. Returns the events."""
    events: list[Any] = [GAME.setup(seats, {"class_mode": mode}, seed)]
    state = GAME.create(events[0])
    rng = random.Random(seed)
    steps = 0
    while not GAME.is_over(state):
        if hook is not None:
            hook(state)
        seat = rng.choice(sorted(GAME.awaiting(state)))
        legal = GAME.legal_commands(state, seat)
        command = GAME.policies[policy](GAME.view(state, seat), seat, legal, rng)
        for event in GAME.decide(state, command):
            events.append(event)
            state = GAME.evolve(state, event)
        steps += 1
        assert steps < 2000, "a game must end"
    if hook is not None:
        hook(state)
    return events


seats = st.integers(min_value=2, max_value=4)
seeds = st.integers(min_value=0, max_value=2**32)
policies = st.sampled_from(["random", "goal"])
class_modes = st.sampled_from(["draw", "choice"])
