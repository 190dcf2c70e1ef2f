"""Server settings, from flags or ``ROLLHOUSE_*`` environment variables.

| setting           | flag          | env var               | default                      |
|-------------------|---------------|-----------------------|------------------------------|
| host              | --host        | ROLLHOUSE_HOST        | 127.0.0.1                    |
| port              | --port        | ROLLHOUSE_PORT        | 8000                         |
| store URL         | --store       | ROLLHOUSE_STORE       | sqlite:///rollhouse-data/... |
| allowed origins   | --origins     | ROLLHOUSE_ORIGINS     | (same host as the page only) |
| idle unload after | --idle-unload | ROLLHOUSE_IDLE_UNLOAD | 300 s                        |
| messages/s per ws | --rate        | ROLLHOUSE_RATE        | 30 (bursts of twice that)    |

Origins are a comma-separated list of ``scheme://host[:port]`` or ``*``.
"""

from __future__ import annotations

import os

import attrs

DEFAULT_STORE_URL = "sqlite:///rollhouse-data/rollhouse.db"


@attrs.frozen
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    store_url: str = DEFAULT_STORE_URL
    allowed_origins: tuple[str, ...] = ()
    idle_unload_seconds: float = 300.0
    default_clock_seconds: float = 30.0
    outbox_limit: int = 256
    """Frames queued for one connection before it counts as too slow and is dropped."""
    rate_per_second: float = 30.0
    rate_burst: float = 60.0
    patch_history: int = 512
    """Patches kept per viewer so a reconnecting client can be served the ones it missed."""
    max_rooms: int = 10_000
    replies_per_seat: int = 256
    """Answers (other than acks, which the log holds) remembered per seat of a room."""
    retry_base_seconds: float = 0.1
    retry_cap_seconds: float = 5.0
    """Backoff of room writes retried after a store failure: doubling from base to cap."""

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        env = os.environ
        values: dict[str, object] = {}
        if "ROLLHOUSE_HOST" in env:
            values["host"] = env["ROLLHOUSE_HOST"]
        if "ROLLHOUSE_PORT" in env:
            values["port"] = int(env["ROLLHOUSE_PORT"])
        if "ROLLHOUSE_STORE" in env:
            values["store_url"] = env["ROLLHOUSE_STORE"]
        if "ROLLHOUSE_ORIGINS" in env:
            values["allowed_origins"] = parse_origins(env["ROLLHOUSE_ORIGINS"])
        if "ROLLHOUSE_IDLE_UNLOAD" in env:
            values["idle_unload_seconds"] = float(env["ROLLHOUSE_IDLE_UNLOAD"])
        if "ROLLHOUSE_RATE" in env:
            values["rate_per_second"] = float(env["ROLLHOUSE_RATE"])
        values.update({k: v for k, v in overrides.items() if v is not None})
        if "rate_per_second" in values and "rate_burst" not in values:
            values["rate_burst"] = 2 * float(values["rate_per_second"])  # type: ignore[arg-type]
        return cls(**values)  # type: ignore[arg-type]


def parse_origins(text: str) -> tuple[str, ...]:
    return tuple(o.strip().rstrip("/") for o in text.split(",") if o.strip())


def origin_allowed(origin: str | None, host_header: str | None, allowed: tuple[str, ...]) -> bool:
    """Programs send no Origin and are allowed; browsers must come from an allowed page.

    Without a configured list, a page served by this server (same host) is allowed.
    """
    if origin is None:
        return True
    origin = origin.rstrip("/")
    if "*" in allowed or origin in allowed:
        return True
    if host_header is None:
        return False
    return origin.split("://", 1)[-1] == host_header
