"""What a websocket upgrade request is answered, before any socket is accepted.

:func:`check` reads the request's path and headers (a ``websockets`` handshake
``Request``) and returns :class:`Admit` (the codec its subprotocols ask for and the
client's address) or :class:`Refuse` (an HTTP status with a typed error, sent as JSON
instead of the upgrade). The address count is the caller's: it holds the state.

| refusal | status | code |
|---|---|---|
| a path other than ``/ws`` | 404 | ``http/not_found`` |
| a browser ``Origin`` not allowed (``--origins``) | 403 | ``room/origin_forbidden`` |
| an operator banned the address (:mod:`server.operator`) | 403 | ``server/banned`` |
| the address holds ``connections_per_address`` sockets | 429 | ``room/too_many_connections`` |
"""

from __future__ import annotations

import json
from collections.abc import Callable

import attrs
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from protocol import errors as codes
from protocol.codec import Codec, choose_subprotocol, codec_for
from protocol.errors import http_status
from server.config import Settings, origin_allowed
from server.limits import client_address

PATH = "/ws"
"""The one path that upgrades to a websocket."""


@attrs.frozen
class Admit:
    codec: Codec
    subprotocol: str | None
    address: str


@attrs.frozen
class Refuse:
    status: int
    code: str
    message: str
    limit: str | None = None
    """The ``rollhouse_limit_refusals_total`` label this refusal counts under, if any."""

    def response(self) -> Response:
        """The HTTP answer: ``{"error": {"code", "message"}}`` with the status."""
        body = json.dumps({"error": {"code": self.code, "message": self.message}}).encode()
        headers = Headers(
            [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(body))),
                ("Connection", "close"),
            ]
        )
        return Response(self.status, _REASONS.get(self.status, "Refused"), headers, body)


_REASONS = {
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
    503: "Service Unavailable",
}


def check(
    request: Request,
    peer: str | None,
    settings: Settings,
    enter: Callable[[str], bool],
    barred: Callable[[str], str | None] = lambda _address: None,
) -> Admit | Refuse:
    """Admit ``request`` (``enter(address)`` takes a place for its address) or refuse it
    (``barred(address)``: why an operator's ban refuses the address, or None)."""
    path = request.path.split("?", 1)[0]
    if path != PATH:
        return Refuse(404, codes.HTTP_NOT_FOUND, f"no websocket at {path[:200]!r}; use {PATH}")
    headers = request.headers
    origins = headers.get_all("Origin")
    if len(origins) > 1 or not origin_allowed(
        origins[0] if origins else None, _one(headers, "Host"), settings.allowed_origins,
        settings.host, settings.port,
    ):  # fmt: skip
        return Refuse(403, codes.ORIGIN_FORBIDDEN, "this page's origin may not connect", "origin")
    forwarded = {"x-forwarded-for": ", ".join(headers.get_all("X-Forwarded-For"))}
    address = client_address(peer, forwarded, settings.trusted_proxies)
    why = barred(address)
    if why is not None:
        return Refuse(403, codes.BANNED, why, "banned")
    if not enter(address):
        message = f"at most {settings.connections_per_address} connections per address"
        status = http_status(codes.TOO_MANY_CONNECTIONS, 429)
        return Refuse(status, codes.TOO_MANY_CONNECTIONS, message, "connections_per_address")
    offered = [p.strip() for v in headers.get_all("Sec-WebSocket-Protocol") for p in v.split(",")]
    chosen = choose_subprotocol(offered)
    return Admit(codec_for(chosen), chosen, address)


def _one(headers: Headers, name: str) -> str | None:
    values = headers.get_all(name)
    return values[0] if len(values) == 1 else None
