"""The MatchStore contract (quick match's queues and claims), run over every backend:
memory, sqlite and a real redis-server."""

from __future__ import annotations

import asyncio

import pytest

from server.store import EventStore
from server.store.match import MatchStore

Q = "mm:rollie:4"


@pytest.fixture
def matches(store: EventStore) -> MatchStore:
    return store.matches


async def test_tickets_go_oldest_room_first_and_a_room_leaves_with_its_last(
    matches: MatchStore,
) -> None:
    """The oldest room's tickets are taken first; it leaves the queue with its last one;
    a later score never moves a room that is there; an empty queue answers None."""
    assert await matches.queue_take(Q) is None
    await matches.queue_add(Q, "r-b", 20.0, 1)
    await matches.queue_add(Q, "r-a", 10.0, 2)
    await matches.queue_add(Q, "r-z", 30.0, 0)  # no seat to give: not queued
    taken = [await matches.queue_take(Q) for _ in range(4)]
    assert taken == ["r-a", "r-a", "r-b", None]
    await matches.queue_add(Q, "r-c", 5.0, 3)
    await matches.queue_remove(Q, "r-c")
    assert await matches.queue_take(Q) is None
    assert await matches.queue_take("mm:other:2") is None


async def test_tickets_taken_at_once_are_never_more_than_the_seats(matches: MatchStore) -> None:
    """Fifty takers at once share two rooms' seven tickets exactly."""
    await matches.queue_add(Q, "r-a", 1.0, 4)
    await matches.queue_add(Q, "r-b", 2.0, 3)
    taken = await asyncio.gather(*(matches.queue_take(Q) for _ in range(50)))
    assert sorted(t for t in taken if t) == ["r-a"] * 4 + ["r-b"] * 3


async def test_a_claim_is_one_holders_until_released_or_over(matches: MatchStore) -> None:
    """The first claim holds; another gets the holder's value; release by another value
    changes nothing; release by the holder, or the time running out, frees it."""
    assert await matches.claim("mm:player:p-1", "one", 10.0, 100.0) == "one"
    assert await matches.claim("mm:player:p-1", "two", 10.0, 101.0) == "one"
    await matches.release("mm:player:p-1", "two")
    assert await matches.claim("mm:player:p-1", "two", 10.0, 102.0) == "one"
    await matches.release("mm:player:p-1", "one")
    assert await matches.claim("mm:player:p-1", "two", 0.2, 103.0) == "two"
    await asyncio.sleep(0.3)  # Redis keeps the expiry itself: wait it out for every backend
    assert await matches.claim("mm:player:p-1", "three", 10.0, 103.5) == "three"
