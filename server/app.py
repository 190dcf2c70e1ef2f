"""The Starlette application: HTTP API, ``/metrics``, the ``/ws`` endpoint, the web client.

HTTP (JSON):

| method | path              | what                                                      |
|--------|-------------------|-----------------------------------------------------------|
| GET    | /api/health       | ``{"ok": true, "store": ..., "rooms_live": n}``           |
| GET    | /api/games        | every game: name, title, seats, default options, policies |
| POST   | /api/rooms        | create: ``{game, seats, options?, room?}`` -> room info   |
| GET    | /api/rooms        | every room, newest first, with status and counts          |
| GET    | /api/rooms/{id}   | one room's info                                           |
| POST   | /api/rooms/{id}/rematch | the same game, seats, options and settings again, in  |
|        |                   | a new room made once (201 with its info; the old room's   |
|        |                   | view then shows ``room.rematch``)                         |
| GET    | /metrics          | Prometheus text                                           |
| GET    | /rules/{game}.md  | the rules in our own words (English, then pt-BR)          |
| GET    | /                 | the web client (lobby; ``/table.html?room=ID``)           |

``room`` holds the room's own settings: ``clock`` (seconds per decision, 0 = none),
``bots`` (seats given to hosted bots), ``bot_policy``, ``bot_delay`` (seconds).
Errors come back as ``{"error": {"code", "message", "field"?}}``; the status comes
from the error catalogue (``protocol.errors``): 400 for bad input, 404 for an unknown
room or game, 503 when the event store does not answer.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from importlib.resources import files
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from engine.core import games
from engine.errors import CodedError
from protocol import errors as codes
from protocol.errors import http_status
from server.config import Settings
from server.connection import websocket_endpoint
from server.errors import RoomRefusal
from server.metrics import Metrics
from server.rooms import Rooms
from server.services import Services
from server.store import EventStore, StoreError, open_store

log = logging.getLogger("rollhouse.app")
WEB_ROOT = Path(str(files("clients") / "web"))
"""The web client's files (and the rules pages under ``rules/``): package data."""


def error_response(code: str, message: str, status: int, field: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if field is not None:
        body["field"] = field
    return JSONResponse({"error": body}, status_code=status)


def coded_response(exc: CodedError) -> JSONResponse:
    """The HTTP answer to a refusal: its status from the error catalogue."""
    if isinstance(exc, StoreError):
        return error_response(codes.UNAVAILABLE, str(exc), 503)
    default = 503 if isinstance(exc, RoomRefusal) else 400
    field = exc.details.get("field")
    return error_response(exc.code, exc.message, http_status(exc.code, default), field)


async def health(request: Request) -> Response:
    services: Services = request.app.state.services
    return JSONResponse(
        {
            "ok": True,
            "store": services.settings.store_url.split("://")[0],
            "rooms_live": len(services.rooms.live),
        }
    )


async def list_games(_: Request) -> Response:
    out = []
    for game in games().values():
        out.append(
            {
                "name": game.name,
                "title": game.title,
                "min_seats": game.min_seats,
                "max_seats": game.max_seats,
                "options": game.default_options(),
                "policies": list(game.policies),
            }
        )
    return JSONResponse({"games": out})


async def create_room(request: Request) -> Response:
    services: Services = request.app.state.services
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError:
        return error_response("http/bad_json", "the body is not JSON", 400)
    if not isinstance(body, dict):
        return error_response("http/bad_json", "the body must be a JSON object", 400)
    unknown = set(body) - {"game", "seats", "options", "room"}
    if unknown:
        field = sorted(unknown)[0]
        return error_response("room/bad_options", f"unknown field {field!r}", 400, field)
    options, room_settings = body.get("options") or {}, body.get("room") or {}
    if not isinstance(options, dict) or not isinstance(room_settings, dict):
        return error_response("room/bad_options", "options and room must be objects", 400)
    try:
        room = await services.rooms.create(
            str(body.get("game", "")), body.get("seats", 0), options, room_settings
        )
    except CodedError as exc:
        return coded_response(exc)
    return JSONResponse(room.summary(), status_code=201)


async def rematch(request: Request) -> Response:
    """``POST /api/rooms/{id}/rematch``: the same table again, in a new room (made once)."""
    services: Services = request.app.state.services
    try:
        room = await services.rooms.rematch(request.path_params["room_id"])
    except CodedError as exc:
        return coded_response(exc)
    return JSONResponse(room.summary(), status_code=201)


async def list_rooms(request: Request) -> Response:
    services: Services = request.app.state.services
    return JSONResponse({"rooms": await services.rooms.list()})


async def room_info(request: Request) -> Response:
    services: Services = request.app.state.services
    try:
        room = await services.rooms.get(request.path_params["room_id"])
    except CodedError as exc:
        return coded_response(exc)
    return JSONResponse(room.summary())


async def metrics(request: Request) -> Response:
    services: Services = request.app.state.services
    return PlainTextResponse(services.metrics.render(), media_type="text/plain; version=0.0.4")


def create_app(settings: Settings | None = None, store: EventStore | None = None) -> Starlette:
    """The application; opens the store named in ``settings`` unless one is given."""
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        the_store = store or open_store(settings.store_url)
        metrics_ = Metrics()
        rooms = Rooms(the_store, settings, metrics_)
        services = Services(settings, the_store, metrics_, rooms)
        metrics_.connections.fn = lambda: float(len(services.connections))
        metrics_.spectators.fn = lambda: float(
            sum(1 for c in services.connections if c.role == "spectator")
        )
        app.state.services = services
        await rooms.start()
        log.info("serving with store %s", settings.store_url)
        try:
            yield
        finally:
            await rooms.close()
            if store is None:
                await the_store.close()

    routes: list[Any] = [
        Route("/api/health", health),
        Route("/api/games", list_games),
        Route("/api/rooms", list_rooms, methods=["GET"]),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/{room_id}", room_info),
        Route("/api/rooms/{room_id}/rematch", rematch, methods=["POST"]),
        Route("/metrics", metrics),
        WebSocketRoute("/ws", websocket_endpoint),
    ]
    routes.append(Mount("/", StaticFiles(directory=WEB_ROOT, html=True), name="web"))
    return Starlette(routes=routes, lifespan=lifespan)
