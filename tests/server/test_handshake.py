"""What an accepted websocket keeps of its handshake: nothing (the memory of idle
connections; docs/benchmarks.md), while it goes on playing; and what a handshake the
edge refuses is answered."""

from __future__ import annotations

import gc
import json

import pytest
import websockets
from websockets.http11 import Request

from clients.sdk import Client
from tests.support.server import LiveServer

JSON = "rollhouse.v1.json"


async def test_an_accepted_socket_keeps_nothing_of_its_handshake(live_server: LiveServer) -> None:
    """websockets' parser keeps the upgrade request for the socket's life; the edge
    empties its headers once the handshake is answered, so a 4 KiB header costs an idle
    socket nothing; and the players go on."""
    room = (await live_server.create_room("rollie", 2))["room"]
    pad = "x" * 4096
    async with websockets.connect(
        live_server.ws_url,
        subprotocols=[JSON],
        additional_headers={"X-Pad": pad},  # type: ignore[list-item]
    ) as raw:
        gc.collect()
        kept = [
            r for r in gc.get_objects()
            if isinstance(r, Request) and r is not raw.request and "X-Pad" in r.headers
        ]  # fmt: skip
        assert kept == []
        async with (
            Client(live_server.ws_url, room, name="ann") as ann,
            Client(live_server.ws_url, room, name="bob") as bob,
        ):
            await bob.wait_for(lambda v: v["room"]["status"] == "playing", timeout=10)
            await ann.wait_for(lambda v: v["room"]["status"] == "playing", timeout=10)


@pytest.mark.parametrize(
    ("path", "headers", "status", "code"),
    [
        ("/nope", {}, 404, "http/not_found"),
        ("/ws", {"Origin": "https://evil.example"}, 403, "room/origin_forbidden"),
    ],
)
async def test_a_refused_handshake_is_a_typed_http_error(
    live_server: LiveServer, path: str, headers: dict[str, str], status: int, code: str
) -> None:
    """An upgrade the edge refuses gets an HTTP answer with a JSON error, never a socket."""
    url = live_server.ws_url.replace("/ws", path)
    with pytest.raises(websockets.InvalidStatus) as info:
        async with websockets.connect(url, additional_headers=headers):
            pass
    response = info.value.response
    assert response.status_code == status
    assert json.loads(response.body)["error"]["code"] == code
