"""The OperatorStore contract (the console's audit log, bans and node reports), run over
every backend: memory, sqlite and a real redis-server."""

from __future__ import annotations

import pytest

from server.store import EventStore, StoreError
from server.store.operator import OperatorStore


@pytest.fixture
def operator(store: EventStore) -> OperatorStore:
    return store.operator


async def test_the_audit_log_reads_newest_first(operator: OperatorStore) -> None:
    """Entries come back as written, newest first, at most ``limit`` of them."""
    assert await operator.audit_tail(10) == []
    for i in range(5):
        await operator.audit({"at": 100.0 + i, "who": "ann", "action": "notice", "n": i})
    tail = await operator.audit_tail(3)
    assert [e["n"] for e in tail] == [4, 3, 2]
    assert tail[0] == {"at": 104.0, "who": "ann", "action": "notice", "n": 4}
    assert len(await operator.audit_tail(100)) == 5
    assert await operator.audit_tail(0) == []


async def test_a_ban_holds_until_its_time_and_can_be_lifted(operator: OperatorStore) -> None:
    """A ban is in force before ``until`` only; a second ban of the same target replaces
    the first; unban lifts it; addresses and players are apart."""
    await operator.ban("address", "203.0.113.7", 200.0, {"reason": "flood", "by": "ann"})
    await operator.ban("player", "203.0.113.7", 150.0, {"reason": "other"})
    live = await operator.bans(100.0)
    assert sorted((b["kind"], b["value"], b["until"]) for b in live) == [
        ("address", "203.0.113.7", 200.0),
        ("player", "203.0.113.7", 150.0),
    ]
    assert next(b for b in live if b["kind"] == "address")["reason"] == "flood"
    assert [b["kind"] for b in await operator.bans(160.0)] == ["address"]
    await operator.ban("address", "203.0.113.7", 300.0, {"reason": "again"})
    (again,) = await operator.bans(250.0)
    assert (again["until"], again["reason"]) == (300.0, "again")
    await operator.unban("address", "203.0.113.7")
    assert await operator.bans(250.0) == []
    await operator.unban("address", "nobody")  # nothing to lift: no error


async def test_a_ban_names_an_address_or_a_player(operator: OperatorStore) -> None:
    """Another kind, or an empty value, is refused with a StoreError and keeps nothing."""
    with pytest.raises(StoreError):
        await operator.ban("room", "r-1", 10.0, {})
    with pytest.raises(StoreError):
        await operator.ban("player", "", 10.0, {})
    assert await operator.bans(0.0) == []


async def test_node_reports_are_kept_while_fresh(operator: OperatorStore) -> None:
    """The last report of each node, with its node and time; stale ones are left out."""
    await operator.report("a", {"rooms": 1}, 100.0)
    await operator.report("b", {"rooms": 2}, 100.0)
    await operator.report("a", {"rooms": 3}, 104.0)
    fresh = await operator.reports(105.0, 3.0)
    assert fresh == [{"rooms": 3, "node": "a", "at": 104.0}]
    both = await operator.reports(105.0, 10.0)
    assert [(r["node"], r["rooms"]) for r in both] == [("a", 3), ("b", 2)]
    await operator.report("a", {"rooms": 4}, 100_000.0)
    assert [r["node"] for r in await operator.reports(100_000.0, 1e9)] == ["a"]  # b forgotten
