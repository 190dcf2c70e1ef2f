"""Roll Player's ``create`` and ``evolve``: one small case per event, nothing drawn."""

from __future__ import annotations

from engine.frozen import replace
from engine.roll_player.content import CATALOG
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
    Event,
    Flipped,
    GameEnded,
    GoldGained,
    Kept,
    MarketDiscarded,
    MarketTurnEnded,
    Refreshed,
    Rerolled,
    Salvaged,
    SetUp,
    SheetChosen,
    SkillUsed,
    StartingDiceDrawn,
    StartingDicePlaced,
    Swapped,
    WeaponDropped,
)
from engine.roll_player.model import (
    Die,
    Initiative,
    Pending,
    Player,
    State,
    add_die,
    bag_add,
    moved,
    order_from,
    put,
    set_die,
)


def create(setup: SetUp) -> State:
    """The first state: gold by seat order, Initiative cards with gold, a full bag."""
    rules = CATALOG.rules
    n, order = setup.seats, order_from(setup.start, setup.seats)
    gold = [0] * n
    for position, seat in enumerate(order):
        gold[seat] = rules.start_gold + rules.extra_gold_by_seat[position]
    numbers = rules.initiative[: n + 1]
    cards = tuple(Initiative(k, None, 0 if k in (numbers[0], numbers[-1]) else 1) for k in numbers)
    return State(
        seats=n,
        seed=setup.seed,
        draws=1,
        class_mode="choice" if setup.class_mode == "choice" else "draw",
        phase="sheets",
        start=setup.start,
        turn=setup.start,
        players=tuple(Player(gold=g) for g in gold),
        bag=CATALOG.dice,
        supply=rules.supply - sum(gold) - sum(c.gold for c in cards),
        initiative=cards,
        deck=setup.deck,
        queue=order,
    )


def evolve(state: State, event: Event) -> State:
    """Apply one event."""
    state = replace(state, draws=state.draws + 1)
    match event:
        case SetUp():
            return create(event)
        case SheetChosen(seat=seat, race=race, side=side):
            return _sheet(_edit(state, seat, race=race, side=side))
        case ClassDiceDrawn(draws=draws):
            players = tuple(
                replace(p, colour=d[-1]) for p, d in zip(state.players, draws, strict=True)
            )
            return replace(
                state,
                phase="classes",
                class_draws=draws,
                players=players,
                done=frozenset(),
                turn=None,
                queue=(),
            )
        case ClassChosen(seat=seat, klass=klass):
            state = _edit(state, seat, klass=klass, colour=CATALOG.classes[klass].colour)
            return (
                _next(replace(state, done=state.done | {seat}))
                if state.queue
                else replace(state, done=state.done | {seat})
            )
        case CardsDealt(backstories=stories, alignments=aligns):
            players = tuple(
                replace(p, backstory=b, alignment=a)
                for p, b, a in zip(state.players, stories, aligns, strict=True)
            )
            k = state.seats + 1
            return replace(state, players=players, market=state.deck[:k], deck=state.deck[k:])
        case StartingDiceDrawn(dice=dice):
            bag = bag_add(state.bag, tuple(d for ds in dice for d in ds), -1)
            return replace(
                state, phase="placing", starting=dice, bag=bag, done=frozenset(), turn=None
            )
        case StartingDicePlaced(seat=seat, rows=rows, gold=gold):
            return _placed(state, seat, rows, gold)
        case DiceRolled(round=number, dice=dice):
            return replace(
                state,
                round=number,
                pool=dice,
                bag=bag_add(state.bag, dice, -1),
                phase="arrange",
                turn=state.start,
            )
        case DiceArranged(dice=dice):
            cards = tuple(replace(c, die=d) for c, d in zip(state.initiative, dice, strict=True))
            order = order_from(state.start, state.seats)
            return replace(
                state, initiative=cards, pool=(), phase="dice", queue=order, turn=order[0]
            )
        case Drafted():
            return _drafted(state, event)
        case Flipped(seat=seat, slot=slot):
            return _face(state, seat, slot, lambda v: 7 - v)
        case Adjusted(seat=seat, slot=slot, delta=delta):
            return _face(state, seat, slot, lambda v: v + delta)
        case Swapped(seat=seat, slot=a, other=b):
            p = state.players[seat]
            da, db = p.die(a), p.die(b)
            assert da is not None and db is not None
            return _edit(state, seat, rows=set_die(set_die(p.rows, a, db), b, da))
        case Rerolled(seat=seat, slot=slot, value=value, source=source):
            die = state.players[seat].die(slot)
            assert die is not None
            return _edit(state, seat, pending=Pending(slot, die.value, value, source))
        case Kept(seat=seat, new=new):
            pending = state.players[seat].pending
            assert pending is not None
            if new:
                state = _face(state, seat, pending.slot, lambda v: pending.new)
            return _edit(state, seat, pending=None)
        case AlignmentMoved(seat=seat, direction=direction):
            cell = moved(state.players[seat].cell, direction)
            return _edit(state, seat, cell=state.players[seat].cell if cell is None else cell)
        case CharismaTaken(seat=seat):
            return _edit(state, seat, charisma=state.players[seat].charisma + 1)
        case GoldGained(seat=seat, gold=gold):
            state = _edit(state, seat, gold=state.players[seat].gold + gold)
            return replace(state, supply=state.supply - gold)
        case CreditGained(seat=seat, gold=gold):
            return _edit(state, seat, credit=state.players[seat].credit + gold)
        case Salvaged(card=card):
            return replace(
                state, discard=_without(state.discard, card), market=(*state.market, card)
            )
        case ActionDone():
            return _action_done(state)
        case SkillUsed(seat=seat, skill=skill):
            return _skill_used(state, seat, skill)
        case Bought():
            return _bought(state, event)
        case WeaponDropped(seat=seat, card=card):
            state = _edit(state, seat, cards=_without(state.players[seat].cards, card))
            return replace(state, discard=(*state.discard, card))
        case MarketDiscarded(seat=seat, card=card, gold=gold):
            state = _edit(state, seat, gold=state.players[seat].gold + gold)
            return replace(
                state,
                supply=state.supply - gold,
                market=_without(state.market, card),
                discard=(*state.discard, card),
            )
        case MarketTurnEnded(seat=seat):
            return _market_turn_ended(_edit(state, seat, buys=0))
        case Refreshed(seat=seat, skill=skill):
            state = _edit(state, seat, exhausted=state.players[seat].exhausted - {skill})
            return replace(state, done=state.done | {seat})
        case CleanedUp(reshuffled=reshuffled):
            return _cleaned_up(state, reshuffled)
        case GameEnded():
            return replace(state, phase="over", turn=None, queue=(), done=frozenset())
    raise TypeError(f"not a Roll Player event: {event!r}")  # pragma: no cover


def _edit(state: State, seat: int, **changes: object) -> State:
    player = replace(state.players[seat], **changes)
    return replace(state, players=put(state.players, seat, player))


def _without(items: tuple[str, ...], item: str) -> tuple[str, ...]:
    i = items.index(item)
    return items[:i] + items[i + 1 :]


def _next(state: State) -> State:
    queue = state.queue[1:]
    return replace(state, queue=queue, turn=queue[0] if queue else None)


def _sheet(state: State) -> State:
    state = _next(state)
    if state.queue or state.class_mode != "choice":
        return state
    order = tuple(reversed(order_from(state.start, state.seats)))
    return replace(state, phase="classes", queue=order, turn=order[0], done=frozenset())


def _face(state: State, seat: int, slot: int, change: object) -> State:
    p = state.players[seat]
    die = p.die(slot)
    assert die is not None and callable(change)
    return _edit(state, seat, rows=set_die(p.rows, slot, Die(die.colour, change(die.value))))


def _placed(state: State, seat: int, rows: tuple[int, ...], gold: int) -> State:
    p = state.players[seat]
    sheet = p.rows
    for die, row in zip(state.starting[seat], rows, strict=True):
        sheet = add_die(sheet, row, die)
    starting = (*state.starting[:seat], (), *state.starting[seat + 1 :])
    state = _edit(state, seat, rows=sheet, gold=p.gold + gold)
    return replace(state, supply=state.supply - gold, starting=starting, done=state.done | {seat})


def _drafted(state: State, e: Drafted) -> State:
    cards = state.initiative
    i = next(k for k, c in enumerate(cards) if c.number == e.card)
    die = cards[i].die
    assert die is not None
    cards = (*cards[:i], Initiative(e.card, None, 0), *cards[i + 1 :])
    p = state.players[e.seat]
    state = _edit(
        state,
        e.seat,
        rows=add_die(p.rows, e.row, die),
        gold=p.gold + e.card_gold + e.gold,
        initiative=e.card,
    )
    return replace(
        state, initiative=cards, supply=state.supply - e.gold, phase="action", action_row=e.row
    )


def _action_done(state: State) -> State:
    state = replace(_next(state), action_row=-1)
    if state.queue:
        return replace(state, phase="dice")
    order = tuple(sorted(range(state.seats), key=lambda s: state.players[s].initiative))
    return replace(state, phase="market", queue=order, turn=order[0])


def _skill_used(state: State, seat: int, skill: str) -> State:
    p = state.players[seat]
    cell = p.cell
    if skill != "class":
        cell = moved(cell, CATALOG.cards[skill].arrow) or cell
    return _edit(state, seat, exhausted=p.exhausted | {skill}, cell=cell)


def _bought(state: State, e: Bought) -> State:
    p = state.players[e.seat]
    state = _edit(
        state,
        e.seat,
        gold=p.gold - e.gold,
        charisma=p.charisma - e.charisma,
        credit=p.credit - e.credit,
        cards=(*p.cards, e.card),
        buys=p.buys + 1,
    )
    return replace(state, supply=state.supply + e.gold, market=_without(state.market, e.card))


def _market_turn_ended(state: State) -> State:
    state = _next(state)
    if state.queue:
        return state
    idle = frozenset(s for s, p in enumerate(state.players) if not p.exhausted)
    return replace(state, phase="refresh", done=idle)


def _cleaned_up(state: State, reshuffled: tuple[str, ...] | None) -> State:
    leftover = tuple(c.die for c in state.initiative if c.die is not None)
    supply, cards = state.supply, []
    for k, c in enumerate(state.initiative):
        middle = 0 < k < len(state.initiative) - 1
        top = 1 if middle and c.gold == 0 else 0
        supply -= top
        cards.append(Initiative(c.number, None, c.gold + top))
    discard, deck, need = (*state.discard, *state.market), state.deck, len(state.initiative)
    market = deck[:need]
    deck = deck[need:]
    if reshuffled is not None:
        deck, discard = reshuffled, ()
        market, deck = (*market, *deck[: need - len(market)]), deck[need - len(market) :]
    players = tuple(replace(p, charisma=0, credit=0, initiative=0, buys=0) for p in state.players)
    return replace(
        state,
        players=players,
        bag=bag_add(state.bag, leftover),
        supply=supply,
        initiative=tuple(cards),
        market=market,
        deck=deck,
        discard=discard,
        start=(state.start + 1) % state.seats,
        phase="arrange",
        turn=None,
        done=frozenset(),
    )
