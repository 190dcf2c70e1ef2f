"""The game traffic of ``rollhouse bench``: Rollie rooms of 6 bots and 1 spectator.

Each room slot plays games back to back over real websockets through the SDK:
create a room (clock 0), connect a spectator and six players, let every player
run the ``push`` bot as fast as it can (one command awaited at a time, then wait
for the mirror to move, as :func:`clients.bots.play.play_seat` does), close, repeat.
The SDK client is subclassed only to timestamp sends, acks, rejections and patches.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from clients.bench.record import Recorder, Totals
from clients.bots.play import play_seat
from clients.sdk import Client, ClientError
from protocol.messages import Ack, Patch, Reject, ServerMessage

PLAYERS = 6
VIEWERS = PLAYERS + 1


class TimedClient(Client):
    """An SDK client that reports its traffic to a room's :class:`Recorder`."""

    def __init__(self, *args: Any, recorder: Recorder, totals: Totals, **kwargs: Any) -> None:
        super().__init__(*args, reconnect=False, **kwargs)
        self.recorder = recorder
        self.totals = totals

    async def send(self, command: dict[str, Any], cmd_id: str | None = None) -> int:
        cmd_id = cmd_id or self.next_id()
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

    def __init__(self, room: str, recorder: Recorder, clients: list[TimedClient]) -> None:
        self.room = room
        self.recorder = recorder
        self.clients = clients

    @property
    def players(self) -> list[TimedClient]:
        return self.clients[1:]

    async def close(self) -> None:
        """Close every client; after 5 s abort what is left (figures are in already)."""
        closing = [asyncio.ensure_future(c.close()) for c in self.clients]
        _, pending = await asyncio.wait(closing, timeout=5.0)
        for task in pending:
            task.cancel()


async def open_room(http: httpx.AsyncClient) -> str:
    """A new Rollie room with no clock (one HTTP client for all: no TLS setup per room)."""
    body = {"game": "rollie", "seats": PLAYERS, "options": {}, "room": {"clock": 0}}
    reply = await http.post("/api/rooms", json=body)
    if reply.status_code >= 400:
        raise ClientError("http/error", reply.text)
    return str(reply.json()["room"])


async def seat_table(
    ws_url: str, room: str, recorder: Recorder, totals: Totals, encoding: str
) -> Table:
    """Connect the spectator, then the six players, one after the other."""
    clients: list[TimedClient] = []
    for i in range(VIEWERS):
        role = "spectator" if i == 0 else "player"
        client = TimedClient(
            ws_url, room, role=role, name=f"bench{i}", encoding=encoding,
            recorder=recorder, totals=totals,
        )  # fmt: skip
        await client.connect()
        clients.append(client)
    return Table(room, recorder, clients)


async def seat_tables(
    ws_url: str, rooms: list[str], recorders: list[Recorder], totals: Totals, encoding: str
) -> list[Table]:
    """Seat every room at once (each room's clients connect one after the other)."""
    pairs = zip(rooms, recorders, strict=True)
    return list(
        await asyncio.gather(*(seat_table(ws_url, r, rec, totals, encoding) for r, rec in pairs))
    )


async def play_table(table: Table, seed: int) -> None:
    await asyncio.gather(
        *(play_seat(p, "push", seed=seed * 10 + i) for i, p in enumerate(table.players))
    )


class GameSlots:
    """``rooms`` slots playing games back to back until stopped or ``games`` are done."""

    def __init__(self, base_url: str, encoding: str, totals: Totals, games: int | None) -> None:
        self.http = httpx.AsyncClient(base_url=base_url, timeout=10)
        self.ws_url = base_url.replace("http://", "ws://", 1) + "/ws"
        self.encoding = encoding
        self.totals = totals
        self.games_left = games
        self.seed = 0

    async def prepare(self, rooms: list[str], recorders: list[Recorder]) -> list[Table]:
        return await seat_tables(self.ws_url, rooms, recorders, self.totals, self.encoding)

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
                    room = await open_room(self.http)
                    table = await seat_table(
                        self.ws_url, room, recorder, self.totals, self.encoding
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
            await play_table(table, self.seed)
            self.totals.games += 1
        except Exception as exc:
            self.totals.errors[type(exc).__name__] += 1
        finally:  # cancelled at the window's end: settle, leave the sockets to the exit
            table.recorder.settle(self.totals)
        await table.close()
