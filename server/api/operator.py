"""The operator console's HTTP API (docs/protocol.md 12.3; the page is
``/operator.html``). Every route asks :func:`operator_of` first:

- no operator token configured: 404 ``operator/off`` (the console does not exist);
- more than ``operator_requests_per_minute`` requests from the address, or more than
  ``operator_wrong_tokens_per_minute`` without the right token (then even the right one, so that no answer tells a
  right guess from a wrong one): 429 ``operator/rate_limited`` with Retry-After;
- no ``Authorization: Bearer <operator token>``, or another token: 401
  ``operator/unauthorized``; nothing else is said or done.

The optional ``X-Operator`` header names who acts (1-40 printable characters; the
audit log keeps it with the address). Bans never apply to these routes: an operator
who bans their own address keeps the console.

| method | path | body | answer |
|---|---|---|---|
| GET | /api/operator/nodes | | ``{"nodes": [{node, address, rooms, connections, spectators, lease_age, draining, version, at, addresses}]}`` |
| GET | /api/operator/rooms?game=&status=&node= | | ``{"rooms": [summary + node]}`` |
| GET | /api/operator/rooms/{id} | | seats, connections, spectators, log length, chat, last events, node |
| GET | /api/operator/connections | | ``{"addresses": [{address, connections, nodes}]}`` |
| GET | /api/operator/bans | | ``{"bans": [...]}`` |
| GET | /api/operator/audit?limit= | | ``{"audit": [...]}``, newest first |
| POST | /api/operator/rooms/{id}/close | ``{reason}`` | ``{"ok": true, "value": summary}`` |
| POST | /api/operator/rooms/{id}/remove | ``{peer or seat or player, reason}`` | ``{"ok": true, "value": n}`` |
| POST | /api/operator/rooms/{id}/hide | ``{seq}`` | ``{"ok": true}`` |
| POST | /api/operator/bans | ``{kind, value, minutes, reason}`` | ``{"ok": true, "ban": ...}`` |
| POST | /api/operator/bans/lift | ``{kind, value}`` | ``{"ok": true}`` |
| POST | /api/operator/notice | ``{text}`` | ``{"ok": true, "told": n}`` |
| POST | /api/operator/nodes/{node}/drain | | ``{"ok": true}`` |
"""

from __future__ import annotations

import math
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from engine.errors import CodedError
from protocol import errors as codes
from server.api.auth import address_of, bearer
from server.api.bodies import json_object
from server.operator.console import Actor, Console
from server.services import Services


class OperatorRefusal(CodedError):
    """A console request refused before it is read (its status from the catalogue)."""


def _console(request: Request) -> tuple[Services, Console]:
    services: Services = request.app.state.services
    return services, services.operator


def operator_of(request: Request) -> Actor:
    """Who asks, once the token is checked (see the module docstring for the refusals)."""
    services, console = _console(request)
    if console.key is None:
        raise OperatorRefusal("the operator console is off", code=codes.OPERATOR_OFF)
    address, now = address_of(request), time.monotonic()
    wait = console.wrong_tokens.full(address, now) or console.requests.retry_after(address, now)
    if wait:
        services.metrics.refused.inc(limit="operator")
        raise OperatorRefusal("too many console requests; wait", code=codes.OPERATOR_LIMITED,
                              retry_after=math.ceil(wait))  # fmt: skip
    if not console.key.admits(bearer(request)):
        console.wrong_tokens.retry_after(address, now)
        services.metrics.refused.inc(limit="operator_token")
        raise OperatorRefusal("the operator token is missing or wrong",
                              code=codes.OPERATOR_UNAUTHORIZED)  # fmt: skip
    name = request.headers.get("x-operator", "").strip()
    if not (1 <= len(name) <= 40 and name.isprintable()):
        name = "operator"
    return Actor(name, address)


def _json(data: Any) -> Response:
    """A console answer: never kept by a cache on the way."""
    return JSONResponse(data, headers={"Cache-Control": "no-store"})


async def _body(request: Request) -> dict[str, Any]:
    return json_object(await request.body())


async def nodes(request: Request) -> Response:
    operator_of(request)
    return _json({"nodes": await _console(request)[1].nodes()})


async def rooms(request: Request) -> Response:
    operator_of(request)
    query = request.query_params
    found = await _console(request)[1].room_list(
        query.get("game") or None, query.get("status") or None, query.get("node") or None
    )
    return _json({"rooms": found})


async def room(request: Request) -> Response:
    operator_of(request)
    return _json(await _console(request)[1].room(request.path_params["room_id"]))


async def connections(request: Request) -> Response:
    operator_of(request)
    return _json({"addresses": await _console(request)[1].addresses()})


async def bans(request: Request) -> Response:
    operator_of(request)
    console = _console(request)[1]
    return _json({"bans": await console.store.operator.bans(time.time())})


async def audit(request: Request) -> Response:
    operator_of(request)
    try:
        limit = int(request.query_params.get("limit", 100))
    except ValueError:
        raise OperatorRefusal("limit: an integer", code=codes.BAD_QUERY) from None
    return _json({"audit": await _console(request)[1].audit(limit)})


async def close_room(request: Request) -> Response:
    actor = operator_of(request)
    body = await _body(request)
    console, room_id = _console(request)[1], request.path_params["room_id"]
    return _json(await console.close_room(actor, room_id, body.get("reason")))


async def remove(request: Request) -> Response:
    actor = operator_of(request)
    body = await _body(request)
    console, room_id = _console(request)[1], request.path_params["room_id"]
    return _json(await console.remove(actor, room_id, body, body.get("reason")))


async def hide(request: Request) -> Response:
    actor = operator_of(request)
    body = await _body(request)
    console, room_id = _console(request)[1], request.path_params["room_id"]
    return _json(await console.hide(actor, room_id, body.get("seq")))


async def ban(request: Request) -> Response:
    actor = operator_of(request)
    b = await _body(request)
    console = _console(request)[1]
    made = await console.ban(actor, b.get("kind"), b.get("value"), b.get("minutes"),
                             b.get("reason"))  # fmt: skip
    return _json(made)


async def lift(request: Request) -> Response:
    actor = operator_of(request)
    b = await _body(request)
    return _json(await _console(request)[1].unban(actor, b.get("kind"), b.get("value")))


async def notice(request: Request) -> Response:
    actor = operator_of(request)
    b = await _body(request)
    return _json(await _console(request)[1].notice(actor, b.get("text")))


async def drain(request: Request) -> Response:
    actor = operator_of(request)
    node = request.path_params["node"]
    return _json(await _console(request)[1].drain(actor, node))


def routes() -> list[Route]:
    """Every route of the console (each one 401 without the token)."""
    return [
        Route("/api/operator/nodes", nodes, methods=["GET"]),
        Route("/api/operator/rooms", rooms, methods=["GET"]),
        Route("/api/operator/rooms/{room_id}", room, methods=["GET"]),
        Route("/api/operator/connections", connections, methods=["GET"]),
        Route("/api/operator/bans", bans, methods=["GET"]),
        Route("/api/operator/audit", audit, methods=["GET"]),
        Route("/api/operator/rooms/{room_id}/close", close_room, methods=["POST"]),
        Route("/api/operator/rooms/{room_id}/remove", remove, methods=["POST"]),
        Route("/api/operator/rooms/{room_id}/hide", hide, methods=["POST"]),
        Route("/api/operator/bans", ban, methods=["POST"]),
        Route("/api/operator/bans/lift", lift, methods=["POST"]),
        Route("/api/operator/notice", notice, methods=["POST"]),
        Route("/api/operator/nodes/{node}/drain", drain, methods=["POST"]),
    ]
