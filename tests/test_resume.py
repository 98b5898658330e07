"""--resume after the sweep process is SIGKILLed mid-run, on a real `ray start` cluster."""

from __future__ import annotations

import signal
import time

import pandas as pd
import pytest
from sweep_process import SMOKE_ONE_AT_A_TIME, read_trials, run_dirs, start_sweep, wait_until

from suite.store import schema

pytestmark = [pytest.mark.train, pytest.mark.cluster, pytest.mark.timeout(240)]


def _a_trial_done(results_root):
    def check() -> bool:
        runs = run_dirs(results_root, "cartpole_nk")
        return bool(runs) and (read_trials(runs[0])["status"] == "TERMINATED").any()

    return check


# The kill comes this long after a trial finished: longer than the runner's 1 s experiment-state
# period, shorter than Tune's default ("auto", at least 10 s), with which the finished trial
# would usually be run again on --resume.
KILL_AFTER_DONE_S = 3


TRIAL_FILES = ("iterations.parquet", "learners.parquet", "timing.json", "node.json")


def _part_bytes(run_dir, trial_ids) -> dict:
    folder = run_dir / schema.TRIAL_CONFIG_DIR
    return {
        (trial_id, name): (folder / trial_id / name).read_bytes()
        for trial_id in trial_ids
        for name in TRIAL_FILES
    }


def test_resume_after_sigkill(ray_cluster_address, tmp_path):
    results = tmp_path / "results"
    common = ["--results-dir", str(results), "--address", ray_cluster_address]
    first = start_sweep(
        tmp_path / "first.log",
        *SMOKE_ONE_AT_A_TIME,
        *common,
    )
    try:
        wait_until(_a_trial_done(results), first, timeout=240)
        time.sleep(KILL_AFTER_DONE_S)
    finally:
        first.kill()  # SIGKILL to the driver's whole process group
    assert first.process.returncode == -signal.SIGKILL
    (run_dir,) = run_dirs(results, "cartpole_nk")
    before = read_trials(run_dir)
    done = before.loc[before["status"] == "TERMINATED", "trial_id"].tolist()
    done_rows = before[before["trial_id"].isin(done)].set_index("trial_id").sort_index()
    done_parts = _part_bytes(run_dir, done)

    second = start_sweep(tmp_path / "second.log", "cartpole_nk", "--resume", *common[:4])
    assert second.wait(timeout=300) == 0, second.output()[-3000:]

    after = read_trials(run_dir)
    assert len(after) == 4 and (after["status"] == "TERMINATED").all(), after
    # Finished trials were not run again: their part files and summary rows are untouched.
    assert _part_bytes(run_dir, done) == done_parts
    pd.testing.assert_frame_equal(
        after[after["trial_id"].isin(done)].set_index("trial_id").sort_index(), done_rows
    )
    iterations = pd.read_parquet(run_dir / schema.ITERATIONS_FILE)
    assert not iterations.duplicated(["trial_id", "iteration"]).any()
    for trial_id, rows in iterations.groupby("trial_id"):
        assert sorted(rows["iteration"]) == list(range(1, len(rows) + 1)), trial_id
    assert set(iterations["trial_id"]) == set(after["trial_id"])
    assert (
        after.set_index("trial_id")["num_iterations"] == iterations.groupby("trial_id").size()
    ).all()
    learners = pd.read_parquet(run_dir / schema.LEARNERS_FILE)
    assert not learners.duplicated(["trial_id", "iteration", "learner"]).any()
    assert "Resuming" in second.output()
