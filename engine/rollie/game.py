"""The :class:`Rollie` game object: the engine contract wired to this package's modules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Game, Policy, Result, clockwise_from
from engine.data import Registry
from engine.memo import FRESH, Memo
from engine.rollie import view as _views
from engine.rollie.bots import policies as _policies
from engine.rollie.decide import decide as _decide
from engine.rollie.evolve import create as _create
from engine.rollie.evolve import evolve as _evolve
from engine.rollie.legal import awaiting as _awaiting
from engine.rollie.legal import legal_commands as _legal
from engine.rollie.legal import legal_inputs as _legal_inputs
from engine.rollie.legal import timeout_command as _timeout
from engine.rollie.model import COMMANDS, EVENTS, SetUp, State
from engine.rollie.scoring import result as _result
from engine.rollie.search import bot as _search_bot
from engine.rollie.setup import MAX_SEATS, MIN_SEATS
from engine.rollie.setup import default_options as _default_options
from engine.rollie.setup import setup as _setup
from engine.rollie.view import view as _view

PUBLIC_NAMES: dict[str, str] = {
    "set_up": "set_up",
    "rolled": "rolled",
    "took": "took",
    "secured": "secured",
    "rollie": "rollie",
    "crashed": "crash",
    "claim_undone": "claim_undone",
    "dice_passed": "dice_passed",
    "round_ended": "round_ended",
    "round_started": "round_started",
    "game_ended": "game_over",
}


class Rollie(Game[State]):
    """The Rollie game, as the engine contract (:class:`engine.core.Game`) describes."""

    name = "rollie"
    public_view = True  # Rollie hides nothing per seat: one view serves every viewer
    title = "Rollie"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    commands = Registry("command", list(COMMANDS))
    events = Registry("event", list(EVENTS))
    policies: Mapping[str, Policy] = {**_policies, "search": _search_bot}

    def default_options(self) -> dict[str, Any]:
        return _default_options()

    def setup(self, seats: int, options: Mapping[str, Any], seed: int) -> SetUp:
        return _setup(seats, options, seed)

    def create(self, setup_event: Any) -> State:
        return _create(setup_event)

    def decide(self, state: State, command: Any) -> tuple[Any, ...]:
        return _decide(state, command)

    def evolve(self, state: State, event: Any) -> State:
        return _evolve(state, event)

    def view(self, state: State, viewer: int | None, memo: Memo = FRESH) -> dict[str, Any]:
        return _view(state, viewer, memo)

    seat_part = "seats"
    touches = _views.TOUCHES

    def view_part(self, state: State, key: str, memo: Memo = FRESH) -> Any:
        """One top-level key of the view, built alone."""
        return _views.view_part(state, key, memo)

    def seat_view(self, state: State, seat: int, memo: Memo = FRESH) -> Any:
        """One seat's entry of the view, built alone."""
        return _views.seat_view(state, seat, memo)

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        return list(_legal(state, seat))

    def legal_inputs(self, state: State, seat: int) -> tuple[Any, ...]:
        return _legal_inputs(state, seat)

    def awaiting(self, state: State) -> frozenset[int]:
        return _awaiting(state)

    def timeout_command(self, state: State, seat: int) -> Any | None:
        return _timeout(state, seat)

    def turn_order(self, state: State, seats: int) -> tuple[int, ...]:
        """The First player, then clockwise (who wins a tie of clock timeouts)."""
        return clockwise_from(state.first_player, seats)

    def is_over(self, state: State) -> bool:
        return state.phase == "over"

    def result(self, state: State) -> Result | None:
        return _result(state)

    def public_name(self, event: Any) -> str:
        return PUBLIC_NAMES.get(getattr(type(event), "TYPE", ""), "event")
