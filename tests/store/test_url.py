"""open_store: URL schemes, options and refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.store import DEFAULT_STORE_URL, StoreError, open_store
from server.store.memory import MemoryStore
from server.store.redis import RedisStore
from server.store.redis_conn import cluster_client, parse_cluster
from server.store.sqlite import SqliteStore


async def test_memory_url() -> None:
    """memory:// opens an in-memory store."""
    store = open_store("memory://")
    assert isinstance(store, MemoryStore)
    await store.close()


async def test_sqlite_absolute_and_relative_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """sqlite:////abs is absolute; sqlite:///rel is relative to the working directory."""
    monkeypatch.chdir(tmp_path)
    absolute = open_store(f"sqlite:///{tmp_path / 'abs.db'}")
    relative = open_store("sqlite:///rel.db")
    assert isinstance(absolute, SqliteStore) and isinstance(relative, SqliteStore)
    assert (absolute.path, relative.path) == (str(tmp_path / "abs.db"), "rel.db")
    await absolute.close()
    await relative.close()


def test_default_url_is_a_relative_sqlite_file() -> None:
    """The default store is a sqlite file under the working directory."""
    assert DEFAULT_STORE_URL == "sqlite:///rollhouse-data/rollhouse.db"


async def test_redis_url_and_prefix() -> None:
    """redis://host:port/db opens a RedisStore (lazily: no connection yet), prefix option."""
    store = open_store("redis://127.0.0.1:1/3?prefix=blue")
    assert isinstance(store, RedisStore)
    assert store.log_key("r-1") == "blue:room:{r-1}:log"
    await store.close()


@pytest.mark.parametrize(
    "url",
    [
        "",
        "postgres://localhost/db",
        "memory",
        "sqlite://host/x.db",
        "sqlite://",
        "sqlite:///x.db?synchronous=off",
        "sqlite:///x.db?journal=delete",
        "redis://",
        "redis://127.0.0.1:6390/0?prefix=",
        "redis://127.0.0.1:6390/0?prefix=a:b",
    ],
)
def test_bad_urls_raise_store_error(url: str) -> None:
    """Unknown schemes and malformed URLs raise StoreError store/bad_url."""
    with pytest.raises(StoreError) as info:
        open_store(url)
    assert info.value.code == "store/bad_url"


async def test_redis_cluster_url_seeds_prefix_and_wait() -> None:
    """redis+cluster:// names seed nodes; prefix is ours, wait and wait_timeout set the
    replicas an ack waits for (1 by default)."""
    store = open_store("redis+cluster://127.0.0.1:7001,127.0.0.1:7002?prefix=game&wait_timeout=2")
    assert isinstance(store, RedisStore)
    assert (store.cluster, store.prefix, store.replicas, store.wait_timeout) == (
        True, "game", 1, 2.0,
    )  # fmt: skip
    await store.close()
    store = open_store("redis+cluster://127.0.0.1:7001?wait=0")
    assert isinstance(store, RedisStore) and store.replicas == 0
    await store.close()


def test_cluster_url_remaps_announced_addresses() -> None:
    """remap=A=B (repeatable): the member announcing A is reached at B (a proxy)."""
    url = ("redis+cluster://127.0.0.1:17001?remap=127.0.0.1:7001=127.0.0.1:17001"
           "&remap=127.0.0.1:7002=127.0.0.1:17002")  # fmt: skip
    target = parse_cluster(url)
    assert target.remap == {("127.0.0.1", 7001): ("127.0.0.1", 17001),
                            ("127.0.0.1", 7002): ("127.0.0.1", 17002)}  # fmt: skip
    client = cluster_client(target)
    remap = client.nodes_manager.remap_host_port
    assert remap("127.0.0.1", 7002) == ("127.0.0.1", 17002)
    assert remap("127.0.0.1", 7003) == ("127.0.0.1", 7003)


@pytest.mark.parametrize(
    "url",
    [
        "redis+cluster://",
        "redis+cluster://127.0.0.1",
        "redis+cluster://127.0.0.1:7001,nohost",
        "redis+cluster://127.0.0.1:7001?bogus=1",
        "redis+cluster://127.0.0.1:7001?wait=-1",
        "redis+cluster://127.0.0.1:7001?prefix=a:b",
        "redis+cluster://127.0.0.1:7001?remap=127.0.0.1:7001",
        "redis+cluster://127.0.0.1:7001?remap=127.0.0.1:7001=nohost",
    ],
)
def test_bad_cluster_urls_raise_store_error(url: str) -> None:
    """A malformed cluster URL is refused with store/bad_url before connecting."""
    with pytest.raises(StoreError) as caught:
        open_store(url)
    assert caught.value.code == "store/bad_url"
