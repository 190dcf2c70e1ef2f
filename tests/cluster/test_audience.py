"""A big audience across nodes: spectators on a node that does not run their room share
one relay stream of that node, not one each (issue 25 item 5)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from clients.bots.play import choose
from clients.sdk import Client, CommandRejected, create_room
from protocol.messages import Patch, ServerMessage
from tests.cluster.conftest import metric
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(180)

SPECTATORS = 50
COMMANDS = 12


class PatchLog(Client):
    """A spectator that remembers every patch it got, as (from, to)."""

    patches: list[tuple[int, int]]

    def _handle(self, msg: ServerMessage) -> None:
        if type(msg) is Patch:
            self.patches.append((msg.from_, msg.to))
        super()._handle(msg)


def _frames_back(server: ServerProcess) -> float:
    return metric(server, "rollhouse_forwarded_total", direction="back", kind="frames")


async def _play(players: list[Client], commands: int) -> list[int]:
    """``commands`` commands of the push bot, one at a time; the seqs they reached."""
    rng, seqs = random.Random(7), []
    while len(seqs) < commands:
        mover = next(c for c in players if ((c.view or {}).get("you") or {}).get("legal"))
        command = choose("rollie", "push", mover.view or {}, rng)
        assert command is not None
        try:
            seq = await mover.send(command)
        except CommandRejected:
            continue
        seqs.append(seq)
        for client in players:
            await client.wait_seq(seq)
    return seqs


async def test_spectators_of_a_node_share_one_relay_stream_and_get_every_patch(
    shared_nodes: tuple[str, list[ServerProcess]],
) -> None:
    """50 spectators on node n1 of a room run by n0: n1 gets each patch from n0 as one
    message (not 50: the relay stream is per node), and every spectator gets every patch."""
    _, servers = shared_nodes
    owner, relay = servers[0], servers[1]
    room = (await create_room(owner.url, "rollie", 2))["room"]
    players = [await Client(owner.ws_url, room, name=f"p{i}").connect() for i in range(2)]
    crowd: list[PatchLog] = []
    try:
        for _ in range(SPECTATORS):
            spectator = PatchLog(relay.ws_url, room, role="spectator", ping_every=None)
            spectator.patches = []
            crowd.append(await spectator.connect())
        for client in players:
            await client.wait_for(lambda v: v["room"]["status"] == "playing")
        start = players[0].seq
        for spectator in crowd:
            await spectator.wait_seq(start)
        await asyncio.sleep(0.5)  # the joins' presence frames are through
        before = _frames_back(relay)
        seqs = await _play(players, COMMANDS)
        for spectator in crowd:
            await spectator.wait_seq(seqs[-1])
        messages = _frames_back(relay) - before
    finally:
        for client in [*players, *crowd]:
            await client.close()
    print(f"\n{COMMANDS} patches to {SPECTATORS} spectators on another node: {messages:g}"
          f" frames messages crossed Redis ({COMMANDS * SPECTATORS} deliveries)")  # fmt: skip
    expected: list[Any] = list(zip([start, *seqs[:-1]], seqs, strict=True))
    for spectator in crowd:
        assert [p for p in spectator.patches if p[1] > start] == expected
    assert messages <= 2 * COMMANDS  # one per patch (a flush boundary may split one run)
