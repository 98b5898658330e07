"""The stall watchdog, inside each trial: a trial that reports no result, or makes no env-step
progress, for longer than its limit is stopped, with its threads' stacks saved.

It runs in the trial's own process because that is the one place that can always read the
trial's stacks, on whatever node it runs, even when ``train()`` never returns (a Ray call to a
hung actor would queue behind that ``train()``). On a stall it dumps the stacks of the trial
process and of its env runner and learner processes (py-spy, which names every thread and
says which are idle; Python's own frames when py-spy cannot attach), hands reason and stacks to
the driver's ``StallInbox``, and ends its process. Tune then sees a failed trial and retries it per
``--max-failures``; the driver records it as STALLED (``suite/sweep/trial/stall_inbox.py``).
"""

from __future__ import annotations

import math
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

MIN_LIMIT_S = 120.0
MEDIAN_ITERATIONS = 20  # default limit: max(MIN_LIMIT_S, 20 x the median iteration time)
STALL_EXIT_CODE = 75
PY_SPY_TIMEOUT_S = 30.0


@dataclass
class StallLimit:
    """``--stall-timeout``: fixed seconds, or None for the default that adapts to the trial."""

    fixed_s: float | None = None

    def seconds(self, iteration_s: list[float]) -> float:
        if self.fixed_s is not None:
            return self.fixed_s
        median = statistics.median(iteration_s) if iteration_s else 0.0
        return max(MIN_LIMIT_S, MEDIAN_ITERATIONS * median)


@dataclass
class TrialClock:
    """What the watchdog knows of a trial: when its step started, and when env steps last grew."""

    started_at: float
    step_started_at: float | None = None
    progress_at: float = 0.0
    env_steps: float = 0.0
    iteration_s: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.progress_at = self.started_at

    def step_started(self, now: float) -> None:
        self.step_started_at = now

    def step_finished(self, now: float, env_steps: float) -> None:
        if self.step_started_at is not None:
            self.iteration_s.append(now - self.step_started_at)
        self.step_started_at = None
        if env_steps > self.env_steps:
            self.env_steps, self.progress_at = env_steps, now


def stall_reason(clock: TrialClock, limit: StallLimit, now: float) -> str | None:
    """Why the trial counts as stalled at ``now``, or None while it is healthy."""
    seconds = limit.seconds(clock.iteration_s)
    if clock.step_started_at is not None and now - clock.step_started_at > seconds:
        return (
            f"no result for {now - clock.step_started_at:.0f} s (limit {seconds:.0f} s): "
            "train() did not return"
        )
    if now - clock.progress_at > seconds:
        return (
            f"no new env steps for {now - clock.progress_at:.0f} s (limit {seconds:.0f} s), "
            f"stuck at {clock.env_steps:,.0f}"
        )
    return None


class StallWatchdog:
    """A daemon thread that calls ``on_stall(reason)`` once when ``stall_reason`` says so, and
    ``on_beat()`` every ``beat_s`` until then (the driver reads beats that stop as a frozen
    process: ``suite/sweep/driver/stall_watch.py``)."""

    def __init__(
        self,
        limit: StallLimit,
        on_stall: Callable[[str], None],
        poll_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        on_beat: Callable[[], None] | None = None,
        beat_s: float = 2.0,
    ):
        self.limit = limit
        self.trial = TrialClock(started_at=clock())
        self._on_stall = on_stall
        self._on_beat = on_beat
        self._beat_s = beat_s
        self._poll_s = poll_s
        self._now = clock
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(
            target=self._watch, name="suite-stall-watchdog", daemon=True
        )

    def start(self) -> StallWatchdog:
        self._thread.start()
        return self

    def stop(self) -> None:
        """The trial ended; a reused trial process starts a new watchdog for its next trial."""
        self._stopped.set()

    def step_started(self) -> None:
        with self._lock:
            self.trial.step_started(self._now())

    def step_finished(self, env_steps: float) -> None:
        with self._lock:
            self.trial.step_finished(self._now(), env_steps)

    def _watch(self) -> None:
        beaten_at = -math.inf
        while True:
            if self._on_beat and self._now() - beaten_at >= self._beat_s:
                beaten_at = self._now()
                self._on_beat()
            if self._stopped.wait(self._poll_s):
                return
            with self._lock:
                reason = stall_reason(self.trial, self.limit, self._now())
            if reason:
                self._on_stall(reason)
                return


# --- what a stalled trial leaves behind --------------------------------------------------------
def python_stacks() -> str:
    """Every thread of this process, Python frames only (always available)."""
    frames = sys._current_frames()
    parts = []
    for thread in threading.enumerate():
        frame = frames.get(thread.ident)
        if frame is not None:
            stack = "".join(traceback.format_stack(frame))
            parts.append(f'Thread {thread.ident} "{thread.name}":\n{stack}')
    return "\n".join(parts)


def py_spy_dump(pid: int) -> str | None:
    """``py-spy dump`` of a process, or None when it cannot attach."""
    binary = shutil.which("py-spy") or os.path.join(os.path.dirname(sys.executable), "py-spy")
    if not os.path.exists(binary):
        return None
    try:
        done = subprocess.run(
            [binary, "dump", "--pid", str(pid)],
            capture_output=True,
            text=True,
            timeout=PY_SPY_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 and done.stdout.strip() else None


def stack_report(reason: str, processes: Mapping[str, int]) -> str:
    """The reason, then every process's stacks: this trial's first, then its helpers'."""
    own = py_spy_dump(os.getpid()) or "(py-spy could not attach; Python frames)\n" + python_stacks()
    sections = [f"Stalled: {reason}", f"=== trial process (pid {os.getpid()}) ===\n{own}"]
    for name, pid in processes.items():
        dump = py_spy_dump(pid) or "(not readable from here: another node, or it has exited)"
        sections.append(f"=== {name} (pid {pid}) ===\n{dump}")
    return "\n\n".join(sections)
