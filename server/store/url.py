"""``open_store(url)``: pick and configure a backend from a URL.

- ``memory://``                                  in-process, for tests
- ``sqlite:///relative/path.db``                 relative to the working directory
- ``sqlite:////abs/path.db``                     absolute; ``?synchronous=normal`` (default full)
- ``redis://host:port/db`` (or ``rediss://``)    ``?prefix=name`` (default ``rollhouse``);
  other query parameters go to redis-py
- ``redis+cluster://host:port[,host:port...]``    a Redis Cluster from its seed nodes;
  ``?prefix=name``, and the options of server/store/redis_conn.py (``wait``...)
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from server.store.base import EventStore
from server.store.errors import StoreError
from server.store.redis_conn import is_cluster_url, parse_cluster

DEFAULT_STORE_URL = "sqlite:///rollhouse-data/rollhouse.db"  # under the working directory


def _bad(url: str, why: str) -> StoreError:
    return StoreError(f"bad store URL {url!r}: {why}", code="store/bad_url", url=url)


def _split_query(url: str, allowed: set[str] | None) -> tuple[str, dict[str, str]]:
    """Return ``url`` without our own options, and those options."""
    parts = urlsplit(url)
    ours: dict[str, str] = {}
    rest: list[tuple[str, str]] = []
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if allowed is None or key in allowed:
            ours[key] = value
        else:
            rest.append((key, value))
    return urlunsplit(parts._replace(query=urlencode(rest))), ours


def _open_sqlite(url: str) -> EventStore:
    from server.store.sqlite import SYNCHRONOUS, SqliteStore

    parts = urlsplit(url)
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    unknown = set(options) - {"synchronous"}
    if parts.netloc or not parts.path.startswith("/") or len(parts.path) < 2:
        raise _bad(url, "use sqlite:///relative/path.db or sqlite:////absolute/path.db")
    if unknown:
        raise _bad(url, f"unknown option(s) {sorted(unknown)}")
    synchronous = options.get("synchronous", "full").lower()
    if synchronous not in SYNCHRONOUS:
        raise _bad(url, f"synchronous must be one of {SYNCHRONOUS}")
    return SqliteStore(parts.path[1:], synchronous=synchronous)


def redis_parts(url: str) -> tuple[str, str]:
    """A ``redis://`` (or ``redis+cluster://``) store URL as (the URL without our own
    ``prefix`` option, which server/store/redis_conn.py connects to; our key prefix)."""
    if is_cluster_url(url):
        try:
            parse_cluster(_split_query(url, {"prefix"})[0])
        except ValueError as exc:
            raise _bad(url, str(exc)) from exc
    elif not urlsplit(url).hostname:
        raise _bad(url, "use redis://host:port/db")
    plain, ours = _split_query(url, {"prefix"})
    prefix = ours.get("prefix", "rollhouse")
    if not prefix or ":" in prefix or "{" in prefix:
        raise _bad(url, "prefix must be non-empty without ':' or '{'")
    return plain, prefix


def is_redis(url: str) -> bool:
    """Whether ``url`` names a Redis store (then nodes on it form one cluster)."""
    return isinstance(url, str) and (
        urlsplit(url).scheme.lower() in ("redis", "rediss") or is_cluster_url(url)
    )


def _open_redis(url: str) -> EventStore:
    from server.store.redis import RedisStore

    plain, prefix = redis_parts(url)
    try:
        return RedisStore(plain, prefix=prefix)
    except ValueError as exc:
        raise _bad(url, str(exc)) from exc


def open_store(url: str) -> EventStore:
    """Open the event store named by ``url``; StoreError (``store/bad_url``) if unknown."""
    if not isinstance(url, str):
        raise _bad(repr(url), "a store URL must be a string")
    scheme = urlsplit(url).scheme.lower()
    if scheme == "memory":
        from server.store.memory import MemoryStore

        return MemoryStore()
    if scheme == "sqlite":
        return _open_sqlite(url)
    if scheme in ("redis", "rediss") or is_cluster_url(url):
        return _open_redis(url)
    raise _bad(url, "the scheme must be memory://, sqlite:///, redis:// or redis+cluster://")
