"""A room's own settings, as its creator sends them (not the game's options): checked
and given their defaults, or refused with ``BadOptions`` naming the setting. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import BadOptions
from server.room.access import VISIBILITIES

ROOM_SETTINGS = {"clock", "bots", "bot_policy", "bot_delay", "takeover_after", "visibility",
                 "watch", "spectator_chat", "fill_bots_after", "host_grace"}  # fmt: skip
"""Every room setting a creator may send."""

PEOPLE_SETTINGS = ("visibility", "watch", "spectator_chat", "fill_bots_after", "host_grace")
"""The room settings of a table people share (a missing one keeps its default)."""


def room_settings(room: Mapping[str, Any], seats: int, default_clock: float) -> dict[str, Any]:
    """Validate the room's own settings (not the game's options)."""
    unknown = set(room) - ROOM_SETTINGS
    if unknown:
        raise BadOptions(f"unknown room setting {sorted(unknown)[0]!r}", field=sorted(unknown)[0])
    clock = room.get("clock", default_clock)
    bots = room.get("bots", 0)
    delay = room.get("bot_delay", 0.8)
    policy = room.get("bot_policy", "")
    takeover = room.get("takeover_after")
    if not isinstance(clock, int | float) or isinstance(clock, bool) or not 0 <= clock <= 3600:
        raise BadOptions("room setting 'clock' must be 0 (no clock) to 3600 seconds", field="clock")
    if not isinstance(bots, int) or isinstance(bots, bool) or not 0 <= bots <= seats:
        raise BadOptions(f"room setting 'bots' must be 0 to {seats}", field="bots")
    if not isinstance(delay, int | float) or isinstance(delay, bool) or not 0 <= delay <= 30:
        raise BadOptions("room setting 'bot_delay' must be 0 to 30 seconds", field="bot_delay")
    if not isinstance(policy, str):
        raise BadOptions("room setting 'bot_policy' must be a policy name", field="bot_policy")
    if takeover is not None and (
        not isinstance(takeover, int | float)
        or isinstance(takeover, bool)
        or not 0 <= takeover <= 3600
    ):
        raise BadOptions(
            "room setting 'takeover_after' must be 0 to 3600 seconds", field="takeover_after"
        )
    return {
        "clock": float(clock),
        "bots": bots,
        "bot_delay": float(delay),
        "bot_policy": policy,
        "takeover_after": None if takeover is None else float(takeover),
        **people_settings(room),
    }


def people_settings(room: Mapping[str, Any]) -> dict[str, Any]:
    """Validate who may see the room and how it fills (see :mod:`server.room.access`)."""
    visibility = room.get("visibility", "public")
    if visibility not in VISIBILITIES:
        raise BadOptions(f"room setting 'visibility' is one of {', '.join(VISIBILITIES)}",
                         field="visibility")  # fmt: skip
    watch = room.get("watch", True)
    if not isinstance(watch, bool):
        raise BadOptions("room setting 'watch' is true or false", field="watch")
    chat = room.get("spectator_chat", "apart")
    if chat not in ("apart", "together"):
        raise BadOptions(
            "room setting 'spectator_chat' is apart or together", field="spectator_chat"
        )
    out: dict[str, Any] = {"visibility": visibility, "watch": watch, "spectator_chat": chat}
    for key, low, high in (("fill_bots_after", 0, 3600), ("host_grace", 5, 3600)):
        value = room.get(key)
        if value is not None and (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not low <= value <= high
        ):
            raise BadOptions(f"room setting {key!r} must be {low} to {high} seconds", field=key)
        out[key] = None if value is None else float(value)
    return out
