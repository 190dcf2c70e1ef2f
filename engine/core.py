"""The contract every game honours (:class:`Game`), the shape of a game package, and
the registry of games by name.

A game is a *decider*: ``decide(state, command) -> events``, ``evolve(state, event) ->
state``, ``view(state, viewer) -> plain data``, plus what bots, clocks and UIs need.
:class:`Game` states every member; the three capabilities a game may leave out have
defaults there (``public_view``, ``legal_inputs``, ``turn_order``), so callers use
them directly and never probe for them. Commands and events are ``@attrs.frozen``
classes with a ``TYPE`` tag; commands carry the acting ``seat``, which the server fills
from the authenticated connection. :mod:`engine.data` converts them to and from plain
data. Randomness is drawn in ``decide`` from :func:`rng_for` (seeded by the state's
``seed`` and its count of ``draws``) and written into the events, so ``evolve`` never
draws and ``replay(game, events)`` rebuilds the state exactly.

**Every game package has the same shape** (``tests/engine/test_shape.py`` checks it)::

    engine/<game>/__init__.py  the decisions where the rulebook is silent (docstring);
                               ``GAME``, the registered instance
                  game.py      the Game subclass: each member hands over to a module below
                  model.py     state, commands and events (frozen values)
                  setup.py     options and the setup event
                  decide.py    decide: a command's events, or a typed rejection
                  evolve.py    create (the first state) and evolve
                  legal.py     legal commands, the seats awaited, what a clock runs out into
                  view.py      what a viewer sees
                  scoring.py   the final score and the Result
                  bots.py      policies that read the seat's view
                  search.py    search bots (they look ahead with the engine)
                  errors.py    the game's rejections, each with a stable code
                  content/     the component data, loaded and checked at import

Beside these, each game has modules of its own, named for what they are (Roll Player's
``rounds``, ``market``, ``flow``, ``effects``; Roll Builder's ``hexmap``, ``effects``,
``lookahead``).

**The path of a command** (Rollie's ``take`` as the example):

1. The client sends ``{"type": "take", "value": 5}``. The server builds the command
   with ``game.commands.load(data, seat=seat)`` (:class:`engine.data.Registry`: strict
   types; :class:`~engine.errors.InvalidCommand` names a bad field), the seat taken
   from the connection.
2. ``game.decide(state, command)`` (``game.py``) hands over to ``decide.py``, which
   checks it against the rules and returns the events (``Took``, perhaps
   ``DicePassed``), or raises a :class:`~engine.errors.Rejection` from ``errors.py``
   (``rollie/pile_empty``); a rejection changes nothing.
3. The room appends the events to the room's log (durable first), then folds each with
   ``game.evolve(state, event)`` (``evolve.py``).
4. For each viewer the room builds ``game.view(state, viewer, memo)`` (``view.py``;
   once for everyone when ``public_view``) and sends the patch from the last view; each
   seat's ``game.legal_commands(state, seat)`` (``legal.py``) is computed again when one
   of its ``legal_inputs`` changed, and ``game.awaiting(state)`` says whose clocks run.
   A game that declares ``touches`` (what each event type may change: top-level keys
   of the view, its own seat's entry or every seat's, whose legal commands) has only
   those parts built (``view_part``, ``seat_view``) and diffed, and only those seats'
   legal commands computed again: patches from events, ``view`` still their definition.
5. When a clock runs out, ``game.timeout_command(state, seat)`` is decided like a sent
   command (step 2); seats due at once go in ``game.turn_order(state, seats)``. A bot's
   command comes from a :data:`Policy` (``bots.py``) or a :class:`SearchBot`
   (``search.py``) through :func:`choose`, and takes the same path.
6. Once ``game.is_over(state)``, ``game.result(state)`` (``scoring.py``) gives each
   seat's total and the winners.

``game.setup(seats, options, seed)`` (``setup.py``) decided the log's first event when
the room was created; a room that loads folds its log as :func:`replay` does
(``game.create(setup_event)``, then ``evolve`` for every later event), from a snapshot
of the state when it has one.
"""

from __future__ import annotations

import abc
import hashlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, Literal, TypeVar

import attrs

from engine.data import Registry
from engine.memo import FRESH, Memo

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
    and the server's rooms, which run it in a worker thread (``server.room.io.Think``).
    Either way ``search`` must first re-draw everything the seat's view does not show
    (the seed, hence future dice; shuffled decks and bags), so it never uses hidden
    information.
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


Scope = Literal["none", "event", "every"]
"""Which seats: none, the event's own ``seat``, or every seat."""


@attrs.frozen
class Touch:
    """What one type of event may change in a public view, declared by the game.

    ``keys`` are top-level keys of the view; ``seats`` says which entries of the
    per-seat list (:attr:`Game.seat_part`) change; ``legal`` says whose legal commands
    may change. Everything not named stays the same object: the host keeps it, so a
    declaration that leaves out a part that does change shows a stale view (the
    property tests replay random games event by event to catch that)."""

    keys: frozenset[str] = frozenset()
    seats: Scope = "none"
    legal: Scope = "every"

    def resolve(self, seat: int | None) -> Touched:
        """This touch for an event of ``seat`` (None: an event with no seat)."""
        return Touched(self.keys, _scope(self.seats, seat), _scope(self.legal, seat))


def touch(*keys: str, seats: Scope = "none", legal: Scope = "every") -> Touch:
    """A :class:`Touch` of the top-level ``keys``."""
    return Touch(frozenset(keys), seats, legal)


def _scope(scope: Scope, seat: int | None) -> frozenset[int] | None:
    if scope == "every" or (scope == "event" and seat is None):
        return None
    return frozenset() if scope == "none" else frozenset((seat,))  # type: ignore[arg-type]


@attrs.frozen
class Touched:
    """What some events changed: top-level ``keys``, the ``seats`` whose entries changed
    and the seats whose legal commands may have (None: every seat)."""

    keys: frozenset[str]
    seats: frozenset[int] | None
    legal: frozenset[int] | None

    def __or__(self, other: Touched) -> Touched:
        return Touched(self.keys | other.keys, _union(self.seats, other.seats),
                       _union(self.legal, other.legal))  # fmt: skip


def _union(a: frozenset[int] | None, b: frozenset[int] | None) -> frozenset[int] | None:
    return None if a is None or b is None else a | b


class Game(abc.ABC, Generic[State]):
    """What the server, the bots and the clients rely on, for every game.

    A game subclasses it, sets the attributes and implements every abstract method;
    the three capabilities below the abstract ones have defaults that are always
    right, only slower or plainer than a game's own."""

    name: str
    """The registry key and wire name, e.g. ``roll-builder``."""
    title: str
    min_seats: int
    max_seats: int
    commands: Registry
    """Every command type, by its ``TYPE`` tag (loads a client's command)."""
    events: Registry
    """Every event type, by its ``TYPE`` tag (loads the log)."""
    policies: Mapping[str, Policy]
    """Bot policies by name; the first is the default."""

    @abc.abstractmethod
    def default_options(self) -> dict[str, Any]:
        """Every option with its default value (plain data)."""

    @abc.abstractmethod
    def setup(self, seats: int, options: Mapping[str, Any], seed: int) -> Any:
        """Validate ``options`` (raising BadOptions) and decide the setup event:
        everything random about the start (shuffles, first player)."""

    @abc.abstractmethod
    def create(self, setup_event: Any) -> State:
        """The first state, from the setup event."""

    @abc.abstractmethod
    def decide(self, state: State, command: Any) -> tuple[Any, ...]:
        """Events caused by ``command``, or a Rejection with a stable code."""

    def decide_with_states(
        self, state: State, command: Any
    ) -> tuple[tuple[Any, ...], tuple[State, ...] | None]:
        """``decide``'s events and, when the game evolved them all while deciding, the
        state after each (so the room's fold need not evolve them again); None when it
        did not. A Rejection as ``decide``."""
        return self.decide(state, command), None

    @abc.abstractmethod
    def evolve(self, state: State, event: Any) -> State:
        """Apply one event. It never draws."""

    @abc.abstractmethod
    def view(self, state: State, viewer: Viewer, memo: Memo = FRESH) -> dict[str, Any]:
        """What ``viewer`` (a seat, or ``None`` for a spectator) may see, as plain data;
        hidden things (deck order, the bag, the seed) never appear. ``memo`` (default:
        none) may hand back parts built from unchanged state parts; the result is the
        same either way."""

    @abc.abstractmethod
    def legal_commands(self, state: State, seat: Seat) -> list[Any]:
        """Every command ``seat`` may send now (for bots and UIs)."""

    @abc.abstractmethod
    def awaiting(self, state: State) -> frozenset[Seat]:
        """The seats the game waits for now (their clocks run)."""

    @abc.abstractmethod
    def timeout_command(self, state: State, seat: Seat) -> Any | None:
        """The command ``seat``'s clock runs out into, if it is awaited."""

    @abc.abstractmethod
    def is_over(self, state: State) -> bool:
        """Whether the game has ended."""

    @abc.abstractmethod
    def result(self, state: State) -> Result | None:
        """Totals and winners once the game is over."""

    @abc.abstractmethod
    def public_name(self, event: Any) -> str:
        """A short public name of an event, for clients to animate (e.g. ``rollie``)."""

    public_view: bool = False
    """Whether ``view`` is the same for every viewer: the server then builds and diffs
    it once per change instead of once per seat. Default: no (a view per viewer)."""

    def legal_inputs(self, state: State, seat: Seat) -> tuple[Any, ...]:
        """The parts of the state that ``legal_commands(state, seat)`` reads, compared by
        identity (like :mod:`engine.memo`'s inputs): a host keeps a seat's legal commands
        while every one of them is the same object, and computes them again otherwise.

        Default: the whole state (computed again after every event)."""
        return (state,)

    seat_part: str | None = None
    """The top-level key of a public view that holds one entry per seat (``players``), so
    that a :class:`Touch` can name single seats' entries. None: the game names keys only."""

    touches: Mapping[type, Touch] = {}
    """Per event type, what an event of that type may change (:class:`Touch`): the host
    rebuilds and diffs only those parts of a public view, and computes again only those
    seats' legal commands. An event whose type is not listed may change everything."""

    def view_part(self, state: State, key: str, memo: Memo = FRESH) -> Any:
        """The value of the public view's top-level ``key``: ``view(state, None)[key]``.
        Default: the whole view built to read one key (a game that declares
        :attr:`touches` builds the part alone)."""
        return self.view(state, None, memo)[key]

    def seat_view(self, state: State, seat: Seat, memo: Memo = FRESH) -> Any:
        """The entry of ``seat`` in the public view's :attr:`seat_part` list."""
        assert self.seat_part is not None
        return self.view(state, None, memo)[self.seat_part][seat]

    def touched(self, event: Any) -> Touched | None:
        """What ``event`` may change (from :attr:`touches`, its ``seat`` field resolved);
        None: anything."""
        touch = self.touches.get(type(event))
        if touch is None:
            return None
        return touch.resolve(getattr(event, "seat", None))

    def turn_order(self, state: State, seats: int) -> tuple[Seat, ...]:
        """Every seat of the table (it has ``seats``), the player whose turn it is first,
        then clockwise: decisions that fall due together (clock timeouts) are applied in
        this order. Default: by seat number."""
        return tuple(range(seats))


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


BUILTIN = ("engine.rollie", "engine.roll_player", "engine.roll_builder")
"""The modules of the games that ship."""
SHOWN_FIRST = ("rollie", "roll-player", "roll-builder")
"""The order every list shows the games that ship in (Rollie first)."""


def games() -> dict[str, Game[Any]]:
    """Every registered game by name: the games that ship in :data:`SHOWN_FIRST`'s
    order, then any other in the order it registered (never in the order modules
    happened to be imported: a process that imported Roll Builder first would list it
    first, and the lobby's form would open on it)."""
    _load_builtin()
    return {**{name: _GAMES[name] for name in SHOWN_FIRST if name in _GAMES}, **_GAMES}


def _load_builtin() -> None:
    import importlib

    for module in BUILTIN:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
