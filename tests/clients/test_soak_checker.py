"""The soak's checker and measures on doctored histories (no processes): each kind of
violation is found, a sound history passes, and the stall and failover figures are
read from the tracks as documented (clients/soak/history.py, clients/soak/track.py)."""

from __future__ import annotations

import argparse
from typing import Any

import attrs
import msgpack
import pytest

from clients.soak.cli import options_from, render
from clients.soak.history import Logged, RoomHistory, Seen, judge
from clients.soak.track import Track, longest_stall, merged, moved_since, recovered_after


@attrs.define
class Player:
    """What the checker reads of a player."""

    seat: int | None
    acked: list[tuple[str, int, float]]
    seq: int = 0


FINISHED = {"room": {"status": "finished"}}


def record(seat: int, cmd: str | None = None, kind: str = "event", end: bool = False) -> bytes:
    data: dict[str, Any] = {"k": kind, "seat": seat, "cmd": cmd,
                            "e": {"type": "game_ended" if end else "rolled"}}  # fmt: skip
    return msgpack.packb(data)  # type: ignore[no-any-return]


def sound() -> tuple[RoomHistory, Logged]:
    """Two players, three acked commands, all logged once at their seq, one epoch."""
    blobs = [record(0, kind="seated"), record(0, "a1"), record(1, "b1"), record(0, "a2", end=True)]
    logged = Logged([(i + 1, b, 1) for i, b in enumerate(blobs)], {"1": "n0"})
    players = [Player(0, [("a1", 2, 1.0), ("a2", 4, 3.0)], 4), Player(1, [("b1", 3, 2.0)], 4)]
    return RoomHistory("r", players, finals=[FINISHED, FINISHED]), logged


def test_a_sound_history_passes() -> None:
    """Every ack logged once where acked, one node per epoch, the game finished."""
    problems, counts = judge([sound()])
    assert problems == []
    assert counts["acked"] == counts["acked_found"] == 3
    assert counts["finished"] == 1 and counts["lost"] == counts["duplicated"] == 0


def test_a_lost_ack_is_found() -> None:
    """An acknowledged command missing from the log (a failover dropped it) is lost."""
    history, logged = sound()
    logged = attrs.evolve(logged, records=logged.records[:-1])  # the last append gone
    history.finals = []
    history.playing = True
    problems, counts = judge([(history, logged)])
    assert counts["lost"] == 1
    assert any("a2" in p and "lost" in p for p in problems)


def test_a_duplicated_and_a_misplaced_ack_are_found() -> None:
    """A command in the log twice is duplicated; once at another seq, misplaced."""
    history, logged = sound()
    records = [*logged.records[:3], (4, record(0, "a1"), 1), (5, record(0, "a2", end=True), 1)]
    problems, counts = judge([(history, attrs.evolve(logged, records=records))])
    assert counts["duplicated"] == 1 and counts["misplaced"] == 1
    assert len(problems) == 2


def test_a_view_ahead_of_the_log_is_found() -> None:
    """A record a player saw before a master kill, changed afterwards, is a violation;
    records past what anyone saw are not judged."""
    history, logged = sound()
    history.snapshots.append(Seen(2, [(1, record(0, kind="seated")), (2, record(1, "zz")),
                                      (3, record(9, "unseen"))]))  # fmt: skip
    problems, counts = judge([(history, logged)])
    assert counts["seen_records_checked"] == 2
    assert problems == ["r: record 2 was seen by a client and is gone or changed"]


def test_two_nodes_in_one_epoch_and_epochs_going_back_are_found() -> None:
    history, logged = sound()
    records = [(1, logged.records[0][1], 2), *logged.records[1:]]  # epoch 2, then 1
    taken = {"1": "n0", "2": "n1", "dup:2": "n2"}
    problems, _ = judge([(history, Logged(records, taken))])
    assert "r: epoch 2 given twice" in problems
    assert "r: record 2 has epoch 1 after epoch 2" in problems


def test_unfinished_games_fail_unless_still_moving_and_hosted_rooms_read_the_log() -> None:
    """A game that did not finish is a violation unless it was still playing (and
    moving) at the end; a hosted bots' game finished when its log holds the end."""
    history, logged = sound()
    history.finals = [FINISHED]
    assert judge([(history, logged)])[0] == ["r: did not finish"]
    history.playing = True
    assert judge([(history, logged)])[1]["playing"] == 1
    hosted = RoomHistory("h", [], hosted=True)
    assert judge([(hosted, logged)])[1]["finished"] == 1
    unfinished = attrs.evolve(logged, records=logged.records[:-1])
    assert judge([(hosted, unfinished)])[0] == ["h: did not finish"]


def test_stalls_and_failovers_are_read_from_the_tracks() -> None:
    """The longest gap without growth while the room played; the failover time is to the
    first growth past the log's length at the fault."""
    track = Track("r", "websocket", started=0.0, ended=20.0)
    track.see(1.0, 3)
    track.see(1.5, 3)  # no growth: not kept
    track.see(9.0, 5)
    growth = merged(track, [(2.0, 4), (8.5, 4)])
    assert growth == [(1.0, 3), (2.0, 4), (9.0, 5)]
    assert longest_stall(track, growth, until=99.0) == 11.0  # 9.0 -> the end at 20.0
    assert recovered_after(growth, began=2.5, tail=4) == 6.5
    assert recovered_after(growth, began=9.5, tail=5) is None
    assert moved_since(growth, 1.5, 3) and not moved_since(growth, 9.0, 5)


def _args(**given: Any) -> argparse.Namespace:
    base = {"minutes": 0.5, "rooms": 4, "hosted": None, "every": 5.0, "settle": 10.0,
            "lease": 2.0, "seed": 1, "redis": None, "faults": "node-kill,master-kill"}  # fmt: skip
    return argparse.Namespace(**{**base, **given})


def test_options_are_checked() -> None:
    options = options_from(_args())
    assert not isinstance(options, str)
    assert options.hosted == 2 and options.faults == ("node-kill", "master-kill")
    assert "unknown fault" in str(options_from(_args(faults="node-kill,cut")))
    assert "--rooms" in str(options_from(_args(rooms=0)))


@pytest.mark.parametrize("ok", [True, False])
def test_the_printout_says_every_figure(ok: bool) -> None:
    figure = {"count": 2, "p50": 2.1, "p99": 3.4, "max": 3.4}
    summary = {
        "ok": ok, "minutes": 0.5, "seconds": 52.0, "nodes": 3, "lease_seconds": 2.0,
        "redis": "3 masters + 3 replicas", "rooms": {"websocket": 2, "hosted": 2},
        "commands": {"acked": 10, "verified": 9, "lost": 1, "duplicated": 0, "misplaced": 0,
                     "seen_records_checked": 4},
        "games": {"played": 4, "finished": 3, "playing_at_end": 1, "records": 99},
        "longest_stall": {"seconds": 4.2, "room": "r", "kind": "hosted"},
        "faults": {"count": 2, "by_kind": {"node-kill": 1, "master-kill": 1},
                   "failover_seconds": figure, "failover_seconds_by_kind": {"node-kill": figure},
                   "promotion_seconds": figure, "replica_back_seconds": figure,
                   "rooms_never_recovered": []},
        "memory_kib": {"node b0": {"start": 51200, "end": 52224, "restarts": 1}},
        "load_average": {"start": [1.0, 1.0, 1.0], "end": [2.0, 1.5, 1.1]}, "cpus": 2,
        "problems": ["r: seat 0 command a2 acked at 4, logged at [] (lost)"], "problem_count": 1,
        "errors": [], "error_count": 0,
    }  # fmt: skip
    text = render(summary)
    assert ("verdict: OK" in text) is ok
    for words in ("1 lost", "0 duplicated", "9 verified", "4.2 s", "p50 2.1 s, p99 3.4 s",
                  "node b0", "50.0 MiB", "51.0 MiB", "load average", "(lost)"):  # fmt: skip
        assert words in text, words
