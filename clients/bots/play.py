"""Play a seat with a bot policy over a real connection (the SDK's :class:`Client`).

The policy is the game's own pure function (``engine/<game>/bots.py``) applied to
the seat's view; the legal commands come with the view (``view["you"]["legal"]``).
A rejection (another player was faster to the last bill) just means: look again.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from clients.sdk import Client, CommandRejected
from engine.core import get_game
from engine.data import to_data

RETRIED = frozenset({"room/rate_limited", "room/unavailable"})
"""Rejections of a command that was not applied while the table did not move: a bot
that waited for the table to move after one (as after losing a race) waited for ever
when it was the one to play (issue 23: a store restart answered ``room/unavailable``)."""


def choose(
    game_name: str, policy_name: str, view: dict[str, Any], rng: random.Random
) -> dict[str, Any] | None:
    """The command the policy picks for this view, as wire data; None when nothing is legal."""
    you = view.get("you") or {}
    legal_data = you.get("legal") or []
    if not legal_data:
        return None
    game = get_game(game_name)
    seat = you["seat"]
    legal = [game.commands.load(d, seat=seat) for d in legal_data]
    policy = game.policies.get(policy_name) or next(iter(game.policies.values()))
    data = to_data(policy(view["game"], seat, legal, rng))
    data.pop("seat", None)
    return data  # type: ignore[no-any-return]


async def play_seat(
    client: Client,
    policy: str = "",
    delay: float = 0.0,
    seed: int | None = None,
    patience: float | None = 60.0,
) -> dict[str, Any]:
    """Play until the game ends; returns the final view.

    ``patience`` bounds each wait for something to do (None: wait for ever, e.g. for
    a human with no clock). A ``room/rate_limited`` or ``room/unavailable`` answer
    backs off and tries again.
    """
    rng = random.Random(seed)
    while True:
        view = await client.wait_for(
            lambda v: v["room"]["status"] == "finished" or bool((v.get("you") or {}).get("legal")),
            timeout=patience,
        )
        if view["room"]["status"] == "finished":
            return view
        seq = client.seq
        command = choose(client.game or "", policy, view, rng)
        if command is None:
            continue
        if delay:
            await asyncio.sleep(delay * rng.uniform(0.5, 1.5))
        try:
            await client.send(command)
        except CommandRejected as exc:  # someone was faster: look again
            if exc.code in RETRIED:  # not applied, and nobody else moved: try again
                await asyncio.sleep(0.05)
                continue
        await client.wait_for(_moved_past(client, seq), timeout=patience)


def _moved_past(client: Client, seq: int) -> Callable[[dict[str, Any]], bool]:
    """A wait condition: the mirror moved past ``seq`` (or the game ended)."""
    return lambda _: client.seq > seq or _finished(client)


def _finished(client: Client) -> bool:
    return client.view is not None and client.view["room"]["status"] == "finished"
