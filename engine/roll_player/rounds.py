"""Round decisions: the roll phase tie order, the dice phase, skills, rerolls, cleanup.

Rulebook "Overview of a Round", "Using Skill Cards", "Cleanup Phase".
"""

from __future__ import annotations

import itertools

from engine.roll_player import errors as E
from engine.roll_player.commands import (
    Act,
    Arrange,
    Draft,
    DropWeapon,
    Keep,
    Refresh,
    SkipAction,
    UseSkill,
)
from engine.roll_player.content import CATALOG, GOLD, Effect
from engine.roll_player.effects import ROW_EFFECTS, Target, effect_events, unused
from engine.roll_player.events import (
    ActionDone,
    DiceArranged,
    Drafted,
    Kept,
    Refreshed,
    Rerolled,
    SkillUsed,
    WeaponDropped,
)
from engine.roll_player.flow import Emitter
from engine.roll_player.model import (
    State,
    gold_per_die,
    moved,
)
from engine.roll_player.setup import _phase, _turn

SETUP_PHASES = ("sheets", "classes", "placing")


def arrange(em: Emitter, c: Arrange) -> None:
    """Roll phase: the Start Player orders tied dice; values must rise card by card."""
    s = em.state
    _phase(s, "arrange")
    _turn(s, c.seat)
    if sorted(c.order) != list(range(len(s.pool))):
        raise E.BadArrangement("order must name each pool die once", order=list(c.order))
    dice = tuple(s.pool[i] for i in c.order)
    if any(a.value > b.value for a, b in itertools.pairwise(dice)):
        raise E.BadArrangement("lower values go on lower Initiative cards")
    em.emit(DiceArranged(dice))


def draft(em: Emitter, c: Draft) -> None:
    """Dice phase: take a card with its die and gold; place the die; gain gold."""
    s = em.state
    _phase(s, "dice")
    _turn(s, c.seat)
    _no_pending(s, c.seat)
    card = next((k for k in s.initiative if k.number == c.card and k.die is not None), None)
    if card is None or card.die is None:
        raise E.InitiativeTaken(f"Initiative card {c.card} has no die", card=c.card)
    if not 0 <= c.row < 6:
        raise E.BadTarget(f"no row {c.row}", row=c.row)
    player = s.players[c.seat]
    if len(player.rows[c.row]) == 3:
        raise E.RowFull(f"row {c.row} is full", row=c.row)
    gold = CATALOG.rules.full_row_gold if len(player.rows[c.row]) == 2 else 0
    if card.die.colour == GOLD:
        gold += gold_per_die(player)
    em.emit(Drafted(c.seat, c.card, c.row, card.gold, gold))


def act(em: Emitter, c: Act) -> None:
    """Dice phase: the attribute action of the row just filled (one per turn)."""
    s = em.state
    _phase(s, "action")
    _turn(s, c.seat)
    _no_pending(s, c.seat)
    effect = ROW_EFFECTS[s.action_row]
    target = Target(c.slot, c.other, c.delta, c.direction)
    if unused(effect, target):
        raise E.BadTarget("name the target of the action, or skip it")
    events = effect_events(s, c.seat, effect, target, "action", em.rng)
    em.emit(*events)
    if not isinstance(events[-1], Rerolled):
        em.emit(ActionDone(c.seat))


def skip_action(em: Emitter, c: SkipAction) -> None:
    """Dice phase: the attribute action is optional."""
    s = em.state
    _phase(s, "action")
    _turn(s, c.seat)
    _no_pending(s, c.seat)
    em.emit(ActionDone(c.seat))


def keep(em: Emitter, c: Keep) -> None:
    """Intelligence (and reroll effects): keep either the new or the original value."""
    pending = em.state.players[c.seat].pending
    if pending is None:
        raise E.NoReroll("no rerolled die waits for you")
    em.emit(Kept(c.seat, c.new))
    if pending.source == "action":
        em.emit(ActionDone(c.seat))


def skill_effect(s: State, seat: int, skill: str) -> Effect:
    """The effect ``seat`` would use with ``skill``; raises when it cannot be used now."""
    player = s.players[seat]
    if s.phase in SETUP_PHASES or s.phase == "over":
        raise E.WrongPhase("skills are used during rounds", phase=s.phase)
    if skill in player.exhausted:
        raise E.Exhausted(f"{skill} is exhausted", skill=skill)
    if skill == "class":
        klass = player.klass_card()
        if klass is None or not klass.ability.active:
            raise E.NotOwned("your class ability is not one you use")
        effect = klass.ability
    else:
        card = CATALOG.cards.get(skill)
        if card is None or card.effect is None or skill not in player.cards:
            raise E.NotOwned(f"you have no skill {skill!r}", skill=skill)
        if moved(player.cell, card.arrow) is None:
            raise E.AlignmentBlocked("the skill's arrow leads off the alignment card")
        effect = card.effect
    if effect.when == "market_turn" and (s.phase != "market" or s.turn != seat):
        raise E.NotNow(f"{skill} is used in your Market Phase turn", skill=skill)
    _no_pending(s, seat)
    return effect


def use_skill(em: Emitter, c: UseSkill) -> None:
    """Using Skill Cards: move the token by the arrow, use the ability if wished, exhaust."""
    effect = skill_effect(em.state, c.seat, c.skill)
    target = Target(c.slot, c.other, c.delta, c.direction, c.card)
    em.emit(SkillUsed(c.seat, c.skill))  # the arrow first: an align effect starts from there
    if not unused(effect, target):
        em.emit(*effect_events(em.state, c.seat, effect, target, c.skill, em.rng))


def drop_weapon(em: Emitter, c: DropWeapon) -> None:
    """Market Phase: at any time a weapon may go to the market discard pile."""
    s = em.state
    if s.phase in SETUP_PHASES:
        raise E.WrongPhase("no weapons during setup", phase=s.phase)
    card = CATALOG.cards.get(c.card)
    if card is None or card.kind != "weapon" or c.card not in s.players[c.seat].cards:
        raise E.NotOwned(f"you have no weapon {c.card!r}", card=c.card)
    em.emit(WeaponDropped(c.seat, c.card))


def refresh(em: Emitter, c: Refresh) -> None:
    """Cleanup step 2: each seat may turn one exhausted card upright."""
    s = em.state
    _phase(s, "refresh")
    if c.seat in s.done:
        raise E.AlreadyDone("already refreshed this round", seat=c.seat)
    if c.skill and c.skill not in s.players[c.seat].exhausted:
        raise E.NotOwned(f"{c.skill!r} is not exhausted", skill=c.skill)
    em.emit(Refreshed(c.seat, c.skill))


def _no_pending(s: State, seat: int) -> None:
    if s.players[seat].pending is not None:
        raise E.RerollPending("keep the new or the old face of your rerolled die first")
