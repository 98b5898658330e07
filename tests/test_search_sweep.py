"""A tiny real search, end to end: suggestions on several seeds, validation on held-out seeds, the
store's search columns, the report's search section and ``--promote`` on held-out evidence only.

The run is small (CartPole, 3 suggestions x 3 seeds x 1,500 env steps, then 4 configs x 10
held-out seeds), so whether its pick beats the config is chance. Its trials sample in their own
process (``num_env_runners`` 0): a trial's set-up is then mostly the algorithm's build, and the
49 trials take about 3 min here instead of 11 (each env runner is a new process, and a process
handed to the next trial builds new ones). It is SIGKILLed once, after its
first suggestion concluded, and resumed to its end: the resumed search goes on from its
suggestions and its Optuna study, no finished trial runs again and no suggestion is asked twice,
and the finished run is the one every other test here reads. ``--promote`` is therefore
checked twice more on copies of the real store whose held-out returns are rewritten to a known
truth: once with the config clearly worse (promoted, with its evidence), once with all equal
(refused, with the reason)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sweep_process import read_trials, run_dirs, start_sweep, trial_processes, wait_until

from suite.configs.axes import SEED
from suite.report.analysis import search
from suite.store import schema
from suite.store.files import read_parquet, write_parquet
from suite.store.reader import load_run

# the fixture runs the drill twice: 175 s here
pytestmark = [pytest.mark.train, pytest.mark.timeout(600)]
KILL_AFTER_CONCLUSION_S = 3  # longer than the runner's 1 s experiment-state period

SEARCH_SWEEP = """
from suite.sweep.search.schedule import Search
from suite.sweep.search.space import Choice, IntUniform, LogUniform, SearchSpace
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="search_drill",
    description="a tiny CartPole search",
    configs=("cartpole_probed",),
    axes={},
    settings={"num_env_runners": 0, "num_cpus_for_main_process": 0.5},
    budgets={
        "smoke": Budget(
            env_steps=1_500,
            seeds=3,
            description="3 suggestions x 3 seeds, then 4 configs x 10 held-out seeds",
            search=Search(
                SearchSpace({
                    "lr": LogUniform(1e-4, 3e-3),
                    "num_epochs": IntUniform(1, 4),
                    "model.fcnet_hiddens": Choice([32, 32], [64, 64]),
                }),
                suggestions=3,
                startup_suggestions=3,
            ),
        )
    },
)
"""


def _run(*args: str, timeout: float, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=timeout, env=env
    )


@dataclass(frozen=True)
class Killed:
    """What the store held when the first run was SIGKILLed."""

    returncode: int
    finished: set[str]  # Tune trial ids
    concluded: dict[int, dict]  # suggestion id -> its settings


@dataclass(frozen=True)
class Searched:
    run_dir: Path
    report: str
    killed: Killed


def _a_suggestion_concluded(results_root):
    def check() -> bool:
        runs = run_dirs(results_root, "search_drill")
        path = runs[0] / schema.SEARCH_FILE if runs else None
        if not (path and path.exists()):
            return False
        record = json.loads(path.read_text())
        return any(s["status"] in ("complete", "stopped") for s in record["suggestions"])

    return check


def _kill_after_a_suggestion(root: Path, sweep_file: Path, results: Path) -> Killed:
    first = start_sweep(root / "first.log", str(sweep_file), "--results-dir", str(results))
    try:
        wait_until(_a_suggestion_concluded(results), first, timeout=300)
        time.sleep(KILL_AFTER_CONCLUSION_S)
    finally:
        first.kill()
    (run_dir,) = run_dirs(results, "search_drill")
    trials = read_trials(run_dir)
    concluded = {
        s["id"]: s["settings"]
        for s in json.loads((run_dir / schema.SEARCH_FILE).read_text())["suggestions"]
        if s["status"] in ("complete", "stopped")
    }
    finished = set(trials.query("status == 'TERMINATED'")["trial_id"])
    return Killed(first.process.returncode, finished, concluded)


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    root = tmp_path_factory.mktemp("search")
    sweep_file = root / "search_drill.py"
    sweep_file.write_text(textwrap.dedent(SEARCH_SWEEP))
    results = root / "results"
    killed = _kill_after_a_suggestion(root, sweep_file, results)
    resumed = start_sweep(
        root / "resumed.log", str(sweep_file), "--resume", "--results-dir", str(results)
    )
    assert resumed.wait(timeout=420) == 0, resumed.output()[-3000:]
    (run_dir,) = run_dirs(results, "search_drill")
    lines = resumed.output().splitlines()
    report = next(line for line in lines if line.startswith("Report: "))
    return Searched(run_dir, report.removeprefix("Report: ").strip(), killed)


def test_a_killed_search_resumes_without_repeating_finished_suggestions(searched):
    killed, run_dir = searched.killed, searched.run_dir
    assert killed.returncode == -signal.SIGKILL
    assert killed.finished and killed.concluded
    after = read_trials(run_dir)
    assert killed.finished <= set(after["trial_id"])  # kept, not run again under new ids
    kept = after[after["trial_id"].isin(killed.finished)].set_index("trial_id")
    assert (kept["status"] == "TERMINATED").all()
    assert not after.duplicated(["suggestion", "phase", "seed"]).any(), after
    record = json.loads((run_dir / schema.SEARCH_FILE).read_text())
    suggested = [s for s in record["suggestions"] if s["id"] != 0 and s["status"] != "invalid"]
    assert len(suggested) == 3
    for sid, settings in killed.concluded.items():  # the resumed search kept what it had decided
        assert next(s for s in suggested if s["id"] == sid)["settings"] == settings


def test_suggestions_run_on_common_seeds_and_validation_on_held_out_ones(searched):
    run_dir = searched.run_dir
    trials = read_parquet(run_dir / schema.TRIALS_FILE)
    assert {"hp_lr", "hp_num_epochs", "hp_model.fcnet_hiddens"} <= set(trials.columns)
    found = trials[trials["phase"] == "search"]
    assert sorted(found["suggestion"].unique()) == [1, 2, 3]
    for _, group in found.groupby("suggestion"):
        assert sorted(group["seed"]) == [0, 1, 2]
        assert group["hp_lr"].nunique() == 1
    held_out = trials[trials["phase"] == "validation"]
    assert set(held_out["seed"]).isdisjoint(found["seed"])
    assert held_out.groupby("suggestion").size().to_dict() == {0: 10, 1: 10, 2: 10, 3: 10}
    assert held_out.query("suggestion == 0")["hp_lr"].isna().all()  # the config's own settings
    record = json.loads((run_dir / schema.SEARCH_FILE).read_text())
    assert record["finished"] and record["phase"] == "done"
    assert json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())["status"] == "completed"
    config = json.loads(next((run_dir / "trials").glob("*/config.json")).read_text())
    resolved = config["resolved_config"]  # the sweep's settings reach every trial
    assert (resolved["num_env_runners"], resolved["num_cpus_for_main_process"]) == (0, 0.5)


def test_the_search_hands_each_trial_process_to_the_next_trial(searched):
    pids = trial_processes(searched.run_dir)
    assert len(pids) >= 40  # 9 search trials and 40 held-out ones, across the kill and resume
    # A process per trial would give one pid each; reused processes serve many trials apiece.
    assert len(set(pids.values())) <= len(pids) / 3, sorted(pids.values())


def _verdict(run_dir):
    run = load_run(run_dir)
    return search.validation(run.search, search.search_trials(run))


def test_the_report_states_the_held_out_verdict(searched):
    run_dir, report = searched.run_dir, searched.report
    html = Path(report).read_text(encoding="utf-8")
    verdict = _verdict(run_dir)
    assert "The search and its verdict" in html
    assert verdict.reason().replace("'", "&#39;") in html
    assert "the baseline (cartpole_probed as this search ran it)" in html


def _promote(run_dir, promoted_dir):
    env = os.environ | {"SUITE_PROMOTED_DIR": str(promoted_dir)}
    page = str(Path(promoted_dir) / "report.html")  # not the repo's reports/
    return _run(
        "-m", "suite.report", str(run_dir), "--promote", "drill", "--out", page,
        timeout=300, env=env,
    )  # fmt: skip


def test_promote_follows_the_real_runs_held_out_verdict(searched, tmp_path):
    run_dir = searched.run_dir
    verdict = _verdict(run_dir)
    done = _promote(run_dir, tmp_path)
    if verdict.promotable:
        assert done.returncode == 0, done.stderr
        assert json.loads((tmp_path / "drill.json").read_text())["evidence"]["suggestion"]
    else:
        assert done.returncode == 2
        assert verdict.reason() in done.stderr


def _rewrite_held_out(run_dir, target, returns_by_suggestion) -> None:
    """A copy of the store whose validation trials end at the given return."""
    shutil.copytree(run_dir, target)
    iterations = read_parquet(target / schema.ITERATIONS_FILE)
    trials = read_parquet(target / schema.TRIALS_FILE).set_index("trial_id")
    held_out = trials[trials["phase"] == "validation"]
    for trial_id, row in held_out.iterrows():
        mask = iterations["trial_id"] == trial_id
        # the noise is the seed's, so suggestions differ by exactly their truths on every seed
        # whatever order the store lists its trials in
        noise = np.random.default_rng(int(row[SEED.name])).normal(0, 5)
        value = returns_by_suggestion(int(row["suggestion"])) + noise
        iterations.loc[mask, "episode_return_mean"] = value
    write_parquet(target / schema.ITERATIONS_FILE, iterations)


def test_promote_writes_a_pick_that_beats_the_config_with_its_held_out_evidence(searched, tmp_path):
    run_dir = searched.run_dir
    store = tmp_path / "store"
    # 2 and 3 are 1 apart on every seed under noise of sd 5: 2 is the pick, 3 its tie
    _rewrite_held_out(run_dir, store, lambda sid: {0: 20.0, 1: 60.0, 2: 200.0, 3: 199.0}[sid])
    done = _promote(store, tmp_path / "promoted")
    assert done.returncode == 0, done.stderr
    promoted = json.loads((tmp_path / "promoted" / "drill.json").read_text())
    evidence = promoted["evidence"]
    tied = [int(name.removeprefix("suggestion ")) for name in evidence["tied_with"]]
    assert sorted([evidence["suggestion"], *tied]) == [2, 3]
    assert evidence["held_out_seeds"] == list(range(10_000, 10_010))
    assert evidence["config_return_iqm"][0] == pytest.approx(20.0, abs=6)
    assert evidence["welch_p"] < evidence["holm_limit"]
    record = json.loads((store / schema.SEARCH_FILE).read_text())
    picked = next(s for s in record["suggestions"] if s["id"] == evidence["suggestion"])
    assert {k: promoted["settings"][k] for k in picked["settings"]} == picked["settings"]
    assert "num_cpus_per_env_runner" not in promoted["settings"]  # the run's, not the config's
    assert "held-out seeds" in promoted["expected"]


def test_promote_refuses_when_no_suggestion_beats_the_config(searched, tmp_path):
    run_dir = searched.run_dir
    store = tmp_path / "store"
    _rewrite_held_out(run_dir, store, lambda sid: 50.0)
    done = _promote(store, tmp_path / "promoted")
    assert done.returncode == 2
    assert (
        "refusing to promote: no suggestion beats the baseline (cartpole_probed as this search "
        "ran it)" in done.stderr
    )
    assert not (tmp_path / "promoted").exists()


def test_the_search_data_reads_with_pandas_alone(searched):
    run_dir = searched.run_dir
    trials = pd.read_parquet(run_dir / schema.TRIALS_FILE)
    assert trials["status"].isin(["TERMINATED", "STOPPED"]).all()
