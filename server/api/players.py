"""Players and sessions over HTTP (JSON). A session travels as ``Authorization:
Bearer <token>``; docs/protocol.md ("Players and sessions") is the reference.

| method | path | body -> answer |
|---|---|---|
| POST | /api/players | ``{name?}`` -> 201 ``{player, session, expires_in}``: a new guest |
| GET | /api/me | -> ``{player}`` |
| PATCH | /api/me | ``{name}`` -> ``{player}`` |
| POST | /api/me/credentials | ``{username, password}`` -> ``{player}`` |
| GET | /api/me/rooms | ``?cursor=&limit=`` -> ``{rooms: [{room, joined_at, summary}], next}`` |
| POST | /api/sessions | ``{username, password}`` -> 201 ``{player, session, expires_in}`` |
| DELETE | /api/sessions/current | -> 204: this session ends |
| DELETE | /api/sessions | -> 204: every session of the player ends |

Refusals are the API's error bodies, with ``Retry-After`` on 429 and
``WWW-Authenticate: Bearer`` on 401.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from engine.errors import CodedError
from protocol import errors as codes
from protocol.errors import ProtocolError
from server.api.auth import address_of, bearer, people_of, require_player
from server.api.bodies import json_object, only
from server.people import PeopleRefusal, Player, address_key
from server.room.access import Visitor, summary_visible
from server.room.views import public_summary
from server.services import Services

Summary = Callable[[Services, str], Awaitable[dict[str, Any]]]
"""How the API reads one room's summary (``GET /api/rooms/{id}``'s)."""
ROOMS_PAGE = (20, 50)
"""``GET /api/me/rooms``: rooms a page by default, and at most."""


def routes(summary: Summary) -> list[Route]:
    """The routes of players and sessions; ``summary`` reads a room's summary."""

    async def my_rooms(request: Request) -> Response:
        return await _my_rooms(request, summary)

    return [
        Route("/api/players", create_guest, methods=["POST"]),
        Route("/api/me", me, methods=["GET"]),
        Route("/api/me", rename, methods=["PATCH"]),
        Route("/api/me/credentials", register, methods=["POST"]),
        Route("/api/me/rooms", my_rooms, methods=["GET"]),
        Route("/api/sessions", sign_in, methods=["POST"]),
        Route("/api/sessions/current", sign_out, methods=["DELETE"]),
        Route("/api/sessions", sign_out_everywhere, methods=["DELETE"]),
    ]


async def create_guest(request: Request) -> Response:
    """``POST /api/players``: a guest player and its first session."""
    body = only(json_object(await request.body()), {"name"})
    services: Services = request.app.state.services
    limit = services.settings.guests_per_minute
    if await services.people.hit(f"guest:{address_key(address_of(request))}", 60.0) > limit:
        services.metrics.refused.inc(limit="guests_per_address")
        message = f"at most {limit} new players a minute per address"
        raise PeopleRefusal(codes.HTTP_RATE_LIMITED, message, retry_after=60.0)
    player, token = await services.people.guest(body.get("name"))
    return _session(player, token, services)


async def me(request: Request) -> Response:
    """``GET /api/me``: the session's player."""
    return JSONResponse({"player": (await require_player(request)).to_data()})


async def rename(request: Request) -> Response:
    """``PATCH /api/me``: a new display name."""
    player = await require_player(request)
    body = only(json_object(await request.body()), {"name"})
    renamed = await people_of(request).rename(player, body.get("name"))  # type: ignore[arg-type]
    return JSONResponse({"player": renamed.to_data()})


async def register(request: Request) -> Response:
    """``POST /api/me/credentials``: a username and password for this player."""
    player = await require_player(request)
    body = only(json_object(await request.body()), {"username", "password"})
    username, password = body.get("username"), body.get("password")
    registered = await people_of(request).register(player, username, password)  # type: ignore[arg-type]
    return JSONResponse({"player": registered.to_data()})


async def sign_in(request: Request) -> Response:
    """``POST /api/sessions``: a new session from a username and password."""
    body = only(json_object(await request.body()), {"username", "password"})
    services: Services = request.app.state.services
    username, password = body.get("username"), body.get("password")
    player, token = await services.people.sign_in(username, password, address_of(request))  # type: ignore[arg-type]
    return _session(player, token, services)


async def sign_out(request: Request) -> Response:
    """``DELETE /api/sessions/current``: this session ends."""
    await require_player(request)
    await people_of(request).sign_out(bearer(request) or "")
    return Response(status_code=204)


async def sign_out_everywhere(request: Request) -> Response:
    """``DELETE /api/sessions``: every session of this player ends, this one too."""
    await people_of(request).sign_out_everywhere(await require_player(request))
    return Response(status_code=204)


async def _my_rooms(request: Request, summary: Summary) -> Response:
    """``GET /api/me/rooms``: the rooms the player joined, newest first, each with its
    summary (null when it cannot be read)."""
    player = await require_player(request)
    cursor = _query_int(request, "cursor", 0, 0, math.inf)
    limit = _query_int(request, "limit", ROOMS_PAGE[0], 1, ROOMS_PAGE[1])
    services: Services = request.app.state.services
    page, after = await services.people.rooms(player.id, cursor, limit)
    visitor = Visitor(player.id)
    rooms = [
        {"room": room_id, "joined_at": at,
         "summary": await _readable(services, summary, room_id, visitor)}
        for room_id, at in page
    ]  # fmt: skip
    return JSONResponse({"rooms": rooms, "next": after})


async def _readable(
    services: Services, summary: Summary, room_id: str, visitor: Visitor
) -> dict[str, Any] | None:
    """The room's summary as the player may read it, or None where it cannot be read
    (gone, refused, or a private room they were removed from)."""
    try:
        found = await summary(services, room_id)
    except CodedError as exc:
        if exc.code == codes.UNAVAILABLE or exc.code.startswith("store/"):
            raise
        return None
    return public_summary(found) if summary_visible(found, visitor) else None


def _query_int(request: Request, name: str, default: int, low: float, high: float) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit() and len(text) <= 12 and low <= int(text) <= high):
        bound = "" if high == math.inf else f"-{high:g}"
        raise ProtocolError(codes.BAD_QUERY, f"{name} must be an integer {low:g}{bound}", name)
    return int(text)


def _session(player: Player, token: str, services: Services) -> Response:
    body = {
        "player": player.to_data(),
        "session": token,
        "expires_in": int(services.people.policy.session_idle),
    }
    return JSONResponse(body, status_code=201, headers={"Cache-Control": "no-store"})
