"""A real Ray cluster on loopback, started with ``ray start`` (one head, optional workers), for
the cluster tests and the faults benchmark row.

Each node gets its own free ports and its own short temp dir, so two nodes share one host and a
plain ``ray.init()`` elsewhere in the test session never attaches to this cluster by accident
(it looks for /tmp/ray/ray_current_cluster, which a --temp-dir cluster does not write).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HOST = "127.0.0.1"
# Ray 2.60 turns token auth on for a head when ~/.ray/auth_token exists, but not for a joining
# worker; this loopback-only test cluster runs without it, and so must every client of it.
CLUSTER_ENV = {"RAY_AUTH_MODE": "disabled"}
START_TIMEOUT_S = 120


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


PORT_NAMES = (
    "node-manager",
    "object-manager",
    "dashboard-agent-listen",
    "dashboard-agent-grpc",
    "runtime-env-agent",
    "metrics-export",
)
WORKER_PORTS = 200  # a node's own range of worker ports, away from the other node's


def _node_ports() -> list[str]:
    low = free_port()
    ports = {f"--{name}-port": _free_port_outside(low) for name in PORT_NAMES}
    ports |= {"--min-worker-port": low, "--max-worker-port": low + WORKER_PORTS}
    return [f"{flag}={port}" for flag, port in ports.items()]


def _free_port_outside(low: int) -> int:
    while True:
        port = free_port()
        if not low <= port <= low + WORKER_PORTS:
            return port


@dataclass
class RayCluster:
    address: str
    temp_dirs: list[Path] = field(default_factory=list)

    def add_worker(self, num_cpus: int, resources: dict[str, float]) -> None:
        temp_dir = Path(tempfile.mkdtemp(prefix="rw", dir="/tmp"))
        self.temp_dirs.append(temp_dir)
        _ray_start(
            f"--address={self.address}",
            f"--num-cpus={num_cpus}",
            f"--resources={json.dumps(resources)}",
            f"--temp-dir={temp_dir}",
        )

    def wait_for_nodes(self, count: int) -> list[dict]:
        """The alive nodes, once ``count`` of them have joined (asked in a subprocess, so this
        test process never holds a Ray connection of its own)."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            nodes = alive_nodes(self.address)
            if len(nodes) >= count or time.monotonic() > deadline:
                return nodes
            time.sleep(1)

    def kill_worker(self, index: int = 0) -> None:
        """Lose worker node ``index`` at once, as a preempted host does: SIGKILL its raylet, its
        agents and every worker process under it. The head and other workers live on."""
        kill_processes_under([self.temp_dirs[1 + index]])

    def stop(self) -> None:
        """Kill this cluster's processes by pid (never `ray stop`, which kills every Ray
        process on the host, other users' too), then remove its temp dirs."""
        kill_processes_under(self.temp_dirs)
        for temp_dir in self.temp_dirs:
            shutil.rmtree(temp_dir, ignore_errors=True)


def kill_processes_under(temp_dirs: list[Path]) -> None:
    """SIGKILL every process whose command line names one of ``temp_dirs`` (the GCS, raylets,
    agents, and the workers they spawned), and their children."""
    marks = [str(temp_dir) for temp_dir in temp_dirs]
    table = _process_table()
    ours = {pid for pid, (_, cmdline) in table.items() if any(m in cmdline for m in marks)}
    ours -= _ancestors(table)  # e.g. a shell whose command line names the dir
    while True:
        children = {pid for pid, (parent, _) in table.items() if parent in ours} - ours
        if not children:
            break
        ours |= children
    for pid in ours:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def client_env() -> dict[str, str]:
    return {**os.environ, **CLUSTER_ENV}


def _ancestors(table: dict[int, tuple[int, str]]) -> set[int]:
    pids, pid = set(), os.getpid()
    while pid in table and pid not in pids:
        pids.add(pid)
        pid = table[pid][0]
    return pids


def _process_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line), read from /proc."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        table[int(entry.name)] = (parent, cmdline)
    return table


def _ray_cli() -> str:
    """The ``ray`` of this interpreter's environment, so ``.venv/bin/python -m pytest`` works
    without the venv on PATH (and never starts another install's Ray)."""
    beside = Path(sys.executable).parent / "ray"
    return str(beside) if beside.exists() else "ray"


def _ray_start(*args: str) -> None:
    command = [
        _ray_cli(),
        "start",
        f"--node-ip-address={HOST}",
        "--disable-usage-stats",
        *_node_ports(),
        *args,
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=START_TIMEOUT_S, env=client_env()
    )
    if done.returncode:
        raise RuntimeError(
            f"{' '.join(command)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )


def start_head(num_cpus: int, resources: dict[str, float]) -> RayCluster:
    temp_dir = Path(tempfile.mkdtemp(prefix="rh", dir="/tmp"))
    port = free_port()
    cluster = RayCluster(f"{HOST}:{port}", [temp_dir])
    try:
        _ray_start(
            "--head",
            f"--port={port}",
            f"--num-cpus={num_cpus}",
            "--num-gpus=0",
            f"--resources={json.dumps(resources)}",
            "--include-dashboard=false",
            f"--temp-dir={temp_dir}",
        )
    except BaseException:
        cluster.stop()
        raise
    return cluster


NODES_SCRIPT = """
import json, sys, ray
ray.init(address=sys.argv[1], log_to_driver=False, configure_logging=False)
print(json.dumps([{"node_id": n["NodeID"], "resources": n["Resources"]}
                  for n in ray.nodes() if n["Alive"]]))
ray.shutdown()
"""


def alive_nodes(address: str) -> list[dict]:
    out = subprocess.run(
        [sys.executable, "-c", NODES_SCRIPT, address],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=client_env(),
    ).stdout
    return json.loads(out.strip().splitlines()[-1])
