"""The routes of tables people share: who may see a room over HTTP, its invite code,
quick match (docs/protocol.md sections 12 and 15).

| method | path | answer |
|---|---|---|
| POST   | /api/rooms/{id}/invite | the host only: ``{"invite": code}``, a new code (the old one stops working) |
| DELETE | /api/rooms/{id}/invite | the host only: 204, the code revoked |
| POST   | /api/match | a session, ``{game, seats, room?: {fill_bots_after?, clock?, ...}}``: ``{room, seat, hold_seconds, summary}`` |

Every route of a room reads :func:`visitor_of` and answers a private room the visitor
may not see exactly as a room that does not exist (404 ``room/not_found``). Wrong
invite codes are bounded per address (:data:`INVITE_GUESSES` a minute).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine.errors import BadOptions
from protocol import errors as codes
from protocol.text import clean_name
from server.api.auth import address_of, player_of, require_player
from server.api.bodies import json_object
from server.errors import RoomRefusal
from server.limits import INVITE_GUESSES
from server.people import address_key
from server.room.access import Visitor, summary_visible
from server.room.rooms import INVITE_BYTES
from server.room.views import public_summary
from server.services import Services


async def visitor_of(request: Request) -> Visitor:
    """Who asks: the request's player (its session) and the invite code it brings."""
    player = await player_of(request)
    invite = request.query_params.get("invite") or None
    return Visitor(None if player is None else player.id, invite)


def invite_key(address: str) -> str:
    """The shared counter of an address's wrong invite codes (HTTP and websocket alike)."""
    return f"invite:{address_key(address)}"


async def guarded(request: Request, visitor: Visitor, seen: Callable[[], bool]) -> bool:
    """Whether the visitor may see the room (``seen()``), with wrong invite codes bounded
    per address: past :data:`INVITE_GUESSES` a minute every code is refused, a right one
    too (or the answers would tell a right guess from a wrong one)."""
    if visitor.invite is None:
        return seen()
    services: Services = request.app.state.services
    key = invite_key(address_of(request))
    if await services.people.hit(key, 60.0, add=0) >= INVITE_GUESSES:
        services.metrics.refused.inc(limit="invite")
        raise RoomRefusal(codes.HTTP_RATE_LIMITED, "too many invite codes tried; wait a minute")
    if seen():
        return True
    await services.people.hit(key, 60.0)
    return False


async def visible(request: Request, summary: dict[str, Any]) -> dict[str, Any]:
    """``summary`` as the visitor may have it, or room/not_found."""
    visitor = await visitor_of(request)
    if not await guarded(request, visitor, lambda: summary_visible(summary, visitor)):
        raise RoomRefusal(codes.ROOM_NOT_FOUND, f"no room {summary.get('room')!r}")
    return public_summary(summary)


async def invite(request: Request) -> Response:
    """A new invite code (POST) or none (DELETE), for the room's host."""
    services: Services = request.app.state.services
    player = await require_player(request)
    room_id = request.path_params["room_id"]
    code = secrets.token_urlsafe(INVITE_BYTES) if request.method == "POST" else None
    args = {"player": player.id, "code": code}
    await run_op(services, "invite", room_id, args)
    if code is None:
        return Response(status_code=204)
    return JSONResponse({"room": room_id, "invite": code})


async def run_op(services: Services, op: str, room_id: str, args: dict[str, Any]) -> Any:
    """Run a room operation where the room lives (this node, or its owner)."""
    if services.cluster is not None:
        return await services.cluster.run(op, room_id, args)
    return await services.rooms.run_op(op, room_id, args)


async def match(request: Request) -> Response:
    """``POST /api/match``: hold a seat at an open public table of a game."""
    services: Services = request.app.state.services
    player = await require_player(request)
    body = json_object(await request.body())
    game, seats = body.get("game"), body.get("seats")
    room = body.get("room") or {}
    if not isinstance(room, dict):
        raise BadOptions("room must be an object", field="room")
    for key in room:
        if key not in MATCH_SETTINGS:
            raise BadOptions(f"quick match takes the room settings {sorted(MATCH_SETTINGS)}",
                             field=key)  # fmt: skip
    if not isinstance(game, str):
        raise BadOptions("quick match needs the game's name", field="game")
    if not isinstance(seats, int) or isinstance(seats, bool):
        raise BadOptions("quick match needs a number of seats", field="seats")
    matched = await services.matchmaker.match(player.id, clean_name(player.name), game, seats, room)
    summary = await run_op(services, "summary", matched.room, {})
    return JSONResponse(
        {"room": matched.room, "seat": matched.seat, "hold_seconds": matched.hold_seconds,
         "summary": public_summary(summary)}
    )  # fmt: skip


MATCH_SETTINGS = frozenset(
    {"clock", "fill_bots_after", "bot_policy", "bot_delay", "takeover_after"}
)
"""What a quick match's request may ask of the room it makes (it joins any that fits)."""
