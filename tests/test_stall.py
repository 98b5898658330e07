"""The stall watchdog: its rule on hand-made clocks, then a real sweep with a trial that hangs."""

from __future__ import annotations

import json
import os
import threading
import time

import pandas as pd
import pytest
from sweep_process import run_dirs, start_sweep

from suite.store import schema
from suite.sweep.driver.cli import main
from suite.sweep.trial.stall import (
    MIN_LIMIT_S,
    StallLimit,
    StallWatchdog,
    TrialClock,
    py_spy_dump,
    stall_reason,
)


def test_default_limit_is_the_larger_of_120_s_and_20_median_iterations():
    assert StallLimit().seconds([]) == MIN_LIMIT_S
    assert StallLimit().seconds([2.0, 3.0, 100.0]) == MIN_LIMIT_S  # median 3 s: 60 s < 120 s
    assert StallLimit().seconds([10.0, 11.0, 12.0]) == 220.0
    assert StallLimit(fixed_s=5.0).seconds([10.0, 11.0]) == 5.0


def test_a_step_that_never_returns_is_a_stall():
    clock = TrialClock(started_at=0.0)
    clock.step_started(now=1.0)
    limit = StallLimit(fixed_s=30.0)
    assert stall_reason(clock, limit, now=30.0) is None
    reason = stall_reason(clock, limit, now=32.0)
    assert reason.startswith("no result for 31 s (limit 30 s)")


def test_results_without_new_env_steps_are_a_stall():
    clock, limit = TrialClock(started_at=0.0), StallLimit(fixed_s=30.0)
    for second in range(1, 40):
        clock.step_started(now=second)
        clock.step_finished(now=second + 0.5, env_steps=1_006.0 if second > 5 else second * 100.0)
    assert stall_reason(clock, limit, now=35.0) is None  # env steps last grew at 6.5 s
    assert stall_reason(clock, limit, now=40.0) == (
        "no new env steps for 34 s (limit 30 s), stuck at 1,006"
    )


def test_watchdog_calls_back_once_from_its_thread():
    stalls: list[str] = []
    done = threading.Event()

    def on_stall(reason: str) -> None:
        stalls.append(reason)
        done.set()

    watchdog = StallWatchdog(StallLimit(fixed_s=0.3), on_stall, poll_s=0.05).start()
    watchdog.step_started()
    assert done.wait(timeout=5)
    time.sleep(0.2)
    assert len(stalls) == 1 and stalls[0].startswith("no result")


def test_a_stopped_watchdog_never_calls_back():
    """A reused trial process stops its trial's watchdog before the next trial starts its own."""
    stalls: list[str] = []
    watchdog = StallWatchdog(StallLimit(fixed_s=0.3), stalls.append, poll_s=0.05).start()
    watchdog.step_started()
    watchdog.stop()
    time.sleep(0.6)  # twice the limit: a running watchdog would have called back by now
    assert stalls == []
    assert not watchdog._thread.is_alive()


def test_py_spy_reads_a_live_process():
    dump = py_spy_dump(os.getpid())
    assert dump is not None and "test_py_spy_reads_a_live_process" in dump


@pytest.mark.parametrize("value", ["0", "-3", "soon", "inf"])
def test_stall_timeout_must_be_positive_seconds(value, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["stall_drill", "--dry-run", "--stall-timeout", value])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--stall-timeout" in err


@pytest.mark.train
@pytest.mark.timeout(250)
def test_a_hung_trial_is_stopped_retried_and_recorded_stalled(tmp_path):
    """seed 1's env blocks in step() after 300 steps; the sweep goes on and completes."""
    results = tmp_path / "results"
    sweep = start_sweep(
        tmp_path / "sweep.log",
        "stall_drill",
        "--stall-timeout",
        "15",
        "--max-failures",
        "1",
        "--no-report",
        "--results-dir",
        str(results),
    )
    try:
        code = sweep.wait(timeout=400)
    finally:
        sweep.kill()
    assert code == 0, sweep.output()[-3000:]
    (run_dir,) = run_dirs(results, "stall_drill")
    trials = pd.read_parquet(run_dir / schema.TRIALS_FILE).set_index("seed")
    assert trials.loc[0, "status"] == "TERMINATED"
    stalled = trials.loc[1]
    assert stalled["status"] == "STALLED"
    # Which symptom shows first depends on iteration sizing: train() waiting for samples that
    # never come ("no result"), or iterations that return without new env steps.
    assert stalled["error"].startswith(("no result for", "no new env steps for"))
    assert stalled["stalls"] == 2  # the first attempt and its one retry
    stacks = sorted((run_dir / schema.TRIAL_CONFIG_DIR / stalled["trial_id"]).glob("stall-*.txt"))
    assert [path.name for path in stacks] == ["stall-1.txt", "stall-2.txt"]
    # The store keeps the last attempt's error; each attempt may show either symptom first.
    assert stacks[-1].read_text().startswith(f"Stalled: {stalled['error'].split(' for ')[0]}")
    for text in (path.read_text() for path in stacks):
        assert text.startswith(("Stalled: no result for", "Stalled: no new env steps for"))
        assert "=== env runner 1" in text and "step" in text  # the blocked env's own stack
    run = json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())
    assert run["status"] == "completed" and run["trials"] == {"TERMINATED": 1, "STALLED": 1}
    assert run["stall_timeout_s"] == 15.0 and run["deadlock_guard"] is True
