"""deploy/Dockerfile built here and run, alone and as deploy/compose.yaml's services.

The image is built once per session (buildah; its Debian base made locally when
missing, tests/support/container.py). Then: the image serves a game; the compose file's
Redis, three nodes and proxy come up, a game is played through the proxy, the node
running the room is killed, and the game finishes. Where ``podman run`` is refused (as
on this kind of machine: crun cannot set RLIMIT_NOFILE), each container is the built
image's own filesystem running its own command under chroot in a network namespace of
its own; the refusal is printed. Slow (a build, five services): ``make container-test``
runs it, outside ``make test``; skipped only where buildah/podman cannot run at all,
never under CI (``ROLLHOUSE_REQUIRE_CONTAINER``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from tests.support import container as c
from tests.support.haproxy import haproxy_binary

pytestmark = pytest.mark.timeout(900)
NODES = ("node1", "node2", "node3")
PAUSE_AT = 12
"""Events the players have applied when the room's node is killed."""
COMPILERS = ("cc", "gcc", "g++", "c++", "clang", "x86_64-linux-gnu-gcc", "tcc")


@attrs.define
class Built:
    base_seconds: float | None
    build_seconds: float
    size: int
    podman_refusal: str | None
    config: dict[str, Any]


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    c.need_tools()
    base = c.ensure_base()
    seconds = c.build_image(tmp_path_factory.mktemp("build"))
    made = Built(base, seconds, c.image_size(), c.podman_refusal(), c.image_config())
    how = f"made from Debian packages in {base:.1f} s" if base else "cached"
    print(
        f"\nimage {c.IMAGE}: built in {seconds:.1f} s from deploy/Dockerfile"
        f" (base {c.base_image()}: {how}),"
        f" {made.size / 1e6:.1f} MB; podman run: {made.podman_refusal or 'works'}"
    )
    return made


def play(exec_prefix: list[str], url: str, workdir: Path, on_pause: Any = None) -> dict[str, Any]:
    """Run container_game against ``url``; call ``on_pause(room info)`` at the pause."""
    args = [*exec_prefix, sys.executable, "-m", "tests.deploy.container_game", url]
    if on_pause is not None:
        args += ["--pause-at", str(PAUSE_AT)]
    errors = open(workdir / "game.err", "wb")  # noqa: SIM115
    game = subprocess.Popen(
        args, cwd=c.ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True
    )
    assert game.stdin is not None and game.stdout is not None
    lines: list[dict[str, Any]] = []
    try:
        for line in game.stdout:
            lines.append(json.loads(line))
            if "pause" in lines[-1]:
                on_pause(lines[0])
                game.stdin.write("go\n")
                game.stdin.flush()
        assert game.wait(30) == 0, (workdir / "game.err").read_text()
    finally:
        if game.poll() is None:
            game.kill()
    final = lines[-1]
    assert final["finished"], lines
    return {**lines[0], **final}


def wait_ready(exec_prefix: list[str], url: str, seconds: float = 60) -> float:
    """Poll ``url`` from inside the namespace until it answers 200; seconds taken."""
    code = (
        "import sys,time,urllib.request\n"
        f"end=time.monotonic()+{seconds}\n"
        "while time.monotonic()<end:\n"
        "    try:\n"
        f"        urllib.request.urlopen({url!r},timeout=2); sys.exit(0)\n"
        "    except Exception: time.sleep(0.2)\n"
        "sys.exit(1)\n"
    )
    started = time.monotonic()
    c.run(*exec_prefix, sys.executable, "-c", code, timeout=seconds + 10)
    return time.monotonic() - started


def test_the_image_runs_as_a_user_without_a_compiler(built: Built) -> None:
    """The image's user is not root, and no C compiler is on its filesystem."""
    box = c.ImageContainer.create("rh-inspect")
    try:
        uid, _, home = box.user(built.config["User"])
        found = [
            f"{d}/{name}"
            for d in ("usr/bin", "usr/local/bin", "bin", "opt/rollhouse/bin")
            for name in COMPILERS
            if (box.rootfs / d / name).exists()
        ]
    finally:
        box.remove()
    assert built.config["User"] == "rollhouse" and uid != 0 and home == "/home/rollhouse"
    assert found == []
    print(
        f"\nimage user {built.config['User']} (uid {uid}); {built.size / 1e6:.1f} MB; no compiler"
    )


@pytest.fixture
def network() -> Iterator[c.Network]:
    net = c.Network()
    net.start()
    try:
        yield net
    finally:
        net.stop()


def test_the_image_serves_a_game(built: Built, network: c.Network, tmp_path: Path) -> None:
    """The image's command, with the image's environment (SQLite in the user's home),
    serves a game that two players finish."""
    if built.podman_refusal is None:  # a machine where containers run
        port = c.free_port()
        name = f"rh-app-{network.tag}"
        c.run("podman", "run", "-d", "--name", name, "-p", f"127.0.0.1:{port}:8000", c.IMAGE)
        try:
            wait_ready([], f"http://127.0.0.1:{port}/api/health/ready")
            result = play([], f"http://127.0.0.1:{port}", tmp_path)
        finally:
            c.run("podman", "rm", "-f", name, check=False)
    else:
        network.add("app")
        network.add("player")
        network.write_hosts()
        box = c.ImageContainer.create(f"{network.tag}-app")
        (box.rootfs / "etc" / "hosts").write_text(network.hosts_file())
        app = c.spawn("app", network.exec("app") + box.command(built.config, {}), tmp_path)
        try:
            up = wait_ready(network.exec("player"), "http://app:8000/api/health/ready")
            result = play(network.exec("player"), "http://app:8000", tmp_path)
        finally:
            app.stop()
            box.remove()
        assert "rollhouse serve" in app.text() or '"level"' in app.text(), app.text()
        print(f"\none container of the image: ready in {up:.1f} s")
    print(
        f"game on the image: room {result['room']} finished at seq {result['seq']}, scores {result['scores']}"
    )


def test_the_compose_services_play_through_the_proxy_while_a_node_dies(
    built: Built, network: c.Network, tmp_path: Path
) -> None:
    """deploy/compose.yaml's Redis, three nodes of the image and haproxy with
    deploy/haproxy.cfg: a game through the proxy survives the SIGKILL of its room's
    node and finishes."""
    services = c.compose_services()
    if built.podman_refusal is None:
        pytest.skip("podman runs containers here: see test_compose_with_podman")
    haproxy = haproxy_binary()
    for host in ["redis", *NODES, "proxy", "player"]:
        network.add(host)
    network.write_hosts()
    started: list[c.Process] = []
    boxes: dict[str, c.ImageContainer] = {}
    try:
        redis_dir = tmp_path / "redis-data"
        redis_dir.mkdir()
        command = [*services["redis"]["command"], "--dir", str(redis_dir), "--protected-mode", "no"]
        started.append(c.spawn("redis", network.exec("redis") + command, tmp_path))
        for node in NODES:
            box = boxes[node] = c.ImageContainer.create(f"{network.tag}-{node}")
            (box.rootfs / "etc" / "hosts").write_text(network.hosts_file())
            env = {k: str(v) for k, v in services[node]["environment"].items()}
            started.append(
                c.spawn(node, network.exec(node) + box.command(built.config, env), tmp_path)
            )
        started.append(
            c.spawn(
                "proxy",
                [*network.exec("proxy"), haproxy, "-db", "-f", str(c.HAPROXY_CFG)],
                tmp_path,
            )
        )
        up = wait_ready(network.exec("player"), "http://proxy:8000/api/health/ready")
        processes = {p.name: p for p in started}
        killed: dict[str, float] = {}

        def kill_the_rooms_node(info: dict[str, Any]) -> None:
            node = info["node"]
            processes[node].kill()
            killed[node] = time.monotonic()

        result = play(network.exec("player"), "http://proxy:8000", tmp_path, kill_the_rooms_node)
        ((node, at),) = killed.items()
        after = time.monotonic() - at
    finally:
        for process in reversed(started):
            process.stop()
        for box in boxes.values():
            box.remove()
    assert result["finished"] and node in NODES
    assert "is DOWN" in processes["proxy"].text()
    print(
        f"\ncompose services (Redis, {', '.join(NODES)} from the image, haproxy): ready through"
        f" the proxy in {up:.1f} s; room {result['room']} on {node}, {node} SIGKILLed at seq"
        f" {PAUSE_AT}; the game finished {after:.1f} s later at seq {result['seq']},"
        f" scores {result['scores']}"
    )


def test_compose_with_podman(built: Built, tmp_path: Path) -> None:
    """Where podman runs containers: podman-compose brings deploy/compose.yaml up (its
    proxy published on a free port), a game is played through it while the room's
    node container is killed, and it finishes."""
    if built.podman_refusal is not None:
        pytest.skip(f"podman run is refused here ({built.podman_refusal}); see the chroot test")
    port = c.free_port()
    project = f"rh{port}"
    env_prefix = ["env", f"ROLLHOUSE_PUBLISH={port}"]
    compose = [*env_prefix, "podman-compose", "-p", project, "-f", str(c.COMPOSE)]
    c.run(*compose, "up", "-d", "--build", timeout=900)
    try:
        wait_ready([], f"http://127.0.0.1:{port}/api/health/ready")

        def kill_the_rooms_node(info: dict[str, Any]) -> None:
            c.run("podman", "kill", f"{project}_{info['node']}_1")

        result = play([], f"http://127.0.0.1:{port}", tmp_path, kill_the_rooms_node)
    finally:
        c.run(*compose, "down", "-v", check=False, timeout=300)
    assert result["finished"]
