"""Real servers for tests: uvicorn in this event loop, or a separate process.

``live_server`` (fixture) serves the app in the test's own loop on a free
127.0.0.1 port with an in-memory store; ``ServerProcess`` runs ``rollhouse serve``
in a child process (for crash tests that SIGKILL it).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import attrs
import httpx
import pytest
import uvicorn

from server.api.app import create_app
from server.config import Settings
from server.edge.protocol import WebSocketEdge


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@attrs.define
class LiveServer:
    url: str
    ws_url: str
    server: uvicorn.Server

    @property
    def services(self):  # type: ignore[no-untyped-def]
        return self.server.config.app.state.services  # type: ignore[union-attr]

    async def create_room(self, game: str = "rollie", seats: int = 2, **body: object) -> dict:  # type: ignore[type-arg]
        async with httpx.AsyncClient(base_url=self.url, timeout=10) as http:
            reply = await http.post("/api/rooms", json={"game": game, "seats": seats, **body})
            reply.raise_for_status()
            return reply.json()  # type: ignore[no-any-return]


@contextlib.asynccontextmanager
async def serve(settings: Settings | None = None) -> AsyncIterator[LiveServer]:
    """A uvicorn server running the app in this loop; stopped on exit."""
    port = free_port()
    settings = settings or Settings(store_url="memory://", port=port)
    settings = attrs.evolve(settings, port=port)
    app = create_app(settings)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, ws=WebSocketEdge, ws_max_size=1 << 20,
        log_level="warning", lifespan="on",
    )  # fmt: skip
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    for _ in range(200):
        if server.started:
            break
        await asyncio.sleep(0.025)
    else:
        raise RuntimeError("server did not start")
    try:
        yield LiveServer(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws", server)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


@pytest.fixture
async def live_server() -> AsyncIterator[LiveServer]:
    async with serve() as server:
        yield server


class PortTaken(RuntimeError):
    """The server could not bind its port: another process took it first."""


class ServerProcess:
    """``rollhouse serve`` in a child process, so a test can SIGKILL it."""

    def __init__(
        self,
        store_url: str,
        workdir: Path,
        port: int | None = None,
        args: Sequence[str] = (),
        env: dict[str, str] | None = None,
        module: str = "clients.cli",
    ) -> None:
        self.env = env or {}
        self.module = module
        """What ``python -m`` runs: the CLI, or a test's wrapper of it (a broken build)."""
        self.store_url = store_url
        self.workdir = workdir
        self.port = port or free_port()
        self.picked = port is None
        """The port was picked free here: taken by another process before the first
        start could bind it, another one is picked (a restart keeps its port)."""
        self.started = False
        self.args = list(args)
        """Extra ``rollhouse serve`` options, e.g. ``["--idle-unload", "0.5"]``."""
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> None:
        """Start it and wait until it answers; a port taken meanwhile by another test's
        process (picked free, bound by someone else first) is picked again, a few times,
        before the first start only."""
        for attempt in range(3):
            try:
                self._start()
                self.started = True
                return
            except PortTaken:
                if self.started or not self.picked or attempt == 2:
                    raise
                self.port = free_port()

    def _start(self) -> None:
        cmd = [
            sys.executable,
            "-m",
            self.module,
            "serve",
            "--port",
            str(self.port),
            "--store",
            self.store_url,
            *self.args,
        ]
        log = open(self.workdir / f"server-{self.port}.log", "ab")  # noqa: SIM115
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), **self.env}
        self.proc = subprocess.Popen(cmd, cwd=self.workdir, stdout=log, stderr=log, env=env)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = (self.workdir / f"server-{self.port}.log").read_bytes().splitlines()[-5:]
                if any(b"address already in use" in line for line in tail):
                    raise PortTaken(f"port {self.port} was taken before the server bound it")
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.url + "/api/health", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError("server did not come up")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def signal(self, sig: signal.Signals) -> None:
        """Send ``sig`` (SIGSTOP, SIGCONT, SIGTERM...) to the server process."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
