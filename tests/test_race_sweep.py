"""A real raced sweep, end to end: rungs as ordinary trials, race.json, the report's race
section, and --promote refusing an inconclusive verdict."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from suite.store import schema

# The module's fixture trains a raced sweep: the first test's limit covers it.
pytestmark = [pytest.mark.train, pytest.mark.timeout(330)]

RACE_SWEEP = """
from suite.sweep.race.schedule import Race, Rung
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="race_drill",
    description="two CartPole cells raced over two rungs",
    configs=("cartpole_probed",),
    axes={"k": (1, 2)},
    settings={"num_env_runners": 0},  # sampling in the trial's process: no env runner to start
    budgets={
        "smoke": Budget(
            env_steps=2_000,
            seeds=2,
            description="rung 0: 1 seed x 1,000 steps; rung 1: 2 new seeds x 2,000 steps",
            race=Race((Rung(1_000, 1), Rung(2_000, 2))),
        )
    },
)
"""


def _run(*args: str, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def raced_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("race")
    sweep_file = root / "race_drill.py"
    sweep_file.write_text(textwrap.dedent(RACE_SWEEP))
    done = _run(
        "-m", "suite.sweep", str(sweep_file), "--results-dir", str(root / "results"),
        "--wandb", "off", "--first-seed", "10", "--no-report", timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (run_dir,) = (root / "results" / "race_drill").iterdir()
    report = _run("-m", "suite.report", str(run_dir), "--out", str(root / "r.html"), timeout=300)
    assert report.returncode == 0, report.stderr[-3000:]
    return run_dir, done.stdout + (root / "r.html").read_text(encoding="utf-8")


def test_every_rung_runs_as_ordinary_trials_with_its_own_budget(raced_run):
    run_dir, output = raced_run
    assert "race of 2 cells" in output
    trials = pd.read_parquet(run_dir / schema.TRIALS_FILE)
    assert (trials["status"] == "TERMINATED").all()
    assert trials.groupby("rung").size().to_dict() == {0: 2, 1: 4}
    for rung, budget in ((0, 1_000), (1, 2_000)):
        steps = trials.loc[trials["rung"] == rung, "env_steps"]
        assert (steps >= budget).all() and (steps < 2 * budget).all(), steps
    seeds = trials.groupby("rung")["seed"].apply(lambda s: sorted(set(s))).to_dict()
    assert seeds == {0: [10], 1: [11, 12]}  # fresh seeds per rung, from --first-seed
    metadata = json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())
    assert metadata["status"] == "completed" and metadata["first_seed"] == 10
    assert "PENDING" not in metadata["trials"]


def test_race_json_records_each_rung_and_why_nothing_was_eliminated(raced_run):
    run_dir, _ = raced_run
    race = json.loads((run_dir / schema.RACE_FILE).read_text())
    assert race["finished"] and [d["rung"] for d in race["decisions"]] == [0, 1]
    first = race["decisions"][0]
    assert first["survivors"] == sorted(first["racing"])
    assert all("too few to test" in c["evidence"] for c in first["comparisons"])
    assert len(race["trials"]) == 6


def test_report_shows_the_race_and_judges_the_last_rung(raced_run):
    _, html = raced_run
    assert "The race: what each rung eliminated" in html
    assert "Where the race spent its env steps" in html or "env steps spent per cell" in html
    assert "4 trials" in html  # the verdict's trials: rung 1 only


def test_promote_refuses_an_inconclusive_verdict(raced_run, tmp_path):
    """Known truth: every return in the real run's store set alike, so the cells tie."""
    run_dir, _ = raced_run
    tied = _with_returns(run_dir, tmp_path / "run", lambda iterations: 20.0)
    done = subprocess.run(
        [sys.executable, "-m", "suite.report", str(tied), "--promote", "--out",
         str(tmp_path / "r.html")],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "SUITE_PROMOTED_DIR": str(tmp_path / "promoted")},
    )  # fmt: skip
    assert done.returncode == 2
    assert "refusing to promote an inconclusive verdict" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "promoted").exists()


def _with_returns(run_dir, copy_to, returns):
    """A copy of the run whose iterations' returns are ``returns(iterations)``."""
    shutil.copytree(run_dir, copy_to)
    iterations = pd.read_parquet(copy_to / schema.ITERATIONS_FILE)
    iterations["episode_return_mean"] = returns(iterations)
    iterations.to_parquet(copy_to / schema.ITERATIONS_FILE, index=False)
    return copy_to


def test_promote_writes_a_leaning_winner_with_its_evidence(raced_run, tmp_path, monkeypatch):
    """Known truth: the real run's K=2 returns lifted by 1,000 in the store, so K=2 leads with
    every seed (2 seeds: leaning, which may be promoted; inconclusive may not)."""
    run_dir, _ = raced_run
    lifted = _with_returns(
        run_dir,
        tmp_path / "run",
        lambda it: it["episode_return_mean"] + 1_000.0 * (it["k"] == 2),
    )
    promoted_dir = tmp_path / "promoted"
    monkeypatch.setenv("SUITE_PROMOTED_DIR", str(promoted_dir))

    from suite.configs.registry import get_config
    from suite.report.promotion import promote_run

    path = promote_run(lifted, "cartpole_raced")
    record = json.loads(path.read_text())
    assert record["base"] == "cartpole_probed" and record["settings"]["k"] == 2
    assert "min_sample_timesteps_per_iteration" not in record["settings"]  # a run's sizing
    evidence = record["evidence"]
    assert evidence["verdict"] == "leaning" and evidence["raced"] is True
    assert evidence["ray_version"] == "2.60.0" and evidence["run_id"] == run_dir.name
    config = get_config("cartpole_raced")
    assert config.build().circular_buffer_iterations_per_batch == 2
    assert config.threshold == get_config("cartpole_probed").threshold
    listed = subprocess.run(
        [sys.executable, "-m", "suite.configs"], capture_output=True, text=True, check=True,
        env={**os.environ, "SUITE_PROMOTED_DIR": str(promoted_dir)},
    ).stdout  # fmt: skip
    assert "cartpole_raced" in listed and "leaning" in listed
