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
* **Priority** (option ``priority``). The service's headline rule is arrival order
  (``arrival``, the default): the first claim on the last bill of a pile, or on the
  last face-up Start token, keeps it. With ``turn`` the engine plays the rulebook's
  Simultaneous Play note, "if the player took the last bill of a pile or a Start
  token and a previous player wants it too, that player must put it back and choose
  another", live. Turn order runs from the First player clockwise. A claim on the
  last bill of a pile, or on the last face-up Start token, made while a player
  earlier in turn order is still undecided, is provisional (the view lists it under
  ``provisional``). If that earlier player then takes that value (legal although the
  pile shows empty) or secures with no face-up token left, a ``claim_undone`` event
  gives the bill (or the token, and with it the whole Secure: the Bet comes back out
  of the Wallet) back, the earlier player gets it, and the later player is undecided
  again and chooses anew. Once every earlier player has decided, the claim is final.
  Readings where the note is ambiguous: "a Start token" is read as *the last*
  face-up one, because while another token is face up the earlier player still gets
  one and has nothing to put back; the remedy is "put it back and choose another",
  so the undone player may choose anything legal (another value, or Secure, without
  a token if none is left); a player who was undone can in turn take over a still
  later player's provisional claim. An undone claim does not un-mark a pile as run
  out: the earlier player empties it again at once.
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
  with reason ``empty_piles``) and the round ends at once. The Warning is read as a
  rule about the roll ("the piles corresponding to the values of the dice"), so it is
  checked only then: when the matching piles run out *during* a turn, the players
  still undecided are not crashed; they may only Secure (their Bet is safe), and the
  next roll is checked as usual.
* **A pile refilled by a crash.** Bills returned by a crash go back to their piles,
  so an empty pile can be refilled and taken from again. It still counts as having
  run out for the end of the game (see below): "exhausted" is read as an event that
  happened, not a state that can be undone.
* **A second pile runs out mid-round.** "The round ends, then the end of the game begins" is
  read with the End of the Game section's "finish the current round": the round
  is played to its normal end (everyone secured, or a Rollie); it is not cut short,
  so undecided players still decide and nobody's Bet is touched at that moment. A
  pile counts as run out the first time it reaches zero, even if a crash refills it
  later. At the end of that round the game ends.
* **End of the game.** After the round in which the last Start token was revealed,
  or the round in which a second pile ran out. Bets still on the table go back to
  the Bank; only Wallets score. Bonus tokens follow the races in
  :mod:`.scoring`; winners are every seat with the highest total (ties shared).
* **Bots.** ``push`` (the default), ``random`` and ``search`` (``search.py``: rollouts
  of the round over ``push``; it rebuilds the table from the seat's view, so rooms
  can host it; about 0.1-0.5 s a decision).
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
from engine.memo import FRESH, Memo
from engine.rollie import rules
from engine.rollie.bots import policies as _policies
from engine.rollie.evolve import create as _create
from engine.rollie.evolve import evolve as _evolve
from engine.rollie.model import COMMANDS, EVENTS, SetUp, State
from engine.rollie.search import bot as _search_bot
from engine.rollie.view import result as _result
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


class Rollie:
    """The Rollie game, as the engine contract (:class:`engine.core.Game`) describes."""

    name = "rollie"
    public_view = True  # Rollie hides nothing per seat: one view serves every viewer
    title = "Rollie"
    min_seats = rules.MIN_SEATS
    max_seats = rules.MAX_SEATS
    commands = Registry("command", list(COMMANDS))
    events = Registry("event", list(EVENTS))
    policies: Mapping[str, Policy] = {**_policies, "search": _search_bot}

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

    def view(self, state: State, viewer: int | None, memo: Memo = FRESH) -> dict[str, Any]:
        return _view(state, viewer, memo)

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
