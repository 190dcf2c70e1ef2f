"""The PeopleStore contract (players, sessions, a player's rooms, shared counters),
run over every backend: memory, sqlite and a real redis-server."""

from __future__ import annotations

import asyncio

import pytest

from server.store import EventStore, StoreError, open_store
from server.store.people_base import Backoff, PeopleStore, StoredPlayer, StoredSession

A, B, C = "p-" + "a" * 16, "p-" + "b" * 16, "p-" + "c" * 16
S1, S2, S3 = "1" * 32, "2" * 32, "3" * 32
DAY = 86_400.0
HASH = "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA"


def player(pid: str = A, name: str = "Ana", at: float = 1000.0) -> StoredPlayer:
    return StoredPlayer(pid, name, at)


def session(last: float, digest: str = "d" * 64, created: float | None = None) -> StoredSession:
    return StoredSession(digest, last if created is None else created, last)


@pytest.fixture
def people(store: EventStore) -> PeopleStore:
    return store.people


# --- players ---


async def test_a_player_reads_back_as_created(people: PeopleStore) -> None:
    """A created player reads back with its name and time; an unknown id is None."""
    assert await people.create_player(player(A, "Ana", 1234.5)) is True
    assert await people.player(A) == StoredPlayer(A, "Ana", 1234.5, None, None)
    assert await people.player(B) is None


async def test_a_taken_player_id_is_refused_and_changes_nothing(people: PeopleStore) -> None:
    """Creating a player whose id exists returns False and keeps the first one."""
    await people.create_player(player(A, "Ana"))
    assert await people.create_player(player(A, "Eve", 5.0)) is False
    assert (await people.player(A)) == player(A, "Ana")


@pytest.mark.parametrize("bad", ["", "p-123", "p-" + "A" * 16, "x-" + "a" * 16, None, 7])
async def test_a_bad_player_id_is_a_store_error(people: PeopleStore, bad: object) -> None:
    """Ids that are not ``p-`` and 16 hex digits are refused with store/bad_player."""
    with pytest.raises(StoreError) as info:
        await people.player(bad)  # type: ignore[arg-type]
    assert info.value.code == "store/bad_player"


async def test_rename_changes_only_the_name(people: PeopleStore) -> None:
    """A rename keeps the id and created-at; renaming nobody returns False."""
    await people.create_player(player(A, "Ana", 10.0))
    assert await people.rename(A, "Ana Maria") is True
    assert await people.player(A) == StoredPlayer(A, "Ana Maria", 10.0)
    assert await people.rename(B, "Bo") is False
    assert await people.player(B) is None


# --- usernames and passwords ---


async def test_register_then_find_by_username(people: PeopleStore) -> None:
    """A registered player is found by username, with the password hash kept."""
    await people.create_player(player(A))
    assert await people.register(A, "ana", HASH, 50.0) == "ok"
    found = await people.by_username("ana")
    assert found == StoredPlayer(A, "Ana", 1000.0, "ana", HASH)
    assert await people.player(A) == found
    assert await people.by_username("bob") is None


async def test_register_refusals(people: PeopleStore) -> None:
    """Registered already beats taken; a taken name and a missing player change nothing."""
    await people.create_player(player(A))
    await people.create_player(player(B, "Bo"))
    assert await people.register(A, "ana", HASH, 50.0) == "ok"
    assert await people.register(A, "other", "h2", 51.0) == "registered"
    assert await people.register(A, "ana", "h2", 51.0) == "registered"
    assert await people.register(B, "ana", "h3", 52.0) == "taken"
    assert await people.register(C, "cid", "h4", 53.0) == "unknown"
    assert (await people.player(B)) == player(B, "Bo")
    assert (await people.by_username("ana")) == StoredPlayer(A, "Ana", 1000.0, "ana", HASH)
    assert await people.by_username("other") is None
    assert await people.by_username("cid") is None
    assert await people.player(C) is None


async def test_one_username_many_players_at_once(people: PeopleStore) -> None:
    """Ten players registering one username at once: exactly one gets it."""
    ids = [f"p-{i:016x}" for i in range(10)]
    for pid in ids:
        await people.create_player(player(pid))
    outcomes = await asyncio.gather(*(people.register(p, "same", f"h{p}", 9.0) for p in ids))
    assert sorted(outcomes) == ["ok"] + ["taken"] * 9
    winner = ids[outcomes.index("ok")]
    assert (await people.by_username("same")) == StoredPlayer(
        winner, "Ana", 1000.0, "same", f"h{winner}"
    )


async def test_set_password_only_for_a_registered_player(people: PeopleStore) -> None:
    """A rehash replaces the hash of a registered player and gives a guest none."""
    await people.create_player(player(A))
    await people.create_player(player(B))
    await people.register(A, "ana", HASH, 1.0)
    await people.set_password(A, "new-hash")
    await people.set_password(B, "sneaky")
    assert (await people.player(A)).password == "new-hash"  # type: ignore[union-attr]
    assert (await people.player(B)).password is None  # type: ignore[union-attr]


# --- sessions ---


async def test_a_session_reads_back_and_is_touched(people: PeopleStore) -> None:
    """A session reads back as kept; a touch moves its last use only."""
    await people.add_session(A, S1, StoredSession("d" * 64, 100.0, 100.0), 30 * DAY, 10)
    assert await people.session(A, S1) == StoredSession("d" * 64, 100.0, 100.0)
    assert await people.touch_session(A, S1, 250.5, 30 * DAY) is True
    assert await people.session(A, S1) == StoredSession("d" * 64, 100.0, 250.5)
    assert await people.session(A, S2) is None
    assert await people.session(B, S1) is None


async def test_ending_sessions(people: PeopleStore) -> None:
    """One session ends alone; ending all of a player's leaves other players' alone."""
    for sid in (S1, S2, S3):
        await people.add_session(A, sid, session(100.0), DAY, 10)
    await people.add_session(B, S1, session(100.0), DAY, 10)
    await people.end_session(A, S1)
    assert [await people.session(A, s) is None for s in (S1, S2, S3)] == [True, False, False]
    await people.end_sessions(A)
    assert [await people.session(A, s) for s in (S1, S2, S3)] == [None, None, None]
    assert await people.session(B, S1) == session(100.0)


async def test_a_touch_never_brings_back_an_ended_session(people: PeopleStore) -> None:
    """Touching a session after "sign out everywhere" leaves it gone."""
    await people.add_session(A, S1, session(100.0), DAY, 10)
    await people.end_sessions(A)
    assert await people.touch_session(A, S1, 200.0, DAY) is False
    assert await people.session(A, S1) is None


async def test_adding_a_session_drops_stale_ones_and_keeps_the_newest(people: PeopleStore) -> None:
    """A new session drops the player's sessions unused for the idle time, and all but
    the ``keep`` most recently used."""
    await people.add_session(A, S1, session(100.0), 1000.0, 2)
    await people.add_session(A, S2, session(500.0), 1000.0, 2)
    await people.add_session(A, S3, session(1200.0), 1000.0, 2)  # S1 is 1100 s old: gone
    assert [await people.session(A, s) is not None for s in (S1, S2, S3)] == [False, True, True]
    await people.touch_session(A, S2, 1300.0, 1000.0)
    await people.add_session(A, S1, session(1400.0), 1000.0, 2)  # three live: S3 is oldest
    assert [await people.session(A, s) is not None for s in (S1, S2, S3)] == [True, True, False]


# --- a player's rooms ---


async def test_rooms_newest_first_in_pages(people: PeopleStore) -> None:
    """Rooms come newest first, by pages with a cursor; a second join keeps the first time."""
    for i, at in enumerate([10.0, 30.0, 20.0, 40.0, 30.0]):
        await people.add_room(A, f"room-{i}", at, 100)
    await people.add_room(A, "room-0", 99.0, 100)
    first, after = await people.rooms(A, 0, 2)
    assert first == [("room-3", 40.0), ("room-4", 30.0)]
    second, after2 = await people.rooms(A, after or 0, 2)
    assert second == [("room-1", 30.0), ("room-2", 20.0)]
    assert await people.rooms(A, after2 or 0, 2) == ([("room-0", 10.0)], None)
    assert await people.rooms(B, 0, 10) == ([], None)


async def test_rooms_keep_only_the_newest(people: PeopleStore) -> None:
    """A player's list keeps its ``keep`` newest rooms."""
    for i in range(5):
        await people.add_room(A, f"room-{i}", float(i), 3)
    assert await people.rooms(A, 0, 10) == (
        [("room-4", 4.0), ("room-3", 3.0), ("room-2", 2.0)],
        None,
    )


async def test_rooms_refuse_bad_input(people: PeopleStore) -> None:
    """A bad room id or page is a store error."""
    with pytest.raises(StoreError):
        await people.add_room(A, "no spaces", 1.0, 10)
    with pytest.raises(StoreError):
        await people.rooms(A, -1, 10)


# --- counters ---


async def test_hits_count_in_a_sliding_window(people: PeopleStore) -> None:
    """Hits add up within a window; the next window still counts the part of the one
    before that the sliding window covers; older windows are forgotten."""
    assert [await people.hit("guest:1.2.3.4", 60, 6000.0 + i) for i in range(4)] == [1, 2, 3, 4]
    assert await people.hit("guest:1.2.3.4", 60, 6060.0, add=0) == 4  # the start of the next
    assert await people.hit("guest:1.2.3.4", 60, 6075.0) == 1 + 3  # 3/4 of the 4 before
    assert await people.hit("guest:1.2.3.4", 60, 6119.0, add=0) == 1  # 1/60 of 4: none
    assert await people.hit("guest:1.2.3.4", 60, 6300.0) == 1
    assert await people.hit("guest:1.2.3.4", 60, 6300.0, add=0) == 1  # a peek counts nothing


async def test_hits_of_other_keys_and_windows_are_apart(people: PeopleStore) -> None:
    """Each key and each window counts on its own; a clock behind counts in the newest window."""
    await people.hit("a", 60, 100.0)
    await people.hit("a", 60, 101.0)
    assert await people.hit("b", 60, 102.0) == 1
    assert await people.hit("a", 10, 103.0) == 1
    assert await people.hit("a", 60, 50.0) == 3  # an earlier window: counted in the newest
    assert await people.hit("a", 0.5, 1.25) == 1


@pytest.mark.parametrize("key", ["", "has space", "brace{", "x" * 201, "é"])
async def test_a_bad_counter_key_is_a_store_error(people: PeopleStore, key: str) -> None:
    """Counter keys are 1-200 printable ASCII characters without spaces or braces."""
    with pytest.raises(StoreError) as info:
        await people.hit(key, 60, 1.0)
    assert info.value.code == "store/bad_key"


RULE = Backoff(free=3, base=2.0, cap=10.0, forget=100.0)


async def test_attempts_back_off_exponentially(people: PeopleStore) -> None:
    """``free`` attempts go at once; then each waits base, 2 base, ... at most cap;
    a refused attempt is not counted."""
    assert [await people.attempt("acct:ana", 1000.0, RULE) for _ in range(3)] == [0.0] * 3
    assert await people.attempt("acct:ana", 1001.5, RULE) == pytest.approx(0.5)
    assert await people.attempt("acct:ana", 1002.0, RULE) == 0.0  # 2 s after the third
    assert await people.attempt("acct:ana", 1005.0, RULE) == pytest.approx(1.0)  # now 4 s
    assert await people.attempt("acct:ana", 1006.0, RULE) == 0.0
    assert await people.attempt("acct:ana", 1006.0, RULE) == pytest.approx(8.0)
    assert await people.attempt("acct:ana", 1014.0, RULE) == 0.0
    assert await people.attempt("acct:ana", 1014.0, RULE) == pytest.approx(10.0)  # the cap
    assert await people.attempt("acct:bob", 1014.0, RULE) == 0.0


async def test_attempts_are_forgotten_and_forgiven(people: PeopleStore) -> None:
    """The count starts again ``forget`` after the last attempt; forgiving one uncounts
    it, forgiving everything clears the key."""
    for _ in range(4):
        await people.attempt("k", 0.0, RULE)  # three counted, the fourth must wait
    assert await people.attempt("k", 99.0, RULE) == 0.0  # the fourth, counted
    assert await people.attempt("k", 100.0, RULE) > 0
    assert await people.attempt("k", 199.0, RULE) == 0.0  # forgotten: the count starts again
    await people.attempt("k", 199.0, RULE)
    await people.attempt("k", 199.0, RULE)
    assert await people.attempt("k", 199.0, RULE) > 0  # three counted
    await people.forgive("k", everything=False)
    assert await people.attempt("k", 199.0, RULE) == 0.0  # two, then this third
    await people.forgive("k", everything=True)
    assert [await people.attempt("k", 199.0, RULE) for _ in range(3)] == [0.0] * 3
    await people.forgive("never-seen", everything=False)


# --- what lasts ---


async def test_everything_survives_a_reopen(durable_url: str) -> None:
    """Players, usernames, sessions, rooms and counters are there after the store reopens."""
    store = open_store(durable_url)
    try:
        await store.people.create_player(player(A))
        await store.people.register(A, "ana", HASH, 1.0)
        await store.people.add_session(A, S1, session(5.0), DAY, 10)
        await store.people.add_room(A, "room-1", 7.0, 10)
        await store.people.hit("k", 60, 10.0)
        await store.people.attempt("t", 10.0, RULE)
    finally:
        await store.close()
    again = open_store(durable_url)
    try:
        assert (await again.people.by_username("ana")) == StoredPlayer(
            A, "Ana", 1000.0, "ana", HASH
        )
        assert await again.people.session(A, S1) == session(5.0)
        assert await again.people.rooms(A, 0, 10) == ([("room-1", 7.0)], None)
        assert await again.people.hit("k", 60, 11.0, add=0) == 1
        await again.people.attempt("t", 10.0, RULE)
        await again.people.attempt("t", 10.0, RULE)
        assert await again.people.attempt("t", 10.0, RULE) > 0
    finally:
        await again.close()


async def test_a_closed_store_refuses(store: EventStore) -> None:
    """After close, the people store answers with a store error, never a hang."""
    await store.close()
    with pytest.raises(StoreError):
        await asyncio.wait_for(store.people.player(A), 5)
