"""Connecting to Ray: a local instance by default, an existing cluster when given an address."""

from __future__ import annotations

import os
import socket

import torch

from suite.sweep.planning.resources import Cluster
from suite.sweep.spec import SweepError

CONNECT_TIMEOUT_S = 5.0


class ClusterError(SweepError):
    """The Ray cluster cannot be reached."""


def local_cluster() -> Cluster:
    """This machine as a one-node cluster, without starting Ray (for planning and dry runs)."""
    return Cluster(({"CPU": float(os.cpu_count() or 1), "GPU": float(torch.cuda.device_count())},))


def check_reachable(address: str) -> None:
    """Fail in seconds with a clear message, instead of Ray's long retry loop, when nothing
    listens at ``host:port``."""
    if address == "auto" or address.startswith("ray://"):
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(f"--address {address!r} is not host:port (e.g. 127.0.0.1:6379)")
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as error:
        raise ClusterError(
            f"no Ray cluster reachable at {address} ({error.strerror or error}): start one with "
            "`ray start --head` or fix --address / RAY_ADDRESS"
        ) from None


def connect(address: str | None) -> None:
    """ray.init against ``address``, or a fresh local instance sized to this machine."""
    import ray

    if ray.is_initialized():  # e.g. inside a test session that already holds a Ray instance
        return
    common = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if address:
        check_reachable(address)
        ray.init(address=address, **common)
    else:
        # address="local": always a fresh instance, never a `ray start` cluster that happens to
        # run on this machine (plain ray.init() would attach to it).
        ray.init(
            address="local", num_cpus=os.cpu_count(), num_gpus=torch.cuda.device_count(), **common
        )
