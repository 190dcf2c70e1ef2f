"""Fixtures of the store tests: one store per backend (memory, sqlite, redis, and a
Redis Cluster of three masters and three replicas: tests/support/redis_cluster.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.store import EventStore, open_store

BACKENDS = [
    "memory",
    "sqlite",
    pytest.param("redis", marks=pytest.mark.redis),
    pytest.param("cluster", marks=pytest.mark.redis),
]
DURABLE = [
    "sqlite",
    pytest.param("redis", marks=pytest.mark.redis),
    pytest.param("cluster", marks=pytest.mark.redis),
]


def backend_url(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> str:
    """The store URL of ``backend`` for this test (sqlite in tmp_path, redis flushed)."""
    if backend == "memory":
        return "memory://"
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    if backend == "cluster":
        return str(request.getfixturevalue("redis_cluster_url"))
    return str(request.getfixturevalue("redis_url"))


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a fresh store, once per backend."""
    return backend_url(request, request.param, tmp_path)


@pytest.fixture(params=DURABLE)
def durable_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a fresh store, once per durable backend (sqlite, redis, cluster)."""
    return backend_url(request, request.param, tmp_path)


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[EventStore]:
    """An open store of each backend, closed after the test."""
    opened = open_store(store_url)
    try:
        yield opened
    finally:
        await opened.close()
