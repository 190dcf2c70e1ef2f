"""The Roll Player game object: the engine contract wired to this package's modules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Game, Policy, Result, clockwise_from
from engine.memo import FRESH, Memo
from engine.roll_player import legal, setup
from engine.roll_player import view as _views
from engine.roll_player.commands import (
    COMMANDS,
)
from engine.roll_player.decide import decide, decide_with_states
from engine.roll_player.events import (
    EVENTS,
    SetUp,
)
from engine.roll_player.evolve import create, evolve
from engine.roll_player.model import (
    State,
)
from engine.roll_player.scoring import result
from engine.roll_player.view import view


class RollPlayer(Game[State]):
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
        return decide(state, command)

    def decide_with_states(
        self, state: State, command: Any
    ) -> tuple[tuple[Any, ...], tuple[State, ...] | None]:
        """The events and the state after each: the emitter evolved them all already."""
        return decide_with_states(state, command)

    def evolve(self, state: State, event: Any) -> State:
        """Apply one event."""
        return evolve(state, event)

    def view(self, state: State, viewer: int | None, memo: Memo = FRESH) -> dict[str, Any]:
        """Public facts; never the deck order or the bag."""
        return view(state, viewer, memo)

    seat_part = "players"
    touches = _views.TOUCHES

    def view_part(self, state: State, key: str, memo: Memo = FRESH) -> Any:
        """One top-level key of the view, built alone."""
        return _views.view_part(state, key, memo)

    def seat_view(self, state: State, seat: int, memo: Memo = FRESH) -> Any:
        """One seat's entry of the view, built alone."""
        return _views.seat_view(state, seat, memo)

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        """Commands ``seat`` may send now."""
        return legal.legal_commands(state, seat)

    def legal_inputs(self, state: State, seat: int) -> tuple[Any, ...]:
        """What ``seat``'s legal commands are made from (another seat's move rarely
        changes them)."""
        return legal.legal_inputs(state, seat)

    def awaiting(self, state: State) -> frozenset[int]:
        """Seats whose clocks run."""
        return legal.awaiting(state)

    def timeout_command(self, state: State, seat: int) -> Any | None:
        """The default move of an awaited seat."""
        return legal.timeout_command(state, seat)

    def turn_order(self, state: State, seats: int) -> tuple[int, ...]:
        """The seat whose decision it is (else the Start Player), then clockwise."""
        first = (
            state.queue[0] if state.queue else state.turn if state.turn is not None else state.start
        )
        return clockwise_from(first, seats)

    def is_over(self, state: State) -> bool:
        """Whether the last round is scored."""
        return state.phase == "over"

    def result(self, state: State) -> Result | None:
        """Totals, winners (ties: gold, then fewer class dice) and each item of scoring."""
        return result(state)

    def public_name(self, event: Any) -> str:
        """The event's wire tag, e.g. ``drafted``."""
        return str(getattr(type(event), "TYPE", type(event).__name__))
