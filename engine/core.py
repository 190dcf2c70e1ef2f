"""The contract every game honours, and the registry of games by name.

A game is a *decider* (see ``../ARCHITECTURE``):

* ``setup(seats, options, seed) -> Event`` validates the room's options and decides
  everything random about the start (shuffles, first player) into one setup event;
  ``create(setup_event) -> State`` builds the first state from it.
* ``decide(state, command) -> tuple[Event, ...]`` returns the events a command
  causes or raises a :class:`~engine.errors.Rejection` with a stable code. Dice and
  shuffles are drawn here from :func:`rng_for` (seeded by the state's ``seed`` and
  its count of ``draws``) and written into the events.
* ``evolve(state, event) -> State`` applies one event. It never draws.
* ``view(state, viewer) -> dict`` is plain data for a seat (an ``int``) or a
  spectator (``None``). Hidden things never appear in it.
* optionally ``public_view = True`` when ``view`` is the same for every viewer: the
  server then builds and diffs it once per change instead of once per seat.
* optionally ``turn_order(state)``: every seat, the player whose turn it is first, then
  clockwise; decisions that fall due together (clock timeouts) are applied in this
  order. Without it, seat order (see :func:`turn_order`).
* optionally ``legal_inputs(state, seat) -> tuple``: the parts of the state that
  ``legal_commands(state, seat)`` reads (compared by identity, like :mod:`engine.memo`'s
  inputs): a host keeps a seat's legal commands while every one of them is the same
  object, and computes them again otherwise.
* ``legal_commands(state, seat)``, ``awaiting(state)`` (seats whose clock runs),
  ``timeout_command(state, seat)`` (what a seat's clock runs out into),
  ``is_over(state)`` and ``result(state)``.

Commands and events are ``@attrs.frozen`` classes with a ``TYPE`` tag; commands
carry the acting ``seat``, which the server fills from the authenticated
connection. :mod:`engine.data` converts them to and from plain data.

Replaying the log reproduces the state exactly: ``replay(game, events)``.

Bots are :data:`Policy` functions of the seat's view. A bot that searches ahead with
the engine is a :class:`SearchBot`: still a Policy for any host, and given the state
by hosts that hold it (:func:`choose`).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

import attrs

from engine.data import Registry
from engine.memo import Memo

State = TypeVar("State")
Seat = int
Viewer = int | None
"""A seat number (0-based) or ``None`` for a spectator."""


Policy = Callable[[dict[str, Any], int, list[Any], random.Random], Any]
"""A bot: ``policy(view, seat, legal_commands, rng) -> command`` (one of ``legal_commands``).

Pure: it sees only what the seat's view shows, and draws only from ``rng``."""


StatePolicy = Callable[[Any, int, list[Any], random.Random], Any]
"""A search bot's core: ``search(state, seat, legal_commands, rng) -> command``."""


@attrs.frozen
class SearchBot:
    """A bot that looks ahead with the pure engine (copies of the state, trial moves).

    It is a :data:`Policy` like any other: ``bot(view, seat, legal, rng)`` works for
    every host. Through that call it searches when the game can ``restore`` a state
    from the seat's view, and otherwise plays ``fallback``. A host that holds the state
    calls :func:`choose`, which hands the state to ``search``: ``rollhouse simulate``,
    and the server's rooms, which run it in a worker thread (``server.room.io.Think``). Either way ``search`` must
    first re-draw everything the seat's view does not show (the seed, hence future
    dice; shuffled decks and bags), so it never uses hidden information.
    """

    search: StatePolicy
    fallback: Policy
    restore: Callable[[dict[str, Any], int, random.Random], Any] | None = None
    """A state consistent with what ``seat`` sees, its hidden parts drawn from ``rng``."""

    def __call__(
        self, view: dict[str, Any], seat: int, legal: list[Any], rng: random.Random
    ) -> Any:
        if self.restore is not None:
            return self.search(self.restore(view, seat, rng), seat, legal, rng)
        return self.fallback(view, seat, legal, rng)


def choose(game: Game[State], state: State, seat: int, policy: Policy, rng: random.Random) -> Any:
    """The command ``policy`` plays for ``seat`` (None when it has nothing legal); a
    :class:`SearchBot` is given the state, any other policy the seat's view."""
    legal = game.legal_commands(state, seat)
    if not legal:
        return None
    if isinstance(policy, SearchBot):
        return policy.search(state, seat, legal, rng)
    return policy(game.view(state, seat), seat, legal, rng)


@attrs.frozen
class Result:
    """How a finished game came out: each seat's total and the winners (ties shared).

    ``detail`` is the game's own breakdown (plain data). Two keys have a meaning
    across games, for ``rollhouse simulate``: ``groups`` maps a name (``class``,
    ``city``, ``event``) to each seat's label, so scores can be summarised per label,
    ``survived_by_seat`` lists, per seat, whether a solo target was beaten, and
    ``rates`` maps a name (``visionary``) to ``{label: [bool per seat]}`` (e.g. which
    seats completed each visionary), reported as the share of seats.
    """

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    detail: Mapping[str, Any] = attrs.field(factory=dict)


class Game(Protocol[State]):
    """What the server, the bots and the clients rely on, for every game."""

    name: str
    title: str
    min_seats: int
    max_seats: int
    commands: Registry
    events: Registry
    policies: Mapping[str, Policy]
    """Bot policies by name; the first is the default."""

    def default_options(self) -> dict[str, Any]:
        """Every option with its default value (plain data)."""
        ...

    def setup(self, seats: int, options: Mapping[str, Any], seed: int) -> Any:
        """Validate ``options`` (raising BadOptions) and decide the setup event."""
        ...

    def create(self, setup_event: Any) -> State:
        """The first state, from the setup event."""
        ...

    def decide(self, state: State, command: Any) -> tuple[Any, ...]:
        """Events caused by ``command``, or a Rejection."""
        ...

    def evolve(self, state: State, event: Any) -> State:
        """Apply one event."""
        ...

    def view(self, state: State, viewer: Viewer, memo: Memo = ...) -> dict[str, Any]:
        """What ``viewer`` may see, as plain data. ``memo`` (default: none) may hand back
        parts built from unchanged state parts; the result is the same either way."""
        ...

    def legal_commands(self, state: State, seat: Seat) -> list[Any]:
        """Every command ``seat`` may send now (for bots and UIs)."""
        ...

    def awaiting(self, state: State) -> frozenset[Seat]:
        """The seats the game waits for now (their clocks run)."""
        ...

    def timeout_command(self, state: State, seat: Seat) -> Any | None:
        """The command ``seat``'s clock runs out into, if it is awaited."""
        ...

    def is_over(self, state: State) -> bool:
        """Whether the game has ended."""
        ...

    def result(self, state: State) -> Result | None:
        """Totals and winners once the game is over."""
        ...

    def public_name(self, event: Any) -> str:
        """A short public name of an event, for clients to animate (e.g. ``rollie``)."""
        ...


def turn_order(game: Game[State], state: State, seats: int) -> tuple[Seat, ...]:
    """The seats in the game's turn order now (its ``turn_order``), else by seat number."""
    order = getattr(game, "turn_order", None)
    if order is None:
        return tuple(range(seats))
    return tuple(order(state))


def clockwise_from(start: Seat, seats: int) -> tuple[Seat, ...]:
    """Every seat clockwise (increasing seat number, wrapping) from ``start``."""
    return tuple((start + i) % seats for i in range(seats))


def rng_for(seed: int, draws: int) -> random.Random:
    """A generator determined by the game's seed and how many draws came before.

    ``decide`` stays a pure function of its state: the same state always draws the
    same dice, and the faces are written into events, so replay needs no RNG.
    """
    digest = hashlib.blake2b(f"{seed}:{draws}".encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


@attrs.frozen
class Played(Generic[State]):
    """A state together with the events that produced it."""

    state: State
    events: tuple[Any, ...]


def replay(game: Game[State], events: Sequence[Any]) -> State:
    """Rebuild the state from the full event list (the setup event first)."""
    state = game.create(events[0])
    for event in events[1:]:
        state = game.evolve(state, event)
    return state


def apply(game: Game[State], state: State, events: Iterable[Any]) -> State:
    """Evolve ``state`` by each of ``events`` in order."""
    for event in events:
        state = game.evolve(state, event)
    return state


_GAMES: dict[str, Game[Any]] = {}


def register(game: Game[Any]) -> Game[Any]:
    """Make ``game`` reachable by its name."""
    _GAMES[game.name] = game
    return game


def get_game(name: str) -> Game[Any]:
    """The game registered as ``name``; raises KeyError when there is none."""
    game = _GAMES.get(name)
    if game is None:
        _load_builtin()
        game = _GAMES[name]
    return game


def games() -> dict[str, Game[Any]]:
    """Every registered game by name."""
    _load_builtin()
    return dict(_GAMES)


def _load_builtin() -> None:
    import importlib

    for module in ("engine.rollie", "engine.roll_player", "engine.roll_builder"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
