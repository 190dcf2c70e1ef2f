"""Legal commands per seat, the seats awaited, and what a clock runs out into.

Large choice spaces are cut to the reasonable ones: starting placements are a
fixed set of orderly fillings plus a deterministic sample, and swaps of two
identical dice are left out.
"""

from __future__ import annotations

import itertools
from typing import Any

from engine.core import rng_for
from engine.frozen import replace
from engine.roll_player.commands import (
    Act,
    Arrange,
    Buy,
    ChooseClass,
    ChooseSheet,
    DiscardCard,
    Draft,
    DropWeapon,
    EndMarketTurn,
    Keep,
    PlaceStart,
    Refresh,
    SkipAction,
    UseSkill,
)
from engine.roll_player.content import CATALOG
from engine.roll_player.effects import NO_TARGET, ROW_EFFECTS, player_targets, targets
from engine.roll_player.errors import RollPlayerRejection
from engine.roll_player.market import max_buys, payment
from engine.roll_player.model import (
    State,
    moved,
)
from engine.roll_player.rounds import SETUP_PHASES, skill_effect
from engine.roll_player.setup import SIDES, class_options

SAMPLED_PLACEMENTS = 24


def awaiting(s: State) -> frozenset[int]:
    """Seats with a decision now: the turn holder, or everyone not yet done, and rerolls."""
    waiting = {seat for seat, p in enumerate(s.players) if p.pending is not None}
    if s.phase == "over":
        return frozenset()
    if s.turn is not None:
        waiting.add(s.turn)
    elif s.phase in ("classes", "placing", "refresh"):
        waiting |= set(range(s.seats)) - s.done
    return frozenset(waiting)


def is_awaited(s: State, seat: int) -> bool:
    """Whether ``seat`` is in :func:`awaiting` (without making the set)."""
    if s.phase == "over" or not 0 <= seat < s.seats:
        return False
    if s.players[seat].pending is not None:
        return True
    if s.turn is not None:
        return s.turn == seat
    return s.phase in ("classes", "placing", "refresh") and seat not in s.done


def legal_inputs(s: State, seat: int) -> tuple[Any, ...]:
    """The parts of ``s`` that ``legal_commands(s, seat)`` reads (a host compares them by
    identity and keeps the commands while all are the same objects).

    A seat that is not awaited has only its skills and weapon drops: they read its own
    sheet, whether rounds are on, whether it is its Market Phase turn (``market_turn``
    skills) and, for a seat with a salvage ability, the discard pile. An awaited seat's
    decision reads the phase and the phase's own parts too; another seat's sheet
    matters only while sheets and classes are chosen."""
    player = s.players[seat]
    awaited = is_awaited(s, seat)
    common = (
        awaited,
        s.phase if awaited else s.phase in _NO_SKILLS,
        s.phase == "market" and s.turn == seat,
        player,
        s.discard if player.klass in SALVAGING or not SALVAGING.isdisjoint(player.cards) else None,
    )
    if not awaited:
        return common
    match s.phase:
        case "sheets" | "classes":
            return (*common, s.players, s.class_mode)
        case "placing":
            return (*common, s.starting, s.seed, s.draws)
        case "arrange":
            return (*common, s.pool)
        case "dice":
            return (*common, s.initiative)
        case "action":
            return (*common, s.action_row)
        case "market":
            return (*common, s.market)
    return common


_NO_SKILLS = frozenset((*SETUP_PHASES, "over"))
SALVAGING = frozenset(
    [name for name, card in CATALOG.cards.items() if card.effect and card.effect.kind == "salvage"]
    + [name for name, k in CATALOG.classes.items() if k.ability.kind == "salvage"]
)
"""The skill cards and classes whose ability takes a card from the discard pile."""


def legal_commands(s: State, seat: int) -> list[Any]:
    """Every command ``seat`` may send now (placements: a reasonable subset)."""
    if s.phase == "over" or not 0 <= seat < s.seats:
        return []
    if s.players[seat].pending is not None:
        return [Keep(seat, True), Keep(seat, False)]
    out = _decision(s, seat)
    if s.phase not in SETUP_PHASES:
        out += _skills(s, seat)
        out += [DropWeapon(seat, w.name) for w in s.players[seat].owned("weapon")]
    return out


def timeout_command(s: State, seat: int) -> Any | None:
    """A sensible default for an awaited seat: the first offered decision."""
    if not is_awaited(s, seat):
        return None
    if s.players[seat].pending is not None:
        return Keep(seat, False)
    if s.phase == "action":
        return SkipAction(seat)
    if s.phase == "market" and s.players[seat].buys:
        return EndMarketTurn(seat)
    options = _decision(s, seat)
    discards = [c for c in options if isinstance(c, DiscardCard)]
    return discards[0] if discards else (options[0] if options else None)


def _decision(s: State, seat: int) -> list[Any]:
    if not is_awaited(s, seat):
        return []
    match s.phase:
        case "sheets":
            free = [r for r in CATALOG.races if all(p.race != r for p in s.players)]
            return [ChooseSheet(seat, r, side) for r in free for side in SIDES]
        case "classes":
            return [ChooseClass(seat, k) for k in class_options(s, seat)]
        case "placing":
            return [PlaceStart(seat, rows) for rows in placements(s, seat)]
        case "arrange":
            return [Arrange(seat, order) for order in arrangements(s)]
        case "dice":
            return _drafts(s, seat)
        case "action":
            effect = ROW_EFFECTS[s.action_row]
            acts = [
                Act(seat, t.slot, t.other, t.delta, t.direction) for t in targets(s, seat, effect)
            ]
            return [SkipAction(seat), *acts]
        case "market":
            return _market(s, seat)
        case "refresh":
            return [
                Refresh(seat, ""),
                *(Refresh(seat, k) for k in sorted(s.players[seat].exhausted)),
            ]
    return []


def _drafts(s: State, seat: int) -> list[Any]:
    rows = [r for r, row in enumerate(s.players[seat].rows) if len(row) < 3]
    return [Draft(seat, c.number, r) for c in s.initiative if c.die is not None for r in rows]


def placements(s: State, seat: int) -> list[tuple[int, ...]]:
    """Orderly fillings (row by row, spread one per row) and a deterministic sample."""
    n = len(s.starting[seat])
    found: dict[tuple[int, ...], None] = {}
    found[tuple(i // 3 for i in range(n))] = None
    found[tuple(i % 6 for i in range(n))] = None
    rng = rng_for(s.seed, -1 - seat - 8 * s.draws)
    slots = [r for r in range(6) for _ in range(3)]
    for _ in range(SAMPLED_PLACEMENTS):
        found[tuple(rng.sample(slots, n))] = None
    return list(found)


def arrangements(s: State) -> list[tuple[int, ...]]:
    """Every value-ordered order of the pool, identical dice counted once."""
    order = sorted(range(len(s.pool)), key=lambda i: s.pool[i].value)
    groups = [list(g) for _, g in itertools.groupby(order, key=lambda i: s.pool[i].value)]
    found: dict[tuple[Any, ...], tuple[int, ...]] = {}
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        flat = tuple(i for g in combo for i in g)
        found.setdefault(tuple(s.pool[i] for i in flat), flat)
    return list(found.values())


def _market(s: State, seat: int) -> list[Any]:
    p = s.players[seat]
    out: list[Any] = []
    if p.buys < max_buys(p):
        for name in dict.fromkeys(s.market):
            out += _buys(s, seat, name)
    if not p.buys:
        out += [DiscardCard(seat, name) for name in dict.fromkeys(s.market)]
    if p.buys or not s.market:
        out.append(EndMarketTurn(seat))
    return out


def _buys(s: State, seat: int, name: str) -> list[Any]:
    p, card = s.players[seat], CATALOG.cards[name]
    drops: list[tuple[str, ...]] = [()]
    if p.hands() + card.hands > 2:
        weapons = [w.name for w in p.owned("weapon")]
        need = p.hands() + card.hands - 2
        drops = [
            d
            for k in (1, 2)
            for d in itertools.combinations(weapons, k)
            if sum(CATALOG.cards[w].hands for w in d) >= need
        ]
    out = []
    for tokens in range(min(p.charisma, max(0, payment(p, card, 0)[1])) + 1):
        if 0 <= payment(p, card, tokens)[1] <= p.gold:
            out += [Buy(seat, name, tokens, d) for d in drops]
    return out


def _skills(s: State, seat: int) -> list[Any]:
    """Each usable skill (a copy owned twice counts once) plainly, then with each target
    from where its arrow moves the token; a target that names nothing is the plain use."""
    p = s.players[seat]
    out: list[Any] = []
    names = list(dict.fromkeys(c.name for c in p.owned("skill")))
    klass = p.klass_card()
    if klass is not None and klass.ability.active:
        names.append("class")
    for name in names:
        try:
            effect = skill_effect(s, seat, name)
        except RollPlayerRejection:
            continue
        after = p
        if name != "class":
            out.append(UseSkill(seat, name))
            after = replace(p, cell=moved(p.cell, CATALOG.cards[name].arrow) or p.cell)
        for t in player_targets(after, s.discard, effect):
            if name != "class" and t == NO_TARGET:
                continue  # the plain use, listed already
            out.append(UseSkill(seat, name, t.slot, t.other, t.delta, t.direction, t.card))
    return out
