"""A trial in a reused process (Tune's ``reuse_actors``; ``SuiteAPPO.reset_config`` builds the
next algorithm in place) trains as it would in a new process: the same returns and buffer counts
for the same seed over its first iterations, and its own record in the store.

Only the first iterations: APPO samples while it learns, so which weights the env runner holds
for which step depends on timing, and two runs of one seed can part later even in new processes
(a full CI run saw a reused and a new run part after a few iterations: commit e6e1da0 has the
numbers). A different build
(initial weights, env seeds, connectors) shows from the first iteration."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from sweep_process import run_dirs, start_sweep, trial_processes

from suite.store import schema
from suite.store.files import read_parquet

pytestmark = [pytest.mark.train, pytest.mark.timeout(400)]

SWEEP_FILE = """
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="reuse_drill",
    description="two CartPole seeds in one process, then the second alone in a new one",
    configs=("cartpole_probed",),
    axes={},
    budgets={
        "reused": Budget(
            env_steps=4_000, seeds=2, description="x", checkpoints=False, reuse_processes=True
        ),
        "fresh": Budget(env_steps=4_000, seeds=1, description="x", checkpoints=False),
    },
)
"""
# Counted by the trial itself, so equal in a reused and a new process if the build is the same.
SAME = ["iteration", "env_steps", "episode_return_mean", "episode_return_min", "buffer_capacity"]
BEFORE_TIMING = 3  # iterations compared: before the learner's timing has parted two runs here


def _sweep(root: Path, sweep_file: Path, results: Path, *args: str) -> Path:
    done = start_sweep(
        root / f"{args[1]}.log",
        str(sweep_file),
        *args,
        "--no-report",
        "--results-dir",
        str(results),
    )
    try:
        assert done.wait(timeout=300) == 0, done.output()[-3000:]
    finally:
        done.kill()
    return run_dirs(results, "reuse_drill")[-1]


def _curve(run_dir: Path, seed: int) -> pd.DataFrame:
    iterations = read_parquet(run_dir / schema.ITERATIONS_FILE)
    return (
        iterations[iterations["seed"] == seed].sort_values("iteration")[SAME].reset_index(drop=True)
    )


def test_a_trial_in_a_reused_process_trains_as_in_a_new_one(tmp_path):
    sweep_file = tmp_path / "reuse_drill.py"
    sweep_file.write_text(textwrap.dedent(SWEEP_FILE))
    results = tmp_path / "results"
    reused = _sweep(tmp_path, sweep_file, results, "--budget", "reused")
    fresh = _sweep(tmp_path, sweep_file, results, "--budget", "fresh", "--first-seed", "1")

    pids = trial_processes(reused)
    assert len(pids) == 2 and len(set(pids.values())) == 1  # both seeds ran in one process
    trials = read_parquet(reused / schema.TRIALS_FILE)
    assert sorted(trials["seed"]) == [0, 1] and (trials["status"] == "TERMINATED").all()
    for trial_id in trials["trial_id"]:
        timing = json.loads((reused / "trials" / trial_id / schema.TIMING_FILE).read_text())
        assert timing["started_at"] < timing["ended_at"]
    second = _curve(reused, seed=1)  # built in the process the first seed had used
    assert second["env_steps"].iloc[-1] >= 4_000
    pd.testing.assert_frame_equal(
        second.head(BEFORE_TIMING), _curve(fresh, seed=1).head(BEFORE_TIMING)
    )
