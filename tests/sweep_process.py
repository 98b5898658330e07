"""Run ``python -m suite.sweep`` as a real subprocess in its own process group; watch its store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from ray_cluster import client_env

from suite.bench.fault_drills import process_alive, trial_results  # noqa: F401
from suite.report import build
from suite.store import schema
from suite.store.files import read_parquet
from suite.sweep.driver.runner import CHECKPOINT_EVERY_ITERATIONS as CHECKPOINT_EVERY

REPO = Path(__file__).resolve().parents[1]
# Trials that sample in their own process: no env runner processes to start (each a new Python
# that imports torch and RLlib), for the tests of the driver's behaviour, which env runners do
# not change.
IN_THE_TRIAL_PROCESS = ("--set", "num_env_runners=0")
# cartpole_nk's 4 smoke trials one after another: a sweep that is reliably mid-run for a while.
SMOKE_ONE_AT_A_TIME = (
    "cartpole_nk",
    "--budget",
    "smoke",
    "--max-concurrent",
    "1",
    "--no-report",
    *IN_THE_TRIAL_PROCESS,
)


@dataclass
class SweepProcess:
    process: subprocess.Popen
    log: Path

    def wait(self, timeout: float) -> int:
        return self.process.wait(timeout=timeout)

    def signal_group(self, signum: int) -> None:
        os.killpg(self.process.pid, signum)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.signal_group(signal.SIGKILL)
            self.process.wait(timeout=30)


_STARTED: list[SweepProcess] = []


def kill_started_sweeps() -> None:
    """Sweeps a test started and left running (it failed, or the run was interrupted)."""
    for sweep in _STARTED:
        sweep.kill()


def start_sweep(log: Path, *args: str, wandb: str = "off") -> SweepProcess:
    """The sweep writes its report where this test session's ``default_report_path`` looks
    (conftest moves it to a temporary folder), not to the repo's reports/."""
    handle = log.open("w")
    reports = ("--reports-dir", str(build.REPORTS_DIR))
    process = subprocess.Popen(
        [sys.executable, "-m", "suite.sweep", *args, *reports, "--wandb", wandb],
        cwd=REPO,
        stdout=handle,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**client_env(), "PYTHONUNBUFFERED": "1"},
    )
    handle.close()
    _STARTED.append(SweepProcess(process, log))
    return _STARTED[-1]


def run_dirs(results_root: Path, sweep: str) -> list[Path]:
    return sorted(path for path in (results_root / sweep).glob("*") if path.is_dir())


def trial_processes(run_dir: Path) -> dict[str, int]:
    """Each Tune trial's process id, from the first result Tune wrote for it."""
    pids = {}
    for path in (run_dir / "tune").glob("*/result.json"):
        first = next(iter(path.read_text().splitlines()), None)
        if first:
            result = json.loads(first)
            pids[result["trial_id"]] = result["pid"]
    return pids


def read_trials(run_dir: Path) -> pd.DataFrame:
    path = run_dir / schema.TRIALS_FILE
    return read_parquet(path) if path.exists() else pd.DataFrame(columns=["status"])


def wait_until(condition: Callable[[], bool], sweep: SweepProcess, timeout: float) -> None:
    """Poll ``condition`` until true; fail early if the sweep exits first."""
    deadline = time.monotonic() + timeout
    while not condition():
        if sweep.process.poll() is not None:
            raise AssertionError(
                f"sweep exited ({sweep.process.returncode}) before the "
                f"condition held:\n{sweep.output()[-3000:]}"
            )
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s:\n{sweep.output()[-3000:]}")
        time.sleep(0.5)


def kill_worker_under(
    cluster, sweep: SweepProcess, run_dir: Path, picks: Callable[[list[dict]], bool]
) -> tuple[str, float]:
    """Once a trial that ``picks`` accepts is past its first checkpoint, kill the worker node.

    Returns the trial and the monotonic time of the kill.
    """
    found: dict[str, str | None] = {}

    def hit() -> bool:
        found["trial"] = None
        for trial_id, lines in trial_results(run_dir).items():
            if lines[-1]["training_iteration"] > CHECKPOINT_EVERY and picks(lines):
                found["trial"] = trial_id
        return found["trial"] is not None

    wait_until(hit, sweep, timeout=150)
    cluster.kill_worker()
    return found["trial"], time.monotonic()


def last_iteration_on(run_dir: Path, trial_id: str, node_id: str) -> int:
    """The last iteration ``trial_id`` reported from ``node_id``: read once the node is gone, it
    is what the killed attempt reached. The iteration seen just before the kill is not: the
    trial runs on while the kill lands (a retry from 10 after a result seen at 9 failed CI)."""
    lines = trial_results(run_dir)[trial_id]
    return max(
        line["training_iteration"] for line in lines if line["suite_node"]["node_id"] == node_id
    )


def checkpoints_a_retry_may_start_from(reached: int) -> set[int]:
    """The iterations whose checkpoint a trial killed after its result ``reached`` may be retried
    from. Tune writes an iteration's result before it saves that iteration's checkpoint, and only
    then starts the next iteration: a kill right after a checkpoint iteration's result may beat
    its save, and the retry starts from the checkpoint before. (A retry from 5 after a result at
    10 failed CI once, when the test expected only 10.)"""
    latest = reached // CHECKPOINT_EVERY * CHECKPOINT_EVERY
    if reached == latest:
        return {latest, latest - CHECKPOINT_EVERY}
    return {latest}
