"""The SDK's HTTP side: one JSON request to the API, its refusal as a typed error; making
and listing rooms; a node's HTTP and websocket URLs from each other.

    body = await request(base, "POST", "/api/rooms", json={...}, session=token)

A refusal (any status of 400 and up) raises :class:`~clients.sdk.errors.RequestRefused`
with the error catalogue's code from the body (``{"error": {"code", "message",
"field"?}}``), the HTTP status and ``Retry-After``; a body that is not the API's error
gets ``http/<status>``. A 204 answers None.
"""

from __future__ import annotations

from typing import Any

import httpx

from clients.sdk.errors import RequestRefused

TIMEOUT = 10.0
"""Seconds an HTTP request may take (quick match may hold a request up to 30 s: it
passes its own)."""


async def request(
    base_url: str,
    method: str,
    path: str,
    *,
    json: dict[str, Any] | None = None,
    session: str | None = None,
    params: dict[str, Any] | None = None,
    timeout: float = TIMEOUT,
    text: bool = False,
) -> Any:
    """The answer's JSON (its text with ``text``; None for 204), or RequestRefused."""
    headers = {} if session is None else {"Authorization": f"Bearer {session}"}
    query = {k: v for k, v in (params or {}).items() if v is not None}
    async with httpx.AsyncClient(base_url=base_url, timeout=timeout) as http:
        reply = await http.request(method, path, json=json, headers=headers, params=query)
    if reply.status_code >= 400:
        raise refusal(reply)
    if reply.status_code == 204 or not reply.content:
        return None
    return reply.text if text else reply.json()


def refusal(reply: httpx.Response) -> RequestRefused:
    """The typed error of a refused request."""
    try:
        error = reply.json()["error"]
        code, message = str(error["code"]), str(error["message"])
        details = {"field": error["field"]} if error.get("field") else {}
    except (ValueError, KeyError, TypeError):
        code, message, details = f"http/{reply.status_code}", reply.reason_phrase, {}
    retry = reply.headers.get("Retry-After")
    try:
        retry_after = float(retry) if retry is not None else None
    except ValueError:
        retry_after = None
    return RequestRefused(code, message, reply.status_code, retry_after, details)


async def create_room(
    base_url: str,
    game: str,
    seats: int,
    options: dict[str, Any] | None = None,
    room: dict[str, Any] | None = None,
    session: str | None = None,
) -> dict[str, Any]:
    """POST /api/rooms; returns the new room's info (``["room"]`` is its id). With a
    player's ``session`` you host it (see :class:`~clients.sdk.people.Account`)."""
    body = {"game": game, "seats": seats, "options": options or {}, "room": room or {}}
    return await request(base_url, "POST", "/api/rooms", json=body, session=session)  # type: ignore[no-any-return]


async def list_rooms(base_url: str) -> list[dict[str, Any]]:
    """GET /api/rooms (the first page of public rooms)."""
    return (await request(base_url, "GET", "/api/rooms"))["rooms"]  # type: ignore[no-any-return]


def http_url(ws_url: str) -> str:
    """``ws://host:port/ws`` -> ``http://host:port``."""
    base = ws_url.replace("wss://", "https://", 1).replace("ws://", "http://", 1)
    return base[: -len("/ws")] if base.endswith("/ws") else base.rstrip("/")


def ws_url(base_url: str) -> str:
    """``http://host:port`` -> ``ws://host:port/ws``."""
    base = base_url.rstrip("/").replace("https://", "wss://", 1).replace("http://", "ws://", 1)
    return base if base.endswith("/ws") else base + "/ws"
