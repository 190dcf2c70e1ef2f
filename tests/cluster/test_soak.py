"""``rollhouse soak`` for half a minute: its own Redis Cluster, three nodes, a few rooms
of websocket players and hosted bots, faults drawn every few seconds (a node killed,
a node paused, a Redis master killed). The verdict: nothing acknowledged lost or
duplicated, every game finished or moving after the faults stopped, and every figure
of the printout there. (The checker itself is shown to fail on doctored histories in
tests/clients/test_soak_checker.py.)"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from clients.bench.proc import child_env
from tests.support.redis_cluster import binaries

pytestmark = [pytest.mark.redis, pytest.mark.timeout(400)]


def test_a_short_soak_loses_nothing_and_every_room_moves_on() -> None:
    """Half a minute of faults on 6 rooms (3 websocket, 3 hosted bots), then 15 s without."""
    binaries()  # skip (or fail under CI) without redis-server and redis-cli
    argv = ["--minutes", "0.5", "--rooms", "6", "--every", "3", "--settle", "15", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "clients.cli", "soak", *argv],
        capture_output=True, text=True, timeout=360, env=child_env(),
    )  # fmt: skip
    assert done.stdout, done.stderr[-3000:]
    s = json.loads(done.stdout)
    print(f"\nsoak: {s['commands']}, {s['games']}, faults {s['faults']['by_kind']}, "
          f"failover {s['faults']['failover_seconds']}, longest stall {s['longest_stall']}")  # fmt: skip
    assert s["problems"] == [] and s["faults"]["rooms_never_recovered"] == []
    assert s["commands"]["lost"] == s["commands"]["duplicated"] == 0
    assert s["commands"]["verified"] == s["commands"]["acked"] > 0
    assert s["games"]["played"] == s["games"]["finished"] + s["games"]["playing_at_end"]
    assert s["faults"]["count"] >= 2
    assert s["longest_stall"]["seconds"] is not None
    names = set(s["memory_kib"])
    assert {"node b0", "node b1", "node b2", "soak (players)"} <= names
    assert sum(n.startswith("redis ") for n in names) == 6
    assert all(m["start"] and m["end"] for m in s["memory_kib"].values())
    assert len(s["load_average"]["start"]) == 3
    assert s["ok"] is True and done.returncode == 0
