"""Rollie: a push-your-luck dice game for 2-6 players (seeds/001, the rulebook).

Modules, in the shape every game shares (see :mod:`engine.core`): ``game`` (the
contract object), ``model`` (state, commands, events), ``setup``, ``decide``,
``evolve``, ``legal``, ``view``, ``scoring``, ``bots``, ``search`` and ``errors``;
``content`` holds the component values (``content.TABLE``; the numbers the rulebook
leaves out come from content/rollie-decisions.md).

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

from engine.core import register
from engine.rollie.game import PUBLIC_NAMES, Rollie

GAME = Rollie()
register(GAME)

__all__ = ["GAME", "PUBLIC_NAMES", "Rollie"]
