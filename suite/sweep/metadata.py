"""Where and with what a run happened: code version, library versions, hardware."""

from __future__ import annotations

import functools
import os
import platform
import socket
import subprocess
import sys
from pathlib import Path

import ray
import torch

REPO_ROOT = Path(__file__).resolve().parents[2]


def git_commit() -> str:
    """The suite's commit, with ``+dirty`` when the work tree has changes; "unknown" outside git."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def versions() -> dict[str, str]:
    import gymnasium

    return {
        "python": platform.python_version(),
        "ray": ray.__version__,
        "torch": torch.__version__,
        "gymnasium": gymnasium.__version__,
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@functools.cache
def node_hardware() -> dict:
    """This node's hardware, as the process running on it sees it."""
    gpus = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    return {
        "hostname": socket.gethostname(),
        "cpu_model": _cpu_model(),
        "cpu_cores": os.cpu_count(),
        "gpus": gpus,
        "platform": platform.platform(),
    }


def command_line() -> str:
    return " ".join([Path(sys.executable).name, "-m", "suite.sweep", *sys.argv[1:]])
