"""Final scoring, item by item (rulebook "Final Scoring"), and the tie-breaks."""

from __future__ import annotations

from typing import Any

from engine.core import Result
from engine.roll_player.content import ATTRS, CATALOG, Score
from engine.roll_player.model import (
    Player,
    State,
)


def attribute_scores(p: Player) -> tuple[int, ...]:
    """Each row's total adjusted by the race and every weapon."""
    race = CATALOG.races.get(p.race, (0,) * 6)
    weapons = p.owned("weapon")
    return tuple(
        sum(d.value for d in row) + race[i] + sum(w.mods[i] for w in weapons)
        for i, row in enumerate(p.rows)
    )


def class_dice(p: Player) -> int:
    """Dice on the sheet in the class colour."""
    return sum(1 for row in p.rows for d in row if d.colour == p.colour)


def backstory_matches(p: Player) -> int:
    """Rows whose wanted space holds a die of the wanted colour."""
    wants = CATALOG.backstories.get(p.backstory, ())
    total = 0
    for row, (colour, space) in zip(p.rows, wants, strict=False):
        if len(row) >= space and row[space - 1].colour == colour:
            total += 1
    return total


def armor_stars(p: Player) -> dict[str, int]:
    """Stars per armor set, with the class-colour bonus when a card of the set matches."""
    out: dict[str, int] = {}
    armor = p.owned("armor")
    for name, table in CATALOG.armor_sets.items():
        cards = [c for c in armor if c.set == name]
        if not cards:
            continue
        stars = table[min(len(cards), len(table)) - 1]
        if any(c.colour == p.colour for c in cards):
            stars += CATALOG.rules.armor_class_bonus
        out[name] = stars
    return out


def trait_stars(p: Player, score: Score, attrs: tuple[int, ...] | None = None) -> int:
    """Stars one trait's condition gives ``p`` (``attrs``: its attribute scores, if known)."""
    match score.kind:
        case "attr_min":
            attrs = attribute_scores(p) if attrs is None else attrs
            return score.stars if attrs[score.attr] >= score.value else 0
        case "attr_max":
            attrs = attribute_scores(p) if attrs is None else attrs
            return score.stars if attrs[score.attr] <= score.value else 0
        case "alignment_row":
            return score.stars if p.cell // 3 == score.row else 0
        case "alignment_column":
            return score.stars if p.cell % 3 == score.column else 0
        case "per_card":
            return min(score.max, len(p.owned(score.card)))
        case "per_gold":
            return min(score.max, p.gold // score.gold)
        case "flat":
            return score.stars
    return 0  # pragma: no cover


def breakdown(p: Player) -> dict[str, Any]:
    """Every scoring item of one character, and the total."""
    klass = p.klass_card()
    scores = attribute_scores(p)
    goals = {
        a: (g.stars if klass is not None and g.met(s) else 0)
        for a, s, g in zip(ATTRS, scores, klass.goals if klass else (), strict=False)
    }
    alignment = CATALOG.alignments.get(p.alignment, (0,) * 9)[p.cell]
    story = CATALOG.rules.backstory_stars[backstory_matches(p)]
    armor = armor_stars(p)
    traits = {
        c.name: trait_stars(p, c.score, scores) for c in p.owned("trait") if c.score is not None
    }
    colour = class_dice(p) * CATALOG.rules.class_die_stars
    total = sum(goals.values()) + colour + alignment + story + sum(armor.values())
    total += sum(traits.values())
    return {
        "attributes": dict(zip(ATTRS, scores, strict=True)),
        "goals": goals,
        "class_dice": colour,
        "alignment": alignment,
        "backstory": story,
        "armor": armor,
        "traits": traits,
        "total": total,
    }


def winners(players: tuple[Player, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Totals and the winners: most stars, then most gold, then fewest class-colour dice."""
    totals = tuple(breakdown(p)["total"] for p in players)

    def key(seat: int) -> tuple[int, int, int]:
        p = players[seat]
        return (totals[seat], p.gold, -class_dice(p))

    best = max(key(s) for s in range(len(players)))
    return totals, tuple(s for s in range(len(players)) if key(s) == best)


def result(state: State) -> Result | None:
    """Totals, winners (ties: gold, then fewer class dice) and each item of scoring."""
    if state.phase != "over":
        return None
    scores, best = winners(state.players)
    detail = {
        "rounds": state.round,
        "players": [breakdown(p) | {"class": p.klass, "gold": p.gold} for p in state.players],
        "groups": {"class": [p.klass for p in state.players]},
    }
    return Result(scores=scores, winners=best, detail=detail)
