"""Snapshots: a room loaded from its latest snapshot and the records after it is the room
that was played (model, views, answers), and a bad snapshot only costs a longer load."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from protocol.messages import Ack
from protocol.patch import same
from server.config import Settings
from server.room.core import CoreSettings
from server.room.io import SaveSnapshot
from server.room.rebuild import Rebuilder, rebuild_core
from server.room.views import reference_view
from tests.server.core_harness import Table
from tests.support.server import serve

EVERY = 10


def played(
    game: str, seats: int, seed: int, steps: int = 400
) -> tuple[Table, list[tuple[int, str, dict[str, Any]]]]:
    """A table with snapshots every EVERY events, played by random legal moves."""
    table = Table.new(game, seats, seed=seed, core_settings=CoreSettings(snapshot_every=EVERY))
    for seat in range(seats):
        table.join(seat + 1, f"p{seat}")
    rng = random.Random(seed)
    ids: list[tuple[int, str, dict[str, Any]]] = []
    for step in range(steps):
        move = table.random_move(rng)
        if move is None:
            break
        seat, body = move
        cmd_id = f"c{step}"
        out = table.command(seat + 1, cmd_id, body)
        if any(isinstance(a, Ack) for a in table.answers(out, seat + 1)):
            ids.append((seat, cmd_id, body))
    return table, ids


def snapshots(table: Table) -> list[SaveSnapshot]:
    return [o for o in table.outputs if isinstance(o, SaveSnapshot)]


@pytest.mark.parametrize(
    ("game", "seats"), [("rollie", 4), ("roll-player", 3), ("roll-builder", 2)]
)
def test_a_room_loaded_from_a_snapshot_is_the_room_played(game: str, seats: int) -> None:
    table, acked = played(game, seats, seed=7)
    saved = snapshots(table)
    assert len(saved) >= 3
    assert all(b.seq - a.seq >= EVERY for a, b in itertools.pairwise(saved))
    for snap in (saved[0], saved[-1]):
        core = rebuild_core("r-test", table.log, table.replies, snapshot=snap.data)
        assert core.snapshot_seq == snap.seq
        assert core.model.state == table.model.state
        assert core.model.holders == table.model.holders
        assert core.model.seq == table.model.seq
        for viewer in [None, *range(seats)]:
            assert same(core.views.snapshot(viewer), reference_view(table.model, viewer))
        # every ack, also of a command before the snapshot, is still the answer
        for seat, cmd_id, _ in acked:
            assert core.answers.find(seat, cmd_id) == table.core.answers.find(seat, cmd_id)


def test_an_early_command_retried_after_a_snapshot_load_gets_its_first_ack() -> None:
    """The acks before the snapshot come with it: a retry appends nothing."""
    table, acked = played("rollie", 3, seed=3)
    seat, cmd_id, body = acked[0]
    snap = snapshots(table)[-1]
    assert snap.seq > 2
    core = rebuild_core("r-test", table.log, table.replies, snapshot=snap.data)
    again = Table(core, table.log, table.replies, table.now)
    again.join(seat + 1, token=table.welcome(table.outputs, seat + 1).seat_token)
    before = len(table.log)
    out = again.command(seat + 1, cmd_id, body)
    ack = again.answers(out, seat + 1)
    assert ack and isinstance(ack[0], Ack)
    assert ack[0] == table.core.answers.find(seat, cmd_id).reply  # type: ignore[union-attr]
    assert len(table.log) == before


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: {**d, "v": 99},
        lambda d: {**d, "game": "roll-player"},
        lambda d: {**d, "state": {"nonsense": 1}},
        lambda d: {k: v for k, v in d.items() if k != "holders"},
    ],
    ids=["version", "game", "state", "missing"],
)
def test_a_snapshot_that_does_not_parse_is_ignored(damage: Any) -> None:
    table, _ = played("rollie", 3, seed=5)
    snap = snapshots(table)[-1]
    builder = Rebuilder("r-test", table.log[0][1], damage(dict(snap.data)))
    assert builder.snapshot_seq == 0 and builder.seq == 1
    core = rebuild_core("r-test", table.log, table.replies, snapshot=damage(dict(snap.data)))
    assert core.model.state == table.model.state


async def played_by_bots(server: Any, game: str, seats: int) -> tuple[str, dict[str, Any]]:
    """A room of ``seats`` hosted bots played to the end on ``server``: its id and the
    final view a spectator saw."""
    from clients.sdk import Client

    info = await server.create_room(game, seats, room={"bots": seats, "bot_delay": 0})
    watcher = await Client(server.ws_url, info["room"], role="spectator").connect()
    final = await watcher.wait_for(lambda v: v["room"]["status"] == "finished", timeout=60)
    await watcher.close()
    return info["room"], final


async def test_a_restarted_server_loads_rooms_from_their_snapshots(tmp_path: Path) -> None:
    """Real processes' shell: snapshots are written beside the SQLite log while a room
    plays, and a new server loads the room from one (and serves the same view)."""
    from clients.sdk import Client

    url = f"sqlite:///{tmp_path}/s.db"
    settings = Settings(store_url=url, snapshot_every=20)
    async with serve(settings) as server:
        room, final = await played_by_bots(server, "roll-builder", 2)
        async with httpx.AsyncClient(base_url=server.url) as http:
            metrics = (await http.get("/metrics")).text
        assert 'rollhouse_snapshots_total{outcome="saved"}' in metrics
        store = server.services.store
        snap = await store.load_snapshot(room)
        assert snap is not None and snap[0] >= 20
    async with serve(Settings(store_url=url, snapshot_every=20)) as again:
        watcher = await Client(again.ws_url, room, role="spectator").connect()
        assert same(watcher.view, final)
        await watcher.close()
        assert again.services.rooms.live[room].core.snapshot_seq == snap[0]
        async with httpx.AsyncClient(base_url=again.url) as http:
            metrics = (await http.get("/metrics")).text
        assert "rollhouse_room_load_seconds_count 1" in metrics


async def test_a_long_log_is_read_a_page_at_a_time_and_loaded_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A room whose log spans many read pages (small pages here, with chunks that do not
    divide them) loads to the room that was played, every record folded once."""
    from clients.sdk import Client
    from server.room import rooms

    url = f"sqlite:///{tmp_path}/s.db"
    settings = Settings(store_url=url, snapshot_every=10_000)
    async with serve(settings) as server:
        room, final = await played_by_bots(server, "rollie", 3)
        last = await server.services.store.last_seq(room)
    assert last > 3 * 7
    monkeypatch.setattr(rooms, "LOAD_PAGE", 7)
    monkeypatch.setattr(rooms, "LOAD_CHUNK", 3)
    reads: list[int] = []
    async with serve(Settings(store_url=url, snapshot_every=10_000)) as again:
        store = again.services.store
        read = store.read

        async def counted(room_id: str, after: int = 0, limit: int | None = None) -> Any:
            reads.append(after)
            return await read(room_id, after, limit)

        monkeypatch.setattr(store, "read", counted)
        watcher = await Client(again.ws_url, room, role="spectator").connect()
        assert same(watcher.view, final)
        await watcher.close()
        assert again.services.rooms.live[room].core.model.seq == last
    pages = reads[1:]  # after the head
    assert pages == list(range(1, last + 1, 7))  # until a page comes back short
