"""Server settings, from flags or ``ROLLHOUSE_*`` environment variables.

| setting           | flag          | env var               | default                      |
|-------------------|---------------|-----------------------|------------------------------|
| host              | --host        | ROLLHOUSE_HOST        | 127.0.0.1                    |
| port              | --port        | ROLLHOUSE_PORT        | 8000                         |
| store URL         | --store       | ROLLHOUSE_STORE       | sqlite:///rollhouse-data/... |
| allowed origins   | --origins     | ROLLHOUSE_ORIGINS     | the names the server is reached by |
| idle unload after | --idle-unload | ROLLHOUSE_IDLE_UNLOAD | 300 s                        |
| messages/s per ws | --rate        | ROLLHOUSE_RATE        | 30 (bursts of twice that)    |
| trusted proxies   | --trust-proxy | ROLLHOUSE_TRUST_PROXY | none                         |
| node id (cluster) | --node-id     | ROLLHOUSE_NODE_ID     | {hostname}-{port}            |
| advertised URL    | --advertise-url | ROLLHOUSE_ADVERTISE_URL | http://{host}:{port}     |
| room lease        | --lease       | ROLLHOUSE_LEASE       | 2 s                          |
| lapsed-lease scan |               | ROLLHOUSE_SCAN_SECONDS | 0.25 s                      |

With a ``redis://`` store every node is part of one cluster (docs/cluster.md): a
room is run by the node holding its lease; a node that dies loses its rooms to the
others within ``lease_seconds``.

Every other setting of :class:`Settings` is read from ``ROLLHOUSE_<NAME>`` (e.g.
``ROLLHOUSE_MAX_ROOMS=2000``, ``ROLLHOUSE_HELLO_TIMEOUT_SECONDS=5``).

Origins are a comma-separated list of ``scheme://host[:port]`` or ``*``. Without a
list, a browser page may connect when its origin is this server itself: for a
loopback bind ``http://localhost:PORT``, ``http://127.0.0.1:PORT`` or
``http://[::1]:PORT`` (and the request's Host must be one of those too, which
defeats DNS rebinding); for any other bind, the origin whose host and port are the
request's Host header (same-origin; a public server should list its origins). The
other limits are documented in :mod:`server.limits`.
"""

from __future__ import annotations

import os
import socket
from urllib.parse import urlsplit

import attrs

DEFAULT_STORE_URL = "sqlite:///rollhouse-data/rollhouse.db"


def _ints(values: object) -> tuple[int, ...]:
    return tuple(int(v) for v in values)  # type: ignore[attr-defined]


@attrs.frozen
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    store_url: str = DEFAULT_STORE_URL
    allowed_origins: tuple[str, ...] = ()
    idle_unload_seconds: float = 300.0
    gc_thresholds: tuple[int, ...] = attrs.field(default=(50_000, 20, 100), converter=_ints)
    """The garbage collector's generation thresholds for ``rollhouse serve``
    (``gc.set_threshold``; empty: Python's own 700, 10, 10). What start-up made is
    frozen out of collections either way. Measured (docs/benchmarks.md): with Python's
    own, full collections of everything the rooms hold made the p99 of a half-loaded
    node 198 ms; with these, 17.6 ms."""
    snapshot_every: int = 500
    """Events between two snapshots of a room kept beside its log (loads start there)."""
    finished_unload_seconds: float = 15.0
    """A finished room with nobody connected leaves memory this soon (it reloads from
    the log in milliseconds if someone comes back); finished rooms kept for minutes
    are most of what the garbage collector walks."""
    default_clock_seconds: float = 30.0
    outbox_limit: int = 256
    """Frames queued for one connection before it counts as too slow and is dropped."""
    rate_per_second: float = 30.0
    rate_burst: float = 60.0
    patch_history: int = 512
    """Patches kept per viewer so a reconnecting client can be served the ones it missed."""
    patch_history_bytes: int = 65_536
    """And at most this many bytes of them per viewer, as the msgpack frames they were
    sent as (a resume from before them, or one whose patches outweigh a snapshot, gets
    the snapshot)."""
    max_rooms: int = 5_000
    """Live rooms in this node's memory; creating more is refused (429)."""
    max_body_bytes: int = 65_536
    max_import_bytes: int = 8 << 20
    """The body cap of ``POST /api/rooms/import`` (a whole game's export)."""
    creations_per_minute: int = 30
    """Rooms one client address may create per minute."""
    connections_per_address: int = 200
    hello_timeout_seconds: float = 10.0
    resyncs_per_second: float = 1.0
    resync_burst: float = 5.0
    refusals_burst: float = 20.0
    """Refusals (rate limits, bad frames) a connection may earn in a burst before it is closed."""
    trusted_proxies: tuple[str, ...] = ()
    """Peer addresses whose X-Forwarded-For names the client."""
    replies_per_seat: int = 256
    """Answers (other than acks, which the log holds) remembered per seat of a room."""
    retry_base_seconds: float = 0.1
    retry_cap_seconds: float = 5.0
    """Backoff of room writes retried after a store failure: doubling from base to cap."""

    session_idle_days: float = 30.0
    """A player's session ends after this many days unused (each use moves it on)."""
    guests_per_minute: int = 30
    """Guest players one client address may make per minute."""
    bad_sessions_per_minute: int = 30
    """Session tokens that open nothing (unknown, expired, signed out) one client address
    may present per minute before its requests with a session get 429."""
    signin_free_per_account: int = 5
    signin_free_per_address: int = 20
    """Sign-ins that may fail before the backoff begins (then 1 s, 2 s, 4 s... up to 15
    min per account, 1 h per address; counts forgotten 24 h after the last attempt)."""
    password_cost: tuple[int, ...] = attrs.field(default=(2, 19456, 1), converter=_ints)
    """argon2id time cost, memory (KiB) and parallelism: OWASP's first choice."""

    operator_token: str = attrs.field(default="", repr=False)
    """The operator console's token (``ROLLHOUSE_OPERATOR_TOKEN``; at least 32
    characters): empty, and no ``operator_token_sha256`` either, keeps the console off.
    Never a default; keep it out of logs (it is not shown in this object's repr)."""
    operator_token_sha256: str = ""
    """Or the SHA-256 hex digest of the token (``ROLLHOUSE_OPERATOR_TOKEN_SHA256``), so
    that the token itself need not be in the node's environment."""
    operator_requests_per_minute: int = 300
    """Console requests one address may make per minute (the page asks about 70 a
    minute while it is open)."""
    operator_wrong_tokens_per_minute: int = 10
    """Console requests with a wrong or no token one address may make per minute; past
    them, the right token waits too."""

    node_id: str = ""
    """This node's name in the cluster (empty: ``{hostname}-{port}``)."""
    advertise_url: str = ""
    """How other nodes and operators reach this node (empty: ``http://{host}:{port}``)."""
    lease_seconds: float = 2.0
    """A room's lease: renewed every quarter of it; an owner silent this long loses its
    rooms (and a node whose event loop stalls for ``3/4`` of it may lose them)."""
    scan_seconds: float = 0.25
    """How often a node looks for lapsed leases of the rooms it relays or that time
    moves, to take them over (at most a quarter of the lease)."""

    @property
    def node(self) -> str:
        """The node id in effect."""
        return self.node_id or f"{socket.gethostname()}-{self.port}"

    @property
    def advertised(self) -> str:
        return self.advertise_url or f"http://{self.host}:{self.port}"

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
        if "ROLLHOUSE_TRUST_PROXY" in env:
            values["trusted_proxies"] = parse_origins(env["ROLLHOUSE_TRUST_PROXY"])
        if "ROLLHOUSE_RATE" in env:
            values["rate_per_second"] = float(env["ROLLHOUSE_RATE"])
        if "ROLLHOUSE_LEASE" in env:
            values["lease_seconds"] = float(env["ROLLHOUSE_LEASE"])
        for field in attrs.fields(cls):  # every other setting: ROLLHOUSE_<NAME>
            name = f"ROLLHOUSE_{field.name.upper()}"
            if name in env and field.name not in values:
                values[field.name] = _parse(env[name], field.default)
        values.update({k: v for k, v in overrides.items() if v is not None})
        if "rate_per_second" in values and "rate_burst" not in values:
            values["rate_burst"] = 2 * float(values["rate_per_second"])  # type: ignore[arg-type]
        return cls(**values)  # type: ignore[arg-type]


def _parse(text: str, default: object) -> object:
    """An environment value as the type of the setting's default."""
    if isinstance(default, tuple):
        return parse_origins(text)
    if isinstance(default, bool):
        return text.lower() in ("1", "true", "yes")
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    return text


def parse_origins(text: str) -> tuple[str, ...]:
    return tuple(o.strip().rstrip("/") for o in text.split(",") if o.strip())


LOOPBACK = ("localhost", "127.0.0.1", "::1")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _split_origin(origin: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an origin or an ``http(s)://host[:port]`` entry."""
    parts = urlsplit(origin.strip().rstrip("/"))
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path or parts.query:
        return None
    try:
        port = parts.port or _DEFAULT_PORTS[parts.scheme]
    except ValueError:
        return None
    return parts.scheme, parts.hostname.lower(), port


def origin_allowed(
    origin: str | None,
    host_header: str | None,
    allowed: tuple[str, ...],
    bind_host: str = "127.0.0.1",
    port: int = 8000,
) -> bool:
    """Whether a websocket handshake with this ``Origin`` may proceed.

    Programs send no Origin and are allowed; a browser page must come from an allowed
    origin: scheme, host and port all count (see the module docstring for the default).
    """
    if origin is None:
        return True
    if "*" in allowed:
        return True
    mine = _split_origin(origin)
    if mine is None:
        return False
    if allowed:
        return mine in {_split_origin(a) for a in allowed}
    scheme, host, origin_port = mine
    if bind_host in LOOPBACK:
        served = _split_origin(f"http://{host_header}") if host_header else None
        return (
            scheme == "http"
            and host in LOOPBACK
            and origin_port == port
            and served is not None
            and served[1] in LOOPBACK
        )
    served = _split_origin(f"{scheme}://{host_header}") if host_header else None
    return served is not None and served[1:] == (host, origin_port)
