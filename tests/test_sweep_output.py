"""What a sweep prints when its output goes to a file (CI, nohup): progress lines at the
interval, none of Ray's, RLlib's or W&B's own log lines, and a closing summary; a resumed run
counts its restored trials as done."""

from __future__ import annotations

import re

import pytest
from sweep_process import IN_THE_TRIAL_PROCESS, run_dirs, start_sweep

pytestmark = [pytest.mark.train, pytest.mark.timeout(250)]

PROGRESS = re.compile(r"^\[\d\d:\d\d:\d\d\] cartpole_nk: running \d+, done \d+, failed \d+")
LIBRARY_NOISE = re.compile(
    r"core_worker|raylet|\bWARNING\b|\bERROR\b|DeprecationWarning|^wandb:|^\[\d{4}-\d\d-\d\d "
    r"|^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\s|Traceback|\(pid=\d+\)"
)


def test_output_to_a_file_is_progress_and_a_summary_without_library_noise(tmp_path):
    results = tmp_path / "results"
    sweep = start_sweep(
        tmp_path / "sweep.log",
        "cartpole_nk",
        *IN_THE_TRIAL_PROCESS,
        "--progress-interval",
        "5",
        "--no-report",
        "--results-dir",
        str(results),
        wandb="offline",
    )
    try:
        assert sweep.wait(timeout=600) == 0, sweep.output()[-3000:]
    finally:
        sweep.kill()
    lines = sweep.output().splitlines()
    assert sum(bool(PROGRESS.match(line)) for line in lines) >= 3, lines
    noise = [line for line in lines if LIBRARY_NOISE.search(line)]
    assert not noise, noise
    assert "Trials: 4 TERMINATED." in lines
    took = [line for line in lines if line.startswith("Took ")]
    assert len(took) == 1 and "(estimated " in took[0] and "% of the cluster's CPUs" in took[0]
    assert any(line.startswith("  wandb sync ") for line in lines)
    (run_dir,) = run_dirs(results, "cartpole_nk")
    assert (run_dir / "logs" / "driver.log").stat().st_size > 0

    resumed = start_sweep(
        tmp_path / "resume.log",
        "cartpole_nk",
        "--resume",
        "--results-dir",
        str(results),
    )
    try:
        assert resumed.wait(timeout=300) == 0, resumed.output()[-3000:]
    finally:
        resumed.kill()
    last_progress = [line for line in resumed.output().splitlines() if PROGRESS.match(line)][-1]
    assert "done 4" in last_progress and "pending 0" in last_progress, last_progress
