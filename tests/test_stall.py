"""The stall watchdog: its rule on hand-made clocks, then a real sweep with a trial that hangs."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import threading
import time
from types import SimpleNamespace

import pandas as pd
import pytest
from sweep_process import process_alive, run_dirs, start_sweep, trial_results, wait_until

from suite.store import schema
from suite.sweep.driver.cli import main
from suite.sweep.driver.stall_watch import (
    CLAIM_GRACE_S,
    STACKS_GRACE_S,
    StallWatch,
    frozen_reason,
)
from suite.sweep.trial.stall import (
    MIN_LIMIT_S,
    StallLimit,
    StallWatchdog,
    TrialClock,
    py_spy_dump,
    stall_reason,
)
from suite.sweep.trial.stall_inbox import WatchdogNews


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


FROZEN_LIMIT_S = 15.0
# The driver checks once a second, after Tune's own step; a loaded 2-core machine adds a few.
NOTICE_SLACK_S = 8.0


@pytest.mark.train
@pytest.mark.timeout(240)
def test_a_frozen_trial_process_is_ended_by_the_driver_and_retried(tmp_path):
    """SIGSTOP a trial's process mid-run: its own watchdog freezes with it, so the driver must
    notice (within the stall timeout), end the process and its env runner, and retry it; the
    retry resumes from its checkpoint and finishes, and so does the sweep."""
    results = tmp_path / "results"
    sweep = start_sweep(
        tmp_path / "sweep.log",
        "stall_drill",
        "--set",
        'env_config={"stall_after_steps": 300, "stall_seeds": []}',  # no env blocks here
        "--env-steps",
        "12000",
        "--stall-timeout",
        str(FROZEN_LIMIT_S),
        "--max-failures",
        "1",
        "--no-report",
        "--results-dir",
        str(results),
    )
    frozen: dict[str, int] = {}
    try:
        wait_until(lambda: run_dirs(results, "stall_drill"), sweep, timeout=60)
        (run_dir,) = run_dirs(results, "stall_drill")

        def past_a_checkpoint() -> bool:  # checkpoints every 5 iterations
            return any(len(lines) >= 7 for lines in trial_results(run_dir).values())

        wait_until(past_a_checkpoint, sweep, timeout=150)
        trial_id, lines = next((t, r) for t, r in trial_results(run_dir).items() if len(r) >= 7)
        frozen = lines[-1]["suite_node"]["processes"]  # the trial's and its env runner's pids
        checkpointed = lines[-1]["training_iteration"] // 5 * 5
        os.kill(frozen["trial"], signal.SIGSTOP)
        frozen_at = time.monotonic()
        stall_file = run_dir / schema.TRIAL_CONFIG_DIR / trial_id / "stall-1.txt"
        wait_until(stall_file.exists, sweep, timeout=FROZEN_LIMIT_S + 30)
        noticed_s = time.monotonic() - frozen_at

        def all_ended() -> bool:
            return not any(process_alive(pid) for pid in frozen.values())

        wait_until(all_ended, sweep, timeout=30)
        ended_s = time.monotonic() - frozen_at
        code = sweep.wait(timeout=200)
    finally:
        for pid in frozen.values():  # never leave a stopped process behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        sweep.kill()
    output = sweep.output()
    assert code == 0, output[-3000:]
    print(f"frozen trial noticed after {noticed_s:.1f} s, its processes gone after {ended_s:.1f} s")
    assert noticed_s < FROZEN_LIMIT_S + NOTICE_SLACK_S, noticed_s
    report = stall_file.read_text()
    assert report.startswith("Stalled: no result for"), report
    assert "the trial process froze" in report and "stopped (SIGSTOP)" in report, report
    assert "stalled: no result for" in output and "the trial process froze" in output

    trials = pd.read_parquet(run_dir / schema.TRIALS_FILE).set_index("trial_id")
    assert (trials["status"] == "TERMINATED").all(), trials[["status", "error"]]
    assert trials.loc[trial_id, "stalls"] == 1
    assert trials["env_steps"].min() >= 12_000
    iterations = pd.read_parquet(run_dir / schema.ITERATIONS_FILE)
    assert not iterations.duplicated(["trial_id", "iteration"]).any()
    attempts = trial_results(run_dir)[trial_id]
    restarted = [
        r["training_iteration"]
        for prev, r in itertools.pairwise(attempts)
        if r["training_iteration"] <= prev["training_iteration"]
    ]
    assert restarted == [checkpointed + 1], restarted  # the retry resumed from its checkpoint
    run = json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())
    assert run["status"] == "completed" and run["trials"] == {"TERMINATED": 2}


# --- the driver's backstop, on hand-made clocks and watchdog news ------------------------------
class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _watch(news: dict[str, WatchdogNews]):
    clock, ended = FakeClock(), []
    watch = StallWatch(
        "run",
        limit_s=30.0,
        news=lambda run_id, ids: {i: news[i] for i in ids if i in news},
        end=lambda run_id, trial, reason: ended.append((trial.trial_id, reason)),
        clock=clock,
    )
    return watch, clock, ended


def _advance(watch, clock, trials, seconds: float) -> None:
    for _ in range(int(seconds)):
        clock.now += 1.0
        watch.on_step_begin(0, trials)


def test_the_driver_ends_a_trial_whose_watchdog_stopped_beating_at_the_limit():
    trial = SimpleNamespace(trial_id="a", status="RUNNING")
    watch, clock, ended = _watch({"a": WatchdogNews(beat_age_s=29.0, claimed=False)})
    watch.on_trial_start(0, [trial], trial)
    _advance(watch, clock, [trial], 30)
    assert ended == []  # at the limit, not past it
    _advance(watch, clock, [trial], 1)
    ((trial_id, reason),) = ended
    assert trial_id == "a" and reason.startswith("no result for 31 s (limit 30 s)")
    assert "the trial process froze: its watchdog's last beat was 29 s ago" in reason
    _advance(watch, clock, [trial], 60)
    assert len(ended) == 1  # ended once; Tune reports the failure next


def test_results_keep_the_driver_away_and_a_live_watchdog_gets_its_grace():
    trial = SimpleNamespace(trial_id="a", status="RUNNING")
    news = {"a": WatchdogNews(beat_age_s=1.0, claimed=False)}
    watch, clock, ended = _watch(news)
    watch.on_trial_start(0, [trial], trial)
    for step in range(1, 61):  # a result every 20 s, with new env steps: healthy
        _advance(watch, clock, [trial], 20)
        watch.on_trial_result(0, [trial], trial, {"num_env_steps_sampled_lifetime": step * 100})
    assert ended == []
    _advance(watch, clock, [trial], 31 + CLAIM_GRACE_S - 1)  # beats fresh: its own watchdog acts
    assert ended == []
    _advance(watch, clock, [trial], 1)
    ((_, reason),) = ended
    assert "did not end itself 15 s past the limit (its watchdog beats but did not claim" in reason


def test_a_claimed_stall_waits_for_its_stacks_but_not_for_ever():
    trial = SimpleNamespace(trial_id="a", status="RUNNING")
    watch, clock, ended = _watch({"a": WatchdogNews(beat_age_s=100.0, claimed=True)})
    watch.on_trial_start(0, [trial], trial)
    _advance(watch, clock, [trial], 31 + STACKS_GRACE_S - 1)
    assert ended == []
    _advance(watch, clock, [trial], 1)
    assert "claimed the stall but did not end it in 150 s" in ended[0][1]


def test_frozen_reason_without_any_news_waits_for_the_claim_grace():
    assert frozen_reason("no result", None, overdue_s=CLAIM_GRACE_S - 1) is None
    reason = frozen_reason("no result", None, overdue_s=CLAIM_GRACE_S)
    assert reason.endswith("(its watchdog never beat; the driver ended it)")


def test_the_watchdog_beats_until_it_is_stopped():
    beats: list[float] = []
    watchdog = StallWatchdog(
        StallLimit(fixed_s=60.0),
        lambda reason: None,
        poll_s=0.02,
        on_beat=lambda: beats.append(1),
        beat_s=0.1,
    ).start()
    time.sleep(0.55)
    watchdog.stop()
    counted = len(beats)
    time.sleep(0.3)
    assert 4 <= counted <= 7 and len(beats) == counted
