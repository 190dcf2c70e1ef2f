"""The SDK's HTTP side: one JSON request to the API, its refusal as a typed error.

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
