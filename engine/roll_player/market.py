"""Market Phase decisions (rulebook "III. Market Phase"): buy, discard, end the turn."""

from __future__ import annotations

from engine.roll_player import errors as E
from engine.roll_player.commands import (
    Buy,
    DiscardCard,
    EndMarketTurn,
)
from engine.roll_player.content import CATALOG, Card
from engine.roll_player.events import (
    AlignmentMoved,
    Bought,
    MarketDiscarded,
    MarketTurnEnded,
    WeaponDropped,
)
from engine.roll_player.flow import Emitter
from engine.roll_player.model import (
    Player,
    State,
    moved,
)
from engine.roll_player.rounds import _no_pending
from engine.roll_player.setup import _phase, _turn


def max_buys(p: Player) -> int:
    """Purchases per Market Phase (the Bard's Charming ability allows two)."""
    klass = p.klass_card()
    return klass.ability.count if klass and klass.ability.kind == "market_buys" else 1


def price(p: Player, card: Card) -> int:
    """The card's cost after the class discount, if any."""
    klass = p.klass_card()
    off = 0
    if klass and klass.ability.kind == "discount" and klass.ability.card == card.kind:
        off = klass.ability.gold
    return max(0, card.cost - off)


def payment(p: Player, card: Card, charisma: int) -> tuple[int, int]:
    """(credit used, gold due) for ``card`` with ``charisma`` tokens; gold may exceed purse."""
    cost = price(p, card)
    credit = min(p.credit, cost)
    return credit, cost - credit - charisma


def _turn_open(s: State, seat: int) -> None:
    _phase(s, "market")
    _turn(s, seat)
    _no_pending(s, seat)


def buy(em: Emitter, c: Buy) -> None:
    """Pay the cost to the supply (tokens in place of gold); weapons within two hands."""
    s = em.state
    _turn_open(s, c.seat)
    p = s.players[c.seat]
    card = CATALOG.cards.get(c.card)
    if card is None or c.card not in s.market:
        raise E.NotInMarket(f"{c.card!r} is not in the market", card=c.card)
    if p.buys >= max_buys(p):
        raise E.NoMoreBuys("no further purchase this round")
    weapons = [w.name for w in p.owned("weapon")]
    if len(set(c.drop)) != len(c.drop) or any(w not in weapons for w in c.drop):
        raise E.NotOwned("drop only weapons you have, once each", drop=list(c.drop))
    hands = p.hands() - sum(CATALOG.cards[w].hands for w in c.drop) + card.hands
    if hands > 2:
        raise E.HandsFull("more than two hands of weapons; drop one", hands=hands)
    credit, due = payment(p, card, c.charisma)
    if not 0 <= c.charisma <= p.charisma or due < 0 or due > p.gold:
        raise E.CannotAfford(f"{c.card} costs {price(p, card)}", cost=price(p, card))
    em.emit(*(WeaponDropped(c.seat, w) for w in c.drop))
    em.emit(Bought(c.seat, c.card, due, c.charisma, credit))
    if card.kind == "trait" and moved(p.cell, card.arrow) is not None:
        em.emit(AlignmentMoved(c.seat, card.arrow))
    p = em.state.players[c.seat]
    if p.buys >= max_buys(p) or not em.state.market:
        em.emit(MarketTurnEnded(c.seat))


def discard_gold(p: Player) -> int:
    """Gold for discarding instead of buying (the Cleric's Charitable ability adds to it)."""
    klass = p.klass_card()
    extra = klass.ability.gold if klass and klass.ability.kind == "discard_gold" else 0
    return CATALOG.rules.market_discard_gold + extra


def discard(em: Emitter, c: DiscardCard) -> None:
    """Not buying: discard a market card and take 2 gold from the supply."""
    s = em.state
    _turn_open(s, c.seat)
    p = s.players[c.seat]
    if p.buys:
        raise E.NoMoreBuys("you bought this turn; end it instead")
    if c.card not in s.market:
        raise E.NotInMarket(f"{c.card!r} is not in the market", card=c.card)
    em.emit(MarketDiscarded(c.seat, c.card, discard_gold(p)))
    em.emit(MarketTurnEnded(c.seat))


def end_turn(em: Emitter, c: EndMarketTurn) -> None:
    """End the market turn after a first purchase (Bard), or when the market is empty."""
    s = em.state
    _turn_open(s, c.seat)
    if s.players[c.seat].buys == 0 and s.market:
        raise E.MustChoose("buy or discard a market card")
    em.emit(MarketTurnEnded(c.seat))
