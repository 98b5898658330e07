"""The stall watchdog's backstop on the driver: a trial whose process froze is ended from here.

The watchdog inside each trial (``suite/sweep/trial/stall.py``) is the one that can save a
stalled trial's stacks, but it freezes with its process: a SIGSTOPped process, or one blocked in
C with the GIL held, never runs its watchdog's thread again. So the driver keeps its own clock of
every running trial, from the results Tune hands it, with the same rule and limit
(``stall_reason``). When that rule says a trial stalled, the driver asks the run's inbox what
the trial's watchdog said:

- it claimed the stall: it is saving stacks and ends its process itself; the driver waits, at
  most ``STACKS_GRACE_S``, then ends it anyway;
- its beats stopped more than ``FROZEN_AFTER_S`` ago (or it never beat, or does not claim within
  ``CLAIM_GRACE_S``): the process is frozen. The driver hands the inbox the reason (the
  trial's ``stall-<n>.txt``), kills the trial's actor (Ray then kills its env runners and
  learners, which the actor owns) and Tune sees a failed trial: retried per ``--max-failures``,
  else recorded STALLED with the reason, like any stall.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import ray
from ray.tune import Callback

from suite.collect.rows import env_steps
from suite.sweep.trial.stall import StallLimit, TrialClock, stall_reason
from suite.sweep.trial.stall_inbox import BEAT_S, WatchdogNews, report_stall, watchdog_news

POLL_S = 1.0
FROZEN_AFTER_S = 3 * BEAT_S  # beats this old: the trial's process no longer runs its watchdog
CLAIM_GRACE_S = 15.0  # a live watchdog claims within seconds of the driver's own verdict
STACKS_GRACE_S = 150.0  # py-spy dumps (30 s each at most) and the hand-over of the stacks


@dataclass
class Watched:
    """The driver's view of one running trial attempt."""

    clock: TrialClock
    stalled_at: float | None = None  # when the driver's rule first said it stalled
    ended: bool = False  # the driver has ended it; Tune has yet to report the failure


def frozen_reason(reason: str, news: WatchdogNews | None, overdue_s: float) -> str | None:
    """Why the driver ends a trial its rule calls stalled (``overdue_s`` after it first did);
    None while the trial's own watchdog may still end it."""
    heard = news or WatchdogNews(beat_age_s=None, claimed=False)
    if heard.claimed:
        if overdue_s < STACKS_GRACE_S:
            return None
        return f"{reason}; its watchdog claimed the stall but did not end it in {overdue_s:.0f} s"
    if heard.beat_age_s is not None and heard.beat_age_s > FROZEN_AFTER_S:
        return (
            f"{reason}; the trial process froze: its watchdog's last beat was "
            f"{heard.beat_age_s:.0f} s ago (the driver ended it)"
        )
    if overdue_s >= CLAIM_GRACE_S:
        silent = "never beat" if heard.beat_age_s is None else "beats but did not claim it"
        return (
            f"{reason}; the trial process did not end itself {overdue_s:.0f} s past the "
            f"limit (its watchdog {silent}; the driver ended it)"
        )
    return None


class StallWatch(Callback):
    """A Tune callback on the driver: ends trial attempts whose process froze."""

    def __init__(
        self,
        run_id: str,
        limit_s: float | None,
        news: Callable[[str, list[str]], dict[str, WatchdogNews]] = watchdog_news,
        end: Callable[[str, object, str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.run_id = run_id
        self.limit = StallLimit(limit_s)
        self._news = news
        self._end_trial = end or end_frozen_trial
        self._now = clock
        self._watched: dict[str, Watched] = {}
        self._checked_at = -math.inf

    def __getstate__(self) -> dict:
        # Tune pickles its callbacks into tuner.pkl; a resumed run starts its clocks afresh.
        defaults = {"_news": watchdog_news, "_end_trial": end_frozen_trial, "_now": time.monotonic}
        return {**vars(self), "_watched": {}, **defaults}

    # --- Tune callback hooks -------------------------------------------------------------
    def on_trial_start(self, iteration, trials, trial, **info) -> None:
        now = self._now()
        self._watched[trial.trial_id] = Watched(TrialClock(started_at=now))
        self._watched[trial.trial_id].clock.step_started(now)

    def on_trial_result(self, iteration, trials, trial, result, **info) -> None:
        watched = self._watched.get(trial.trial_id)
        if watched is None or watched.ended:
            return
        now = self._now()
        watched.clock.step_finished(now, env_steps(result))
        watched.clock.step_started(now)  # Tune calls train() again straight away
        watched.stalled_at = None

    def on_trial_complete(self, iteration, trials, trial, **info) -> None:
        self._watched.pop(trial.trial_id, None)

    def on_trial_recover(self, iteration, trials, trial, **info) -> None:
        self._watched.pop(trial.trial_id, None)  # its next attempt starts a new clock

    def on_trial_error(self, iteration, trials, trial, **info) -> None:
        self._watched.pop(trial.trial_id, None)

    def on_step_begin(self, iteration, trials, **info) -> None:
        now = self._now()
        if now - self._checked_at < POLL_S:
            return
        self._checked_at = now
        running = {trial.trial_id: trial for trial in trials if trial.status == "RUNNING"}
        overdue = {}
        for trial_id, watched in self._watched.items():
            if trial_id not in running or watched.ended:
                continue
            reason = stall_reason(watched.clock, self.limit, now)
            if reason is None:
                watched.stalled_at = None
                continue
            if watched.stalled_at is None:
                watched.stalled_at = now
            overdue[trial_id] = reason
        if not overdue:
            return
        news = self._news(self.run_id, list(overdue))
        for trial_id, reason in overdue.items():
            overdue_s = now - self._watched[trial_id].stalled_at
            why = frozen_reason(reason, news.get(trial_id), overdue_s)
            if why:
                self._watched[trial_id].ended = True
                self._end_trial(self.run_id, running[trial_id], why)


def end_frozen_trial(run_id: str, trial, reason: str) -> None:
    """Record the stall in the run's inbox, then kill the trial's actor."""
    print(f"Trial {trial} stalled: {reason}", flush=True)
    try:
        report_stall(run_id, trial.trial_id, reason, frozen_report(reason, trial))
    except (ray.exceptions.RayError, ValueError) as error:
        print(f"Stall watch: could not record the stall: {error!r}", flush=True)
    # Tune's handle on the trial's actor (a public attribute of its Trial). Killing it makes the
    # pending train() fail at once; Ray ends the process, and the env runner and learner actors
    # it owns, within seconds, frozen or not.
    actor = trial.temporary_state.ray_actor
    if actor is not None:
        ray.kill(actor, no_restart=True)


def frozen_report(reason: str, trial) -> str:
    """What the driver can say of a frozen trial: its stacks are out of reach (its process runs
    no Python), but where it ran and, on this node, what state the kernel has it in."""
    last = trial.last_result or {}
    pid, node = last.get("pid"), (last.get("suite_node") or {}).get("node_id", "?")
    lines = [f"Stalled: {reason}", "", f"trial process: pid {pid}, node {node}"]
    if pid and node == ray.get_runtime_context().get_node_id():
        lines.append(f"state on this node: {process_state(int(pid))}")
    lines.append(
        "No stacks: the process did not run its watchdog (SIGSTOPped, or blocked in C with the "
        "GIL held). To read where it was, `py-spy dump --native --pid PID` on its node while it "
        "is frozen, with a longer --stall-timeout."
    )
    return "\n".join(lines) + "\n"


STATES = {"T": "stopped (SIGSTOP)", "t": "stopped by a tracer", "D": "in uninterruptible I/O"}


def process_state(pid: int) -> str:
    """The kernel's state of a process, from /proc (``R``, ``S``, ``T`` ...), in words."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return "not found (it has exited)"
    return f"{fields[0]} {STATES.get(fields[0], '')}".strip()
