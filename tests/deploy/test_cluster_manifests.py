"""The Redis Cluster deployments agree with themselves and with the docs: the compose
file (deploy/compose.cluster.yaml), the Kubernetes overlay (deploy/k8s/redis-cluster),
the one node configuration they share (deploy/redis-cluster.conf) and the settings
deploy/README.md promises. Names, ports, seeds and the cluster-create step are read
from the files, never restated by hand; ``kubectl kustomize`` renders the overlay
where kubectl is installed (it needs no cluster). The configuration itself runs in
tests/cluster/test_cluster_config.py on a real six-node cluster."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from server.store.redis_conn import parse_cluster

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
COMPOSE = DEPLOY / "compose.cluster.yaml"
CONF = DEPLOY / "redis-cluster.conf"
OVERLAY = DEPLOY / "k8s" / "redis-cluster"
REDIS_SERVICES = [f"redis-{i}" for i in range(1, 7)]
NODES = ("node1", "node2", "node3")


def settings(text: str) -> dict[str, str]:
    """A redis.conf's settings (name -> value), comments left out."""
    pairs = (line.split(None, 1) for line in text.splitlines() if line.strip())
    return {p[0]: p[1].strip() for p in pairs if not p[0].startswith("#")}


def services() -> dict[str, dict[str, Any]]:
    return yaml.safe_load(COMPOSE.read_text())["services"]  # type: ignore[no-any-return]


def documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def find(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, (kind, name)
    return found[0]


def test_the_node_configuration_has_the_documented_settings() -> None:
    """deploy/redis-cluster.conf: cluster mode, a replica takes over after the node
    timeout, the other masters keep serving, names announced, the AOF flushed before each reply, a replica
    synced at once, a stale replica never promoted; and
    deploy/README.md states the same values."""
    conf = settings(CONF.read_text())
    assert conf["cluster-enabled"] == "yes" and conf["port"] == "6379"
    assert conf["cluster-require-full-coverage"] == "no"
    assert conf["cluster-preferred-endpoint-type"] == "hostname"
    assert conf["appendonly"] == "yes" and conf["appendfsync"] == "always"
    assert conf["repl-diskless-sync-delay"] == "0"
    assert "cluster-replica-validity-factor" not in conf  # Redis's 10, never 0
    assert "min-replicas-to-write" not in conf
    readme = (DEPLOY / "README.md").read_text()
    for name in ("cluster-node-timeout", "appendfsync", "cluster-require-full-coverage",
                 "repl-diskless-sync-delay"):  # fmt: skip
        assert f"`{name} {conf[name]}`" in readme, name
    assert "min-replicas-to-write" in readme


def test_compose_runs_six_cluster_nodes_joined_once_and_three_nodes_on_their_seeds() -> None:
    """Each Redis service runs the shared configuration and announces its own name; the
    create step waits for and joins exactly those six, one replica per master; every
    Rollhouse node starts after it, on seeds that are Redis services at the
    configuration's port; haproxy's servers are the compose file's nodes."""
    found = services()
    port = int(settings(CONF.read_text())["port"])
    for name in REDIS_SERVICES:
        service = found[name]
        assert service["hostname"] == name
        assert service["command"] == ["redis-server", "/etc/redis/cluster.conf",
                                      "--cluster-announce-hostname", name]  # fmt: skip
        assert "./redis-cluster.conf:/etc/redis/cluster.conf:ro" in service["volumes"]
    create = found["redis-cluster-create"]
    assert create["environment"]["REDIS_NODES"].split() == REDIS_SERVICES
    assert sorted(create["depends_on"]) == REDIS_SERVICES
    script = create["command"][0]
    assert "--cluster-replicas 1" in script and "--cluster create" in script
    assert f":{port}" in script
    haproxy = (DEPLOY / "haproxy.cfg").read_text()
    for node in NODES:
        service = found[node]
        assert service["environment"]["ROLLHOUSE_NODE_ID"] == node
        assert service["depends_on"] == {
            "redis-cluster-create": {"condition": "service_completed_successfully"}
        }
        target = parse_cluster(service["environment"]["ROLLHOUSE_STORE"])
        assert target.wait == 1  # the default: acknowledged once a replica holds it
        assert all(host in REDIS_SERVICES and p == port for host, p in target.seeds)
        assert len(target.seeds) >= 3
        assert re.search(rf"^\s*server {node} {node}:8000 check", haproxy, re.M)


def test_the_kubernetes_overlay_agrees_with_itself() -> None:
    """The ConfigMap holds deploy/redis-cluster.conf's settings; six pods of a
    StatefulSet behind a headless Service with the client and bus ports, each
    announcing its stable name; the Job joins exactly those six; the nodes' seeds are
    three of them."""
    docs = documents(OVERLAY / "redis-cluster.yaml")
    conf = find(docs, "ConfigMap", "redis-cluster")["data"]["redis.conf"]
    assert settings(conf) == settings(CONF.read_text())
    port = int(settings(conf)["port"])
    sts = find(docs, "StatefulSet", "redis-cluster")
    service = find(docs, "Service", sts["spec"]["serviceName"])
    assert service["spec"]["clusterIP"] == "None"
    assert service["spec"]["publishNotReadyAddresses"] is True
    assert {p["port"] for p in service["spec"]["ports"]} == {port, port + 10000}
    labels = sts["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"] == labels == sts["spec"]["selector"]["matchLabels"]
    container = sts["spec"]["template"]["spec"]["containers"][0]
    svc = service["metadata"]["name"]
    assert container["args"][-2:] == ["--cluster-announce-hostname", f"$(POD_NAME).{svc}"]
    assert {p["containerPort"] for p in container["ports"]} == {port, port + 10000}
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert container["args"][1] == mounts["conf"] + "/redis.conf"
    pods = [f"{sts['metadata']['name']}-{i}.{svc}" for i in range(sts["spec"]["replicas"])]
    assert len(pods) == 6
    job = find(docs, "Job", "redis-cluster-create")["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("value") for e in job["env"]}
    assert env["REDIS_NODES"].split() == pods
    assert "--cluster-replicas 1" in job["args"][0]
    kustomization = yaml.safe_load((OVERLAY / "kustomization.yaml").read_text())
    store = next(p["patch"] for p in kustomization["patches"] if "ROLLHOUSE_STORE" in p["patch"])
    url = yaml.safe_load(store)["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"]
    seeds = parse_cluster(url).seeds
    assert len(seeds) >= 3 and all(f"{h}" in pods and p == port for h, p in seeds)


def test_the_overlay_renders_without_the_single_redis() -> None:
    """``kubectl kustomize deploy/k8s/redis-cluster``: the base's single Redis is gone,
    the nodes' store is the cluster, and every object of the overlay is there."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    done = subprocess.run([kubectl, "kustomize", str(OVERLAY)], capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    docs = [d for d in yaml.safe_load_all(done.stdout) if d]
    names = {(d["kind"], d["metadata"]["name"]) for d in docs}
    assert ("StatefulSet", "redis") not in names and ("Service", "redis") not in names
    assert {("StatefulSet", "redis-cluster"), ("Job", "redis-cluster-create"),
            ("Deployment", "rollhouse"), ("Service", "rollhouse")} <= names  # fmt: skip
    node = find(docs, "Deployment", "rollhouse")["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("value") for e in node["env"]}
    assert env["ROLLHOUSE_STORE"].startswith("redis+cluster://redis-cluster-0.redis-cluster:")
    assert "ROLLHOUSE_NODE_ID" in env and "ROLLHOUSE_LEASE" in env
