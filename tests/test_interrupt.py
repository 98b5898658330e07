"""Ctrl-C on a running sweep: trials stop, the store is consolidated, run.json says interrupted,
exit 130, and the printed resume command finishes the sweep. On a real `ray start` cluster."""

from __future__ import annotations

import json
import shlex
import signal

import pandas as pd
import pytest
from sweep_process import REPO, SMOKE_ONE_AT_A_TIME, read_trials, run_dirs, start_sweep, wait_until

from suite.report.build import default_report_path
from suite.store import schema
from suite.store.reader import load_run

pytestmark = [pytest.mark.train, pytest.mark.cluster, pytest.mark.timeout(240)]

RESUME_PREFIX = "python -m suite.sweep "


def _a_trial_has_results(results_root):
    def check() -> bool:
        runs = run_dirs(results_root, "cartpole_nk")
        if not runs:
            return False
        trials = read_trials(runs[0])
        if "num_iterations" not in trials:  # no trials.parquet yet
            return False
        return ((trials["status"] == "RUNNING") & (trials["num_iterations"] > 0)).any()

    return check


def _printed_resume_command(output: str) -> list[str]:
    lines = output.splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.rstrip().endswith("Resume with:")]
    command = lines[at + 1].strip()
    assert command.startswith(RESUME_PREFIX), command
    return shlex.split(command.removeprefix(RESUME_PREFIX))


def _run_status(run_dir) -> str:
    return json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())["status"]


def test_ctrl_c_stops_cleanly_and_the_printed_command_resumes(ray_cluster_address, tmp_path):
    results = tmp_path / "results"
    first = start_sweep(
        tmp_path / "first.log",
        *SMOKE_ONE_AT_A_TIME,
        "--results-dir",
        str(results),
        "--address",
        ray_cluster_address,
    )
    try:
        wait_until(_a_trial_has_results(results), first, timeout=240)
        # A terminal's Ctrl-C signals the whole foreground process group.
        first.signal_group(signal.SIGINT)
        code = first.wait(timeout=120)
    finally:
        first.kill()
    assert code == 130, first.output()[-3000:]

    (run_dir,) = run_dirs(results, "cartpole_nk")
    assert _run_status(run_dir) == "interrupted"
    run = load_run(run_dir)
    assert (run.trials["status"] != "TERMINATED").any(), run.trials
    # Consolidated: the run-level table holds every trial's part rows.
    parts = [
        pd.read_parquet(path)
        for path in (run_dir / schema.TRIAL_CONFIG_DIR).glob("*/iterations.parquet")
    ]
    assert len(run.iterations) == sum(len(part) for part in parts) > 0

    resume_args = _printed_resume_command(first.output())
    assert resume_args[:3] == ["cartpole_nk", "--resume", run_dir.name]
    assert "--reports-dir" in resume_args  # the resumed run reports where the first would have
    second = start_sweep(tmp_path / "second.log", *resume_args)
    assert second.wait(timeout=300) == 0, second.output()[-3000:]
    assert _run_status(run_dir) == "completed"
    after = load_run(run_dir)
    assert len(after.trials) == 4 and (after.trials["status"] == "TERMINATED").all()
    assert not after.iterations.duplicated(["trial_id", "iteration"]).any()
    report = REPO / default_report_path(after)  # the resumed run reports, as a full run does
    assert report.exists()
    report.unlink()
