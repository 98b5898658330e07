"""A worker node lost mid-sweep, on a real two-node loopback cluster of its own: the trial that
ran there is retried from its checkpoint on the head, the finished work is kept, and run.json,
trials.parquet and the report name the lost node and the retried trial."""

from __future__ import annotations

import html
import json
import time

import pandas as pd
import pytest
from ray_cluster import start_head
from sweep_process import (
    REPO,
    checkpoints_a_retry_may_start_from,
    kill_worker_under,
    last_iteration_on,
    run_dirs,
    start_sweep,
    wait_until,
)

from suite.report.build import default_report_path
from suite.store import schema
from suite.store.reader import load_run

pytestmark = [pytest.mark.train, pytest.mark.cluster, pytest.mark.timeout(300)]


@pytest.fixture
def doomed_cluster():
    """A head and one worker of 2 CPUs each, for this test alone: it kills the worker."""
    cluster = start_head(num_cpus=2, resources={"head_node": 1})
    try:
        cluster.add_worker(num_cpus=2, resources={"worker_node": 1})
        nodes = cluster.wait_for_nodes(2)
        assert len(nodes) == 2, f"the worker node did not join: {nodes}"
        yield cluster, next(n["node_id"] for n in nodes if "worker_node" in n["resources"])
    finally:
        cluster.stop()


def test_a_lost_worker_node_is_recorded_and_its_trial_resumes_on_the_head(doomed_cluster, tmp_path):
    cluster, worker_id = doomed_cluster
    results = tmp_path / "results"
    sweep = start_sweep(
        tmp_path / "sweep.log",
        "node_loss_drill",
        "--max-concurrent",
        "2",
        "--max-failures",
        "1",
        "--results-dir",
        str(results),
        "--address",
        cluster.address,
    )
    page = ""
    try:
        wait_until(lambda: run_dirs(results, "node_loss_drill"), sweep, timeout=60)
        (run_dir,) = run_dirs(results, "node_loss_drill")

        def on_worker(lines: list[dict]) -> bool:
            return lines[-1]["suite_node"]["node_id"] == worker_id

        lost_trial, killed_at = kill_worker_under(cluster, sweep, run_dir, on_worker)
        code = sweep.wait(timeout=240)
        took_s = time.monotonic() - killed_at
        reached = last_iteration_on(run_dir, lost_trial, worker_id)
    finally:
        sweep.kill()
        if run_dirs(results, "node_loss_drill"):
            report = REPO / default_report_path(load_run(run_dirs(results, "node_loss_drill")[0]))
            page = report.read_text() if report.exists() else ""
            report.unlink(missing_ok=True)  # the sweep writes it under the repository's reports/
    output = sweep.output()
    assert code == 0, output[-3000:]
    print(f"the sweep ended {took_s:.0f} s after the worker node was killed")

    run = json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())
    assert run["status"] == "completed" and run["trials"] == {"TERMINATED": 2}, run
    (lost,) = run["lost_nodes"]
    assert lost["node_id"] == worker_id and lost["trials_running"] == [lost_trial], lost
    assert "lost at" in output and worker_id[:12] in output

    trials = pd.read_parquet(run_dir / schema.TRIALS_FILE).set_index("trial_id")
    assert (trials["env_steps"] >= 12_000).all()
    other = trials.drop(index=lost_trial)
    assert (other["retries"] == 0).all() and (other["failures"] == "").all()  # nothing lost
    retried = trials.loc[lost_trial]
    assert retried["retries"] == 1
    (line,) = retried["failures"].splitlines()
    assert line.startswith("1. node ") and " (lost): " in line, line
    may_start_from = checkpoints_a_retry_may_start_from(reached)
    resumed = int(line.rpartition("; retried from the checkpoint at iteration ")[2])
    assert resumed in may_start_from, (line, may_start_from)
    (failure,) = json.loads((run_dir / "trials" / lost_trial / schema.FAILURES_FILE).read_text())
    assert failure["node_id"] == worker_id and failure["node_lost"] and failure["retried"]
    iterations = pd.read_parquet(run_dir / schema.ITERATIONS_FILE)
    assert not iterations.duplicated(["trial_id", "iteration"]).any()
    assert (
        iterations.groupby("trial_id")["iteration"]
        .apply(lambda its: sorted(its) == list(range(1, len(its) + 1)))
        .all()
    )

    assert "Nodes lost and trials retried" in page, "the report does not name the lost node"
    text = html.unescape(page)
    assert worker_id in text and lost_trial in text
    assert f"retried from the checkpoint at iteration {resumed}" in text
