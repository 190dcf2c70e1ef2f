"""The room shell answers a join that only reads ahead of a write in flight.

A room whose append is held at a gate (a memory store that waits for the test) is
busy: a spectator's hello, or a seat's resume with nothing of that seat waiting, is
welcomed as it is posted; a resume whose seat has a command waiting, or a hello that
takes a free seat, waits its turn. Once the gate opens, every peer has the patch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from protocol import errors as codes
from protocol.codec import MSGPACK, codec_for
from protocol.messages import Hello, Welcome
from server.config import Settings
from server.metrics import Metrics
from server.room.shell import Room
from server.store.memory import MemoryStore
from tests.server.core_harness import Table
from tests.server.test_core_reads import tokens_of

ROOM = "r-test"
ANN, BOB = 10**9, 10**9 + 1


W = TypeVar("W", bound=Callable[..., Awaitable[Any]])


def _gated(write: W) -> W:
    """``write`` (a MemoryStore method), once the store's gate lets it through."""

    async def gated(self: GatedStore, *args: Any, **kwargs: Any) -> Any:
        await self.passed()
        return await write(self, *args, **kwargs)

    return cast(W, gated)


class GatedStore(MemoryStore):
    """A memory store whose writes (appends, stored replies) wait at a gate the test
    controls: each waits for a permit while the gate is closed."""

    def __init__(self) -> None:
        super().__init__()
        self.permits: asyncio.Semaphore | None = None
        self.waiting = 0

    def close_gate(self) -> None:
        self.permits = asyncio.Semaphore(0)

    def let_one_through(self) -> None:
        assert self.permits is not None
        self.permits.release()

    def open_gate(self) -> None:
        permits, self.permits = self.permits, None
        for _ in range(self.waiting):
            assert permits is not None
            permits.release()

    async def until_waiting(self) -> None:
        for _ in range(100):  # bounded: the task reaches the gate within a few turns
            if self.waiting:
                return
            await asyncio.sleep(0)
        raise AssertionError("no append reached the gate")

    async def passed(self) -> None:
        """Return once the gate lets this write through."""
        permits = self.permits
        if permits is not None:
            self.waiting += 1
            try:
                await permits.acquire()
            finally:
                self.waiting -= 1

    append = _gated(MemoryStore.append)
    save_reply = _gated(MemoryStore.save_reply)


class Peer:
    """A connection that keeps what it is sent, decoded."""

    codec_name = MSGPACK.name

    def __init__(self) -> None:
        self.gone = False
        self.seat: int | None = None
        self.role: str | None = None
        self.got: list[Any] = []
        self.closed: str | None = None

    def send_frame(self, frame: bytes | str) -> None:
        self.got.append(MSGPACK.decode_server(frame))

    def send_frames(self, frames: list[bytes | str]) -> None:
        for frame in frames:
            self.send_frame(frame)

    def encode(self, message: Any) -> bytes | str:
        return codec_for(self.codec_name).encode(message)

    def close_with(self, code: str, message: str) -> None:
        self.closed = code

    def welcomed(self) -> bool:
        return any(isinstance(m, Welcome) for m in self.got)


async def busy_room() -> tuple[Room, GatedStore, dict[int, Peer], dict[int, str]]:
    """A Rollie room of two seated players whose roll is being written (gate closed)."""
    table = Table.new("rollie", 2)
    table.join(ANN, "ann")  # peer ids far from those Room.join hands out
    table.join(BOB, "bob")
    tokens = tokens_of(table)
    store = GatedStore()
    await store.append(ROOM, [data for _, data in table.log], 0)
    room = Room(table.core, store, Settings(store_url="memory://"), Metrics())
    peers = {pid: Peer() for pid in (ANN, BOB)}
    for pid, peer in peers.items():
        room.peers.add(pid, peer)
    room.start()
    await room.settled()
    store.close_gate()
    roller = (ANN, BOB)[table.model.state.first_player]
    room.command(roller, "roll", {"type": "roll"})
    await store.until_waiting()
    return room, store, peers, tokens


async def test_a_spectator_is_welcomed_while_a_write_waits_and_gets_its_patch() -> None:
    room, store, _, _ = await busy_room()
    seq = room.model.seq
    watcher = Peer()
    room.join(watcher, Hello(ROOM, "spectator"))
    assert watcher.welcomed(), "the spectator waited for the write"
    assert watcher.got[0].seq == seq
    store.open_gate()
    await room.settled()
    assert room.model.seq > seq
    assert [m.to for m in watcher.got if m.TYPE == "patch"][-1] == room.model.seq
    await room.stop()


async def test_a_resume_waits_behind_a_command_of_its_own_seat() -> None:
    room, store, peers, tokens = await busy_room()
    room.command(BOB, "late", {"type": "secure"})  # bob's, queued behind the write
    bob_again, ann_again = Peer(), Peer()
    room.join(bob_again, Hello(ROOM, "player", seat_token=tokens[1]))
    assert not bob_again.welcomed(), "a resume went ahead of its own seat's command"
    room.join(ann_again, Hello(ROOM, "player", seat_token=tokens[0]))
    assert ann_again.welcomed(), "a resume with nothing of its seat waiting waited"
    assert peers[ANN].closed == codes.REPLACED
    newcomer = Peer()  # a hello for a seat: it may write, so it waits (here: no seat left)
    room.join(newcomer, Hello(ROOM, "player", name="cy"))
    assert newcomer.closed is None and not newcomer.got
    store.open_gate()
    await room.settled()
    assert bob_again.welcomed() and peers[BOB].closed == codes.REPLACED
    assert newcomer.closed == codes.ROOM_FULL
    late = [m for m in bob_again.got if m.TYPE in ("ack", "reject")]
    assert late == [], "bob's queued command was answered on his new connection"
    await room.stop()


async def test_a_resume_waits_behind_its_seats_leave_queued_after_a_batch() -> None:
    """What waits behind commands being decided keeps its place: bob's old connection's
    leave, queued after ann's command, is still ahead of bob's resume while ann's
    command is written."""
    room, store, _, tokens = await busy_room()
    room.command(ANN, "a1", {"type": "secure"})
    room.leave(BOB)
    seq = room.model.seq
    store.let_one_through()  # the roll lands; ann's command is decided, its write waits
    for _ in range(100):  # bounded
        await asyncio.sleep(0)
        if store.waiting and room.model.seq > seq:
            break
    assert store.waiting == 1 and room.model.seq > seq
    bob_again = Peer()
    room.join(bob_again, Hello(ROOM, "player", seat_token=tokens[1]))
    assert not bob_again.welcomed(), "a resume went ahead of its seat's leave"
    store.open_gate()
    await room.settled()
    assert bob_again.welcomed()
    assert room.core.seated[1] != BOB
    await room.stop()
