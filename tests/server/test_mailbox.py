"""The mailbox's order, and which join may be answered ahead of what waits (a table)."""

from __future__ import annotations

import asyncio

import pytest

from server.room.io import CommandIn, Commands, Input, Join, Leave, ResyncIn, TimerFired
from server.room.mailbox import Item, Mailbox, may_go_ahead

HOLDER, OTHER = 7, 8


def join(role: str = "player", token: str | None = "tok-a") -> Join:
    return Join(99, "rollhouse.v1.msgpack", role, None, token, None, "fresh", 0.0)


def command(peer: int) -> CommandIn:
    return CommandIn(peer, "c", {"type": "roll"}, 0.0)


def waiting(*inputs: Input | None) -> list[Item]:
    return [(inp, None) for inp in inputs]


@pytest.mark.parametrize(
    ("case", "the_join", "items", "ahead"),
    [
        ("nothing waits", join(), waiting(), True),
        ("a spectator, whatever waits", join("spectator", None),
         waiting(command(HOLDER), Leave(HOLDER, 0.0), join("spectator", None)), True),
        ("another seat's command", join(), waiting(command(OTHER)), True),
        ("another seat's leave and resync", join(),
         waiting(Leave(OTHER, 0.0), ResyncIn(OTHER, 0.0)), True),
        ("a timer, a marker", join(), waiting(TimerFired("clock", 0.0), None), True),
        ("another seat's resume", join(), waiting(join(token="tok-b")), True),
        ("its seat's command", join(), waiting(command(OTHER), command(HOLDER)), False),
        ("its seat's command in a batch", join(),
         waiting(Commands((command(OTHER), command(HOLDER)), 0.0)), False),
        ("its seat's leave", join(), waiting(Leave(HOLDER, 0.0)), False),
        ("its seat's resync", join(), waiting(ResyncIn(HOLDER, 0.0)), False),
        ("an older resume of its seat", join(), waiting(join()), False),
    ],
)  # fmt: skip
def test_which_join_goes_ahead(case: str, the_join: Join, items: list[Item], ahead: bool) -> None:
    assert may_go_ahead(the_join, HOLDER, items) is ahead, case


async def test_the_mailbox_keeps_arrival_order_and_wakes_its_waiter() -> None:
    box = Mailbox()
    got = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    box.put((command(1), None))
    box.put((command(2), None))
    assert (await got)[0] == command(1)
    assert box.first() == (command(2), None) and list(box) == [(command(2), None)]
    assert box.take() == (command(2), None) and box.empty() and box.first() is None
