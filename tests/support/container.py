"""deploy/Dockerfile built and run here, and deploy/compose.yaml's services brought up.

The image is built with Debian's buildah from ``deploy/Dockerfile`` as it is; its base
is made from Debian's packages by ``deploy/base-image.sh`` when the machine has no copy
(no registry is reachable here). Where ``podman run`` works, containers are podman's.
Where it is refused (here: crun's setrlimit, see :func:`podman_refusal`), the built
image's filesystem (``buildah from`` + ``buildah mount``: one copy-on-write container
per service) runs the image's own command under ``chroot``, as the image's user, with
the image's environment and working directory, each container in a network namespace
of its own on one bridge, with an /etc/hosts naming the compose file's services, so
the compose file's addresses (``redis://redis:6379/0``, ``node1:8000``) are used as
written. Redis and haproxy, whose images cannot be pulled here, are Debian's binaries
in their own namespaces, run with the compose file's command and ``deploy/haproxy.cfg``.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
COMPOSE = ROOT / "deploy" / "compose.yaml"
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
IMAGE = "localhost/rollhouse:test"
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
TOOLS = ("buildah", "podman", "debootstrap", "ip", "chroot", "redis-server")


def need_tools() -> None:
    """Skip where the image cannot be built and run here; under CI
    (``ROLLHOUSE_REQUIRE_CONTAINER``) fail instead."""
    missing = [t for t in TOOLS if shutil.which(t) is None and not Path(f"/usr/sbin/{t}").exists()]
    why = f"missing {', '.join(missing)}" if missing else ""
    if not why and os.geteuid() != 0:
        why = "building and running the image here needs root (network namespaces, chroot)"
    if why:
        missing(why, "ROLLHOUSE_REQUIRE_CONTAINER")


def run(*cmd: str, timeout: float = 600, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done


def base_image() -> str:
    """The Dockerfile's FROM, as podman names it."""
    name = next(
        line.split()[1] for line in DOCKERFILE.read_text().splitlines() if line.startswith("FROM ")
    )
    return name if "/" in name else f"docker.io/library/{name}"


def ensure_base() -> float | None:
    """Make the base image from Debian's packages unless podman has it; seconds taken
    (None: it was there)."""
    if run("podman", "image", "exists", base_image(), check=False).returncode == 0:
        return None
    started = time.monotonic()
    run(str(ROOT / "deploy" / "base-image.sh"), timeout=1200)
    return time.monotonic() - started


def build_image(workdir: Path) -> float:
    """``buildah bud`` of deploy/Dockerfile from the repository root; seconds taken.

    The build's RUN steps see this machine's CA bundle and a pip.conf naming it (this
    machine's HTTPS goes through its own certificate authority); the Dockerfile is
    unchanged and nothing of them is left in the image."""
    pip_conf = workdir / "pip.conf"
    pip_conf.write_text(f"[global]\ncert = {CA_BUNDLE}\n")
    started = time.monotonic()
    run(
        "buildah", "bud", "--isolation", "chroot", "--format", "docker", "--layers",
        "-v", f"{CA_BUNDLE}:{CA_BUNDLE}:ro", "-v", f"{pip_conf}:/etc/pip.conf:ro",
        "-f", str(DOCKERFILE), "-t", IMAGE, str(ROOT),
    )  # fmt: skip
    return time.monotonic() - started


def image_size() -> int:
    return int(run("podman", "image", "inspect", "--format", "{{.Size}}", IMAGE).stdout)


def image_config() -> dict[str, Any]:
    """The image's run configuration (User, Env, WorkingDir, Cmd, Entrypoint)."""
    inspected = json.loads(run("buildah", "inspect", "--type", "image", IMAGE).stdout)
    config: dict[str, Any] = inspected["Docker"]["config"]
    return config


def podman_refusal() -> str | None:
    """None if ``podman run`` runs the image here, else its exact error."""
    done = run("podman", "run", "--rm", IMAGE, "true", timeout=120, check=False)
    if done.returncode == 0:
        return None
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error")]
    return (errors or done.stderr.splitlines() or [f"exit {done.returncode}"])[-1]


def compose_services() -> dict[str, dict[str, Any]]:
    """deploy/compose.yaml's services, anchors and merge keys resolved."""
    services: dict[str, dict[str, Any]] = yaml.safe_load(COMPOSE.read_text())["services"]
    return services


@attrs.define
class Network:
    """A bridge in a namespace of its own, and one namespace per host on it, with an
    /etc/hosts naming them all (podman's network does as much for a compose file)."""

    tag: str = attrs.field(factory=lambda: f"rh{secrets.token_hex(2)}")
    subnet: str = attrs.field(
        factory=lambda: f"10.{200 + secrets.randbelow(50)}.{secrets.randbelow(250)}"
    )
    hosts: dict[str, str] = attrs.field(factory=dict)

    @property
    def bridge(self) -> str:
        return f"{self.tag}-br"

    def namespace(self, host: str) -> str:
        return f"{self.tag}-{host}"

    def start(self) -> None:
        run("ip", "netns", "add", self.bridge)
        run("ip", "-n", self.bridge, "link", "add", "br0", "type", "bridge")
        run("ip", "-n", self.bridge, "link", "set", "br0", "up")

    def add(self, host: str) -> str:
        """A namespace for ``host`` on the bridge; its address."""
        ns, address = self.namespace(host), f"{self.subnet}.{len(self.hosts) + 2}"
        outside = f"{self.tag}v{len(self.hosts)}"
        run("ip", "netns", "add", ns)
        run("ip", "link", "add", outside, "type", "veth", "peer", "name", "eth0", "netns", ns)
        run("ip", "link", "set", outside, "netns", self.bridge)
        run("ip", "-n", self.bridge, "link", "set", outside, "master", "br0", "up")
        run("ip", "-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")
        run("ip", "-n", ns, "link", "set", "eth0", "up")
        run("ip", "-n", ns, "link", "set", "lo", "up")
        self.hosts[host] = address
        return address

    def hosts_file(self) -> str:
        lines = ["127.0.0.1 localhost", "::1 localhost"]
        return "\n".join(lines + [f"{a} {h}" for h, a in self.hosts.items()]) + "\n"

    def write_hosts(self) -> None:
        """/etc/netns/<ns>/hosts, which ``ip netns exec`` shows a process as /etc/hosts."""
        for host in self.hosts:
            folder = Path("/etc/netns") / self.namespace(host)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "hosts").write_text(self.hosts_file())

    def exec(self, host: str) -> list[str]:
        return ["ip", "netns", "exec", self.namespace(host)]

    def stop(self) -> None:
        for host in self.hosts:
            run("ip", "netns", "del", self.namespace(host), check=False)
            shutil.rmtree(Path("/etc/netns") / self.namespace(host), ignore_errors=True)
        run("ip", "netns", "del", self.bridge, check=False)


@attrs.define
class Process:
    """One service's process, its output in ``log``."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()

    def text(self) -> str:
        return self.log.read_text(errors="replace")


def spawn(name: str, cmd: Sequence[str], workdir: Path) -> Process:
    log = workdir / f"{name}.log"
    with open(log, "ab") as out:
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=out, stdin=subprocess.DEVNULL)
    return Process(name, proc, log)


@attrs.define
class ImageContainer:
    """The image's filesystem as a container of its own (``buildah from``), its command
    run under chroot as the image's user, with the image's environment."""

    name: str
    rootfs: Path

    @classmethod
    def create(cls, name: str) -> ImageContainer:
        run("buildah", "rm", name, check=False)
        run("buildah", "from", "--name", name, IMAGE)
        return cls(name, Path(run("buildah", "mount", name).stdout.strip()))

    def user(self, user: str) -> tuple[int, int, str]:
        """(uid, gid, home) of ``user`` in the image's /etc/passwd."""
        for line in (self.rootfs / "etc" / "passwd").read_text().splitlines():
            fields = line.split(":")
            if fields[0] == user or fields[2] == user:
                return int(fields[2]), int(fields[3]), fields[5]
        raise LookupError(f"no user {user} in the image")

    def command(self, config: dict[str, Any], environment: dict[str, str]) -> list[str]:
        """chroot + env running the image's entrypoint and command as ``docker run``
        would: its user, its working directory, its environment and then ``environment``."""
        uid, gid, home = self.user(config.get("User") or "root")
        env = dict(e.split("=", 1) for e in config.get("Env") or [])
        env = {"HOME": home, "HOSTNAME": self.name, **env, **environment}
        argv = [*(config.get("Entrypoint") or []), *(config.get("Cmd") or [])]
        return [
            "chroot", f"--userspec={uid}:{gid}", "--groups=", str(self.rootfs),
            "/usr/bin/env", "-i", "-C", config.get("WorkingDir") or "/",
            *(f"{k}={v}" for k, v in env.items()), *argv,
        ]  # fmt: skip

    def remove(self) -> None:
        run("buildah", "umount", self.name, check=False)
        run("buildah", "rm", self.name, check=False)


def free_port() -> int:
    from tests.support.server import free_port as loopback_port

    return loopback_port()
