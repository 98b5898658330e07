"""A compact view of a sweep instead of Tune's wall of text: a live table on a terminal, one
plain progress line every ``--progress-interval`` seconds anywhere else (CI, ``nohup``, a file)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ray.tune import Callback
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table

from suite.collect import rows
from suite.humanize import duration, fmt
from suite.store.schema import ENDED, TrialStatus
from suite.sweep.sinks.identity import identify
from suite.sweep.sinks.trial_error import error_text


@dataclass
class TrialLine:
    label: str
    status: str = TrialStatus.PENDING
    env_steps: float = 0.0
    episode_return: float = math.nan
    steps_per_s: float = math.nan


@dataclass
class SweepProgress:
    sweep: str
    total_trials: int
    env_steps_per_trial: int
    started: float = field(default_factory=time.monotonic)
    trials: dict[str, TrialLine] = field(default_factory=dict)
    steps_before: float = 0.0  # work of trials that had ended before this (resumed) run
    upper_bound: bool = False  # a race: totals are its worst case, eliminations cut them
    # A race's trials have their rungs' budgets: its worst-case total, instead of trials x steps.
    planned_env_steps: int | None = None

    @property
    def planned(self) -> int:
        return self.planned_env_steps or self.total_trials * self.env_steps_per_trial

    def restore(self, trial_id: str, label: str, status: str, steps: float) -> None:
        """A trial that had ended before a resume: done, and not part of this run's pace."""
        self.trials[trial_id] = TrialLine(label=label, status=status, env_steps=steps)
        self.steps_before += self._steps_done(self.trials[trial_id])

    def counts(self) -> dict[str, int]:
        counts = {status: 0 for status in TrialStatus if status != TrialStatus.PENDING}
        for line in self.trials.values():
            counts[line.status] = counts.get(line.status, 0) + 1
        return counts

    def _steps_done(self, line: TrialLine) -> float:
        if line.status in ENDED and not self.planned_env_steps:
            return self.env_steps_per_trial  # a finished trial's work is over, whatever it reached
        return min(line.env_steps, self.env_steps_per_trial)

    def steps_done(self) -> float:
        return sum(self._steps_done(line) for line in self.trials.values())

    def eta_s(self) -> float:
        """Remaining seconds, extrapolated from the env steps done in this run and its time."""
        done = self.steps_done()
        done_here = done - self.steps_before
        if done_here <= 0:
            return math.nan
        # trials overshoot their budget by up to one iteration: never a negative ETA
        return (time.monotonic() - self.started) * max(0.0, self.planned - done) / done_here

    def plain_line(self) -> str:
        counts = self.counts()
        pending = max(0, self.total_trials - sum(counts.values()))
        most = "at most " if self.upper_bound else ""
        return (
            f"[{time.strftime('%H:%M:%S')}] {self.sweep}: running {counts[TrialStatus.RUNNING]}, "
            f"done {counts[TrialStatus.FINISHED]}, failed {counts[TrialStatus.ERROR]}, stalled "
            f"{counts[TrialStatus.STALLED]}, "
            f"pending {most}{pending}; env steps {self.steps_done():,.0f} of {most}"
            f"{self.planned:,}; elapsed {duration(time.monotonic() - self.started)}, ETA "
            f"{self._eta_text()}"
        )

    def _eta_text(self) -> str:
        eta = self.eta_s()
        return ("at most " if self.upper_bound and not math.isnan(eta) else "") + duration(eta)

    def render(self) -> Group:
        counts = self.counts()
        pending = max(0, self.total_trials - sum(counts.values()))
        elapsed = duration(time.monotonic() - self.started)
        head = (
            f"[bold]{self.sweep}[/]  running {counts[TrialStatus.RUNNING]}  done "
            f"{counts[TrialStatus.FINISHED]}  failed {counts[TrialStatus.ERROR]}  stalled "
            f"{counts[TrialStatus.STALLED]}  pending "
            f"{'at most ' * self.upper_bound}{pending}  elapsed {elapsed}  ETA {self._eta_text()}"
        )
        table = Table(box=None, pad_edge=False, show_edge=False)
        for column in ("trial", "status", "env steps", "return", "steps/s"):
            table.add_column(column, justify="left" if column in ("trial", "status") else "right")
        for line in self._visible_lines():
            table.add_row(
                line.label,
                line.status,
                f"{line.env_steps:,.0f}",
                fmt(line.episode_return),
                fmt(line.steps_per_s),
            )
        return Group(head, table)

    def _visible_lines(self, limit: int = 12) -> list[TrialLine]:
        order = {
            TrialStatus.RUNNING: 0,
            TrialStatus.STALLED: 1,
            TrialStatus.ERROR: 1,
            TrialStatus.FINISHED: 2,
        }
        lines = sorted(self.trials.values(), key=lambda line: order.get(line.status, 3))
        return lines[:limit]


class ProgressView(Callback):
    """Tune callback: a rich Live display of ``SweepProgress`` on a terminal, else plain lines."""

    def __init__(self, progress: SweepProgress, stall_reason=None, interval_s: float = 30.0):
        self.progress = progress
        self._stall_reason = stall_reason
        self.interval_s = interval_s
        self._live: Live | None = None
        self._console: Console | None = None
        self._printed_at = 0.0
        self._restored = False

    def __getstate__(self) -> dict:
        # Tune pickles its callbacks into tuner.pkl (for --resume); a display is not data.
        return {**vars(self), "_live": None, "_console": None, "_restored": False}

    def setup(self, **info) -> None:
        self.progress.started = time.monotonic()
        self._printed_at = self.progress.started
        self._console = Console()
        if self._console.is_terminal:
            self._live = Live(self.progress.render(), console=self._console, refresh_per_second=2)
            self._live.start()

    def on_step_begin(self, iteration, trials, **info) -> None:
        self._restore_ended(trials)
        now = time.monotonic()
        if self._live is None and now - self._printed_at >= self.interval_s:
            self._printed_at = now
            self._print(self.progress.plain_line())

    def _restore_ended(self, trials) -> None:
        """Once: trials that had ended before a --resume count as done."""
        if self._restored:
            return
        self._restored = True
        for trial in trials:
            if (
                trial.status in (TrialStatus.FINISHED, TrialStatus.ERROR)
                and trial.trial_id not in self.progress.trials
            ):
                steps = rows.env_steps(trial.last_result or {})
                self.progress.restore(trial.trial_id, _label(trial), trial.status, steps)

    def _print(self, text: str) -> None:
        console = self._console or Console()
        console.print(text, markup=False, highlight=False, soft_wrap=True)

    def _line(self, trial) -> TrialLine:
        if trial.trial_id not in self.progress.trials:
            self.progress.trials[trial.trial_id] = TrialLine(label=_label(trial))
        return self.progress.trials[trial.trial_id]

    def _refresh(self) -> None:
        if self._live is not None:
            self._live.update(self.progress.render())

    def on_trial_start(self, iteration, trials, trial, **info) -> None:
        self._line(trial).status = TrialStatus.RUNNING
        self._refresh()

    def on_trial_result(self, iteration, trials, trial, result, **info) -> None:
        values = rows.progress_values(result)
        line = self._line(trial)
        line.env_steps = values["env_steps"]
        line.episode_return = values["episode_return_mean"]
        line.steps_per_s = values["env_steps_per_s"]
        self._refresh()

    def on_trial_complete(self, iteration, trials, trial, **info) -> None:
        self._line(trial).status = TrialStatus.FINISHED
        self._refresh()

    def on_trial_error(self, iteration, trials, trial, **info) -> None:
        stalled = self._stall_reason and self._stall_reason(trial.trial_id)
        line = self._line(trial)
        line.status = TrialStatus.STALLED if stalled else TrialStatus.ERROR
        self._refresh()
        where = getattr(trial, "error_file", None) or "its Tune folder"
        what = f"stalled: {stalled}" if stalled else f"failed: {error_text(trial)}"
        self._print(f"Trial {line.label} {what} (full text: {where})")

    def on_experiment_end(self, trials, **info) -> None:
        self._restore_ended(trials)
        self.stop()

    def stop(self) -> None:
        if self._live is not None:
            self._refresh()
            self._live.stop()
            self._live = None
        elif self._console is not None:
            self._print(self.progress.plain_line())


def _label(trial) -> str:
    return identify(trial).label
