"""Who is asking: the player of a request's session, sent as ``Authorization: Bearer
<token>`` (the token ``POST /api/players`` or ``POST /api/sessions`` gave).

Every route that acts for a player calls :func:`require_player` (401
``player/unauthorized`` without a live session) or :func:`player_of` (None instead);
both may refuse with 429 ``player/login_limited`` an address that has sent too many
tokens that open nothing (:meth:`server.people.People.authenticate`).
"""

from __future__ import annotations

from starlette.requests import Request

from protocol import errors as codes
from server.limits import client_address
from server.people import People, PeopleRefusal, Player
from server.services import Services

_UNKNOWN = object()


def bearer(request: Request) -> str | None:
    """The session token of the request's ``Authorization: Bearer`` header, if any."""
    scheme, _, token = request.headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def address_of(request: Request) -> str:
    """The client's address (the peer, or what a trusted proxy forwarded)."""
    services: Services = request.app.state.services
    peer = request.client.host if request.client else None
    return client_address(peer, request.headers, services.settings.trusted_proxies)


def people_of(request: Request) -> People:
    """The node's people service."""
    services: Services = request.app.state.services
    return services.people


async def player_of(request: Request) -> Player | None:
    """The player whose live session the request carries, or None (looked up once per
    request)."""
    known: object = getattr(request.state, "player", _UNKNOWN)
    if isinstance(known, Player | None):
        return known
    found = await people_of(request).authenticate(bearer(request), address_of(request))
    services: Services = request.app.state.services
    why = None if found is None else services.operator.barred(None, found.id)
    if why is not None:
        raise PeopleRefusal(codes.BANNED, why)
    request.state.player = found
    return found


async def require_player(request: Request) -> Player:
    """The request's player, or 401 ``player/unauthorized``."""
    player = await player_of(request)
    if player is None:
        raise PeopleRefusal(
            codes.UNAUTHORIZED, "no valid session: sign in, or play as a guest (POST /api/players)"
        )
    return player
