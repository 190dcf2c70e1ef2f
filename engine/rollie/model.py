"""Rollie's state, commands and events (frozen values).

The component values (bills, faces, tokens) are :data:`engine.rollie.content.TABLE`.
Counts of bills are kept as tuples indexed like ``TABLE.values`` so the frozen state
stays truly immutable.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import attrs

from engine.rollie.content import TABLE, Face

Phase = Literal["rolling", "deciding", "over"]
Priority = Literal["arrival", "turn"]
"""Who keeps a contested last bill or last Start token: the first to arrive, or the
earlier player in turn order (the rulebook's Simultaneous Play note)."""


Counts = tuple[int, ...]
"""Bills per value, indexed like ``TABLE.values``."""

NO_BILLS: Counts = (0,) * len(TABLE.values)


def add(a: Counts, b: Counts) -> Counts:
    """Element-wise sum of two bill counts."""
    return tuple(x + y for x, y in zip(a, b, strict=True))


def bump(counts: Counts, value: int, delta: int) -> Counts:
    """``counts`` with ``delta`` bills of ``value`` added."""
    i = TABLE.index(value)
    return (*counts[:i], counts[i] + delta, *counts[i + 1 :])


def worth(counts: Counts) -> int:
    """Face value of a bill count."""
    return sum(n * v for n, v in zip(counts, TABLE.values, strict=True))


def put(seq: tuple[Counts, ...], seat: int, counts: Counts) -> tuple[Counts, ...]:
    """``seq`` with entry ``seat`` replaced."""
    return (*seq[:seat], counts, *seq[seat + 1 :])


# -- commands ---------------------------------------------------------------------


@attrs.frozen
class Roll:
    """The First player rolls the two dice."""

    TYPE: ClassVar[str] = "roll"
    seat: int


@attrs.frozen
class Take:
    """Take a bill of ``value`` from the Bank into the Bet."""

    TYPE: ClassVar[str] = "take"
    seat: int
    value: int


@attrs.frozen
class Secure:
    """Move the Bet to the Wallet (and take the best face-up Start token)."""

    TYPE: ClassVar[str] = "secure"
    seat: int


Command = Roll | Take | Secure
COMMANDS: tuple[type, ...] = (Roll, Take, Secure)


# -- events -----------------------------------------------------------------------


@attrs.frozen
class SetUp:
    """The table is laid out: ``tokens`` is the shuffled Start token pile, top first;
    the top one is turned face up at once."""

    TYPE: ClassVar[str] = "set_up"
    seats: int
    bills_per_value: int
    rounds: int
    tokens: tuple[int, ...]
    first_player: int
    seed: int
    priority: Priority = "arrival"


@attrs.frozen
class Rolled:
    """``seat`` rolled ``dice``."""

    TYPE: ClassVar[str] = "rolled"
    seat: int
    dice: tuple[Face, Face]


@attrs.frozen
class Took:
    """``seat`` took a bill of ``value`` into their Bet."""

    TYPE: ClassVar[str] = "took"
    seat: int
    value: int


@attrs.frozen
class Secured:
    """``seat`` moved their Bet to their Wallet and took Start token ``token``."""

    TYPE: ClassVar[str] = "secured"
    seat: int
    token: int | None


@attrs.frozen
class RollieCalled:
    """Identical faces: everyone shouts Rollie!"""

    TYPE: ClassVar[str] = "rollie"
    face: Face


@attrs.frozen
class Crashed:
    """``seat``'s Bet goes back to the Bank (a Rollie crash, or no pile left to take)."""

    TYPE: ClassVar[str] = "crashed"
    seat: int
    reason: Literal["rollie", "empty_piles"]


@attrs.frozen
class ClaimUndone:
    """Under turn priority, an earlier player claims what ``seat`` took provisionally:
    the last bill of ``value``, or the last face-up Start token ``token`` (the whole
    Secure is undone: the Bet comes back out of the Wallet). ``seat`` chooses again."""

    TYPE: ClassVar[str] = "claim_undone"
    seat: int
    value: int | None = None
    token: int | None = None


@attrs.frozen
class DicePassed:
    """The turn is over and someone took: ``first_player`` rolls next."""

    TYPE: ClassVar[str] = "dice_passed"
    first_player: int


@attrs.frozen
class RoundEnded:
    """Round ``round`` is over: everyone comes back into play."""

    TYPE: ClassVar[str] = "round_ended"
    round: int


@attrs.frozen
class RoundStarted:
    """Round ``round`` begins: ``token`` is turned face up, ``first_player`` rolls."""

    TYPE: ClassVar[str] = "round_started"
    round: int
    token: int
    first_player: int


@attrs.frozen
class GameEnded:
    """The game is over: Bets go back to the Bank, bonuses are awarded."""

    TYPE: ClassVar[str] = "game_ended"


Event = (
    SetUp
    | Rolled
    | Took
    | Secured
    | RollieCalled
    | Crashed
    | ClaimUndone
    | DicePassed
    | RoundEnded
    | RoundStarted
    | GameEnded
)
EVENTS: tuple[type, ...] = (
    SetUp,
    Rolled,
    Took,
    Secured,
    RollieCalled,
    Crashed,
    ClaimUndone,
    DicePassed,
    RoundEnded,
    RoundStarted,
    GameEnded,
)


# -- state ------------------------------------------------------------------------


@attrs.frozen
class Claim:
    """Under turn priority: ``seat`` took the last bill of ``value`` or, securing
    ``bet``, the last face-up Start token ``token``, while an earlier player was still
    undecided. It stays provisional until every earlier player has decided."""

    seat: int
    value: int | None = None
    token: int | None = None
    bet: Counts = NO_BILLS


@attrs.frozen
class State:
    """A Rollie table. ``face_down`` and ``seed``/``draws`` never leave the server."""

    seats: int
    bills_per_value: int
    seed: int
    draws: int
    phase: Phase
    round: int
    first_player: int
    bank: Counts
    bets: tuple[Counts, ...]
    wallets: tuple[Counts, ...]
    tokens: tuple[tuple[int, ...], ...]
    """Start tokens each seat has taken."""
    face_up: tuple[int, ...]
    face_down: tuple[int, ...]
    in_play: frozenset[int]
    decided: frozenset[int]
    took_this_turn: bool = False
    dice: tuple[Face, Face] | None = None
    exhausted: frozenset[int] = frozenset()
    """Values whose pile has run out at some point this game."""
    priority: Priority = "arrival"
    opener: int = 0
    """The First player of round 1 (for the seat statistics)."""
    claims: tuple[Claim, ...] = ()
    """This turn's claims on a last bill or last token (turn priority only)."""

    def order(self, seat: int) -> int:
        """``seat``'s place in turn order: 0 for the First player, then clockwise."""
        return (seat - self.first_player) % self.seats

    def earlier_undecided(self, seat: int) -> bool:
        """Whether a player before ``seat`` in turn order has still to decide."""
        return any(self.order(s) < self.order(seat) for s in self.in_play - self.decided)

    def claim_on(self, seat: int, value: int | None = None, token: bool = False) -> Claim | None:
        """A provisional claim a later player holds that ``seat`` may take over."""
        for claim in self.claims:
            wanted = claim.token is not None if token else claim.value == value
            if wanted and self.order(claim.seat) > self.order(seat):
                return claim
        return None

    @property
    def final_round(self) -> bool:
        """A second pile has run out: the game ends with this round."""
        return len(self.exhausted) >= 2

    def pile(self, value: int) -> int:
        """Bills of ``value`` left in the Bank."""
        return self.bank[TABLE.index(value)]
