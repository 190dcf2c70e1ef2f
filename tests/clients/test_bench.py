"""``rollhouse bench``: a short real run (memory store + bare baseline) and its helpers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clients.bench.record import Recorder, Totals, Window
from clients.bench.report import percentile
from clients.bench.run import split
from clients.cli import main
from tests.support.redis_server import redis_binary

pytestmark = pytest.mark.timeout(60)


def test_smoke_json_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """A 2-room, 2-second run prints one JSON object whose figures are all present and positive."""
    code = main(["bench", "--stores", "memory", "--rooms", "2", "--seconds", "2", "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rooms"] == 2 and summary["machine"]["cpus"] >= 1
    memory = summary["stores"]["memory"]
    for row in (memory, summary["bare"]):
        assert row["commands_per_second"] > 0 and row["acked"] > 0
        assert row["connections"] == 14
        for figure in ("ack_ms", "last_patch_ms"):
            assert 0 < row[figure]["p50"] <= row[figure]["p99"]
        assert row["memory_per_connection_kib"] is not None
        assert row["server_rss_kib"]["after"] > 0
        assert {"server", "load", "others"} <= set(row["cpu_percent"])
    assert memory["ratio_to_bare"] > 0 and memory["ratio_per_server_cpu"] > 0
    assert memory["games_completed"] >= 0 and memory["errors"] == {}


def test_unknown_store_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """A store name outside memory, sqlite and redis exits with 2 before starting anything."""
    assert main(["bench", "--stores", "postgres"]) == 2
    assert "unknown store" in capsys.readouterr().out


def test_recorder_matches_patches_to_acks() -> None:
    """The last-patch time waits for all viewers; a command without a patch is not counted."""
    totals = Totals()
    recorder = Recorder(viewers=2, window=Window())
    recorder.on_send("a")
    recorder.on_patch(1)
    recorder.on_patch(1)
    recorder.on_ack("a", 1)
    recorder.on_send("b")
    recorder.on_patch(2)  # only one of the two viewers got seq 2
    recorder.on_ack("b", 2)
    recorder.settle(totals)
    assert totals.acked == 2 and len(totals.ack_ms) == 2
    assert len(totals.patch_ms) == 1 and totals.patch_missing == 1


def test_recorder_counts_a_shared_patch_for_every_command_it_carries() -> None:
    """Two commands written together (seqs 2 and 3) are carried by one patch 1 -> 3."""
    totals = Totals()
    recorder = Recorder(viewers=1, window=Window())
    recorder.on_send("a")
    recorder.on_send("b")
    recorder.on_patch(3)
    recorder.on_ack("a", 2)
    recorder.on_ack("b", 3)
    recorder.settle(totals)
    assert totals.acked == 2 and len(totals.patch_ms) == 2 and totals.patch_missing == 0


def test_percentile_and_split() -> None:
    """Nearest-rank percentiles; rooms spread evenly over load generators."""
    assert percentile([], 50) is None
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 99) == 99.0
    assert split(7, 3) == [3, 2, 2] and sum(split(20, 1)) == 20


@pytest.mark.timeout(120)
def test_cluster_bench_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    """``rollhouse bench-cluster``: one node's throughput, the hop and one kill, as JSON."""
    redis_binary()  # skip without redis-server (fail under CI)
    argv = ["bench-cluster", "--nodes", "1", "--rooms", "1", "--seconds", "2"]
    argv += ["--relay-commands", "5", "--kills", "1", "--kill-rooms", "1", "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    (one,) = summary["throughput"]
    assert one["nodes"] == 1 and one["acked"] > 0 and one["commands_per_node_cpu_second"] > 0
    assert len(one["load_average"]["before"]) == 3
    hop = summary["hop"]
    assert hop["relayed_ms"]["p50"] > 0 and hop["local_ms"]["p50"] > 0
    failover = summary["failover"]
    assert failover["rooms"] == 1 and failover["seconds"]["p50"] > 0


def test_resume_bench_smoke(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m clients.bench.resume``: spectators come back into playing rooms and are
    resumed (a viewless welcome) or given a snapshot; every resume is timed."""
    from clients.bench import resume

    argv = ["resume", "--stores", "memory", "--rooms", "2", "--resumes", "5", "--json"]
    monkeypatch.setattr("sys.argv", argv)
    resume.main()
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert run["resumes"] == 5
    assert run["answered_with_patches"] + run["answered_with_snapshot"] == 5
    assert 0 < run["resume_ms"]["p50"] <= run["resume_ms"]["p99"] <= run["resume_ms"]["max"]


def test_fold_bench_prints_every_game(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m clients.bench.fold``: each game's whole log folds, and its snapshot reads."""
    from clients.bench import fold

    assert fold.main(["--repeat", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["games"]
    assert [r["game"] for r in rows] == ["rollie", "roll-player", "roll-builder"]
    for row in rows:
        assert row["records"] > 50 and row["fold_ms"] > 0 and row["snapshot_read_ms"] > 0


def test_room_list_bench_pages_a_filled_store(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m clients.bench.rooms``: rooms written into each store are listed in
    full pages by a server that never had them in memory, at every cursor it asks."""
    from clients.bench import rooms

    assert rooms.main(["--rooms", "600", "--repeat", "2", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [run["store"] for run in runs] == ["sqlite", "redis"]
    for run in runs:
        assert [(p["cursor"], p["limit"], p["rooms_in_page"]) for p in run["pages"]] == [
            (0, 100, 100), (300, 100, 100), (500, 100, 100),
            (0, 500, 500), (300, 500, 300), (100, 500, 500),
        ]  # fmt: skip
        assert all(0 < p["p50_ms"] <= p["max_ms"] for p in run["pages"])


def test_idle_bench_opens_every_connection(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m clients.bench.idle``: every spectator is welcomed by both servers, and
    ours is pinged before and with them open."""
    from clients.bench import idle

    argv = ["idle", "--connections", "200", "--rooms", "4", "--probe-seconds", "0.3", "--json"]
    monkeypatch.setattr("sys.argv", argv)
    idle.main()
    summary = json.loads(capsys.readouterr().out)
    for target in ("memory", "bare"):
        assert summary[target]["connections"] == 200
        assert isinstance(summary[target]["kib_per_connection"], float)
    assert summary["memory"]["presence_frames_received"] > 0
    for key in ("ping_ms_without", "ping_ms_with"):
        assert 0 < summary["memory"][key]["p50"] <= summary["memory"][key]["p99"]


def test_audience_bench_delivers_every_patch_to_every_spectator(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m clients.bench.audience``: every measured patch reaches every spectator
    and player of our server, and the bare server replays the same frames to as many."""
    from clients.bench import audience

    monkeypatch.setattr("sys.argv", ["audience", "--spectators", "30", "--commands", "4", "--json"])
    audience.main()
    summary = json.loads(capsys.readouterr().out)
    ours, bare = summary["ours"], summary["bare"]
    assert ours["commands"] == bare["commands"] == 4
    assert ours["deliveries"] == bare["deliveries"] == 4 * (30 + audience.PLAYERS)
    for row in (ours, bare):
        ms = row["patch_to_last_spectator_ms"]
        assert 0 < ms["p50"] <= ms["p99"]


def test_bench_all_reads_every_target_from_its_parts() -> None:
    """``rollhouse bench-all``'s table finds every figure in what its parts print (the
    parts' JSON of one real run, cut to the fields the table reads), and a part that
    failed shows as failed, not as a figure."""
    from clients.bench import suite

    parts = json.loads((Path(__file__).parent / "data" / "bench_all_parts.json").read_text())
    assert set(parts) == {name for name, _, _ in suite.parts(10)}
    rows = suite.table(parts)
    assert len(rows) == len(suite.targets())
    assert not [r for r in rows if str(r["measured"]).startswith("(")], rows
    assert {r["figure"]: r["met"] for r in rows}["idle: KiB per connection (10,000)"] is True
    text = suite.render(parts, rows)
    assert "Rollie commands per server CPU s / bare, memory" in text
    broken = {**parts, "resume": {**parts["resume"], "error": "exit 1: boom"}}
    del broken["resume"]["output"]
    rows = suite.table(broken)
    resumed = [r for r in rows if r["figure"].startswith("resume p99 ms, 20 rooms flat out")]
    assert resumed and all(r["met"] is False and r["measured"] == "(KeyError)" for r in resumed)
    assert "FAILED: exit 1: boom" in suite.render(broken, rows)


def test_core_bench_plays_every_game(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m clients.bench.core``: whole games of each through the room core, alone
    and with every awaited seat's command in one batch, every stage timed."""
    from clients.bench import core

    for extra in ([], ["--together"]):
        assert core.main(["--plays", "1", "--repeat", "1", "--json", *extra]) == 0
        rows = json.loads(capsys.readouterr().out)["games"]
        assert [r["game"] for r in rows] == ["rollie", "roll-player", "roll-builder"]
        for row in rows:
            assert row["commands"] > 30 and row["together"] == bool(extra)
            stages = row["decide_us"] + row["fold_us"] + row["shell_us"]
            assert row["us_per_command"] == pytest.approx(stages, abs=0.5)


def test_replay_bench_records_and_replays_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m clients.bench.replay``: the first bot's commands of a game are recorded,
    and replaying them through a fresh room core reaches the end of the same game."""
    from clients.bench import replay

    recorded = tmp_path / "inputs.json"
    assert replay.main(["record", str(recorded), "--games", "rollie", "--plays", "1"]) == 0
    commands = len(json.loads(recorded.read_text())["rollie"][0])
    assert commands > 30
    capsys.readouterr()
    assert replay.main(["run", str(recorded), "--game", "rollie", "--plays", "1"]) == 0
    assert capsys.readouterr().out.strip() == f"rollie: 1 games, {commands} commands"
