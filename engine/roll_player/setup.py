"""Setup (rulebook "Setup", steps 1-13): options, the setup event, and setup decisions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import rng_for
from engine.errors import BadOptions
from engine.roll_player import errors as E
from engine.roll_player.commands import (
    ChooseClass,
    ChooseSheet,
    PlaceStart,
)
from engine.roll_player.content import CATALOG
from engine.roll_player.events import (
    ClassChosen,
    SetUp,
    SheetChosen,
    StartingDicePlaced,
)
from engine.roll_player.flow import Emitter
from engine.roll_player.model import (
    State,
    gold_per_die,
    is_gold,
)

MIN_SEATS, MAX_SEATS = 2, 4
SIDES = ("female", "male")
DEFAULT_OPTIONS: dict[str, Any] = {"class_mode": "draw"}


def setup(seats: int, options: Mapping[str, Any], seed: int) -> SetUp:
    """Steps 1 and 7: the Start Player, and the market deck from the two piles."""
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise BadOptions(f"Roll Player seats 2 to 4 players, not {seats}", seats=seats)
    unknown = set(options) - set(DEFAULT_OPTIONS)
    if unknown:
        raise BadOptions(f"unknown options {sorted(unknown)}", options=sorted(unknown))
    mode = options.get("class_mode", "draw")
    if mode not in ("draw", "choice"):
        raise BadOptions("class_mode is 'draw' or 'choice'", class_mode=str(mode))
    rng = rng_for(seed, 0)
    start = rng.randrange(seats)
    drop = CATALOG.rules.pile_discards[seats]
    deck: list[str] = []
    for pile in (1, 2):
        cards = [c.name for c in CATALOG.cards.values() if c.pile == pile]
        rng.shuffle(cards)
        deck += cards[drop:]
    return SetUp(seats=seats, seed=seed, class_mode=mode, start=start, deck=tuple(deck))


def choose_sheet(em: Emitter, c: ChooseSheet) -> None:
    """Step 2: in turn from the Start Player, each takes a free sheet and a side."""
    s = em.state
    _phase(s, "sheets")
    _turn(s, c.seat)
    if c.race not in CATALOG.races or c.side not in SIDES:
        raise E.UnknownName(f"no sheet {c.race!r} / side {c.side!r}", race=c.race)
    if any(p.race == c.race for p in s.players):
        raise E.RaceTaken(f"{c.race} is taken", race=c.race)
    em.emit(SheetChosen(c.seat, c.race, c.side))


def class_options(s: State, seat: int) -> list[str]:
    """The classes ``seat`` may choose now."""
    if s.class_mode == "draw":
        colour = s.players[seat].colour
        return [k for k, v in CATALOG.classes.items() if v.colour == colour]
    taken = {p.colour for p in s.players if p.klass}
    return [k for k, v in CATALOG.classes.items() if v.colour not in taken]


def choose_class(em: Emitter, c: ChooseClass) -> None:
    """Step 4: the side of the drawn card, or (choice mode) any free card, in reverse order."""
    s = em.state
    _phase(s, "classes")
    if s.class_mode == "choice":
        _turn(s, c.seat)
    elif c.seat in s.done:
        raise E.AlreadyDone("class already chosen", seat=c.seat)
    if c.klass not in CATALOG.classes:
        raise E.UnknownName(f"no class {c.klass!r}", klass=c.klass)
    if c.klass not in class_options(s, c.seat):
        raise E.ClassUnavailable(f"{c.klass} is not available to you", klass=c.klass)
    em.emit(ClassChosen(c.seat, c.klass))


def place_start(em: Emitter, c: PlaceStart) -> None:
    """Step 12: every seat at once puts its starting dice in rows; gold for rows and gold dice."""
    s = em.state
    _phase(s, "placing")
    if c.seat in s.done:
        raise E.AlreadyDone("starting dice already placed", seat=c.seat)
    dice = s.starting[c.seat]
    if len(c.rows) != len(dice) or any(not 0 <= r < 6 for r in c.rows):
        raise E.BadPlacement(f"give one row 0-5 for each of your {len(dice)} dice")
    counts = [c.rows.count(r) for r in range(6)]
    if max(counts) > 3:
        raise E.BadPlacement("a row holds three dice")
    player = s.players[c.seat]
    gold = counts.count(3) * CATALOG.rules.full_row_gold
    gold += sum(gold_per_die(player) for d in dice if is_gold(d))
    em.emit(StartingDicePlaced(c.seat, c.rows, gold))


def _phase(s: State, phase: str) -> None:
    if s.phase != phase:
        raise E.WrongPhase(f"this is the {s.phase} phase, not {phase}", phase=s.phase)


def _turn(s: State, seat: int) -> None:
    if s.turn != seat:
        raise E.NotYourTurn(f"seat {s.turn} decides now", turn=s.turn)
