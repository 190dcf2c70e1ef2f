"""Rollie: a push-your-luck dice game for 2-6 players (seeds/001, the rulebook).

Modules: :mod:`.model` (the data table, state, commands, events), :mod:`.rules`
(setup and decide), :mod:`.evolve`, :mod:`.scoring`, :mod:`.view`, :mod:`.bots`,
:mod:`.errors`. The numbers the rulebook leaves out come from
content/rollie-decisions.md and live in ``model.TABLE``.

Where the rulebook is silent or ambiguous, this engine decides:

* **Setup.** The Start tokens (numbered 1..``rounds``; option ``rounds``, default 7)
  are shuffled face down and the top one is turned up. "The player with the most
  money" has no meaning before play, so the First player is drawn at random. Both
  are written into the ``set_up`` event with the seed (hidden from every view).
* **Simultaneous decisions.** After a roll with different values, every player in
  play makes one decision (take or secure) in any order; the room's arrival order
  is the order. A decision is final (``rollie/already_decided``). Taking from an
  empty pile is rejected (``rollie/pile_empty``) and the player chooses again.
* **Start token choice.** A player who secures takes the highest-numbered face-up
  token, if any (a higher number always wins a tie-break, so there is no choice).
  Arrival order decides who secures first.
* **Who rolls.** The First player is the player holding the dice. After a turn in
  which someone took, the dice go to the seat on the left (seat + 1) - even if that
  player has secured. When a round ends, the dice likewise pass to the left of the
  player who rolled last; that player opens the next round.
* **Empty piles, all matching.** Checked right after each roll with different
  values: if no pile matching the dice has a bill left (an R matches every pile),
  every player still in play loses the Bet (back to the Bank, event ``crashed``
  with reason ``empty_piles``) and the round ends at once. An empty pile can be
  refilled by a crash; a refilled pile may be taken from again.
* **A second pile runs out.** "The round ends, then the end of the game begins" is
  read with the End of the Game section's "finish the current round": the round
  is played to its normal end (everyone secured, or a Rollie); it is not cut short,
  so undecided players still decide and nobody's Bet is touched at that moment. A
  pile counts as run out the first time it reaches zero, even if a crash refills it
  later. At the end of that round the game ends.
* **End of the game.** After the round in which the last Start token was revealed,
  or the round in which a second pile ran out. Bets still on the table go back to
  the Bank; only Wallets score. Bonus tokens follow the races in
  :mod:`.scoring`; winners are every seat with the highest total (ties shared).
* **Clock.** :func:`awaiting` is the roller while rolling, else every undecided
  player in play; their clocks run together. The server stamps time and owns the
  duration (a server room option); when a clock runs out the server submits
  :func:`timeout_command`: ``roll`` for the roller, ``secure`` for a decider.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Policy, Result, clockwise_from, register
from engine.data import Registry
from engine.rollie import rules
from engine.rollie.bots import policies as _policies
from engine.rollie.evolve import create as _create
from engine.rollie.evolve import evolve as _evolve
from engine.rollie.model import COMMANDS, EVENTS, SetUp, State
from engine.rollie.view import result as _result
from engine.rollie.view import view as _view

PUBLIC_NAMES: dict[str, str] = {
    "set_up": "set_up",
    "rolled": "rolled",
    "took": "took",
    "secured": "secured",
    "rollie": "rollie",
    "crashed": "crash",
    "dice_passed": "dice_passed",
    "round_ended": "round_ended",
    "round_started": "round_started",
    "game_ended": "game_over",
}


class Rollie:
    """The Rollie game, as the engine contract (:class:`engine.core.Game`) describes."""

    name = "rollie"
    public_view = True  # Rollie hides nothing per seat: one view serves every viewer
    title = "Rollie"
    min_seats = rules.MIN_SEATS
    max_seats = rules.MAX_SEATS
    commands = Registry("command", list(COMMANDS))
    events = Registry("event", list(EVENTS))
    policies: Mapping[str, Policy] = _policies

    def default_options(self) -> dict[str, Any]:
        return rules.default_options()

    def setup(self, seats: int, options: Mapping[str, Any], seed: int) -> SetUp:
        return rules.setup(seats, options, seed)

    def create(self, setup_event: Any) -> State:
        return _create(setup_event)

    def decide(self, state: State, command: Any) -> tuple[Any, ...]:
        return rules.decide(state, command)

    def evolve(self, state: State, event: Any) -> State:
        return _evolve(state, event)

    def view(self, state: State, viewer: int | None) -> dict[str, Any]:
        return _view(state, viewer)

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        return list(rules.legal_commands(state, seat))

    def awaiting(self, state: State) -> frozenset[int]:
        return rules.awaiting(state)

    def timeout_command(self, state: State, seat: int) -> Any | None:
        return rules.timeout_command(state, seat)

    def turn_order(self, state: State) -> tuple[int, ...]:
        """The First player, then clockwise (who wins a tie of clock timeouts)."""
        return clockwise_from(state.first_player, state.seats)

    def is_over(self, state: State) -> bool:
        return state.phase == "over"

    def result(self, state: State) -> Result | None:
        return _result(state)

    def public_name(self, event: Any) -> str:
        return PUBLIC_NAMES.get(getattr(type(event), "TYPE", ""), "event")


game = Rollie()
register(game)

__all__ = ["Rollie", "game"]
