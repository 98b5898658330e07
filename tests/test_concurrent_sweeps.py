"""Two sweeps of the same name started at once into one --results-dir, on one real cluster:
each gets its own run folder, each finishes complete and readable, and no trial id is shared."""

from __future__ import annotations

import json

import pytest
from sweep_process import IN_THE_TRIAL_PROCESS, run_dirs, start_sweep

from suite.store.reader import load_run

pytestmark = [pytest.mark.train, pytest.mark.cluster, pytest.mark.timeout(180)]

# The smallest sweep (2 tiny CartPole trials), its injected crash switched off.
NO_CRASH = {"crash_after_steps": 300, "crash_seeds": []}


def test_two_sweeps_at_once_never_share_a_run(ray_cluster_address, tmp_path):
    results = tmp_path / "results"
    args = ["fault_drill", "--no-report", "--results-dir", str(results)]
    args += ["--set", f"env_config={json.dumps(NO_CRASH)}", *IN_THE_TRIAL_PROCESS]
    args += ["--address", ray_cluster_address]
    sweeps = [start_sweep(tmp_path / f"sweep{i}.log", *args) for i in (1, 2)]
    try:
        codes = [sweep.wait(timeout=300) for sweep in sweeps]
    finally:
        for sweep in sweeps:
            sweep.kill()
    assert codes == [0, 0], [sweep.output()[-2000:] for sweep in sweeps]

    runs = run_dirs(results, "fault_drill")
    assert len(runs) == 2, runs
    written = {
        line.split("Writing to ", 1)[1].strip()
        for s in sweeps
        for line in s.output().splitlines()
        if "Writing to " in line
    }
    assert written == {str(run) for run in runs}
    loaded = [load_run(run) for run in runs]
    for run in loaded:
        assert run.metadata["status"] == "completed" and run.metadata["run_id"] == run.path.name
        assert len(run.trials) == 2 and (run.trials["status"] == "TERMINATED").all()
        assert set(run.iterations["trial_id"]) == set(run.trials["trial_id"])
    first, second = (set(run.trials["trial_id"]) for run in loaded)
    assert not first & second
