"""A smoke sweep on a real two-node cluster (--address) really spreads over both nodes."""

from __future__ import annotations

import json

import pytest
from sweep_process import run_dirs, start_sweep

from suite.store import schema
from suite.store.reader import load_run

pytestmark = [pytest.mark.train, pytest.mark.cluster, pytest.mark.timeout(180)]


def test_smoke_sweep_runs_trials_on_both_nodes(ray_cluster, tmp_path):
    node_ids = {node["node_id"] for node in ray_cluster.wait_for_nodes(2)}
    assert len(node_ids) == 2
    results = tmp_path / "results"
    # A CartPole trial takes 2 CPUs and each node has 2: two at once means one per node.
    sweep = start_sweep(
        tmp_path / "sweep.log",
        "cartpole_nk",
        "--budget",
        "smoke",
        "--max-concurrent",
        "2",
        "--no-report",
        "--results-dir",
        str(results),
        "--address",
        ray_cluster.address,
    )
    try:
        code = sweep.wait(timeout=300)
    finally:
        sweep.kill()
    assert code == 0, sweep.output()[-3000:]

    (run_dir,) = run_dirs(results, "cartpole_nk")
    run = load_run(run_dir)
    assert (run.trials["status"] == "TERMINATED").all()
    assert len(run.metadata["cluster"]["nodes"]) == 2
    ran_on = {trial_id: _node_of(run_dir, trial_id) for trial_id in run.trials["trial_id"]}
    assert set(ran_on.values()) == node_ids, ran_on


def _node_of(run_dir, trial_id: str) -> str:
    node = run_dir / schema.TRIAL_CONFIG_DIR / trial_id / "node.json"
    return json.loads(node.read_text())["node_id"]
