"""The Starlette application: HTTP API, ``/metrics``, the web client (``/ws`` is
:class:`server.edge.protocol.WebSocketEdge`'s, on the same port).

HTTP (JSON):

| method | path              | what                                                      |
|--------|-------------------|-----------------------------------------------------------|
| GET    | /api/health       | ``{"ok": true, "store": ..., "rooms_live": n, "node"?}``  |
|        | (and /ready)      | readiness: 503 unless the store answers (in a cluster:    |
|        |                   | and the node's leases are renewed and it is not draining) |
| GET    | /api/health/live  | liveness (names the node)                                 |
| GET    | /api/games        | every game: name, title, seats, default options, policies |
| POST   | /api/rooms        | create: ``{game, seats, options?, room?}`` -> room info   |
| GET    | /api/rooms        | every room, newest first, with status and counts (in a    |
|        |                   | cluster: from the Redis index, ``?cursor=&limit=``, with  |
|        |                   | ``next``, the cursor of the next page or null)            |
| GET    | /api/rooms/{id}   | one room's info (in a cluster: ``node``, its owner)       |
| POST   | /api/rooms/{id}/rematch | the same game, seats, options and settings again, in  |
|        |                   | a new room made once (201 with its info; the old room's   |
|        |                   | view then shows ``room.rematch``)                         |
| *      | /api/players,     | players and sessions (guests, names, credentials, sign    |
|        | /api/me...,       | in and out, my games): :mod:`server.api.players`          |
|        | /api/sessions...  |                                                           |
| *      | /api/operator/... | the operator console, behind the operator token:          |
|        |                   | :mod:`server.api.operator`                                |
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

import asyncio
import contextlib
import gc
import logging
import math
import time
from collections.abc import AsyncIterator
from importlib.resources import files
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from engine.core import games
from engine.errors import BadOptions, CodedError
from protocol import errors as codes
from protocol.errors import ProtocolError, http_status
from server.api import history as history_api
from server.api import operator as operator_api
from server.api import players as players_api
from server.api import tables
from server.api.auth import player_of
from server.api.bodies import json_object
from server.api.tables import visible
from server.cluster.node import Node
from server.config import Settings
from server.edge.protocol import keepalive
from server.errors import RoomRefusal
from server.limits import client_address
from server.logs import quiet_denials
from server.metrics import Metrics
from server.room.ownership import RoomElsewhere
from server.room.rooms import Rooms
from server.room.views import public_summary
from server.services import Services
from server.store import EventStore, StoreError, open_store
from server.store.base import MAX_PAGE
from server.store.url import is_redis

log = logging.getLogger("rollhouse.app")
WEB_ROOT = Path(str(files("clients") / "web"))
"""The web client's files (and the rules pages under ``rules/``): package data."""
SDK_ROOT = Path(str(files("clients") / "js" / "src"))
"""The JS SDK's sources (``@rollhouse/client``), served at ``/sdk/``: the web client imports
them (its pages' import map), so the browser holds one copy of the protocol. Package data."""


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
    field = exc.details.get("field") or exc.details.get("option") or exc.details.get("class_mode")
    if field is not None and not isinstance(field, str):
        field = None
    reply = error_response(exc.code, exc.message, http_status(exc.code, default), field)
    if isinstance(exc.details.get("retry_after"), int):
        reply.headers["Retry-After"] = str(exc.details["retry_after"])
    if reply.status_code == 401:
        reply.headers["WWW-Authenticate"] = "Bearer"
    return reply


HEALTH_TIMEOUT = 2.0
"""Seconds the store has to answer a readiness check."""


async def health(request: Request) -> Response:
    """Readiness: 200 only while the event store answers (``/api/health`` and ``/ready``)."""
    services: Services = request.app.state.services
    body: dict[str, Any] = {
        "ok": True,
        "store": services.settings.store_url.split("://")[0],
        "rooms_live": len(services.rooms.live),
    }
    cluster = services.cluster
    if cluster is not None:
        body.update(node=cluster.id, draining=cluster.draining)
    if cluster is not None and not cluster.ready():  # known without asking the store
        why = "draining" if cluster.draining else "the node's leases are not being renewed"
        body.update(ok=False, error={"code": codes.UNAVAILABLE, "message": why})
        return JSONResponse(body, status_code=503)
    failure = await store_failure(services)
    if failure is not None:
        body.update(ok=False, error={"code": codes.UNAVAILABLE, "message": f"store: {failure!r}"})
        return JSONResponse(body, status_code=503)
    return JSONResponse(body)


async def store_failure(services: Services) -> Exception | None:
    """Why the event store did not answer within ``HEALTH_TIMEOUT`` (None: it did);
    kept in ``rollhouse_store_up``."""
    try:
        await asyncio.wait_for(services.store.last_seq("health-check"), HEALTH_TIMEOUT)
    except (TimeoutError, StoreError) as exc:
        services.metrics.store_up.set(0.0)
        return exc
    services.metrics.store_up.set(1.0)
    return None


async def live(request: Request) -> Response:
    """Liveness: the process serves requests (whatever the store does); names the node."""
    services: Services = request.app.state.services
    return JSONResponse({"ok": True, "node": services.settings.node})


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
    """``POST /api/rooms``; an ``Idempotency-Key`` header makes a retry return the same room."""
    services: Services = request.app.state.services
    try:
        body = json_object(await request.body())
    except ProtocolError as exc:
        return error_response(codes.BAD_JSON, exc.message, 400, exc.field)
    key = request.headers.get("idempotency-key")
    if key is not None and not (1 <= len(key) <= 255 and key.isascii() and key.isprintable()):
        return error_response(codes.BAD_JSON, "Idempotency-Key: 1-255 printable ASCII", 400)
    cluster = services.cluster
    if key is not None and cluster is None and key in services.idempotency:
        return await _replay_creation(services, services.idempotency[key])
    if key is not None and cluster is not None:  # kept in Redis: any node replays it
        try:
            made = await cluster.idempotency.claim(key)
        except CodedError as exc:
            return coded_response(exc)
        if made is not None:
            return await _replay_creation(services, made)
    address = client_address(
        request.client.host if request.client else None,
        request.headers,
        services.settings.trusted_proxies,
    )
    wait = services.creations.retry_after(address, time.monotonic())
    if wait:
        services.metrics.refused.inc(limit="creations_per_address")
        message = f"at most {services.settings.creations_per_minute} rooms a minute per address"
        reply = error_response(codes.HTTP_RATE_LIMITED, message, 429)
        reply.headers["Retry-After"] = str(math.ceil(wait))
        if key is not None and cluster is not None:
            await cluster.idempotency.failed(key)
        return reply
    host = await player_of(request)
    try:
        summary, invite = await services.rooms.make(
            str(body.get("game", "")), body.get("seats", 0), *_room_parts(body),
            None if host is None else host.id,
        )  # fmt: skip
    except CodedError as exc:
        if key is not None and cluster is not None:
            await cluster.idempotency.failed(key)
        return coded_response(exc)
    if key is not None and cluster is None:
        services.remember_creation(key, summary["room"])
    if cluster is not None:
        if key is not None:
            with contextlib.suppress(StoreError):  # pending lapses; a retry then makes another
                await cluster.idempotency.made(key, summary["room"])
        summary = await _published(services, summary)
    await services.matchmaker.enlist(summary)
    answer = public_summary(summary)
    if invite is not None:  # the creator's alone: the log keeps only its digest
        answer["invite"] = invite
    return JSONResponse(answer, status_code=201)


async def _published(services: Services, summary: dict[str, Any]) -> dict[str, Any]:
    """A new room's summary with its node, written to the cluster's index (best effort)."""
    assert services.cluster is not None
    room = services.rooms.live.get(summary["room"])
    if room is not None:
        with contextlib.suppress(StoreError):
            await services.cluster.publish([room])
    return {**summary, "node": services.cluster.id}


async def _replay_creation(services: Services, room_id: str) -> Response:
    """The room an Idempotency-Key made (a private room's invite code is not repeated:
    its host issues a new one, ``POST /api/rooms/{id}/invite``)."""
    try:
        if services.cluster is not None:  # perhaps made, and run, by another node
            info = await _cluster_info(services, services.cluster, room_id)
            return JSONResponse(public_summary(info), status_code=201)
        room = await services.rooms.get(room_id)
    except CodedError as exc:
        return coded_response(exc)
    return JSONResponse(public_summary(room.summary()), status_code=201)


def _room_parts(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    unknown = set(body) - {"game", "seats", "options", "room"}
    if unknown:
        field = sorted(unknown)[0]
        raise BadOptions(f"unknown field {field!r}", field=field)
    options, room_settings = body.get("options") or {}, body.get("room") or {}
    if not isinstance(options, dict) or not isinstance(room_settings, dict):
        raise BadOptions("options and room must be objects", field="options")
    return options, room_settings


async def rematch(request: Request) -> Response:
    """``POST /api/rooms/{id}/rematch``: the same table again, in a new room (made once)."""
    services: Services = request.app.state.services
    room_id = request.path_params["room_id"]
    try:
        await visible(request, await room_summary(services, room_id))
        try:
            summary = await services.rooms.rematch(room_id)
        except RoomElsewhere as exc:  # a cluster: the room's owner makes it
            assert services.cluster is not None
            made = await services.cluster.call(exc.owner, "rematch", room_id)
            return JSONResponse(public_summary(made), 201)
    except CodedError as exc:
        return coded_response(exc)
    if services.cluster is not None:
        summary = await _published(services, summary)
    return JSONResponse(public_summary(summary), status_code=201)


async def list_rooms(request: Request) -> Response:
    """One page of rooms, newest first, from the summary index (the store's; in a
    cluster, the one the owners keep in Redis)."""
    services: Services = request.app.state.services
    try:
        cursor = max(0, int(request.query_params.get("cursor", 0)))
        limit = max(1, min(MAX_PAGE, int(request.query_params.get("limit", 100))))
    except ValueError:
        return error_response(codes.BAD_JSON, "cursor and limit must be integers", 400)
    try:
        if services.cluster is not None:
            rooms, cursor_next = await _cluster_page(services, services.cluster, cursor, limit)
        else:
            rooms, cursor_next = await services.rooms.list(cursor, limit)
    except CodedError as exc:
        return coded_response(exc)
    listed = [public_summary(r) for r in rooms if r.get("visibility", "public") == "public"]
    return JSONResponse({"rooms": listed, "next": cursor_next})


async def room_info(request: Request) -> Response:
    services: Services = request.app.state.services
    try:
        summary = await room_summary(services, request.path_params["room_id"])
        return JSONResponse(await visible(request, summary))
    except CodedError as exc:
        return coded_response(exc)


async def room_summary(services: Services, room_id: str) -> dict[str, Any]:
    """A room's summary with its ``access`` part (who may see a private room; never
    sent as it is: see :func:`server.api.tables.visible`): live here, from the
    cluster's index, or loaded."""
    if services.cluster is not None:
        return await _cluster_info(services, services.cluster, room_id)
    return (await services.rooms.get(room_id)).summary()


async def _cluster_page(
    services: Services, cluster: Node, cursor: int, limit: int
) -> tuple[list[dict[str, Any]], int | None]:
    """A page of the cluster's index; a room not indexed yet (just created) is
    summarised here: live on this node, or from its log, with its owner."""
    page, after = await cluster.index.page(cursor, limit)
    indexed = await cluster.current({r: s for r, s in page if s is not None})
    out, made = [], {}
    for room_id, summary in page:
        summary = indexed.get(room_id)
        if summary is None:
            room = services.rooms.live.get(room_id)
            if room is not None and not room.broken:
                summary = {**room.summary(), "node": cluster.id}
            else:
                summary = await services.rooms.summary_from_log(room_id)
                if summary is None:
                    continue
                summary["node"] = await cluster.owner_of(room_id)
            made[room_id] = summary
        out.append(summary)
    with contextlib.suppress(StoreError):  # best effort: the next listing makes them again
        await cluster.index.fill(made)
    return out, after


async def _cluster_info(services: Services, cluster: Node, room_id: str) -> dict[str, Any]:
    """A room's info in a cluster: live here, else from the index, with its owner node."""
    room = services.rooms.live.get(room_id)
    if room is not None and not room.broken:
        return {**room.summary(), "node": cluster.id}
    summary = await cluster.index.get(room_id)
    if summary is not None:  # behind the log with nobody to publish it: mended
        summary = (await cluster.current({room_id: summary}))[room_id]
    else:  # not indexed yet: run it here, or learn who runs it
        try:
            return {**(await services.rooms.get(room_id)).summary(), "node": cluster.id}
        except RoomElsewhere:  # run by another node that has not indexed it yet
            summary = await services.rooms.summary_from_log(room_id)
            if summary is None:
                raise RoomRefusal(codes.ROOM_NOT_FOUND, f"no room {room_id!r}") from None
    summary["node"] = await cluster.owner_of(room_id)
    return summary


async def drain(app: Starlette) -> None:
    """Before the server closes its sockets (SIGTERM): hand this node's rooms over."""
    services: Services | None = getattr(app.state, "services", None)
    if services is not None and services.cluster is not None:
        await services.cluster.drain()


async def metrics(request: Request) -> Response:
    services: Services = request.app.state.services
    await store_failure(services)  # rollhouse_store_up as of this scrape
    return PlainTextResponse(services.metrics.render(), media_type="text/plain; version=0.0.4")


def tune_gc(thresholds: tuple[int, ...]) -> None:
    """Freeze what start-up made (modules, content catalogues: never garbage) out of
    every later collection, and set the generation thresholds if given."""
    gc.collect()
    gc.freeze()
    if thresholds:
        gc.set_threshold(*thresholds)


def create_app(settings: Settings | None = None, store: EventStore | None = None) -> Starlette:
    """The application; opens the store named in ``settings`` unless one is given."""
    settings = settings or Settings.from_env()
    quiet_denials()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        the_store = store or open_store(settings.store_url)
        metrics_ = Metrics()
        cluster = Node(settings, the_store, metrics_) if is_redis(settings.store_url) else None
        rooms = Rooms(the_store, settings, metrics_, fencer=cluster)
        services = Services(settings, the_store, metrics_, rooms, cluster=cluster)
        rooms.on_member, rooms.on_reopen = services.joined, services.reopened
        metrics_.connections.fn = lambda: float(len(services.connections))
        metrics_.spectators.fn = lambda: float(
            sum(1 for c in services.connections if c.role == "spectator")
        )
        app.state.services = services
        if cluster is not None:
            await cluster.start(rooms)
        await rooms.start()
        await services.operator.start()
        pings = asyncio.create_task(keepalive(services), name="keepalive")
        log.info("serving with store %s", settings.store_url)
        try:
            yield {"services": services}  # the lifespan state: WebSocketEdge finds it there
        finally:
            pings.cancel()
            await services.operator.close()
            if cluster is not None:
                await cluster.drain()
            await rooms.close()
            if cluster is not None:
                await cluster.close()
            if store is None:
                await the_store.close()

    routes: list[Any] = [
        Route("/api/health", health),
        Route("/api/health/ready", health),
        Route("/api/health/live", live),
        Route("/api/games", list_games),
        Route("/api/rooms", list_rooms, methods=["GET"]),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/import", history_api.room_import, methods=["POST"]),
        Route("/api/rooms/{room_id}", room_info),
        Route("/api/rooms/{room_id}/events", history_api.room_events),
        Route("/api/rooms/{room_id}/view", history_api.room_view),
        Route("/api/rooms/{room_id}/verify", history_api.room_verify),
        Route("/api/rooms/{room_id}/export", history_api.room_export),
        Route("/api/rooms/{room_id}/rematch", rematch, methods=["POST"]),
        *players_api.routes(room_summary),
        Route("/api/rooms/{room_id}/invite", tables.invite, methods=["POST", "DELETE"]),
        Route("/api/match", tables.match, methods=["POST"]),
        Route("/metrics", metrics),
        *operator_api.routes(),
    ]
    routes.append(Mount("/sdk", StaticFiles(directory=SDK_ROOT), name="sdk"))
    routes.append(Mount("/", StaticFiles(directory=WEB_ROOT, html=True), name="web"))
    handlers: dict[Any, Any] = {
        HTTPException: http_error,
        CodedError: lambda _request, exc: coded_response(exc),
        Exception: server_error,
    }
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers=handlers)
    limits = {"/api/rooms/import": settings.max_import_bytes}
    return Front(app, settings.max_body_bytes, limits)  # type: ignore[return-value]


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no route, wrong method) as JSON errors."""
    assert isinstance(exc, HTTPException)
    code = codes.HTTP_NOT_FOUND if exc.status_code == 404 else codes.BAD_JSON
    return error_response(code, str(exc.detail), exc.status_code)


async def server_error(request: Request, exc: Exception) -> Response:
    """A bug: logged with its traceback, answered as a typed JSON 500 without one."""
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(codes.HTTP_INTERNAL, "internal error; it has been logged", 500)


class Front:
    """The ASGI application uvicorn runs, in front of Starlette.

    HTTP request bodies over ``limit`` bytes get 413 ``http/too_large`` before the
    application sees them (the body is read here and handed on whole). Everything else
    goes to Starlette. Websockets never come here: uvicorn hands every upgrade to
    :class:`server.edge.protocol.WebSocketEdge` (``uvicorn.Config(ws=...)``)."""

    def __init__(self, app: Starlette, limit: int, by_path: dict[str, int] | None = None) -> None:
        self.app, self.limit, self.by_path = app, limit, by_path or {}

    def __getattr__(self, name: str) -> Any:  # app.state, app.routes, ... of the wrapped app
        return getattr(self.app, name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        why = self._barred(scope)
        if why is not None:
            reply = error_response(codes.BANNED, why, 403)
            await reply(scope, receive, send)
            return
        limit = self.by_path.get(scope.get("path", ""), self.limit)
        declared = dict(scope.get("headers") or []).get(b"content-length", b"0")
        chunks: list[bytes] = []
        size = int(declared) if declared.isdigit() else 0
        while size <= limit:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size = sum(len(c) for c in chunks)
            if not message.get("more_body"):
                break
        if size > limit:
            with contextlib.suppress(AttributeError):
                self.app.state.services.metrics.refused.inc(limit="body")
            reply = error_response(codes.TOO_LARGE_BODY, f"the body is over {limit} bytes", 413)
            await reply(scope, receive, send)
            return
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _barred(self, scope: Any) -> str | None:
        """Why an operator's ban refuses this API request's address (None: it does not);
        the console, health and metrics routes and the web client's files are never
        refused."""
        path = str(scope.get("path", ""))
        if not path.startswith("/api/") or path.startswith(UNBARRED):
            return None
        services: Services | None = getattr(self.app.state, "services", None)
        if services is None or not services.operator.bans.held:
            return None
        client = scope.get("client")
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers") or []}  # fmt: skip
        address = client_address(client[0] if client else None, headers,
                                 services.settings.trusted_proxies)  # fmt: skip
        return services.operator.barred(address)


UNBARRED = ("/api/operator/", "/api/health")
"""API paths an address ban never refuses."""
