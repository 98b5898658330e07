"""The hardware of the node a process runs on: read in each trial's process (every result
carries it, so a trial records the node it really ran on) and by the sweep for its own node."""

from __future__ import annotations

import functools
import os
import platform
import socket
from pathlib import Path

import torch


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
