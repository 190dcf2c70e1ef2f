"""The EventStore contract, run over every backend: memory, sqlite and redis."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.store import EventStore, Record, StoreConflict, StoreError, StoreUnavailable, open_store


def ev(n: int) -> dict[str, Any]:
    """A small event numbered ``n``."""
    return {"type": "rolled", "n": n, "dice": [1, 2, 3]}


async def test_append_then_read_round_trip(store: EventStore) -> None:
    """Appended records read back with their seqs and data."""
    last = await store.append("r-1", [ev(1), ev(2)], 0)
    assert last == 2
    assert await store.read("r-1") == [Record(1, ev(1)), Record(2, ev(2))]


async def test_seqs_are_consecutive_from_one(store: EventStore) -> None:
    """Several appends number records 1..n with no gap."""
    last = 0
    for size in (1, 3, 2, 1):
        last = await store.append("r-1", [ev(last + i) for i in range(1, size + 1)], last)
    records = await store.read("r-1")
    assert [r.seq for r in records] == list(range(1, 8))
    assert [r.data["n"] for r in records] == list(range(1, 8))


@pytest.mark.parametrize("expected", [0, 1, 3, 4, 10])
async def test_wrong_expected_seq_conflicts_and_writes_nothing(
    store: EventStore, expected: int
) -> None:
    """An expected seq below or above the log's last seq raises StoreConflict, writes nothing."""
    await store.append("r-1", [ev(1), ev(2)], 0)
    with pytest.raises(StoreConflict) as info:
        await store.append("r-1", [ev(99), ev(100)], expected)
    assert (info.value.room, info.value.expected, info.value.actual) == ("r-1", expected, 2)
    assert info.value.code == "store/conflict"
    assert [r.data["n"] for r in await store.read("r-1")] == [1, 2]
    assert await store.last_seq("r-1") == 2


async def test_conflict_on_a_new_room_creates_nothing(store: EventStore) -> None:
    """Appending to a room without a log with expected seq > 0 conflicts; no room appears."""
    with pytest.raises(StoreConflict):
        await store.append("r-new", [ev(1)], 3)
    assert await store.last_seq("r-new") == 0
    assert await store.list_rooms() == []


async def test_concurrent_appends_same_expected_seq_one_wins(store: EventStore) -> None:
    """20 concurrent appends with the same expected seq: exactly one wins, 19 conflict."""
    await store.append("r-1", [ev(0)], 0)
    results = await asyncio.gather(
        *(store.append("r-1", [ev(i), ev(i)], 1) for i in range(20)), return_exceptions=True
    )
    wins = [r for r in results if r == 3]
    conflicts = [r for r in results if isinstance(r, StoreConflict)]
    assert (len(wins), len(conflicts)) == (1, 19)
    records = await store.read("r-1")
    assert [r.seq for r in records] == [1, 2, 3]
    assert records[1].data == records[2].data  # both records of the single winner


async def test_many_rooms_appending_concurrently_all_succeed(store: EventStore) -> None:
    """200 rooms appending 5 times each, concurrently: every append lands, in order."""

    async def actor(room: str) -> int:
        last = 0
        for n in range(1, 6):
            last = await store.append(room, [ev(n)], last)
        return last

    rooms = [f"r-{i}" for i in range(200)]
    assert await asyncio.gather(*(actor(r) for r in rooms)) == [5] * 200
    for room in rooms:
        assert [(r.seq, r.data["n"]) for r in await store.read(room)] == [
            (n, n) for n in range(1, 6)
        ]
    assert sorted(await store.list_rooms()) == sorted(rooms)


async def test_a_conflict_does_not_fail_the_rest_of_the_batch(store: EventStore) -> None:
    """Appends issued together: the one with a wrong expected seq fails alone."""
    await store.append("r-b", [ev(1)], 0)
    a, b, c = await asyncio.gather(
        store.append("r-a", [ev(1)], 0),
        store.append("r-b", [ev(2)], 0),
        store.append("r-c", [ev(1), ev(2)], 0),
        return_exceptions=True,
    )
    assert (a, c) == (1, 2)
    assert isinstance(b, StoreConflict)
    assert await store.last_seq("r-b") == 1


@pytest.mark.parametrize(
    ("after", "limit", "expected"),
    [(0, None, [1, 2, 3, 4, 5]), (2, None, [3, 4, 5]), (0, 2, [1, 2]), (3, 1, [4]),
     (3, 10, [4, 5]), (5, None, []), (9, None, []), (1, 0, [])],
)  # fmt: skip
async def test_read_after_and_limit(
    store: EventStore, after: int, limit: int | None, expected: list[int]
) -> None:
    """read(after, limit) returns the records with seq > after, at most limit of them."""
    await store.append("r-1", [ev(n) for n in range(1, 6)], 0)
    records = await store.read("r-1", after=after, limit=limit)
    assert [r.seq for r in records] == expected
    assert [r.data["n"] for r in records] == expected


async def test_read_of_an_unknown_room_is_empty(store: EventStore) -> None:
    """A room without a log reads as no records."""
    assert await store.read("r-none") == []


async def test_last_seq(store: EventStore) -> None:
    """last_seq is 0 for an unknown room and the last appended seq afterwards."""
    assert await store.last_seq("r-1") == 0
    await store.append("r-1", [ev(1), ev(2)], 0)
    await store.append("r-1", [ev(3)], 2)
    assert await store.last_seq("r-1") == 3


async def test_last_seqs_of_many_rooms_at_once(store: EventStore) -> None:
    """last_seqs answers every room asked, 0 for a room without a log, past one batch."""
    assert await store.last_seqs([]) == {}
    rooms = [f"r-{i}" for i in range(600)]
    for i, room in enumerate(rooms[:3]):
        await store.append(room, [ev(n) for n in range(1, i + 2)], 0)
    await store.append(rooms[599], [ev(1), ev(2)], 0)
    tops = await store.last_seqs(rooms)
    assert tops == {**dict.fromkeys(rooms, 0), "r-0": 1, "r-1": 2, "r-2": 3, "r-599": 2}
    assert tops == {room: await store.last_seq(room) for room in rooms}


async def test_empty_append_returns_expected_and_writes_nothing(store: EventStore) -> None:
    """An append of no records returns expected_seq and creates no room."""
    assert await store.append("r-1", [], 0) == 0
    assert await store.list_rooms() == []
    assert await store.last_seq("r-1") == 0


async def test_list_rooms_in_creation_order(store: EventStore) -> None:
    """list_rooms lists each room once, in the order of its first append."""
    for room in ("r-c", "r-a", "r-b"):
        await store.append(room, [ev(1)], 0)
    await store.append("r-a", [ev(2)], 1)
    assert await store.list_rooms() == ["r-c", "r-a", "r-b"]


async def test_snapshots_keep_the_latest(store: EventStore) -> None:
    """load_snapshot returns None, then the snapshot with the highest seq saved."""
    await store.append("r-1", [ev(n) for n in range(1, 6)], 0)
    assert await store.load_snapshot("r-1") is None
    await store.save_snapshot("r-1", 2, {"state": 2})
    await store.save_snapshot("r-1", 4, {"state": 4})
    assert await store.load_snapshot("r-1") == (4, {"state": 4})
    await store.save_snapshot("r-1", 3, {"state": 3})  # older than the one kept
    assert await store.load_snapshot("r-1") == (4, {"state": 4})
    await store.save_snapshot("r-1", 4, {"state": "4b"})  # same seq: replaced
    assert await store.load_snapshot("r-1") == (4, {"state": "4b"})


async def test_snapshot_beyond_the_log_is_refused(store: EventStore) -> None:
    """A snapshot at a seq past the room's last seq raises store/bad_snapshot."""
    await store.append("r-1", [ev(1)], 0)
    with pytest.raises(StoreError) as info:
        await store.save_snapshot("r-1", 2, {"state": 2})
    assert info.value.code == "store/bad_snapshot"
    assert await store.load_snapshot("r-1") is None


NESTED: dict[str, Any] = {
    "type": "dealt",
    "neg": -17,
    "big": 2**63 - 1,
    "small": -(2**63),
    "f": -1.5,
    "flags": [True, False, None],
    "raw": b"\x00\xffseed",
    "text": "héllo 🎲",
    "deep": {"a": [{"b": [1, -2, {"c": b"x"}]}], "empty": {}, "none": []},
}


async def test_nested_plain_data_round_trips(store: EventStore) -> None:
    """Nested dicts and lists with bytes, negative and 64-bit ints, floats, None survive."""
    await store.append("r-1", [NESTED, {}], 0)
    await store.save_snapshot("r-1", 2, NESTED)
    assert await store.read("r-1") == [Record(1, NESTED), Record(2, {})]
    assert await store.load_snapshot("r-1") == (2, NESTED)


@pytest.mark.parametrize("bad", [{"x": object()}, {"x": 2**64}, {"x": {1, 2}}, "not a dict"])
async def test_data_that_is_not_plain_is_refused(store: EventStore, bad: Any) -> None:
    """Data msgpack cannot carry raises store/bad_data and nothing of the batch is written."""
    with pytest.raises(StoreError) as info:
        await store.append("r-1", [ev(1), bad], 0)
    assert info.value.code == "store/bad_data"
    assert await store.last_seq("r-1") == 0


@pytest.mark.parametrize("room", ["", "x" * 65, "a b", "r/1", "r:1", "é", "r-1\n", None, 7])
async def test_invalid_room_ids_are_refused(store: EventStore, room: Any) -> None:
    """Room ids outside 1-64 chars of [A-Za-z0-9_-] raise store/bad_room everywhere."""
    calls = [
        store.append(room, [ev(1)], 0),
        store.read(room),
        store.last_seq(room),
        store.last_seqs(["r-ok", room]),
        store.save_snapshot(room, 0, {}),
        store.load_snapshot(room),
    ]
    for call in calls:
        with pytest.raises(StoreError) as info:
            await call
        assert info.value.code == "store/bad_room"
    assert await store.list_rooms() == []


async def test_longest_valid_room_id_is_accepted(store: EventStore) -> None:
    """A 64-character room id of every allowed character class works."""
    room = ("Az09_-" * 11)[:64]
    assert await store.append(room, [ev(1)], 0) == 1
    assert await store.list_rooms() == [room]


@pytest.mark.parametrize("expected", [-1, True, "0", 1.0])
async def test_bad_expected_seq_is_refused(store: EventStore, expected: Any) -> None:
    """An expected seq that is not an int >= 0 raises store/bad_seq."""
    with pytest.raises(StoreError) as info:
        await store.append("r-1", [ev(1)], expected)
    assert info.value.code == "store/bad_seq"


async def test_closed_store_is_unavailable(store_url: str) -> None:
    """After close, every call raises StoreUnavailable; close twice is fine."""
    store = open_store(store_url)
    await store.append("r-1", [ev(1)], 0)
    await store.close()
    await store.close()
    with pytest.raises(StoreUnavailable):
        await store.append("r-1", [ev(2)], 1)
    with pytest.raises(StoreUnavailable):
        await store.read("r-1")


async def test_reopen_keeps_everything(durable_url: str) -> None:
    """Closing and reopening the same sqlite file / redis db keeps logs, rooms, snapshots."""
    first = open_store(durable_url)
    await first.append("r-b", [ev(1), NESTED], 0)
    await first.append("r-a", [ev(1)], 0)
    await first.save_snapshot("r-b", 2, {"s": 2})
    await first.close()
    second = open_store(durable_url)
    try:
        assert await second.list_rooms() == ["r-b", "r-a"]
        assert await second.read("r-b") == [Record(1, ev(1)), Record(2, NESTED)]
        assert await second.load_snapshot("r-b") == (2, {"s": 2})
        with pytest.raises(StoreConflict):
            await second.append("r-b", [ev(3)], 1)
        assert await second.append("r-b", [ev(3)], 2) == 3
    finally:
        await second.close()


async def test_close_waits_for_appends_in_flight(durable_url: str) -> None:
    """Appends already submitted when close is called are committed, not dropped."""
    store = open_store(durable_url)
    pending = [asyncio.ensure_future(store.append(f"r-{i}", [ev(i)], 0)) for i in range(50)]
    await asyncio.sleep(0)  # let the appends enter the batch
    await store.close()
    assert [await p for p in pending] == [1] * 50
    reopened = open_store(durable_url)
    try:
        assert len(await reopened.list_rooms()) == 50
    finally:
        await reopened.close()


async def test_stored_replies_are_fenced_like_appends(store: EventStore) -> None:
    """A reply carrying an old fence epoch is refused and not kept; the current one is kept."""
    from server.store import StoreFenced

    await store.append("r-1", [ev(1)], 0)
    old = await store.fence("r-1")
    new = await store.fence("r-1")
    with pytest.raises(StoreFenced):
        await store.save_reply("r-1", 0, "x", {"type": "ack", "seq": 1}, 8, fence=old)
    assert await store.load_replies("r-1") == []
    await store.save_reply("r-1", 0, "x", {"type": "ack", "seq": 1}, 8, fence=new)
    assert await store.load_replies("r-1") == [(0, "x", {"type": "ack", "seq": 1})]


async def test_an_append_with_an_old_fence_epoch_is_refused(store: EventStore) -> None:
    """Every fence() moves the epoch on; an append carrying an older one writes nothing."""
    from server.store import StoreFenced

    await store.append("r-1", [ev(1)], 0)
    first = await store.fence("r-1")
    second = await store.fence("r-1")
    assert second > first
    with pytest.raises(StoreFenced):
        await store.append("r-1", [ev(2)], 1, fence=first)
    assert await store.last_seq("r-1") == 1
    assert await store.append("r-1", [ev(2)], 1, fence=second) == 2


async def test_stored_replies_keep_the_last_ones_per_seat(store: EventStore) -> None:
    """At most ``keep`` replies per seat survive; other seats are untouched."""
    await store.append("r-1", [ev(1)], 0)
    for i in range(5):
        await store.save_reply("r-1", 0, f"a{i}", {"n": i}, 3)
    await store.save_reply("r-1", 1, "b", {"n": 9}, 3)
    kept = sorted((seat, cmd) for seat, cmd, _ in await store.load_replies("r-1"))
    assert kept == [(0, "a2"), (0, "a3"), (0, "a4"), (1, "b")]


async def test_driven_rooms_are_marked_and_unmarked(store: EventStore) -> None:
    """set_driven adds and removes a room; driven_rooms lists the marked ones."""
    await store.set_driven("r-1", True)
    await store.set_driven("r-2", True)
    await store.set_driven("r-1", False)
    assert await store.driven_rooms() == ["r-2"]


async def test_room_pages_go_newest_first_with_their_summaries(store: EventStore) -> None:
    """room_page lists every room with a log, newest first, in pages; each with the
    summary kept for it (None before one is kept), the last one kept winning."""
    rooms = [f"r-{i}" for i in range(7)]
    for room in rooms:
        await store.append(room, [ev(0)], 0)
    await store.save_summaries({"r-2": {"status": "waiting"}, "r-5": {"status": "playing"}})
    await store.save_summaries({"r-5": {"status": "finished", "seq": 9}})
    seen: list[tuple[str, Any]] = []
    cursor: int | None = 0
    for _ in range(10):  # bounded
        assert cursor is not None
        page, cursor = await store.room_page(cursor, 3)
        assert len(page) <= 3
        seen += page
        if cursor is None:
            break
    assert [r for r, _ in seen] == list(reversed(rooms))
    summaries = dict(seen)
    assert summaries["r-5"] == {"status": "finished", "seq": 9}
    assert summaries["r-2"] == {"status": "waiting"}
    assert summaries["r-0"] is None
    assert await store.room_page(100, 3) == ([], None)
    with pytest.raises(StoreError):
        await store.room_page(-1, 3)
