"""The fault drill for real: a trial whose env crashes is retried, then recorded and reported as
failed with its error, while the healthy trial finishes and the sweep still exits 0."""

from __future__ import annotations

import html
import json
import re

import pytest
from sweep_process import REPO, read_trials, run_dirs, start_sweep

from suite.report.build import default_report_path
from suite.store.reader import load_run

pytestmark = [pytest.mark.train, pytest.mark.cluster, pytest.mark.timeout(180)]

MAX_FAILURES = 1
CRASH_SEED = 1


def test_crashing_trial_is_retried_recorded_and_reported(ray_cluster_address, tmp_path):
    results, crash_log = tmp_path / "results", tmp_path / "crashes.log"
    env_config = {
        "crash_after_steps": 300,
        "crash_seeds": [CRASH_SEED],
        "crash_log": str(crash_log),
    }
    sweep = start_sweep(
        tmp_path / "sweep.log",
        "fault_drill",
        "--max-failures",
        str(MAX_FAILURES),
        "--set",
        f"env_config={json.dumps(env_config)}",
        "--results-dir",
        str(results),
        "--address",
        ray_cluster_address,
    )
    try:
        code = sweep.wait(timeout=300)
    finally:
        sweep.kill()
    output = sweep.output()
    (run_dir,) = run_dirs(results, "fault_drill")
    report = REPO / default_report_path(load_run(run_dir))
    page = report.read_text() if report.exists() else ""
    report.unlink(missing_ok=True)  # the sweep writes it under the repository's reports/
    assert code == 0, output[-3000:]  # one trial failed, not all of them

    # Retried: the crashing trial's env runner crashed once, then once more per allowed failure
    # (a new process each time; one attempt may log two crashes, for a request already queued).
    crashes = crash_log.read_text().splitlines()
    assert all(f"trial seed {CRASH_SEED}" in line for line in crashes), crashes
    env_runner_processes = {line.split(":", 1)[0] for line in crashes}
    assert len(env_runner_processes) == MAX_FAILURES + 1, crashes
    (tune_error,) = (run_dir / "tune").glob("*/error.txt")  # the healthy trial has none
    assert f"_s{CRASH_SEED}_" in tune_error.parent.name  # the trial label names the seed
    tune_record = tune_error.read_text()
    assert re.findall(r"^Failure # (\d+)", tune_record, re.M) == ["1", "2"]

    trials = read_trials(run_dir).set_index("seed")
    assert trials.loc[CRASH_SEED, "status"] == "ERROR"
    # RLlib ends an env runner whose env raised (sys.exit(1) in its actor manager), so what
    # Tune records, and the store keeps, is the dead env runner, not the InjectedFault text.
    error = trials.loc[CRASH_SEED, "error"]
    assert error == tune_record.strip().splitlines()[-1] and "died" in error, error
    healthy = trials.drop(index=CRASH_SEED)
    assert (healthy["status"] == "TERMINATED").all() and (healthy["error"] == "").all()

    assert report.name in output
    failed_row = re.search(r'<tr class="failed">(.*?)</tr>', page, re.S)
    assert failed_row, "the report has no failed-trial row"
    assert trials.loc[CRASH_SEED, "trial_id"] in failed_row.group(1)
    assert error in html.unescape(failed_row.group(1))
