"""A Redis Cluster of our own: three masters and three replicas on loopback.

Six Debian ``redis-server`` processes with ``cluster-enabled yes`` on free 127.0.0.1
ports (each port's cluster bus, port + 10000, free too; never 6379), joined by
``redis-cli --cluster create ... --cluster-replicas 1 --cluster-yes``;
:meth:`RedisCluster.start` waits until every node says ``cluster_state:ok`` and every
replica is in sync. Fault tests and ``rollhouse soak`` SIGKILL a master and watch its
replica take over (:meth:`RedisCluster.kill`, :meth:`RedisCluster.master_of`,
:meth:`RedisCluster.wait_promoted`, :meth:`RedisCluster.restart`).

The nodes run with a short ``cluster-node-timeout`` (1 s) so a failover takes a few
seconds, ``cluster-require-full-coverage no`` (the other masters' slots stay served
while one master's slots fail over), ``repl-diskless-sync-delay 0`` (a replica that
comes back is sent the data at once, not after 5 s: until then its master
acknowledges nothing) and the AOF on (``appendonly``; ``appendfsync always`` for a
master restarted at once, before a failover: :data:`ALWAYS`). They keep Redis's
``cluster-replica-validity-factor`` (10): a replica whose link to its master has
been down long, or that restarted and has not synced since, is never promoted. With
0 (``validity=0``, the negative control of tests/cluster/test_stale_replica.py) such
a replica takes over with whatever it loaded from disk and its master resyncs from
it: the likeliest cause of a 30-minute soak's loss of 8,967 acknowledged commands,
when the soak ran so (docs/cluster.md). The
pytest fixtures over it are in tests/support/redis_cluster.py.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import redis
from redis.cluster import RedisCluster as SyncCluster

log = logging.getLogger("rollhouse.soak")

NODE_TIMEOUT_MS = 1000
START_TIMEOUT = 30.0
STOP_TIMEOUT = 5.0
MASTERS = 3
ALWAYS = "always"
"""``appendfsync always``: a master's AOF holds every write before a client or replica
hears of it, so a master started again before its replica was promoted comes back
with everything it acknowledged (its replica resyncs from it)."""


def _free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def pick_ports() -> list[int]:
    """Six distinct free ports whose bus ports are free too."""
    ports: list[int] = []
    while len(ports) < 2 * MASTERS:
        port = cluster_port()
        if port not in ports:
            ports.append(port)
    return ports


def cluster_port() -> int:
    """A free port whose cluster bus port (+10000) is free too."""
    for _attempt in range(200):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port != 6379 and port + 10000 < 65536 and _free(port + 10000):
            return port
    raise RuntimeError("no free port pair for a cluster node")


class NoRedis(RuntimeError):
    """redis-server or redis-cli is not on PATH."""


class PortTaken(RuntimeError):
    """A member exited before it answered: its port (or its bus port) was taken between
    the pick and the bind (another process picking ports at the same time)."""


class NotWhole(RuntimeError):
    """The cluster did not become whole in time (the message says what was missing)."""


LAUNCH_TRIES = 3
"""Launches with fresh ports before a :class:`PortTaken` is final."""


def binaries() -> tuple[str, str]:
    """The paths of redis-server and redis-cli; :class:`NoRedis` when either is missing."""
    server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if server is None or cli is None:
        raise NoRedis("redis-server or redis-cli is not on PATH")
    return server, cli


class NotAMaster(RuntimeError):
    """The node drawn as a master is a replica now (a failover of the cluster's own,
    between the draw and the fault): nothing was done to it; draw again."""


class RedisCluster:
    """Six redis-server processes forming one cluster (three masters, one replica each)."""

    def __init__(
        self,
        directory: Path,
        *,
        appendonly: bool = False,
        config: Path | None = None,
        appendfsync: str = "everysec",
        validity: int | None = None,
    ) -> None:
        self.directory = directory
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.validity = validity
        """``cluster-replica-validity-factor`` (None: Redis's default, 10; 0 promotes a
        replica however stale: only for a negative control)."""
        self.config = config
        """A redis.conf to run instead of the settings above (deploy/redis-cluster.conf):
        only the port, address, directory and announced name are set on top of it."""
        self.ports: list[int] = []
        self.processes: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def seeds(self) -> list[int]:
        """The ports given as seed nodes (the first three started)."""
        return self.ports[:MASTERS]

    @property
    def url(self) -> str:
        """The store URL: ``redis+cluster://`` with the seed nodes."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.seeds)

    def _start_node(self, port: int) -> None:
        server, _ = binaries()
        folder = self.directory / str(port)
        folder.mkdir(parents=True, exist_ok=True)
        args = [server, *([str(self.config)] if self.config else [])]
        args += ["--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder)]
        args += ["--daemonize", "no", "--loglevel", "notice"]
        args += ["--logfile", str(folder / "redis.log")]  # failovers, syncs: a loss's story
        args += ["--cluster-announce-hostname", "localhost"] if self.config else self._settings()
        args += self.node_args(port)
        self.processes[port] = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def node_args(self, port: int) -> list[str]:
        """More redis-server arguments for the node on ``port`` (none here; the partition
        tests announce proxy ports: clients/soak/netsplit.py)."""
        return []

    def real(self, port: int) -> int:
        """The member's own port, given the port a client reaches it by (the same here;
        a proxied cluster's clients reach members through proxies)."""
        return port

    def _settings(self) -> list[str]:
        """The test settings (without a ``config`` file): quick failovers, no disk."""
        args = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
        args += ["--cluster-node-timeout", str(NODE_TIMEOUT_MS)]
        args += ["--cluster-require-full-coverage", "no"]
        if self.validity is not None:
            args += ["--cluster-replica-validity-factor", str(self.validity)]
        args += ["--repl-diskless-sync-delay", "0"]
        args += ["--save", "", "--appendonly", "yes" if self.appendonly else "no"]
        args += ["--appendfsync", self.appendfsync]
        return [*args, "--protected-mode", "no"]

    def start(self) -> None:
        """Start six nodes, create the cluster, wait until it is whole (with fresh ports
        again when a member's port was taken meanwhile)."""
        binaries()  # NoRedis before any port is taken
        for attempt in range(LAUNCH_TRIES):
            self.ports = pick_ports()
            try:
                self._make()
                return
            except (PortTaken, NotWhole) as exc:
                self.stop()
                self.processes = {}
                if attempt == LAUNCH_TRIES - 1:
                    raise
                log.warning("a new Redis Cluster did not start (%s); again on fresh ports", exc)

    def _make(self) -> None:
        """Start the six members on ``self.ports``, create the cluster, wait until whole."""
        _, cli = binaries()
        for port in self.ports:
            self._start_node(port)
        for port in self.ports:
            self._wait_ping(port)
        addresses = [self.announced(p) for p in self.ports]
        subprocess.run(
            [cli, "--cluster", "create", *addresses, "--cluster-replicas", "1", "--cluster-yes"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60,
        )  # fmt: skip
        self.wait_whole()

    def announced(self, port: int) -> str:
        """The address the other members reach the member on ``port`` at."""
        return f"127.0.0.1:{port}"

    def _wait_ping(self, port: int) -> None:
        client = redis.Redis(port=port, socket_timeout=1, socket_connect_timeout=1)
        deadline = time.monotonic() + START_TIMEOUT
        try:
            while time.monotonic() < deadline:
                with contextlib.suppress(redis.RedisError):
                    if client.ping():
                        return
                if self.processes[port].poll() is not None:
                    raise PortTaken(f"cluster node {port} exited before it answered")
                time.sleep(0.05)
        finally:
            client.close()
        raise RuntimeError(f"cluster node {port} did not answer PING")

    def running(self) -> list[int]:
        return [p for p, proc in self.processes.items() if proc.poll() is None]

    def masters(self) -> list[int]:
        """The ports of the running nodes that are masters now."""
        return [p for p in self.running() if self.replication(p).get("role") == "master"]

    def pids(self) -> dict[int, int]:
        """Port -> pid of each running node."""
        return {p: self.processes[p].pid for p in self.running()}

    def cluster_info(self, port: int) -> dict[str, str]:
        """CLUSTER INFO of one node, as a dict."""
        client = redis.Redis(port=port, socket_timeout=1, socket_connect_timeout=1)
        try:
            text = client.cluster("INFO")
        finally:
            client.close()
        if isinstance(text, dict):  # redis-py parses CLUSTER INFO
            return {str(k): str(v) for k, v in text.items()}
        blob = text.decode() if isinstance(text, bytes) else str(text)
        return dict(line.split(":", 1) for line in blob.split() if ":" in line)

    def replication(self, port: int) -> dict[str, object]:
        """INFO replication of one node."""
        client = redis.Redis(port=port, socket_timeout=1, socket_connect_timeout=1)
        try:
            return dict(client.info("replication"))
        finally:
            client.close()

    def wait_whole(self, timeout: float = START_TIMEOUT) -> None:
        """Wait until every running node says the cluster is ok, with three masters that
        each have a replica in sync."""
        deadline = time.monotonic() + timeout
        missing = "not asked yet"
        while time.monotonic() < deadline:
            try:
                missing = self._missing()
            except (redis.RedisError, OSError) as exc:
                missing = f"{type(exc).__name__}: {exc}"
            if not missing:
                return
            time.sleep(0.1)
        raise NotWhole(f"the Redis Cluster did not become whole in {timeout:g} s: {missing}")

    def _missing(self) -> str:
        """What keeps the cluster from being whole now ("": nothing)."""
        masters = 0
        for port in self.running():
            state = self.cluster_info(port).get("cluster_state")
            if state != "ok":
                return f"member {port} says the cluster is {state}"
            replication = self.replication(port)
            if replication.get("role") == "master":
                masters += 1
                if int(str(replication.get("connected_slaves", 0))) < 1:
                    return f"master {port} has no replica connected"
            elif replication.get("master_link_status") != "up":
                return f"replica {port}'s link to its master is {replication.get('master_link_status')}"
        return "" if masters == MASTERS else f"{masters} masters, not {MASTERS}"

    def master_of(self, key: str) -> int:
        """The port of the master serving ``key``'s slot now."""
        client = self.client()
        try:
            node: Any = client.get_node_from_key(key)  # type: ignore[no-untyped-call]
            return int(node.port)
        finally:
            client.close()

    def client(self) -> SyncCluster:
        port = next(p for p in self.seeds + self.ports if p in self.running())
        return SyncCluster(host="127.0.0.1", port=port, socket_timeout=2, socket_connect_timeout=2)

    def replica_of(self, master: int, timeout: float = 10.0) -> int:
        """The port of ``master``'s replica, as the master's cluster table names it
        (CLUSTER NODES; INFO's ``slave0`` line was missing at times, even with the
        cluster whole). A replica only suspected of failing (``fail?``, a missed pong
        on a loaded machine) still counts; one the cluster agreed has failed does not.
        Asked again for up to ``timeout`` seconds while the table names none."""
        deadline = time.monotonic() + timeout
        while True:
            client = redis.Redis(port=master, socket_timeout=1, socket_connect_timeout=1)
            try:
                table: dict[str, dict[str, Any]] = client.cluster("NODES")  # parsed by redis-py
            finally:
                client.close()
            myself = next(n for n in table.values() if "myself" in n["flags"].split(","))
            if "slave" in myself["flags"].split(","):
                raise NotAMaster(f"redis {master} is a replica now")
            me = myself["node_id"]
            for address, node in table.items():
                if node["master_id"] == me and "fail" not in node["flags"].split(","):
                    return int(address.rsplit(":", 1)[1])
            if time.monotonic() >= deadline:
                raise RuntimeError(f"redis {master} has no replica in the cluster's table")
            time.sleep(0.2)

    def wait_promoted(self, port: int, timeout: float = START_TIMEOUT) -> None:
        """Wait until the node on ``port`` is a master (a replica that took over)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(redis.RedisError, OSError):
                if self.replication(port).get("role") == "master":
                    return
            time.sleep(0.1)
        raise RuntimeError(f"node {port} was not promoted")

    def cut_replicas(self, master: int) -> None:
        """Close the master's links to its replicas (CLIENT KILL TYPE replica)."""
        client = redis.Redis(port=master, socket_timeout=1)
        try:
            client.client_kill_filter(_type="replica")
        finally:
            client.close()

    def kill(self, port: int) -> None:
        """SIGKILL one node (thawed first, should it be frozen)."""
        process = self.processes[port]
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGCONT)
            process.kill()
            process.wait(STOP_TIMEOUT)

    def signal(self, port: int, sig: signal.Signals) -> None:
        os.kill(self.processes[port].pid, sig)

    def restart(self, port: int) -> None:
        """Start a killed node again on its port and its nodes.conf (it rejoins)."""
        self._start_node(port)
        self._wait_ping(port)

    def flush(self) -> None:
        """Empty every master (FLUSHALL)."""
        client = self.client()
        try:
            client.flushall(target_nodes=SyncCluster.PRIMARIES)
        finally:
            client.close()

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGCONT)
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(STOP_TIMEOUT)


def launch_cluster(
    directory: Path,
    *,
    appendonly: bool = False,
    config: Path | None = None,
    appendfsync: str = "everysec",
    validity: int | None = None,
) -> RedisCluster:
    """Start a Redis Cluster with its files under ``directory`` (stop it when done)."""
    cluster = RedisCluster(
        directory, appendonly=appendonly, config=config, appendfsync=appendfsync,
        validity=validity,
    )  # fmt: skip
    try:
        cluster.start()
    except BaseException:
        cluster.stop()
        raise
    return cluster
