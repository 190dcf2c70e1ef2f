"""Partitions and slow links on loopback, made by TCP proxies the test controls.

:class:`Link` is one proxy (127.0.0.1, a free port) in front of one target port. A
test can, at any time:

- **partition** it, for every source or for some source addresses only
  (:meth:`Link.partition`): bytes stop moving both ways on the connections from
  those sources, and a new connection from them hangs before it reaches the target
  (a blackhole, as dropped packets make: nothing is refused, nothing answers);
  :meth:`Link.heal` lets everything that waited through, late (TCP would retransmit
  it). Sources are told apart by their IP address: a process that binds its
  outgoing connections to its own 127.x.y.z (Redis's ``bind-source-addr``) can be
  cut off from the rest on its own.
- **slow** it (:meth:`Link.slow`): every chunk is delivered ``delay`` seconds after
  it arrived (order kept, pipelining kept), and with probability ``stall_chance`` a
  chunk is held a further ``stall`` seconds first (a lost packet waiting for its
  retransmission: what a lossy link does to a TCP stream);
- **reset** every open connection (:meth:`Link.reset`): dropped connections.

:class:`ProxiedCluster` is a Redis Cluster (:mod:`clients.soak.redis_cluster`) whose
members talk to each other only through Links: each member announces a Link to its
client port and one to its cluster bus port (``cluster-announce-port``,
``cluster-announce-bus-port``) and binds its outgoing connections to an address of
its own (``bind-source-addr 127.0.1.<n>``), so :meth:`ProxiedCluster.isolate` cuts
one member off from every other (bus, replication) in both directions: a minority
partition. :meth:`ProxiedCluster.node_url` gives a ``rollhouse serve`` node a store
URL whose every connection goes through Links of that node's own (seeds and
``remap``, server/store/redis_conn.py), to cut or slow one node's link to Redis.

``rollhouse soak`` cuts and slows its nodes' links to Redis and isolates masters with
it (:mod:`clients.soak.faults`); the partition tests (tests/cluster/test_partitions.py)
too. Every wait here is bounded; nothing touches port 6379.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Iterable
from pathlib import Path

from clients.bench.proc import free_port
from clients.soak.redis_cluster import (
    LAUNCH_TRIES,
    NotWhole,
    PortTaken,
    RedisCluster,
    pick_ports,
)

log = logging.getLogger("rollhouse.soak")

EVERYONE = "*"
CHUNK = 65536


class _Conn:
    def __init__(self, source: str) -> None:
        self.source = source
        self.writers: list[asyncio.StreamWriter] = []


class Link:
    """A TCP proxy on 127.0.0.1 in front of ``target_port`` (module docstring)."""

    def __init__(self, target_port: int, name: str = "") -> None:
        self.target_port = target_port
        self.name = name or f"link to {target_port}"
        self.port = free_port()
        self.blocked: set[str] = set()
        """Source addresses partitioned away (EVERYONE: all of them)."""
        self.delay = 0.0
        self.stall_chance = 0.0
        self.stall = 0.0
        self.random = random.Random(target_port)
        self._changed = asyncio.Event()
        self._conns: set[_Conn] = set()
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> Link:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        return self

    async def close(self) -> None:
        self.heal()
        self.reset()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    # -- faults --------------------------------------------------------------------------

    def partition(self, sources: Iterable[str] = (EVERYONE,)) -> None:
        """Stop the bytes of connections from ``sources`` (all, by default)."""
        self.blocked |= set(sources)
        self._poke()

    def heal(self) -> None:
        """End every partition: what waited goes through."""
        self.blocked.clear()
        self._poke()

    def slow(self, delay: float = 0.0, stall_chance: float = 0.0, stall: float = 0.0) -> None:
        """Add ``delay`` to every chunk, and ``stall`` to a ``stall_chance`` of them."""
        self.delay, self.stall_chance, self.stall = delay, stall_chance, stall

    def reset(self) -> int:
        """Abort every open connection (both ends see it reset); how many."""
        conns = list(self._conns)
        for conn in conns:
            for writer in conn.writers:
                writer.transport.abort()
        self._conns.clear()
        return len(conns)

    def _cut_off(self, conn: _Conn) -> bool:
        return EVERYONE in self.blocked or conn.source in self.blocked

    def _poke(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _passable(self, conn: _Conn) -> None:
        while self._cut_off(conn):
            await self._changed.wait()

    # -- plumbing ------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        conn = _Conn(str(writer.get_extra_info("peername")[0]))
        conn.writers.append(writer)
        self._conns.add(conn)
        try:
            await self._passable(conn)  # a connect into a partition hangs
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
            except OSError:
                writer.transport.abort()
                return
            conn.writers.append(up_writer)
            await asyncio.gather(
                self._pump(conn, reader, up_writer), self._pump(conn, up_reader, writer)
            )
        except (OSError, asyncio.CancelledError, ConnectionError):
            pass
        finally:
            for w in conn.writers:
                w.transport.abort()
            self._conns.discard(conn)
            self._tasks.discard(task)

    async def _pump(
        self, conn: _Conn, src: asyncio.StreamReader, dst: asyncio.StreamWriter
    ) -> None:
        """Read ``src`` into a queue stamped with each chunk's due time; a second task
        writes them to ``dst`` once due and while not partitioned (order kept)."""
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def send() -> None:
            while True:
                due, data = await queue.get()
                if not data:
                    return
                if self.stall_chance and self.random.random() < self.stall_chance:
                    due += self.stall
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                await self._passable(conn)
                dst.write(data)
                await dst.drain()

        sender = asyncio.create_task(send())
        try:
            while True:
                await self._passable(conn)
                data = await src.read(CHUNK)
                queue.put_nowait((time.monotonic() + self.delay, data))
                if not data:
                    break
            await sender
        finally:
            sender.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await sender
            dst.transport.abort()


def source_address(index: int) -> str:
    """The address cluster member ``index`` binds its outgoing connections to."""
    return f"127.0.1.{index + 1}"


class ProxiedCluster(RedisCluster):
    """A Redis Cluster whose members reach each other through Links (module docstring).

    Start it with :meth:`launch` (in the test's event loop: the Links live there)."""

    def __init__(
        self, directory: Path, *, appendonly: bool = False, appendfsync: str = "everysec"
    ) -> None:
        super().__init__(directory, appendonly=appendonly, appendfsync=appendfsync)
        self.client_links: dict[int, Link] = {}
        """Real port -> the Link every other member (and the test) reaches it through."""
        self.bus_links: dict[int, Link] = {}
        self.node_links: dict[str, dict[int, Link]] = {}
        """rollhouse node id -> real port -> that node's own Link to the member."""

    async def launch(self, nodes: Iterable[str]) -> ProxiedCluster:
        """Pick the ports, start the Links (the members', each node's), start the members
        and make the cluster (in a thread: the Links run in this loop meanwhile); with
        fresh ports again when a member's port was taken meanwhile."""
        names = list(nodes)
        for attempt in range(LAUNCH_TRIES):
            self.ports = pick_ports()
            for port in self.ports:
                self.client_links[port] = await Link(port, f"member {port}").start()
                self.bus_links[port] = await Link(port + 10000, f"bus {port}").start()
            for node in names:
                self.node_links[node] = {
                    port: await Link(port, f"{node} to {port}").start() for port in self.ports
                }
            try:
                await asyncio.to_thread(self._make)
                return self
            except BaseException as exc:
                await asyncio.to_thread(self.stop)
                await self.close_links()
                self.processes, self.client_links, self.bus_links, self.node_links = {}, {}, {}, {}
                if not isinstance(exc, PortTaken | NotWhole) or attempt == LAUNCH_TRIES - 1:
                    raise
                log.warning("a new Redis Cluster did not start (%s); again on fresh ports", exc)
        raise AssertionError("unreachable")

    def announced(self, port: int) -> str:
        return f"127.0.0.1:{self.client_links[port].port}"

    def node_args(self, port: int) -> list[str]:
        index = self.ports.index(port)
        return [
            "--cluster-announce-ip", "127.0.0.1",
            "--cluster-announce-port", str(self.client_links[port].port),
            "--cluster-announce-bus-port", str(self.bus_links[port].port),
            "--bind-source-addr", source_address(index),
        ]  # fmt: skip

    def real(self, port: int) -> int:
        """The member's own port, given its own or its Link's."""
        for real, link in self.client_links.items():
            if port in (real, link.port):
                return real
        raise KeyError(port)

    def master_of(self, key: str) -> int:
        return self.real(super().master_of(key))

    def replica_of(self, master: int, timeout: float = 10.0) -> int:
        return self.real(super().replica_of(master, timeout))

    def node_url(self, node: str, query: str = "") -> str:
        """The store URL of rollhouse node ``node``: seeds and every announced member
        address remapped to that node's own Links."""
        links = self.node_links[node]
        seeds = ",".join(f"127.0.0.1:{links[p].port}" for p in self.seeds)
        remap = "&".join(
            f"remap=127.0.0.1:{self.client_links[p].port}=127.0.0.1:{links[p].port}"
            for p in self.ports
        )
        return f"redis+cluster://{seeds}?{remap}" + (f"&{query}" if query else "")

    def links_of(self, node: str) -> list[Link]:
        """Every Link of rollhouse node ``node`` to the cluster."""
        return list(self.node_links[node].values())

    def isolate(self, port: int) -> None:
        """A minority partition of one member: nobody reaches it (members, nodes, the
        test's own clients) and it reaches nobody."""
        self.client_links[port].partition()
        self.bus_links[port].partition()
        for links in self.node_links.values():
            links[port].partition()
        source = source_address(self.ports.index(port))
        for other in self.ports:
            if other != port:
                self.client_links[other].partition([source])
                self.bus_links[other].partition([source])

    def heal(self) -> None:
        for link in self.all_links():
            link.heal()

    def all_links(self) -> list[Link]:
        nodes = [link for links in self.node_links.values() for link in links.values()]
        return [*self.client_links.values(), *self.bus_links.values(), *nodes]

    async def close_links(self) -> None:
        for link in self.all_links():
            await link.close()
