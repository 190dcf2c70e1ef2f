"""Roll Player's ``decide``: each command to its phase's handler, then the automatic steps.

A handler (in :mod:`.setup`, :mod:`.rounds` or :mod:`.market`) checks the command
against the rules and emits its events into an :class:`~engine.roll_player.flow.Emitter`,
which evolves a working state as it goes; :func:`~engine.roll_player.flow.advance` then
adds what happens by itself until a seat has a decision to make (draws, deals, rolls,
cleanup, the end).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.errors import GameOver, NotASeat
from engine.roll_player import market, rounds, setup
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
from engine.roll_player.errors import UnknownName
from engine.roll_player.flow import Emitter, advance
from engine.roll_player.model import (
    State,
)

HANDLERS: dict[type, Callable[[Emitter, Any], None]] = {
    ChooseSheet: setup.choose_sheet,
    ChooseClass: setup.choose_class,
    PlaceStart: setup.place_start,
    Arrange: rounds.arrange,
    Draft: rounds.draft,
    Act: rounds.act,
    SkipAction: rounds.skip_action,
    Keep: rounds.keep,
    UseSkill: rounds.use_skill,
    DropWeapon: rounds.drop_weapon,
    Refresh: rounds.refresh,
    Buy: market.buy,
    DiscardCard: market.discard,
    EndMarketTurn: market.end_turn,
}


def decide(state: State, command: Any) -> tuple[Any, ...]:
    """Events caused by ``command``, or a Rejection."""
    return decide_with_states(state, command)[0]


def decide_with_states(state: State, command: Any) -> tuple[tuple[Any, ...], tuple[State, ...]]:
    """Events caused by ``command`` and the state after each (the emitter evolved them
    all to find the automatic steps), or a Rejection."""
    if state.phase == "over":
        raise GameOver("the game is over")
    seat = getattr(command, "seat", None)
    if not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise NotASeat(f"no seat {seat!r} at this table", seat=seat)
    handler = HANDLERS.get(type(command))
    if handler is None:
        raise UnknownName(f"not a Roll Player command: {type(command).__name__}")
    em = Emitter(state)
    handler(em, command)
    advance(em)
    return tuple(em.events), tuple(em.states)
