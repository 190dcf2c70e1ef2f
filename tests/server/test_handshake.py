"""What an accepted websocket keeps of its handshake: nothing (the memory of idle
connections; docs/benchmarks.md), while it goes on playing."""

from __future__ import annotations

from clients.sdk import Client
from tests.support.server import LiveServer


async def test_an_accepted_socket_keeps_nothing_of_its_handshake(live_server: LiveServer) -> None:
    """uvicorn's protocol keeps the upgrade request and response and the scope's header
    list, and websockets' parser keeps the request, for the socket's life; the server lets
    go of all of them after the upgrade (this checks that the uvicorn and websockets in
    use still hold them where the server looks), and the players go on."""
    room = (await live_server.create_room("rollie", 2))["room"]
    async with Client(live_server.ws_url, room, name="ann") as ann:
        (conn,) = live_server.services.connections
        protocol = conn.ws._receive.__self__  # type: ignore[attr-defined]
        assert protocol.handshake_complete
        assert protocol.request is None and protocol.response is None
        assert conn.ws.scope["headers"] == [] and "_headers" not in conn.ws.__dict__
        kept = protocol.conn.parser.gi_frame.f_locals.get("request")
        assert kept is not None, "websockets' parser no longer keeps the request: look again"
        assert list(kept.headers.raw_items()) == []
        async with Client(live_server.ws_url, room, name="bob") as bob:
            await bob.wait_for(lambda v: v["room"]["status"] == "playing", timeout=10)
            await ann.wait_for(lambda v: v["room"]["status"] == "playing", timeout=10)
