"""Bad input costs seconds: exit code 2, one line on stderr naming the problem and the fix, no
traceback, nothing started and nothing on disk touched. No Ray needed.

One case per command runs as a real subprocess (``python -m ...``, what a user types: the exit
code and stderr as a shell sees them); the rest call the same ``main(argv)`` in this process
(``cli_runs.py``), which skips a few seconds of imports per case. In-process sweep cases add
``--dry-run`` where their error is raised while planning, before a dry run returns, so that should
validation ever regress nothing trains inside the test process; the unwritable results folder
is found only when the run folder is made, after planning, so those run without it (and
``ray.init`` is refused in this process, so a regression there fails instead of training).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path

import pytest
from cli_runs import assert_one_line_error, run_cli, run_main

from suite.bench.synthetic_store import write_synthetic_run
from suite.store import schema


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` with a hash of its bytes."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def results_root(tmp_path):
    """A results folder that already holds a finished run (which bad input must not touch)."""
    root = tmp_path / "results"
    write_synthetic_run(root / "cartpole_nk" / "20250101-000000-abcdef", 4, 5, seed=1)
    return root


SWEEP_CASES = {
    "unknown sweep": (["cartpole_nkk"], ["unknown sweep", "did you mean 'cartpole_nk'"]),
    "unknown budget": (["cartpole_nk", "--budget", "huge"], ["unknown budget", "smoke"]),
    "N zero": (["cartpole_nk", "--set", "n=0"], ["circular_buffer_num_batches", "--set n="]),
    "N negative": (["cartpole_nk", "--set", "n=-3"], ["num_batches", "positive integer"]),
    "K fractional": (["cartpole_nk", "--set", "k=1.5"], ["iterations_per_batch", "--set k="]),
    "K not a number": (["cartpole_nk", "--set", "k=two"], ["iterations_per_batch", "'two'"]),
    "B zero": (
        ["cartpole_nk", "--set", "broadcast_interval=0"],
        ["broadcast_interval must be a positive integer", "--set broadcast_interval="],
    ),
    "unknown key": (["cartpole_nk", "--set", "lr_typo=0.1"], ["unknown config key 'lr_typo'"]),
    "not KEY=VALUE": (["cartpole_nk", "--set", "n"], ["KEY=VALUE"]),
    "zero seeds": (["cartpole_nk", "--seeds", "0"], ["--seeds", "at least 1"]),
    "zero at once": (["cartpole_nk", "--max-concurrent", "0"], ["--max-concurrent", "at least 1"]),
    "negative retries": (["cartpole_nk", "--max-failures", "-1"], ["--max-failures", "at least 0"]),
    "fractional seeds": (["cartpole_nk", "--seeds", "2.5"], ["--seeds", "whole number"]),
    "zero env steps": (["cartpole_nk", "--env-steps", "0"], ["--env-steps", "at least 1"]),
    "zero progress interval": (
        ["cartpole_nk", "--progress-interval", "0"],
        ["--progress-interval", "positive"],
    ),
    "stall timeout not a number": (
        ["cartpole_nk", "--stall-timeout", "soon"],
        ["--stall-timeout", "not a number"],
    ),
    "unreachable address": (
        ["cartpole_nk", "--address", "127.0.0.1:9"],
        ["no ray cluster reachable at 127.0.0.1:9", "ray start"],
    ),
    "malformed address": (["cartpole_nk", "--address", "nohostport"], ["host:port"]),
    "unknown objective": (
        ["pendulum_search", "--objective", "auc"],
        ["--objective", "invalid choice", "time-to-threshold"],
    ),
    "objective without a search": (
        ["cartpole_nk", "--objective", "return"],
        ["--objective return applies to a budget that searches", "'smoke' of sweep 'cartpole_nk'"],
    ),
    "time objective without a threshold": (
        [
            "pendulum_search",
            "--objective",
            "time-to-threshold",
            "--set",
            "env=MountainCarContinuous-v0",
        ],
        ["needs a return threshold for MountainCarContinuous-v0", "--objective return"],
    ),
}

SUBPROCESS_SWEEP_CASES = {"N zero"}


@pytest.mark.parametrize("case", SWEEP_CASES, ids=list(SWEEP_CASES))
def test_bad_sweep_input_is_one_line_and_touches_nothing(case, results_root, capsys):
    args, words = SWEEP_CASES[case]
    args = [*args, "--results-dir", str(results_root), "--wandb", "off"]
    before = snapshot(results_root)
    if case in SUBPROCESS_SWEEP_CASES:
        done, _ = run_cli("suite.sweep", *args)
    else:
        done = run_main(capsys, "suite.sweep", *args, "--dry-run")
    assert_one_line_error(done, *words)
    assert snapshot(results_root) == before
    runs = list((results_root / "cartpole_nk").iterdir())
    assert [run.name for run in runs] == ["20250101-000000-abcdef"]  # no new run folder


def test_gpus_on_a_cpu_only_cluster_are_refused_fast(tmp_path, capsys):
    started = time.monotonic()
    done = run_main(
        capsys,
        "suite.sweep",
        "learner_scaling",
        "--budget",
        "full",
        "--results-dir",
        str(tmp_path),
        "--wandb",
        "off",
        "--dry-run",  # a dry run, too, refuses trials that can never be scheduled
    )
    seconds = time.monotonic() - started
    print(f"learner_scaling --budget full refused in {seconds:.1f} s")
    line = assert_one_line_error(done, "GPU", "can never be scheduled", "--address")
    # the refused trials are named by their labels (which ones come first is shuffled)
    assert re.search(r"Pong-v5_N\d+_K\d+_B\d+_L\d+_G[\d.]+_R\d+_E\d+_s\d+", line), line
    assert not any(tmp_path.iterdir())


def test_a_minatar_sweep_without_the_extra_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "minatar" else find_spec(name, *a),
    )
    args = ("minatar_nk", "--budget", "smoke", "--results-dir", str(tmp_path), "--wandb", "off")
    done = run_main(capsys, "suite.sweep", *args, "--dry-run")
    assert_one_line_error(done, "minatar_breakout_base", "pip install -e '.[minatar]'", "GPL")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    "unwritable",
    [lambda tmp: tmp / "a_file" / "results", lambda tmp: Path("/proc/suite-results")],
    ids=["under a regular file", "under /proc"],
)
def test_unwritable_results_folder(unwritable, tmp_path, capsys):
    (tmp_path / "a_file").write_text("not a folder")
    target = unwritable(tmp_path)
    done = run_main(
        capsys, "suite.sweep", "cartpole_nk", "--results-dir", str(target), "--wandb", "off"
    )
    assert_one_line_error(done, str(target), "cannot be written", "--results-dir")
    assert (tmp_path / "a_file").read_text() == "not a folder"


def test_resume_without_a_run_names_the_folder(results_root, capsys):
    before = snapshot(results_root)
    done = run_main(
        capsys,
        "suite.sweep",
        "cartpole_nk",
        "--resume",
        "no-such-run",
        "--results-dir",
        str(results_root),
        "--wandb",
        "off",
    )
    assert_one_line_error(done, "no resumable run 'no-such-run'")
    assert snapshot(results_root) == before


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _garble(path: Path) -> None:
    path.write_bytes(b"PAR1" + b"\x00garbage" * 50)


@pytest.mark.parametrize("damage", [_truncate, _garble], ids=["truncated", "corrupt"])
@pytest.mark.parametrize("table", [schema.TRIALS_FILE, schema.ITERATIONS_FILE])
def test_report_of_a_damaged_parquet(damage, table, tmp_path, capsys):
    run = write_synthetic_run(tmp_path / "run", 4, 5, seed=2)
    damage(run / table)
    before = snapshot(tmp_path)
    args = [str(run), "--out", str(tmp_path / "report.html")]
    if damage is _truncate and table == schema.TRIALS_FILE:
        done, _ = run_cli("suite.report", *args)
    else:
        done = run_main(capsys, "suite.report", *args)
    assert_one_line_error(done, table, "corrupt or truncated")
    assert snapshot(tmp_path) == before


def test_report_of_an_empty_folder(tmp_path, capsys):
    done = run_main(capsys, "suite.report", str(tmp_path))
    assert_one_line_error(done, str(tmp_path), "holds no results")


def test_report_without_arguments(capsys):
    done = run_main(capsys, "suite.report")
    assert_one_line_error(done, "RESULTS_DIR")


def test_report_to_an_unwritable_path(tmp_path, capsys):
    run = write_synthetic_run(tmp_path / "run", 4, 5, seed=3)
    (tmp_path / "a_file").write_text("x")
    done = run_main(capsys, "suite.report", str(run), "--out", str(tmp_path / "a_file" / "r.html"))
    assert_one_line_error(done, "a_file")


def _search_run(root: Path, objective: str | None) -> Path:
    """A resumable search run as far as --resume looks: its tune/ folder and run.json."""
    run_dir = root / "pendulum_search" / "20250101-000000-abcdef"
    (run_dir / "tune").mkdir(parents=True)
    search = {"suggestions": 8} | ({"objective": objective} if objective else {})
    (run_dir / schema.RUN_METADATA_FILE).write_text(json.dumps({"search": search}))
    return run_dir


@pytest.mark.parametrize("recorded", ["return", None], ids=["return", "before-the-option"])
def test_resume_with_another_objective_is_refused(tmp_path, capsys, recorded):
    """--objective was silently ignored with --resume; a search keeps the objective it started
    with (a run.json without one ran by return), so another one is a one-line error."""
    root = tmp_path / "results"
    _search_run(root, recorded)
    before = snapshot(root)
    done = run_main(
        capsys, "suite.sweep", "pendulum_search", "--resume", "20250101-000000-abcdef",
        "--objective", "time-to-threshold", "--results-dir", str(root), "--wandb", "off",
    )  # fmt: skip
    assert_one_line_error(
        done,
        "--objective time-to-threshold differs from the resumed run 20250101-000000-abcdef's "
        "(return)",
        "resume without --objective",
    )
    assert snapshot(root) == before


def test_resume_with_the_runs_own_objective_or_none_passes_the_check(tmp_path):
    from suite.sweep.driver.rundir import check_resume_objective

    run_dir = _search_run(tmp_path, "time-to-threshold")
    check_resume_objective(run_dir, "time-to-threshold")
    check_resume_objective(run_dir, None)
    with pytest.raises(ValueError, match=r"differs from .*\(time-to-threshold\)"):
        check_resume_objective(run_dir, "return")
    grid = tmp_path / "grid"
    (grid / "tune").mkdir(parents=True)
    (grid / schema.RUN_METADATA_FILE).write_text(json.dumps({"race": None}))
    with pytest.raises(ValueError, match="applies to a search, and the resumed run grid is not"):
        check_resume_objective(grid, "return")


def test_resume_refuses_options_that_would_change_the_plan_and_takes_the_runs_own(tmp_path):
    from suite.sweep.driver.rundir import check_resume_plan_options
    from suite.sweep.options import SweepOptions

    run_dir = tmp_path / "20250101-000000-abcdef"
    (run_dir / "tune").mkdir(parents=True)
    meta = {"budget": {"name": "laptop"}, "first_seed": 40}
    (run_dir / schema.RUN_METADATA_FILE).write_text(json.dumps(meta))
    own = SweepOptions(name="cartpole_nk", budget="laptop", first_seed=40, resume="latest")
    check_resume_plan_options(run_dir, own)  # the run's own values: nothing changes
    check_resume_plan_options(run_dir, SweepOptions(name="cartpole_nk", resume="latest"))
    changed = SweepOptions(
        name="cartpole_nk", budget="full", seeds=5, set=("lr=1e-3",), race=False, resume="latest"
    )
    with pytest.raises(ValueError) as refused:
        check_resume_plan_options(run_dir, changed)
    assert str(refused.value) == (
        "--resume continues run 20250101-000000-abcdef as it was planned, so --budget, --seeds, "
        "--set, --no-race would be ignored: resume without them, or start a new run with them"
    )
