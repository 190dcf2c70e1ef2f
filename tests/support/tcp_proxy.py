"""A loopback TCP proxy a test can hold (a blackhole: bytes wait, then arrive late) or cut.

``TcpProxy(target_port)`` listens on a free 127.0.0.1 port and forwards every
connection to ``target_port``. ``hold()`` stops moving bytes both ways (the kernel
buffers them; they are delivered, late, on ``release()``: a write sent before a
partition can still reach the server after it); ``cut()`` closes every connection and
refuses new ones until ``release()``.
"""

from __future__ import annotations

import asyncio
import contextlib

from tests.support.redis_server import free_port


class TcpProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self._open = asyncio.Event()
        self._open.set()
        self._cut = False
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.base_events.Server | None = None

    async def start(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        return self

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    def hold(self) -> None:
        self._open.clear()

    def cut(self) -> None:
        self._cut = True
        self._open.set()
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    def release(self) -> None:
        self._cut = False
        self._open.set()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._cut:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer))

    async def _pump(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError, ConnectionError):
            while not self._cut:
                await self._open.wait()
                data = await src.read(65536)
                await self._open.wait()
                if not data or self._cut:
                    break
                dst.write(data)
                await dst.drain()
        self._writers.discard(dst)
        with contextlib.suppress(Exception):
            dst.close()
