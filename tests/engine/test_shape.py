"""Every game package has the same shape (engine.core's docstring) and implements the contract."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from pathlib import Path

import pytest

import engine
from engine.core import Game, SearchBot, games
from engine.data import Registry
from engine.errors import Rejection

ROOT = Path(engine.__file__).parent
PACKAGES = {"rollie": "rollie", "roll_player": "roll-player", "roll_builder": "roll-builder"}
CONCEPTS = {
    # file: the names every game's module of that concept defines
    "game": (),
    "model": (),
    "setup": ("setup",),
    "decide": ("decide",),
    "evolve": ("create", "evolve"),
    "legal": ("legal_commands", "awaiting", "timeout_command"),
    "view": ("view",),
    "scoring": ("result",),
    "bots": ("policies",),
    "search": ("bot",),
    "errors": (),
    "content": (),
}
ATTRIBUTES = {
    "name": str,
    "title": str,
    "min_seats": int,
    "max_seats": int,
    "commands": Registry,
    "events": Registry,
    "policies": Mapping,
    "public_view": bool,
}


def test_the_engine_has_the_three_games() -> None:
    """The packages checked here are every game package of engine/ and every registered game."""
    found = {p.parent.name for p in ROOT.glob("*/game.py")}
    assert found == set(PACKAGES)
    assert set(games()) == set(PACKAGES.values())


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_every_concept_has_its_file(package: str) -> None:
    """The same file for the same concept in every game, defining the same names;
    content is one package beside its data."""
    for concept, names in CONCEPTS.items():
        module = importlib.import_module(f"engine.{package}.{concept}")
        for name in names:
            assert hasattr(module, name), f"engine.{package}.{concept} has no {name}"
    assert (ROOT / package / "content" / "__init__.py").is_file()
    assert not (ROOT / package / "content.py").exists()
    errors = importlib.import_module(f"engine.{package}.errors")
    assert any(
        isinstance(v, type) and issubclass(v, Rejection) and v.__module__ == errors.__name__
        for v in vars(errors).values()
    )
    search = importlib.import_module(f"engine.{package}.search")
    assert isinstance(search.bot, SearchBot)


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_every_game_implements_the_contract(package: str) -> None:
    """The registered game is the package's ``GAME``, an instance of a :class:`Game`
    subclass from its ``game.py`` with no abstract member left and every attribute set."""
    module = importlib.import_module(f"engine.{package}")
    game = module.GAME
    assert games()[PACKAGES[package]] is game
    assert isinstance(game, Game)
    assert type(game).__module__ == f"engine.{package}.game"
    assert not inspect.isabstract(type(game))
    for name, kind in ATTRIBUTES.items():
        assert isinstance(getattr(game, name), kind), f"{package}: {name}"
    members = {n for n, v in vars(Game).items() if callable(v) and not n.startswith("_")}
    assert members >= {"decide", "evolve", "view", "legal_inputs", "turn_order"}
    for name in members:
        params = inspect.signature(getattr(Game, name)).parameters
        assert inspect.signature(getattr(type(game), name)).parameters.keys() == params.keys(), (
            f"{package}: {name} takes other parameters than the contract's"
        )


def test_the_optional_capabilities_have_defaults() -> None:
    """A game that leaves out ``turn_order``, ``legal_inputs`` or ``public_view`` gets seat
    order, the whole state, and a view per viewer."""
    game = games()["roll-builder"]
    state = game.create(game.setup(3, {}, seed=1))
    assert type(game).turn_order is Game.turn_order
    assert game.turn_order(state, 3) == (0, 1, 2)
    assert Game.legal_inputs(game, state, 0) == (state,)
    assert Game.public_view is False
