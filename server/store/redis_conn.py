"""Where the Redis store lives: one server (``redis://``) or a Redis Cluster
(``redis+cluster://host:port[,host:port...]``, the seed nodes), and the few calls
that differ between the two clients of redis-py's public asyncio API
(``redis.asyncio.Redis`` and ``redis.asyncio.cluster.RedisCluster``).

Query options of a cluster URL (besides ``prefix``, read by server/store/url.py):

- ``socket_timeout``, ``socket_connect_timeout`` (seconds), ``username``, ``password``
- ``wait`` (default 1): how many replicas must hold an append (and a claim, a fence)
  before it is acknowledged (``WAIT``, on the connection that wrote it); 0 acks what
  the master alone holds, which a master failover can lose (docs/cluster.md)
- ``wait_timeout`` (seconds, default 1): how long ``WAIT`` may take; past it the
  append's outcome is unknown and the room settles it from the log
- ``remap`` (repeatable), ``host:port=host:port``: reach the cluster member that
  announces the first address at the second (a proxy, a NAT, a port forward: the
  members' own addresses are not reachable from the node); redis-py's
  ``address_remap``
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import attrs
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    RedisClusterException,
    RedisError,
    TryAgainError,
)
from redis.exceptions import TimeoutError as RedisTimeoutError

Client = aioredis.Redis | RedisCluster
"""Either client: the commands we use are the same on both."""

REDIS_ERRORS: tuple[type[Exception], ...] = (RedisError, RedisClusterException)
"""What a call of either client raises when Redis fails it: a RedisError, or on a
cluster a RedisClusterException, which is not one (``RedisClusterUnreachableError``
once no member answers: a partition; it used to escape every ``except RedisError``
and fail the room's task)."""
REDIS_OR_OS_ERRORS: tuple[type[Exception], ...] = (*REDIS_ERRORS, OSError)
"""The same, and a socket's own errors."""

CLUSTER_SCHEMES = ("redis+cluster",)
CLUSTER_OPTIONS = {"socket_timeout", "socket_connect_timeout", "username", "password",
                   "wait", "wait_timeout", "remap"}  # fmt: skip
WAIT_REPLICAS = 1
WAIT_TIMEOUT = 1.0


class NotReplicated(RedisTimeoutError):
    """``WAIT`` answered fewer replicas than asked for within its timeout: the write is
    on the master, perhaps not on a replica (its outcome is unknown)."""


@attrs.frozen
class ClusterTarget:
    """A parsed ``redis+cluster://`` URL."""

    seeds: tuple[tuple[str, int], ...]
    options: dict[str, Any] = attrs.field(factory=dict)
    wait: int = WAIT_REPLICAS
    wait_timeout: float = WAIT_TIMEOUT
    remap: dict[tuple[str, int], tuple[str, int]] = attrs.field(factory=dict)
    """Announced member address -> the address the node reaches it at."""


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster."""
    return isinstance(url, str) and urlsplit(url).scheme.lower() in CLUSTER_SCHEMES


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError("use redis+cluster://host:port[,host:port...]")
    return host, int(port)


def parse_cluster(url: str) -> ClusterTarget:
    """The seeds and options of a ``redis+cluster://`` URL; ValueError if malformed."""
    parts = urlsplit(url)
    seeds = [_address(item) for item in parts.netloc.split(",")]
    options: dict[str, Any] = {}
    remap: dict[tuple[str, int], tuple[str, int]] = {}
    wait, wait_timeout = WAIT_REPLICAS, WAIT_TIMEOUT
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key not in CLUSTER_OPTIONS:
            raise ValueError(f"unknown option {key!r} (known: {sorted(CLUSTER_OPTIONS)})")
        if key == "remap":
            announced, sep, reached = value.partition("=")
            if not sep:
                raise ValueError("use remap=host:port=host:port")
            remap[_address(announced)] = _address(reached)
        elif key == "wait":
            wait = int(value)
        elif key == "wait_timeout":
            wait_timeout = float(value)
        elif key in ("socket_timeout", "socket_connect_timeout"):
            options[key] = float(value)
        else:
            options[key] = value
    if wait < 0 or wait_timeout <= 0:
        raise ValueError("wait must be >= 0 and wait_timeout > 0")
    return ClusterTarget(tuple(seeds), options, wait, wait_timeout, remap)


def cluster_client(target: ClusterTarget, **kwargs: Any) -> RedisCluster:
    """A RedisCluster client of ``target`` (``kwargs`` win over the URL's options)."""
    nodes = [ClusterNode(host, port) for host, port in target.seeds]
    options = {"require_full_coverage": False, **target.options, **kwargs}
    if target.remap:
        remap = dict(target.remap)
        options["address_remap"] = lambda address: remap.get(address, address)
    return RedisCluster(startup_nodes=nodes, **options)


def connect(url: str, **kwargs: Any) -> Client:
    """A client of the store at ``url`` (without our own ``prefix`` option)."""
    if is_cluster_url(url):
        return cluster_client(parse_cluster(url), **kwargs)
    return aioredis.Redis.from_url(url, **kwargs)


def single_shot(url: str, client: Client, timeout: float) -> Client:
    """A client of ``url`` that never retries (for pipelines that end with WAIT), or
    ``client`` itself on one server (where nothing WAITs)."""
    if not is_cluster_url(url):
        return client
    return connect(url, socket_timeout=timeout, socket_connect_timeout=timeout,
                   retry=Retry(NoBackoff(), 0))  # fmt: skip


def wait_of(url: str) -> tuple[int, float]:
    """The replicas an acknowledgement waits for at ``url`` (0 on one server), and
    for how long at most (seconds)."""
    if not is_cluster_url(url):
        return 0, WAIT_TIMEOUT
    target = parse_cluster(url)
    return target.wait, target.wait_timeout


async def mget(client: Client, keys: Sequence[str]) -> list[Any]:
    """GET of every key, in order (on a cluster, one MGET per slot)."""
    if not keys:
        return []
    if isinstance(client, RedisCluster):
        return list(await client.mget_nonatomic(list(keys)))
    return list(await client.mget(list(keys)))


async def ready(client: Client) -> None:
    """Make sure a cluster client knows the slots (before :func:`add_wait` asks them)."""
    if isinstance(client, RedisCluster):
        await client.initialize()


MOVING = (MovedError, AskError, TryAgainError, ClusterDownError)
"""Replies that say a command did not run because its slot is moving (a failover)."""


async def refresh(client: Client) -> None:
    """Read a cluster's slots again (after a MOVED reply: its pipelines do not follow
    redirections, which would send a write on another connection than its WAIT)."""
    if isinstance(client, RedisCluster):
        await client.nodes_manager.initialize()


def add_wait(pipe: Any, client: Client, key: str, replicas: int, timeout: float) -> bool:
    """Queue ``WAIT replicas`` on the connection that writes ``key`` (the node of its
    slot): it answers how many replicas hold every write sent before it on that
    connection. False (nothing queued) when no wait is asked for or on one server."""
    if replicas <= 0 or not isinstance(client, RedisCluster):
        return False
    assert isinstance(pipe, ClusterPipeline)
    node = client.get_node_from_key(key)
    pipe.execute_command("WAIT", replicas, max(1, int(timeout * 1000)), target_nodes=node)
    return True


def check_wait(answer: Any, replicas: int) -> None:
    """Raise :class:`NotReplicated` unless ``WAIT`` answered at least ``replicas``."""
    if isinstance(answer, BaseException):
        raise answer
    if int(answer) < replicas:
        raise NotReplicated(f"on {int(answer)} replica(s) of {replicas} within the wait timeout")
