"""A search SIGKILLed after its first suggestion concluded, then resumed: the search goes on from
its suggestions and its Optuna study, no finished trial runs again, and no suggestion is asked
twice."""

from __future__ import annotations

import json
import signal
import textwrap
import time

import pytest
from sweep_process import read_trials, run_dirs, start_sweep, wait_until
from test_search_sweep import SEARCH_SWEEP

from suite.store import schema

pytestmark = [pytest.mark.train, pytest.mark.timeout(900)]
KILL_AFTER_CONCLUSION_S = 3  # longer than the runner's 1 s experiment-state period


def _a_suggestion_concluded(results_root):
    def check() -> bool:
        runs = run_dirs(results_root, "search_drill")
        path = runs[0] / schema.SEARCH_FILE if runs else None
        if not (path and path.exists()):
            return False
        record = json.loads(path.read_text())
        return any(s["status"] in ("complete", "stopped") for s in record["suggestions"])

    return check


def test_a_killed_search_resumes_without_repeating_finished_suggestions(tmp_path):
    sweep_file = tmp_path / "search_drill.py"
    sweep_file.write_text(textwrap.dedent(SEARCH_SWEEP))
    results = tmp_path / "results"
    common = ["--results-dir", str(results), "--no-report"]
    first = start_sweep(tmp_path / "first.log", str(sweep_file), *common)
    try:
        wait_until(_a_suggestion_concluded(results), first, timeout=300)
        time.sleep(KILL_AFTER_CONCLUSION_S)
    finally:
        first.kill()
    assert first.process.returncode == -signal.SIGKILL
    (run_dir,) = run_dirs(results, "search_drill")
    before = read_trials(run_dir)
    finished = set(before.query("status == 'TERMINATED'")["trial_id"])
    concluded = {
        s["id"]: s["settings"]
        for s in json.loads((run_dir / schema.SEARCH_FILE).read_text())["suggestions"]
        if s["status"] in ("complete", "stopped")
    }
    assert finished and concluded

    second = start_sweep(tmp_path / "second.log", str(sweep_file), "--resume", *common)
    assert second.wait(timeout=600) == 0, second.output()[-3000:]

    after = read_trials(run_dir)
    assert finished <= set(after["trial_id"])  # kept, not run again under new ids
    kept = after[after["trial_id"].isin(finished)].set_index("trial_id")
    assert (kept["status"] == "TERMINATED").all()
    assert not after.duplicated(["suggestion", "phase", "seed"]).any(), after
    record = json.loads((run_dir / schema.SEARCH_FILE).read_text())
    assert record["finished"]
    suggested = [s for s in record["suggestions"] if s["id"] != 0 and s["status"] != "invalid"]
    assert len(suggested) == 3
    for sid, settings in concluded.items():  # the resumed search kept what it had decided
        assert next(s for s in suggested if s["id"] == sid)["settings"] == settings
    assert json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())["status"] == "completed"
