"""``rollhouse simulate``: whole games with the bots, summarised as text or JSON."""

from __future__ import annotations

import json

import pytest

from clients.cli import main
from clients.simulate.cli import play_game, seat_policies, simulate
from engine.core import get_game


def test_json_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints one object with the games, means, win rates and speed."""
    code = main(["simulate", "rollie", "--players", "3", "--games", "6", "--seed", "4", "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 6 and summary["players"] == 3 and summary["game"] == "rollie"
    assert set(summary["policies"]) == {"push", "random", "search"}
    assert sum(p["seats"] for p in summary["policies"].values()) == 18
    assert 1 <= summary["mean_rounds"] <= 7
    assert summary["mean_commands"] > 0 and summary["commands_per_second"] > 0
    assert {"mean_score", "commands_applied", "seconds"} <= set(summary)
    wins = sum(p["win_rate"] * p["seats"] for p in summary["policies"].values())
    assert wins == pytest.approx(6, abs=0.01)  # one win per game, shared wins split


def test_text_summary_and_chosen_policy(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --json a readable summary; --policies restricts the bots."""
    assert main(["simulate", "rollie", "--players", "2", "--games", "3", "--policies", "push"]) == 0
    out = capsys.readouterr().out
    assert "3 games of rollie" in out and "push" in out and "random" not in out
    assert "commands/s" in out


def test_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    """Unknown games or policies and impossible seat counts exit with 2."""
    assert main(["simulate", "nosuchgame"]) == 2
    assert main(["simulate", "rollie", "--players", "9"]) == 2
    assert main(["simulate", "rollie", "--policies", "genius"]) == 2
    capsys.readouterr()


def test_same_seed_same_games() -> None:
    """A simulation is reproducible from its seed."""
    first = simulate("rollie", 4, 3, 11)
    second = simulate("rollie", 4, 3, 11)
    for key in ("mean_commands", "mean_score", "policies", "mean_rounds"):
        assert first[key] == second[key]


def test_seats_alternate_and_rotate() -> None:
    """Seats alternate between policies, shifted by one seat each game."""
    assert seat_policies(["a", "b"], 3, 0) == ("a", "b", "a")
    assert seat_policies(["a", "b"], 3, 1) == ("b", "a", "b")


def test_play_game_ends() -> None:
    """A single game runs to its result through the generic contract."""
    run = play_game(get_game("rollie"), 6, ("random",) * 6, seed=2, options={"rounds": 2})
    assert len(run.result.scores) == 6 and run.applied > 0


def test_roll_player_scores_per_class(capsys: pytest.CaptureFixture[str]) -> None:
    """Roll Player's summary groups scores by class, with a p10-p90 band."""
    main(["simulate", "roll-player", "--players", "2", "--games", "3", "--seed", "4", "--json"])
    summary = json.loads(capsys.readouterr().out)
    classes = summary["groups"]["class"]
    assert sum(row["seats"] for row in classes.values()) == 6
    for row in classes.values():
        assert row["p10"] <= row["mean_score"] <= row["p90"] or row["seats"] == 1


def test_roll_builder_band_per_city_and_survival_per_event(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Solo Roll Builder reports the band per city and the survival rate per event."""
    args = "simulate roll-builder --players 1 --games 4 --policies greedy --option city=highcrag"
    main([*args.split(), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert list(summary["groups"]["city"]) == ["highcrag"]
    events = summary["groups"]["event"]
    assert sum(row["seats"] for row in events.values()) == 4
    assert all(0 <= row["survival_rate"] <= 1 for row in events.values())


def test_bad_option_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """--option values go through the game's own option check; a bad one exits 2 with its reason."""
    assert main(["simulate", "rollie", "--games", "1", "--option", "rounds=99"]) == 2
    assert "rounds" in capsys.readouterr().out
    assert main(["simulate", "rollie", "--games", "1", "--option", "rounds"]) == 2
