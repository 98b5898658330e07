"""Ctrl-C while a trial hangs (its env blocks in step()) and W&B logs offline: the sweep returns
within 30 s, run.json says interrupted and the resume command is printed; a second Ctrl-C ends
it at once, without a traceback, leaving the same record."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest
from sweep_process import run_dirs, start_sweep, wait_until

from suite.store import schema

pytestmark = [pytest.mark.train, pytest.mark.timeout(150)]

RETURN_WITHIN_S = 30.0


def start_hanging_sweep(tmp_path: Path):
    """Both trials' envs block after 300 steps; the watchdog's limit is far away."""
    stall_log = tmp_path / "stalls.log"
    env_config = {"stall_after_steps": 300, "stall_seeds": [0, 1], "stall_log": str(stall_log)}
    sweep = start_sweep(
        tmp_path / "sweep.log",
        "stall_drill",
        "--stall-timeout",
        "600",
        "--no-report",
        "--set",
        f"env_config={env_config!r}",
        "--results-dir",
        str(tmp_path / "results"),
        wandb="offline",
    )
    wait_until(stall_log.exists, sweep, timeout=240)
    time.sleep(3)  # the hung trial's next iterations: env steps frozen
    return sweep


def interrupt(sweep, times: int) -> tuple[int, float]:
    started = time.monotonic()
    for _ in range(times):
        sweep.signal_group(signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
        time.sleep(1.0)
    try:
        code = sweep.wait(timeout=120)
    finally:
        sweep.kill()
    return code, time.monotonic() - started


def check_record(sweep, results: Path) -> None:
    output = sweep.output()
    assert "Traceback" not in output, output[-3000:]
    (run_dir,) = run_dirs(results, "stall_drill")
    run = json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())
    assert run["status"] == "interrupted", run
    assert f"--resume {run_dir.name}" in output, output[-3000:]
    offline_runs = list((run_dir / "wandb").glob("**/offline-run-*"))
    assert offline_runs, "W&B offline run files should stay on disk for `wandb sync`"


@pytest.mark.parametrize("presses", [1, 2], ids=["ctrl-c", "ctrl-c-twice"])
def test_ctrl_c_returns_within_30_s_with_a_hung_trial(tmp_path, presses):
    sweep = start_hanging_sweep(tmp_path)
    code, seconds = interrupt(sweep, times=presses)
    assert code == 130, sweep.output()[-3000:]
    assert seconds < RETURN_WITHIN_S, f"took {seconds:.1f} s:\n{sweep.output()[-3000:]}"
    check_record(sweep, tmp_path / "results")
