"""deploy/redis-cluster.conf, the configuration of the compose file's and the Kubernetes
overlay's Redis nodes, run for real: six Debian ``redis-server`` started from it on
loopback (port, directory and announced name set on top, as the deployments do), joined
by ``redis-cli --cluster create``. The settings hold, clients are sent the announced
name, and a store on ``redis+cluster://`` seeds given by name appends (each append
acknowledged once a replica holds it) and reads back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from server.store import open_store
from tests.deploy.test_cluster_manifests import CONF, settings
from tests.support.redis_cluster import RedisCluster, launch_cluster

pytestmark = [pytest.mark.redis, pytest.mark.timeout(120)]


@pytest.fixture
def deployed(tmp_path: Path) -> Iterator[RedisCluster]:
    cluster = launch_cluster(tmp_path / "redis", config=CONF)
    try:
        yield cluster
    finally:
        cluster.stop()


async def test_the_deployed_configuration_runs_a_cluster_rollhouse_can_use(
    deployed: RedisCluster,
) -> None:
    """Every node runs the file's settings; CLUSTER SLOTS names the announced host; a
    store seeded by name appends and reads."""
    wanted = settings(CONF.read_text())
    for port in deployed.ports:
        client = redis.Redis(port=port, socket_timeout=2, decode_responses=True)
        try:
            for name in ("cluster-node-timeout", "appendonly", "appendfsync",
                         "cluster-require-full-coverage", "cluster-preferred-endpoint-type"):  # fmt: skip
                assert client.config_get(name)[name] == wanted[name], name
            slots = client.execute_command("CLUSTER SLOTS")
        finally:
            client.close()
        hosts = {str(node[0]) for entry in slots for node in entry[2:]}
        assert hosts == {"localhost"}
    url = "redis+cluster://" + ",".join(f"localhost:{p}" for p in deployed.seeds)
    store = open_store(url)
    try:
        assert await store.append("r-conf", [{"k": "a"}, {"k": "b"}], 0) == 2
        assert [r.data for r in await store.read("r-conf")] == [{"k": "a"}, {"k": "b"}]
    finally:
        await store.close()
