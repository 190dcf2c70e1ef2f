"""What a viewer sees: everything but the market deck's order and the bag's contents.

Counts of the hidden things are public (cards left in the deck, dice in the bag).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core import Touch, touch
from engine.memo import FRESH, Memo
from engine.roll_player.events import (
    ActionDone,
    Adjusted,
    AlignmentMoved,
    Bought,
    CardsDealt,
    CharismaTaken,
    ClassChosen,
    ClassDiceDrawn,
    CleanedUp,
    CreditGained,
    DiceArranged,
    DiceRolled,
    Drafted,
    Flipped,
    GameEnded,
    GoldGained,
    Kept,
    MarketDiscarded,
    MarketTurnEnded,
    Refreshed,
    Rerolled,
    Salvaged,
    SheetChosen,
    SkillUsed,
    StartingDiceDrawn,
    StartingDicePlaced,
    Swapped,
    WeaponDropped,
)
from engine.roll_player.legal import awaiting
from engine.roll_player.model import (
    Die,
    Player,
    State,
)
from engine.roll_player.scoring import breakdown, winners


def _die(d: Die | None) -> dict[str, Any] | None:
    return None if d is None else {"colour": d.colour, "value": d.value}


def _row(row: tuple[Die, ...]) -> list[dict[str, Any] | None]:
    return [_die(d) for d in row]


def _player(p: Player, over: bool, seat: int, memo: Memo) -> dict[str, Any]:
    """A sheet; its rows and its score come through ``memo`` by what they are made from,
    so a change to one row leaves the other rows (and the score, when it stays) the
    same objects."""
    out: dict[str, Any] = {
        "race": p.race,
        "side": p.side,
        "colour": p.colour,
        "class": p.klass,
        "alignment": p.alignment,
        "backstory": p.backstory,
        "cell": p.cell,
        "gold": p.gold,
        "rows": [memo.part(("row", seat, r), _row, row) for r, row in enumerate(p.rows)],
        "cards": list(p.cards),
        "exhausted": sorted(p.exhausted),
        "charisma": p.charisma,
        "credit": p.credit,
        "initiative": p.initiative,
        "buys": p.buys,
        "pending": None
        if p.pending is None
        else {
            "slot": p.pending.slot,
            "old": p.pending.old,
            "new": p.pending.new,
            "source": p.pending.source,
        },
    }
    if over or p.klass:
        out["score"] = memo.keyed(("score", seat), score_inputs(p), lambda: breakdown(p))
    return out


def score_inputs(p: Player) -> tuple[Any, ...]:
    """The fields of a sheet that its score breakdown reads."""
    return (p.klass, p.race, p.colour, p.rows, p.cards, p.alignment, p.cell, p.backstory, p.gold)


def _players(s: State, memo: Memo) -> list[dict[str, Any]]:
    return [seat_view(s, i, memo) for i in range(len(s.players))]


Part = Callable[[State, Memo], Any]

PARTS: dict[str, Part] = {
    "game": lambda s, memo: "roll-player",
    "seats": lambda s, memo: s.seats,
    "phase": lambda s, memo: s.phase,
    "round": lambda s, memo: s.round,
    "class_mode": lambda s, memo: s.class_mode,
    "start": lambda s, memo: s.start,
    "turn": lambda s, memo: s.turn,
    "queue": lambda s, memo: list(s.queue),
    "done": lambda s, memo: sorted(s.done),
    "action_row": lambda s, memo: s.action_row,
    "supply": lambda s, memo: max(0, s.supply),
    "bag_count": lambda s, memo: sum(s.bag),
    "deck_count": lambda s, memo: len(s.deck),
    "market": lambda s, memo: memo.part("market", list, s.market),
    "discard": lambda s, memo: memo.part("discard", list, s.discard),
    "initiative": lambda s, memo: [
        {"number": c.number, "die": _die(c.die), "gold": c.gold} for c in s.initiative
    ],
    "pool": lambda s, memo: [_die(d) for d in s.pool],
    "class_draws": lambda s, memo: [list(d) for d in s.class_draws],
    "starting": lambda s, memo: [[_die(d) for d in ds] for ds in s.starting],
    "players": _players,
    "awaiting": lambda s, memo: sorted(awaiting(s)),
    "winners": lambda s, memo: list(winners(s.players)[1]) if s.phase == "over" else None,
}
"""Each top-level key of the view and how it is built (the view is all of them)."""


def view(s: State, viewer: int | None, memo: Memo = FRESH) -> dict[str, Any]:
    """Plain data for a seat or a spectator (``None``); the same public facts for all.

    ``memo`` hands back the parts built from unchanged state parts (see engine.memo)."""
    return {key: build(s, memo) for key, build in PARTS.items()}


def view_part(s: State, key: str, memo: Memo = FRESH) -> Any:
    """The view's ``key`` alone."""
    return PARTS[key](s, memo)


def seat_view(s: State, seat: int, memo: Memo = FRESH) -> dict[str, Any]:
    """The view's ``players[seat]`` alone."""
    player, over = s.players[seat], s.phase == "over"
    return memo.keyed(("player", seat), (player, over), lambda: _player(player, over, seat, memo))


TURNS = ("phase", "turn", "queue", "done", "awaiting")
"""What moves the game on to another seat or phase."""

TOUCHES: dict[type, Touch] = {
    SheetChosen: touch(*TURNS, seats="event"),
    ClassDiceDrawn: touch(*TURNS, "class_draws", seats="every"),
    ClassChosen: touch(*TURNS, seats="event"),
    CardsDealt: touch("market", "deck_count", seats="every"),
    StartingDiceDrawn: touch(*TURNS, "starting", "bag_count"),
    StartingDicePlaced: touch(*TURNS, "supply", "starting", seats="event"),
    DiceRolled: touch(*TURNS, "round", "pool", "bag_count"),
    DiceArranged: touch(*TURNS, "initiative", "pool"),
    Drafted: touch(*TURNS, "initiative", "supply", "action_row", seats="event"),
    Flipped: touch(seats="event", legal="event"),
    Adjusted: touch(seats="event", legal="event"),
    Swapped: touch(seats="event", legal="event"),
    Rerolled: touch("awaiting", seats="event", legal="event"),
    Kept: touch("awaiting", seats="event", legal="event"),
    AlignmentMoved: touch(seats="event", legal="event"),
    CharismaTaken: touch(seats="event", legal="event"),
    GoldGained: touch("supply", seats="event", legal="event"),
    CreditGained: touch(seats="event", legal="event"),
    Salvaged: touch("discard", "market"),
    ActionDone: touch(*TURNS, "action_row"),
    SkillUsed: touch(seats="event", legal="event"),
    Bought: touch("supply", "market", seats="event", legal="event"),
    WeaponDropped: touch("discard", seats="event"),
    MarketDiscarded: touch("supply", "market", "discard", seats="event"),
    MarketTurnEnded: touch(*TURNS, seats="event"),
    Refreshed: touch(*TURNS, seats="event"),
    CleanedUp: touch(
        *TURNS,
        "start",
        "bag_count",
        "supply",
        "initiative",
        "market",
        "deck_count",
        "discard",
        seats="every",
    ),
    GameEnded: touch(*TURNS, "winners", seats="every"),
}
"""What each event may change in the view, and whose legal commands: a change to one
sheet alone changes only its owner's (the others' skills read the discard pile and
the turn, never another sheet)."""
