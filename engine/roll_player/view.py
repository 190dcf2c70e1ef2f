"""What a viewer sees: everything but the market deck's order and the bag's contents.

Counts of the hidden things are public (cards left in the deck, dice in the bag).
"""

from __future__ import annotations

from typing import Any

from engine.memo import FRESH, Memo
from engine.roll_player.legal import awaiting
from engine.roll_player.model import Die, Player, State
from engine.roll_player.scoring import breakdown, winners


def _die(d: Die | None) -> dict[str, Any] | None:
    return None if d is None else {"colour": d.colour, "value": d.value}


def _player(p: Player, over: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "race": p.race,
        "side": p.side,
        "colour": p.colour,
        "class": p.klass,
        "alignment": p.alignment,
        "backstory": p.backstory,
        "cell": p.cell,
        "gold": p.gold,
        "rows": [[_die(d) for d in row] for row in p.rows],
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
        out["score"] = breakdown(p)
    return out


def view(s: State, viewer: int | None, memo: Memo = FRESH) -> dict[str, Any]:
    """Plain data for a seat or a spectator (``None``); the same public facts for all.

    ``memo`` hands back the parts built from unchanged state parts (see engine.memo)."""
    over = s.phase == "over"
    return {
        "game": "roll-player",
        "seats": s.seats,
        "phase": s.phase,
        "round": s.round,
        "class_mode": s.class_mode,
        "start": s.start,
        "turn": s.turn,
        "queue": list(s.queue),
        "done": sorted(s.done),
        "action_row": s.action_row,
        "supply": max(0, s.supply),
        "bag_count": sum(s.bag),
        "deck_count": len(s.deck),
        "market": memo.part("market", list, s.market),
        "discard": memo.part("discard", list, s.discard),
        "initiative": [
            {"number": c.number, "die": _die(c.die), "gold": c.gold} for c in s.initiative
        ],
        "pool": [_die(d) for d in s.pool],
        "class_draws": [list(d) for d in s.class_draws],
        "starting": [[_die(d) for d in ds] for ds in s.starting],
        "players": [memo.part(("player", i), _player, p, over) for i, p in enumerate(s.players)],
        "awaiting": sorted(awaiting(s)),
        "winners": list(winners(s.players)[1]) if s.phase == "over" else None,
    }
