"""A real haproxy (Debian's) for the tests, configured from ``deploy/haproxy.cfg``.

``deploy/haproxy.cfg`` stays the one source: :func:`render_config` keeps every
setting and only points the frontend's ``bind`` and the backend's ``server`` lines
at loopback ports. Without a haproxy binary the tests skip, unless
``ROLLHOUSE_REQUIRE_REDIS`` is set (as CI sets it; ``.ci/run`` installs haproxy):
then they fail.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from tests.support.required import missing

DEPLOY_CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "haproxy.cfg"
START_TIMEOUT = 10.0


def haproxy_binary() -> str:
    """Path of haproxy (Debian puts it in /usr/sbin), or skip (fail under CI)."""
    path = shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if os.access(p, os.X_OK)),
        None,
    )
    if path is None:
        missing("haproxy is not installed", "ROLLHOUSE_REQUIRE_REDIS")
    return path


def render_config(source: str, port: int, servers: Sequence[int]) -> str:
    """``source`` with its frontend bound to 127.0.0.1:``port`` and its ``server`` lines
    aimed at 127.0.0.1:``servers[i]`` (as many as the source has); nothing else changes."""
    text, binds = re.subn(r"(?m)^(\s*bind\s+)\S*:\d+", rf"\g<1>127.0.0.1:{port}", source)
    found = re.findall(r"(?m)^\s*server\s+\S+\s+\S+:\d+", text)
    if binds != 1 or len(found) != len(servers):
        raise ValueError(f"expected 1 bind and {len(servers)} servers in the config")
    ports = iter(servers)
    return re.sub(
        r"(?m)^(\s*server\s+\S+\s+)\S+:\d+", lambda m: f"{m.group(1)}127.0.0.1:{next(ports)}", text
    )


class Haproxy:
    """haproxy in the foreground (``-db``), its log (the config logs to stdout) in a file."""

    def __init__(self, workdir: Path, port: int, servers: Sequence[int]) -> None:
        self.port = port
        self.config = workdir / "haproxy.cfg"
        self.config.write_text(render_config(DEPLOY_CONFIG.read_text(), port, servers))
        self.log = workdir / "haproxy.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> None:
        binary = haproxy_binary()
        check = subprocess.run([binary, "-c", "-f", str(self.config)], capture_output=True)
        assert check.returncode == 0, check.stdout + check.stderr
        out = open(self.log, "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [binary, "-db", "-f", str(self.config)], stdout=out, stderr=out
        )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"haproxy exited with {self.proc.returncode}")
            try:
                if httpx.get(self.url + "/api/health/ready", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("haproxy did not come up")

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
