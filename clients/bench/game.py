"""The game traffic of ``rollhouse bench``: rooms of bots and 1 spectator.

Each room slot plays games back to back over real websockets through the SDK:
create a room (clock 0), connect a spectator and the players (Rollie: six, Roll
Player and Roll Builder: four), let every player run the game's bot (Rollie's
``push``, the others' first) as fast as it can - one command awaited at a time, then
wait for the mirror to move, as :func:`clients.bots.play.play_seat` does - close,
repeat. With a rate (``--rate``) each room's commands are paced by a :class:`Pacer`.
The SDK client is subclassed only to timestamp sends, acks, rejections and patches.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import httpx

from clients.bench.record import Recorder, Totals
from clients.bots.play import play_seat
from clients.sdk import Client, ClientError
from protocol.messages import Ack, Patch, Reject, ServerMessage

PLAYERS = {"rollie": 6, "roll-player": 4, "roll-builder": 4}
"""Players per room of each game (the bare baseline copies the shape)."""
POLICY = {"rollie": "push"}
"""The bot each game's players run (default: the game's first)."""


class Pacer:
    """One room's commands spread at ``per_second``: each send waits for its slot.

    Slots follow a fixed schedule; a send that finds its slot past goes at once and is
    counted ``late`` (the room fell behind the rate: the figures then describe a
    saturated room, not a paced one)."""

    def __init__(self, per_second: float) -> None:
        self.interval = 1.0 / per_second
        self.next = time.perf_counter() + self.interval * _spread()
        self.late = 0

    async def slot(self) -> None:
        now = time.perf_counter()
        at, self.next = self.next, max(self.next, now - self.interval) + self.interval
        if at > now:
            await asyncio.sleep(at - now)
        elif now - at > self.interval:
            self.late += 1


_ROOMS = itertools.count(1)


def _spread() -> float:
    """Rooms' first slots spread over one interval, so paced rooms do not send in step."""
    return (next(_ROOMS) * 0.618034) % 1.0


class TimedClient(Client):
    """An SDK client that reports its traffic to a room's :class:`Recorder`."""

    def __init__(
        self,
        *args: Any,
        recorder: Recorder,
        totals: Totals,
        pacer: Pacer | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, reconnect=False, **kwargs)
        self.recorder = recorder
        self.totals = totals
        self.pacer = pacer

    async def send(self, command: dict[str, Any], cmd_id: str | None = None) -> int:
        cmd_id = cmd_id or self.next_id()
        if self.pacer is not None:
            await self.pacer.slot()
        self.recorder.on_send(cmd_id)
        return await super().send(command, cmd_id)

    def _handle(self, msg: ServerMessage) -> None:
        match msg:
            case Patch(to=to):
                self.recorder.on_patch(to)
            case Ack(id=cmd_id, seq=seq):
                self.recorder.on_ack(cmd_id, seq)
            case Reject(id=cmd_id, code=code):
                self.recorder.on_reject(cmd_id, code, self.totals)
        super()._handle(msg)


class Table:
    """One room with its seven connected clients."""

    def __init__(
        self, room: str, recorder: Recorder, clients: list[TimedClient], pacer: Pacer | None
    ) -> None:
        self.room = room
        self.recorder = recorder
        self.clients = clients
        self.pacer = pacer

    @property
    def players(self) -> list[TimedClient]:
        return self.clients[1:]

    async def close(self) -> None:
        """Close every client; after 5 s abort what is left (figures are in already)."""
        closing = [asyncio.ensure_future(c.close()) for c in self.clients]
        _, pending = await asyncio.wait(closing, timeout=5.0)
        for task in pending:
            task.cancel()


async def open_room(http: httpx.AsyncClient, game: str) -> str:
    """A new room with no clock (one HTTP client for all: no TLS setup per room)."""
    body = {"game": game, "seats": PLAYERS[game], "options": {}, "room": {"clock": 0}}
    reply = await http.post("/api/rooms", json=body)
    if reply.status_code >= 400:
        raise ClientError("http/error", reply.text)
    return str(reply.json()["room"])


async def seat_table(
    ws_url: str, room: str, recorder: Recorder, totals: Totals, encoding: str,
    rate: float | None = None,
) -> Table:  # fmt: skip
    """Connect the spectator, then the players, one after the other (``recorder.viewers``
    in all); ``rate``: this room's commands per second, paced."""
    pacer = Pacer(rate) if rate else None
    clients: list[TimedClient] = []
    for i in range(recorder.viewers):
        role = "spectator" if i == 0 else "player"
        client = TimedClient(
            ws_url, room, role=role, name=f"bench{i}", encoding=encoding,
            recorder=recorder, totals=totals, pacer=pacer,
        )  # fmt: skip
        await client.connect()
        clients.append(client)
    return Table(room, recorder, clients, pacer)


async def seat_tables(
    ws_url: str, rooms: list[str], recorders: list[Recorder], totals: Totals, encoding: str,
    rate: float | None = None,
) -> list[Table]:  # fmt: skip
    """Seat every room at once (each room's clients connect one after the other)."""
    pairs = zip(rooms, recorders, strict=True)
    return list(
        await asyncio.gather(
            *(seat_table(ws_url, r, rec, totals, encoding, rate) for r, rec in pairs)
        )
    )


async def play_table(table: Table, game: str, seed: int) -> None:
    policy = POLICY.get(game, "")
    await asyncio.gather(
        *(play_seat(p, policy, seed=seed * 10 + i) for i, p in enumerate(table.players))
    )


class GameSlots:
    """``rooms`` slots playing games back to back until stopped or ``games`` are done."""

    def __init__(
        self, base_url: str, encoding: str, totals: Totals, games: int | None,
        game: str = "rollie", rate: float | None = None,
    ) -> None:  # fmt: skip
        self.http = httpx.AsyncClient(base_url=base_url, timeout=10)
        self.ws_url = base_url.replace("http://", "ws://", 1) + "/ws"
        self.encoding = encoding
        self.totals = totals
        self.games_left = games
        self.game = game
        self.rate = rate
        """Commands per second per room (None: as fast as the room answers)."""
        self.seed = 0

    async def prepare(self, rooms: list[str], recorders: list[Recorder]) -> list[Table]:
        return await seat_tables(
            self.ws_url, rooms, recorders, self.totals, self.encoding, self.rate
        )

    def _claim(self) -> bool:
        if self.games_left is None:
            return True
        if self.games_left <= 0:
            return False
        self.games_left -= 1
        return True

    async def run_slot(self, table: Table | None, new_recorder: Any) -> None:
        """Play ``table``, then fresh rooms, until cancelled or no game is left."""
        while True:
            if table is None:
                if not self._claim():
                    return
                try:
                    recorder = new_recorder()
                    room = await open_room(self.http, self.game)
                    table = await seat_table(
                        self.ws_url, room, recorder, self.totals, self.encoding, self.rate
                    )
                except Exception as exc:  # count it, pause, try a fresh room
                    self.totals.errors[type(exc).__name__] += 1
                    await asyncio.sleep(0.2)
                    continue
            await self._play_one(table)
            table = None

    async def _play_one(self, table: Table) -> None:
        self.seed += 1
        try:
            await play_table(table, self.game, self.seed)
            self.totals.games += 1
        except Exception as exc:
            self.totals.errors[type(exc).__name__] += 1
        finally:  # cancelled at the window's end: settle, leave the sockets to the exit
            table.recorder.settle(self.totals)
            if table.pacer is not None:
                self.totals.late += table.pacer.late
        await table.close()
