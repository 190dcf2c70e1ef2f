"""A Rollie game played by two SDK players against one URL, from wherever this runs
(tests/deploy/test_container.py runs it inside a network namespace of the containers'
network, so it speaks to ``http://proxy:8000`` as a compose user's browser would).

``python -m tests.deploy.container_game URL [--pause-at SEQ]`` prints one JSON line per
step: ``{"room", "node"}`` once the room is made; with ``--pause-at``, ``{"pause": seq}``
once the players have applied ``SEQ`` events, then it waits for a line on stdin (the
test kills the room's node meanwhile); ``{"finished", "seq", "scores"}`` at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from clients.bots.play import play_seat
from clients.sdk import Client, create_room


def say(**message: object) -> None:
    print(json.dumps(message), flush=True)


async def main(url: str, pause_at: int | None) -> None:
    info = await create_room(url, "rollie", 2, room={"clock": 0})
    room = info["room"]
    say(room=room, node=info.get("node"))
    ws_url = url.replace("http", "ws", 1) + "/ws"
    players = [
        await Client(ws_url, room, name=f"p{i}", backoff=(0.05, 0.5), ping_every=1.0).connect()
        for i in range(2)
    ]
    games = [asyncio.create_task(play_seat(p, "push", delay=0.02, seed=i)) for i, p in enumerate(players)]  # fmt: skip
    if pause_at is not None:
        await players[0].wait_for(lambda _: players[0].seq >= pause_at, timeout=60)
        say(pause=players[0].seq)
        await asyncio.to_thread(sys.stdin.readline)
    finals = await asyncio.wait_for(asyncio.gather(*games), 120)
    say(
        finished=all(f["room"]["status"] == "finished" for f in finals),
        seq=max(p.seq for p in players),
        scores=finals[0]["game"]["result"]["scores"],
    )
    for p in players:
        await p.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--pause-at", type=int)
    args = parser.parse_args()
    asyncio.run(main(args.url, args.pause_at))
