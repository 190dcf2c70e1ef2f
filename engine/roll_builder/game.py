"""The :class:`RollBuilder` game object: the engine contract wired to this package's modules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Game, Policy, Result
from engine.data import Registry
from engine.memo import FRESH, Memo
from engine.roll_builder import view as _views
from engine.roll_builder.bots import policies as bot_policies
from engine.roll_builder.decide import decide as _decide
from engine.roll_builder.evolve import create as _create
from engine.roll_builder.evolve import evolve as _evolve
from engine.roll_builder.legal import awaiting as _awaiting
from engine.roll_builder.legal import legal_commands as _legal
from engine.roll_builder.legal import timeout_command as _timeout
from engine.roll_builder.lookahead import bot as lookahead_bot
from engine.roll_builder.model import COMMANDS, SetUp, State
from engine.roll_builder.model import EVENTS as EVENT_TYPES
from engine.roll_builder.scoring import result as _result
from engine.roll_builder.search import bot as plan_bot
from engine.roll_builder.setup import MAX_SEATS, MIN_SEATS
from engine.roll_builder.setup import default_options as _default_options
from engine.roll_builder.setup import setup as _setup
from engine.roll_builder.view import view as _view


class RollBuilder(Game[State]):
    """Roll Builder for 1 to 6 players (simultaneous turns)."""

    name = "roll-builder"
    public_view = True  # nothing is private to a seat: one view serves every viewer
    title = "Roll Builder"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    commands = Registry("command", list(COMMANDS))
    events = Registry("event", list(EVENT_TYPES))
    policies: Mapping[str, Policy] = {
        **bot_policies,
        "plan": plan_bot,
        "lookahead": lookahead_bot,
    }

    def default_options(self) -> dict[str, Any]:
        """Every option with its default value (see :mod:`.setup`)."""
        return _default_options()

    def setup(self, seats: int, options: Mapping[str, Any], seed: int) -> SetUp:
        """Validate the options; draw random choices and the first roll."""
        return _setup(seats, options, seed)

    def create(self, setup_event: SetUp) -> State:
        """The first state."""
        return _create(setup_event)

    def decide(self, state: State, command: Any) -> tuple[Any, ...]:
        """Events caused by ``command``, or a Rejection."""
        return _decide(state, command)

    def evolve(self, state: State, event: Any) -> State:
        """Apply one event."""
        return _evolve(state, event)

    def view(self, state: State, viewer: int | None, memo: Memo = FRESH) -> dict[str, Any]:
        """The table as plain data."""
        return _view(state, viewer, memo)

    seat_part = "players"
    touches = _views.TOUCHES

    def view_part(self, state: State, key: str, memo: Memo = FRESH) -> Any:
        """One top-level key of the view, built alone."""
        return _views.view_part(state, key, memo)

    def seat_view(self, state: State, seat: int, memo: Memo = FRESH) -> Any:
        """One seat's entry of the view, built alone."""
        return _views.seat_view(state, seat, memo)

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        """Every command ``seat`` may send now."""
        return list(_legal(state, seat))

    def legal_inputs(self, state: State, seat: int) -> tuple[Any, ...]:
        """What ``seat``'s legal commands are made from: its own sheet, the shared dice and
        the turn and event (another seat's move never changes them)."""
        return (state.players[seat], state.dice, state.turn, state.event, state.over)

    def awaiting(self, state: State) -> frozenset[int]:
        """Seats not done with the turn."""
        return _awaiting(state)

    def timeout_command(self, state: State, seat: int) -> Any | None:
        """``Done`` for an awaited seat."""
        return _timeout(state, seat)

    def is_over(self, state: State) -> bool:
        """Whether the fifteenth turn is over."""
        return state.over

    def result(self, state: State) -> Result | None:
        """Scores item by item; solo with an event: won only if the city survives."""
        return _result(state)

    def public_name(self, event: Any) -> str:
        """The event's wire tag."""
        return str(getattr(event, "TYPE", "event"))
