"""The GPU row's planning on CPU: a Ray cluster that declares 4 GPUs, and a --dry-run against it.

Starts Ray (declared resources only, nothing trains): run under ``flock /tmp/ray-train.lock``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

pytestmark = [pytest.mark.cluster]  # starts a Ray head (declared GPUs; nothing trains)

HOST_CLUSTER = textwrap.dedent("""
    import sys, ray
    ray.init(address="local", num_cpus=8, num_gpus=4, include_dashboard=False)
    print(ray.get_runtime_context().gcs_address, flush=True)
    sys.stdin.read()  # hold the cluster until the test closes our stdin
    ray.shutdown()
""")


# Ray 2.60 turns token auth on when ~/.ray/auth_token exists; this loopback-only cluster and its
# client run without it (as tests/ray_cluster.py does).
NO_AUTH = {**os.environ, "RAY_AUTH_MODE": "disabled", "COLUMNS": "250"}


@pytest.fixture
def gpu_cluster_address():
    """A local Ray head with 8 CPUs and 4 GPUs declared, in its own process."""
    host = subprocess.Popen(
        [sys.executable, "-c", HOST_CLUSTER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=NO_AUTH,
    )
    try:
        yield host.stdout.readline().strip()
    finally:
        host.stdin.close()
        host.wait(timeout=60)


def test_learner_scaling_full_plans_gpu_trials_on_declared_gpus(gpu_cluster_address):
    command = [
        sys.executable,
        "-m",
        "suite.sweep",
        "learner_scaling",
        "--budget",
        "full",
        "--dry-run",
        "--address",
        gpu_cluster_address,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=NO_AUTH)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "36 trials" in out
    assert re.search(r"8 CPU, 4 GPU", out), out[-500:]
    # 4 learners x 1 GPU each: a trial whose request totals 4 GPUs, planned, not refused.
    assert re.search(r"[\d.]+ CPU, 4 GPU =", out), out[-1500:]
    at_once = int(re.search(r"(\d+) trial\(s\) at once", out).group(1))
    # 8 CPUs and 4 GPUs: the GPU trials (1 CPU each) pack several at once, never all 36.
    assert 2 <= at_once < 36
    assert "can never be scheduled" not in out + done.stderr
