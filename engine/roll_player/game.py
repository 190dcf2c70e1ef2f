"""The Roll Player game object: the engine contract wired to this package's modules."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.core import Policy, Result, clockwise_from
from engine.errors import GameOver, NotASeat
from engine.memo import FRESH, Memo
from engine.roll_player import legal, market, rounds, setup
from engine.roll_player.commands import (
    COMMANDS,
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
from engine.roll_player.events import EVENTS, SetUp
from engine.roll_player.evolve import create, evolve
from engine.roll_player.flow import Emitter, advance
from engine.roll_player.model import State
from engine.roll_player.scoring import breakdown, winners
from engine.roll_player.view import view

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


class RollPlayer:
    """Roll Player for 2 to 4 players."""

    name = "roll-player"
    public_view = True  # nothing is private to a seat: one view serves every viewer
    title = "Roll Player"
    min_seats = setup.MIN_SEATS
    max_seats = setup.MAX_SEATS
    commands = COMMANDS
    events = EVENTS

    def __init__(self, policies: Mapping[str, Policy]) -> None:
        self.policies = policies

    def default_options(self) -> dict[str, Any]:
        """``class_mode``: ``draw`` (a die picks the class card) or ``choice`` (reverse order)."""
        return dict(setup.DEFAULT_OPTIONS)

    def setup(self, seats: int, options: Mapping[str, Any], seed: int) -> SetUp:
        """The setup event (Start Player, market deck)."""
        return setup.setup(seats, options, seed)

    def create(self, setup_event: SetUp) -> State:
        """The first state; automatic setup steps follow the first decisions."""
        return create(setup_event)

    def decide(self, state: State, command: Any) -> tuple[Any, ...]:
        """Events caused by ``command``, or a Rejection."""
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
        return tuple(em.events)

    def evolve(self, state: State, event: Any) -> State:
        """Apply one event."""
        return evolve(state, event)

    def view(self, state: State, viewer: int | None, memo: Memo = FRESH) -> dict[str, Any]:
        """Public facts; never the deck order or the bag."""
        return view(state, viewer, memo)

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        """Commands ``seat`` may send now."""
        return legal.legal_commands(state, seat)

    def awaiting(self, state: State) -> frozenset[int]:
        """Seats whose clocks run."""
        return legal.awaiting(state)

    def timeout_command(self, state: State, seat: int) -> Any | None:
        """The default move of an awaited seat."""
        return legal.timeout_command(state, seat)

    def turn_order(self, state: State) -> tuple[int, ...]:
        """The seat whose decision it is (else the Start Player), then clockwise."""
        first = (
            state.queue[0] if state.queue else state.turn if state.turn is not None else state.start
        )
        return clockwise_from(first, state.seats)

    def is_over(self, state: State) -> bool:
        """Whether the last round is scored."""
        return state.phase == "over"

    def result(self, state: State) -> Result | None:
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

    def public_name(self, event: Any) -> str:
        """The event's wire tag, e.g. ``drafted``."""
        return str(getattr(type(event), "TYPE", type(event).__name__))
