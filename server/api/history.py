"""The history routes: a room's public events, its view at a seq, its dice verified,
its export, and the import of an export as a finished, read-only room.

| method | path | answer |
|---|---|---|
| GET  | /api/rooms/{id}/events?from=SEQ&limit=N | ``{"events": [...], "next": SEQ or null}`` (N <= 500, default 100) |
| GET  | /api/rooms/{id}/view?at=SEQ | ``{"seq", "view"}``: the spectator view at that seq |
| GET  | /api/rooms/{id}/verify | ``{"ok", "checked", "problem", "seq"}`` (finished games) |
| GET  | /api/rooms/{id}/export | the finished game as JSON lines (``application/x-ndjson``) |
| POST | /api/rooms/import | an export as the body: 201 with the new read-only room's summary |
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from protocol import errors as codes
from server.api.tables import guarded, visitor_of
from server.errors import RoomRefusal
from server.room import history
from server.room.access import may_see
from server.room.model.fold import rebuild
from server.room.model.records import from_plain
from server.room.views import public_summary, room_summary
from server.services import Services
from server.store import StoreError

MAX_PAGE = 500


async def _log(request: Request) -> tuple[str, list[tuple[int, dict[str, Any]]]]:
    services: Services = request.app.state.services
    room_id = request.path_params["room_id"]
    try:
        records = await services.store.read(room_id)
    except StoreError as exc:
        if exc.code == "store/bad_room":
            raise RoomRefusal(codes.ROOM_NOT_FOUND, f"no room {room_id!r}") from None
        raise RoomRefusal(codes.UNAVAILABLE, f"the event log is unavailable: {exc}") from None
    if not records:
        raise RoomRefusal(codes.ROOM_NOT_FOUND, f"no room {room_id!r}")
    log = [(r.seq, r.data) for r in records]
    if (log[0][1].get("room") or {}).get("visibility") == "private":
        visitor = await visitor_of(request)
        model = history.final_model(room_id, log)
        if not await guarded(request, visitor, lambda: may_see(model, visitor)):
            raise RoomRefusal(codes.ROOM_NOT_FOUND, f"no room {room_id!r}")
    return room_id, log


def _int(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise RoomRefusal(codes.BAD_QUERY, f"{name} must be an integer {low} to {high}")
    return int(raw)


async def room_events(request: Request) -> Response:
    room_id, log = await _log(request)
    after = _int(request, "from", 0, 0, 2**62)
    limit = _int(request, "limit", 100, 1, MAX_PAGE)
    entries, next_from = history.events(room_id, log, after, limit)
    return JSONResponse({"events": entries, "next": next_from})


async def room_view(request: Request) -> Response:
    room_id, log = await _log(request)
    seq, view = history.view_at(room_id, log, _int(request, "at", log[-1][0], 1, 2**62))
    return JSONResponse({"seq": seq, "view": view})


async def room_verify(request: Request) -> Response:
    room_id, log = await _log(request)
    return JSONResponse(history.fairness(room_id, log).to_data())


async def room_export(request: Request) -> Response:
    room_id, log = await _log(request)
    if not history.is_over(room_id, log):
        raise RoomRefusal(
            codes.NOT_FINISHED, "only a finished game is exported (its seed is secret before)"
        )
    lines = "".join(json.dumps(line) + "\n" for line in history.export(room_id, log))
    return Response(lines, media_type="application/x-ndjson")


async def room_import(request: Request) -> Response:
    services: Services = request.app.state.services
    try:
        lines = [
            json.loads(line)
            for line in (await request.body()).decode().splitlines()
            if line.strip()
        ]
        source, records = history.imported(lines)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise RoomRefusal(codes.BAD_IMPORT, str(exc)) from None
    room_id = "r-" + secrets.token_hex(4)
    settings = {k: v for k, v in (records[0].get("room") or {}).items() if k != "host"}
    settings.update(imported_from=source, visibility="public")  # published by its importer
    records[0] = {**records[0], "room": settings}
    try:
        await services.store.append(room_id, records, 0)
    except StoreError as exc:
        raise RoomRefusal(codes.UNAVAILABLE, f"the event log is unavailable: {exc}") from None
    model = rebuild(room_id, [(seq, from_plain(r)) for seq, r in enumerate(records, start=1)])
    return JSONResponse(public_summary(room_summary(model)), status_code=201)
