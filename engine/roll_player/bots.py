"""Bot policies: ``random`` (any legal command) and ``goal`` (plays toward its class
goals, class-colour dice, backstory and alignment).

A policy sees only the seat's view. ``goal`` rebuilds the seat's character from the
view, scores each candidate command by a quick estimate of the final stars, and takes
the best (ties broken by ``rng``).
"""

from __future__ import annotations

import random
from typing import Any

import attrs

from engine.core import Policy
from engine.roll_player.commands import (
    Act,
    Buy,
    ChooseClass,
    ChooseSheet,
    DiscardCard,
    Draft,
    DropWeapon,
    Keep,
    PlaceStart,
    Refresh,
    UseSkill,
)
from engine.roll_player.content import CATALOG, DIRECTIONS, GOLD, Effect
from engine.roll_player.effects import ROW_EFFECTS
from engine.roll_player.model import (
    Die,
    Player,
    add_die,
    moved,
    set_die,
)
from engine.roll_player.scoring import attribute_scores, backstory_matches, trait_stars


def random_policy(view: dict[str, Any], seat: int, legal: list[Any], rng: random.Random) -> Any:
    """Any legal command, weapons kept (dropping them at random helps nobody)."""
    keep = [c for c in legal if not isinstance(c, DropWeapon)] or legal
    return rng.choice(keep)


def player_from_view(view: dict[str, Any], seat: int) -> Player:
    """The seat's character rebuilt from its view."""
    v = view["players"][seat]
    rows = tuple(tuple(Die(d["colour"], d["value"]) for d in row) for row in v["rows"])
    return Player(
        gold=v["gold"],
        race=v["race"],
        colour=v["colour"],
        klass=v["class"],
        alignment=v["alignment"],
        backstory=v["backstory"],
        cell=v["cell"],
        rows=rows,
        cards=tuple(v["cards"]),
        charisma=v["charisma"],
    )


GOLD_WEIGHT = 0.25
"""Stars a bot reckons one gold is worth (tie-breaks, future purchases)."""


def estimate(p: Player) -> float:
    """A quick guess at the stars ``p`` will end with (unfilled spaces count 3.5)."""
    klass = p.klass_card()
    scores = attribute_scores(p)
    total = 0.0
    for i, row in enumerate(p.rows):
        if klass is None:
            break
        goal = klass.goals[i]
        free = 3 - len(row)
        low, high = scores[i] + free, scores[i] + 6 * free
        guess = scores[i] + 3.5 * free
        top = goal.high if goal.high is not None else 99
        if low > top or high < goal.low:
            continue
        miss = max(goal.low - guess, guess - top, 0.0)
        total += goal.stars * max(0.0, 1.0 - miss / (2.5 + 2 * free))
    total += sum(1 for row in p.rows for d in row if d.colour == p.colour)
    total += 0.8 * backstory_matches(p)
    total += 0.5 * CATALOG.alignments.get(p.alignment, (0,) * 9)[p.cell]
    total += GOLD_WEIGHT * p.gold + 0.15 * sum(1 for row in p.rows for d in row if d.colour == GOLD)
    return total


def _value(p: Player, view: dict[str, Any], c: Any) -> float | None:
    """The estimate after ``c``, or None when ``c`` is not a sheet decision."""
    match c:
        case PlaceStart(rows=rows):
            sheet = p.rows
            for d, r in zip(view["starting"][c.seat], rows, strict=True):
                sheet = add_die(sheet, r, Die(d["colour"], d["value"]))
            return estimate(attrs.evolve(p, rows=sheet))
        case Draft(card=number, row=row):
            card = next(k for k in view["initiative"] if k["number"] == number)
            die = Die(card["die"]["colour"], card["die"]["value"])
            gold = card["gold"] + (2 if die.colour == GOLD else 0)
            after = attrs.evolve(p, rows=add_die(p.rows, row, die), gold=p.gold + gold)
            return max(estimate(after), _best_action(after, row))
        case Act():
            return _effect(
                p, ROW_EFFECTS[view["action_row"]], c.slot, c.other, c.delta, c.direction
            )
        case UseSkill():
            return _skill_value(p, c)
        case Keep(new=new):
            pend = view["players"][c.seat]["pending"]
            if not new:
                return estimate(p)
            d = p.die(pend["slot"])
            assert d is not None
            return estimate(
                attrs.evolve(p, rows=set_die(p.rows, pend["slot"], Die(d.colour, pend["new"])))
            )
    return None


def _skill_value(p: Player, c: UseSkill) -> float | None:
    if c.skill == "class":
        klass = p.klass_card()
        assert klass is not None
        effect = klass.ability
    else:
        card = CATALOG.cards[c.skill]
        assert card.effect is not None
        effect = card.effect
        p = attrs.evolve(p, cell=moved(p.cell, card.arrow) or p.cell)
    if effect.kind in ("gold", "credit"):
        return estimate(p) + 0.25 * effect.gold
    if effect.kind in ("charisma", "salvage") or (c.slot < 0 and not c.direction):
        return None
    return _effect(p, effect, c.slot, c.other, c.delta, c.direction)


def _best_action(p: Player, row: int) -> float:
    """The best estimate the attribute action of ``row`` can reach (swaps not searched)."""
    effect = ROW_EFFECTS[row]
    slots = [r * 3 + i for r, dice in enumerate(p.rows) for i in range(len(dice))]
    match effect.kind:
        case "flip" | "reroll":
            options = [(s, -1, 0, "") for s in slots]
        case "adjust":
            options = [(s, -1, d, "") for s in slots for d in (-1, 1)]
            options = [o for o in options if 1 <= _face(p, o[0]) + o[2] <= 6]
        case "align":
            options = [(-1, -1, 0, d) for d in DIRECTIONS if moved(p.cell, d) is not None]
        case "charisma":
            options = [(-1, -1, 0, "")]
        case _:
            return estimate(p)
    return max((_effect(p, effect, *o) for o in options), default=estimate(p))


def _face(p: Player, slot: int) -> int:
    d = p.die(slot)
    assert d is not None
    return d.value


def _effect(p: Player, effect: Effect, slot: int, other: int, delta: int, direction: str) -> float:
    if effect.kind == "align":
        return estimate(attrs.evolve(p, cell=moved(p.cell, direction) or p.cell))
    if effect.kind == "charisma":
        return estimate(p) + 0.3
    d = p.die(slot)
    assert d is not None
    if effect.kind == "swap":
        o = p.die(other)
        assert o is not None
        return estimate(attrs.evolve(p, rows=set_die(set_die(p.rows, slot, o), other, d)))
    if effect.kind == "reroll":
        faces = [
            estimate(attrs.evolve(p, rows=set_die(p.rows, slot, Die(d.colour, v))))
            for v in range(1, 7)
        ]
        base = estimate(p)
        return sum(max(f, base) for f in faces) / 6
    value = 7 - d.value if effect.kind == "flip" else d.value + delta
    return estimate(attrs.evolve(p, rows=set_die(p.rows, slot, Die(d.colour, value))))


def _projected(p: Player) -> Player:
    """``p`` with every empty space filled by a middling die (for trait guesses)."""
    rows = tuple((*row, *(Die("gold", 4) for _ in range(3 - len(row)))) for row in p.rows)
    return attrs.evolve(p, rows=rows)


def _card_value(p: Player, name: str) -> float:
    """Stars the card is likely worth to ``p`` at the end, arrow included."""
    card = CATALOG.cards[name]
    owner = attrs.evolve(p, cards=(*p.cards, name))
    if card.arrow:
        owner = attrs.evolve(owner, cell=moved(p.cell, card.arrow) or p.cell)
    value = estimate(owner) - estimate(p)  # weapons' modifiers and the arrow
    if card.kind == "armor":
        table = CATALOG.armor_sets[card.set]
        same = [c for c in p.owned("armor") if c.set == card.set]
        k = min(len(same) + 1, len(table))
        value += table[k - 1] - (table[k - 2] if k > 1 else 0)
        bonus = card.colour == p.colour and all(c.colour != p.colour for c in same)
        value += CATALOG.rules.armor_class_bonus if bonus else 0
    elif card.kind == "trait" and card.score is not None:
        value += trait_stars(_projected(owner), card.score)
    elif card.kind == "skill":
        value += 1.5
    return value


def goal_policy(view: dict[str, Any], seat: int, legal: list[Any], rng: random.Random) -> Any:
    """Play toward the class goals, class-colour dice, backstory and alignment."""
    p = player_from_view(view, seat)
    first = legal[0]
    if isinstance(first, ChooseSheet):
        return rng.choice(legal)
    if isinstance(first, ChooseClass):
        mods = CATALOG.races.get(p.race, (0,) * 6)
        return max(
            legal,
            key=lambda c: (
                sum(m * CATALOG.classes[c.klass].goals[i].low for i, m in enumerate(mods))
                + rng.random()
            ),
        )
    if any(isinstance(c, Buy | DiscardCard) for c in legal):
        return _shop(p, legal, rng)
    if isinstance(first, Refresh):
        return legal[-1]
    base = estimate(p)
    best, best_value = None, base + 0.05
    for c in legal:
        after = _value(p, view, c)
        if after is None:
            continue
        value = after + rng.random() * 0.01
        if value > best_value:
            best, best_value = c, value
    if best is not None:
        return best
    plain = [c for c in legal if not isinstance(c, UseSkill | DropWeapon)]
    return rng.choice(plain or legal)


def _shop(p: Player, legal: list[Any], rng: random.Random) -> Any:
    """Buy the card worth most over its price, if better than taking 2 gold; else discard."""
    free = sum(3 - len(row) for row in p.rows)
    weight = 0.03 + GOLD_WEIGHT * min(1.0, free / 6)
    gold = weight * CATALOG.rules.market_discard_gold

    def worth(c: Buy) -> float:
        paid = CATALOG.cards[c.card].cost - c.charisma
        return _card_value(p, c.card) - weight * paid + rng.random() * 0.01

    buys = [c for c in legal if isinstance(c, Buy) and not c.drop]
    if buys:
        best = max(buys, key=worth)
        if worth(best) > gold or p.buys:
            return best
    discards = [c for c in legal if isinstance(c, DiscardCard)]
    if discards:
        # discard what the others would value most is beyond a view-only guess: the priciest
        return max(discards, key=lambda c: CATALOG.cards[c.card].cost + rng.random())
    others = [c for c in legal if not isinstance(c, UseSkill | DropWeapon | Buy)]
    return rng.choice(others or legal)


policies: dict[str, Policy] = {"goal": goal_policy, "random": random_policy}
