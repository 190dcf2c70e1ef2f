"""Roll Player setup, steps 1-13 of the rulebook, as given events / when command / then."""

from __future__ import annotations

import pytest

from engine.errors import BadOptions, Rejection
from engine.roll_player import GAME
from engine.roll_player.commands import (
    ChooseClass,
    ChooseSheet,
    PlaceStart,
)
from engine.roll_player.content import CATALOG
from engine.roll_player.events import (
    CardsDealt,
    ClassChosen,
    ClassDiceDrawn,
    SetUp,
    SheetChosen,
    StartingDiceDrawn,
    StartingDicePlaced,
)
from tests.engine.roll_player_strategies import dice, given, opening, then, when


@pytest.mark.parametrize("seats", [1, 5])
def test_two_to_four_players(seats: int) -> None:
    """Roll Player is for 2 to 4 players; other counts are bad options."""
    with pytest.raises(BadOptions):
        GAME.setup(seats, {}, 1)


def test_unknown_option_rejected() -> None:
    """Only the class_mode option exists, with values draw and choice."""
    with pytest.raises(BadOptions):
        GAME.setup(3, {"speed": 1}, 1)
    with pytest.raises(BadOptions):
        GAME.setup(3, {"class_mode": "vote"}, 1)


@pytest.mark.parametrize(("seats", "size"), [(2, 39), (3, 47), (4, 53)])
def test_market_deck_discards_per_player_count(seats: int, size: int) -> None:
    """Step 7: discard 7 (2 players) or 3 (3 players) from each pile; single-dot on top."""
    setup = GAME.setup(seats, {}, 5)
    assert len(setup.deck) == size
    ones = 26 - CATALOG.rules.pile_discards[seats]
    assert all(CATALOG.cards[c].pile == 1 for c in setup.deck[:ones])
    assert all(CATALOG.cards[c].pile == 2 for c in setup.deck[ones:])


def test_starting_gold_by_seat_order() -> None:
    """Step 3: 5 gold each, the third player +1, the fourth +2, counted from the Start Player."""
    state = given(SetUp(4, 1, "draw", 1, ()))
    assert [p.gold for p in state.players] == [7, 5, 5, 6]
    assert state.supply == 60 - 23 - 3


@pytest.mark.parametrize(
    ("seats", "gold"), [(2, [0, 1, 0]), (3, [0, 1, 1, 0]), (4, [0, 1, 1, 1, 0])]
)
def test_initiative_cards_and_their_gold(seats: int, gold: list[int]) -> None:
    """Steps 9-10: players+1 Initiative cards; 1 gold on each card neither first nor last."""
    state = given(SetUp(seats, 1, "draw", 0, ()))
    assert [c.number for c in state.initiative] == list(range(1, seats + 2))
    assert [c.gold for c in state.initiative] == gold


def test_sheets_chosen_in_turn_from_start_player() -> None:
    """Step 2: from the Start Player clockwise, each chooses a sheet; a taken one is refused."""
    state = given(SetUp(3, 1, "draw", 2, ()))
    with pytest.raises(Rejection) as exc:
        when(state, ChooseSheet(0, "Elf"))
    assert exc.value.code == "roll_player/not_your_turn"
    state = then(state, ChooseSheet(2, "Elf", "male"))
    assert state.players[2].race == "Elf" and state.players[2].side == "male"
    with pytest.raises(Rejection) as exc:
        when(state, ChooseSheet(0, "Elf"))
    assert exc.value.code == "roll_player/race_taken"
    with pytest.raises(Rejection) as exc:
        when(state, ChooseSheet(0, "Goblin"))
    assert exc.value.code == "roll_player/unknown"


@pytest.mark.parametrize("seed", range(12))
def test_class_draw_redraws_gold_and_taken_colours(seed: int) -> None:
    """Step 4: redraw a gold die or a taken colour; every seat ends with its own colour."""
    state = given(SetUp(4, seed, "draw", 0, ()))
    for seat, race in enumerate(["Elf", "Orc", "Human", "Dwarf"]):
        state = then(state, ChooseSheet(seat, race))
    draws = state.class_draws
    finals = [d[-1] for d in draws]
    assert len(set(finals)) == 4 and "gold" not in finals
    for seat in range(4):
        earlier = {draws[s][-1] for s in range(seat)}
        assert all(c == "gold" or c in earlier for c in draws[seat][:-1])
    assert sum(state.bag) == 73, "the class dice go back to the bag"


def test_class_side_only_from_drawn_card() -> None:
    """Step 4: the player chooses one of the two classes on the drawn card."""
    state = given(
        SetUp(2, 1, "draw", 0, ()),
        SheetChosen(0, "Elf", "female"),
        SheetChosen(1, "Orc", "female"),
        ClassDiceDrawn((("gold", "white"), ("red",))),
    )
    with pytest.raises(Rejection) as exc:
        when(state, ChooseClass(0, "Warrior"))
    assert exc.value.code == "roll_player/class_unavailable"
    state = then(state, ChooseClass(1, "Barbarian"))
    with pytest.raises(Rejection) as exc:
        when(state, ChooseClass(1, "Warrior"))
    assert exc.value.code == "roll_player/already_done"
    assert then(state, ChooseClass(0, "Paladin")).phase == "placing"


def test_class_by_choice_in_reverse_order() -> None:
    """Step 4 alternative: choose the Class card in reverse turn order, Start Player last."""
    state = given(SetUp(3, 1, "choice", 1, ()))
    for seat in (1, 2, 0):
        state = then(state, ChooseSheet(seat, ["Elf", "Orc", "Human"][seat]))
    assert state.phase == "classes" and state.queue == (0, 2, 1)
    state = then(state, ChooseClass(0, "Wizard"))
    with pytest.raises(Rejection) as exc:
        when(state, ChooseClass(2, "Sorcerer"))
    assert exc.value.code == "roll_player/class_unavailable"
    with pytest.raises(Rejection) as exc:
        when(state, ChooseClass(1, "Monk"))
    assert exc.value.code == "roll_player/not_your_turn"


def test_cards_dealt_and_starting_dice_after_classes() -> None:
    """Steps 5-11: backstory and alignment each, market of players+1, players+4 dice each."""
    state = given(
        SetUp(3, 9, "draw", 0, tuple(CATALOG.cards)),
        SheetChosen(0, "Elf", "female"),
        SheetChosen(1, "Orc", "female"),
        SheetChosen(2, "Human", "female"),
        ClassDiceDrawn((("red",), ("blue",), ("white",))),
        ClassChosen(0, "Warrior"),
        ClassChosen(1, "Wizard"),
    )
    events = when(state, ChooseClass(2, "Cleric"))
    dealt = next(e for e in events if isinstance(e, CardsDealt))
    assert len(set(dealt.backstories)) == 3 and len(set(dealt.alignments)) == 3
    drawn = next(e for e in events if isinstance(e, StartingDiceDrawn))
    assert [len(d) for d in drawn.dice] == [7, 7, 7]
    state = then(state, ChooseClass(2, "Cleric"))
    assert len(state.market) == 4 and state.players[1].cell == 4
    assert sum(state.bag) == 73 - 21


def test_starting_placement_gold_and_limits() -> None:
    """Step 12: leftmost spaces, 1 gold per full row, 2 per gold die (Thief 4), max 3 per row."""
    start = (dice("gold3", "red2", "red5", "blue1", "gold6", "white4", "green2"),) * 2 + (
        dice("gold1", *["red2"] * 6),
    )
    events = opening(3, classes=("Thief", "Warrior", "Cleric"), starting=start)[:-3]
    state = given(*events)
    with pytest.raises(Rejection) as exc:
        when(state, PlaceStart(0, (0, 0, 0, 0, 1, 1, 2)))
    assert exc.value.code == "roll_player/bad_placement"
    with pytest.raises(Rejection) as exc:
        when(state, PlaceStart(0, (0, 0, 0)))
    assert exc.value.code == "roll_player/bad_placement"
    assert when(state, PlaceStart(0, (0, 0, 0, 1, 1, 1, 2))) == (
        StartingDicePlaced(0, (0, 0, 0, 1, 1, 1, 2), 2 + 8),
    )
    assert when(state, PlaceStart(1, (0, 1, 2, 3, 4, 5, 5))) == (
        StartingDicePlaced(1, (0, 1, 2, 3, 4, 5, 5), 4),
    )
    state = then(state, PlaceStart(0, (0, 0, 0, 1, 1, 1, 2)))
    assert [d.value for d in state.players[0].rows[0]] == [3, 2, 5]
    with pytest.raises(Rejection) as exc:
        when(state, PlaceStart(0, (0, 0, 0, 1, 1, 1, 2)))
    assert exc.value.code == "roll_player/already_done"


def test_choice_mode_reaches_starting_dice() -> None:
    """Step 4 alternative then steps 5-11: after the Start Player chooses, dice are drawn."""
    state = given(SetUp(2, 4, "choice", 0, ()))
    state = then(then(state, ChooseSheet(0, "Elf")), ChooseSheet(1, "Orc"))
    state = then(state, ChooseClass(1, "Thief"))
    assert state.phase == "classes" and GAME.awaiting(state) == {0}
    state = then(state, ChooseClass(0, "Bard"))
    assert state.phase == "placing" and [len(d) for d in state.starting] == [6, 6]
    assert [p.colour for p in state.players] == ["purple", "black"]


def test_class_draw_gains_no_gold() -> None:
    """Step 4: no gold is gained for a gold die drawn for the class."""
    state = given(SetUp(2, 3, "draw", 0, ()))
    gold = [p.gold for p in state.players]
    state = then(then(state, ChooseSheet(0, "Elf")), ChooseSheet(1, "Orc"))
    assert state.class_draws == (("gold", "black"), ("green",))
    assert [p.gold for p in state.players] == gold
