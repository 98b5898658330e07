"""A race on a real `ray start` cluster (--address), SIGKILLed after its first rung was decided,
then resumed: the race goes on from its decisions, and no trial of rung 0 runs again."""

from __future__ import annotations

import json
import signal
import textwrap
import time

import pytest
from sweep_process import read_trials, run_dirs, start_sweep, wait_until
from test_race_sweep import RACE_SWEEP

from suite.store import schema

pytestmark = [pytest.mark.train, pytest.mark.cluster, pytest.mark.timeout(250)]
KILL_AFTER_DECISION_S = 3  # longer than the runner's 1 s experiment-state period


def _first_rung_decided(results_root):
    def check() -> bool:
        runs = run_dirs(results_root, "race_drill")
        path = runs[0] / schema.RACE_FILE if runs else None
        return bool(path and path.exists() and json.loads(path.read_text())["decisions"])

    return check


def test_a_killed_race_resumes_from_its_decisions(ray_cluster_address, tmp_path):
    sweep_file = tmp_path / "race_drill.py"
    sweep_file.write_text(textwrap.dedent(RACE_SWEEP))
    results = tmp_path / "results"
    common = ["--results-dir", str(results), "--address", ray_cluster_address, "--no-report"]
    first = start_sweep(tmp_path / "first.log", str(sweep_file), *common)
    try:
        wait_until(_first_rung_decided(results), first, timeout=240)
        time.sleep(KILL_AFTER_DECISION_S)
    finally:
        first.kill()
    assert first.process.returncode == -signal.SIGKILL
    (run_dir,) = run_dirs(results, "race_drill")
    rung0 = set(read_trials(run_dir).query("rung == 0")["trial_id"])
    assert len(rung0) == 2

    second = start_sweep(tmp_path / "second.log", str(sweep_file), "--resume", *common)
    assert second.wait(timeout=300) == 0, second.output()[-3000:]

    after = read_trials(run_dir)
    assert (after["status"] == "TERMINATED").all(), after
    assert after.groupby("rung").size().to_dict() == {0: 2, 1: 4}
    assert set(after.query("rung == 0")["trial_id"]) == rung0  # not run again
    assert not after.duplicated(["k", "seed"]).any()
    race = json.loads((run_dir / schema.RACE_FILE).read_text())
    assert race["finished"] and [d["rung"] for d in race["decisions"]] == [0, 1]
    assert json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())["status"] == "completed"
