"""Record learning curves of Tune trials against the wall clock, for the benchmark rows.

A ``CurveRecorder`` is a plain Tune callback: it notes when each trial starts (before RLlib builds
its env runners and learners) and, per result, the wall time since then, the env steps and the
mean return. Benchmarks compare these curves; they never stop a trial on reward.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ray import tune

from suite.collect.rows import BUFFER_RESULT_KEY, progress_values


@dataclass
class Curve:
    """One trial's points: wall seconds since Tune added the trial, the trainable's own training
    seconds (Tune's ``time_total_s``), env steps, mean episode return, and the env steps the
    learners trained on (the suite's exact count; NaN without its BufferAccountingCallback)."""

    seconds: list[float] = field(default_factory=list)
    train_seconds: list[float] = field(default_factory=list)
    env_steps: list[float] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    trained_env_steps: list[float] = field(default_factory=list)

    def first_crossing(self, threshold: float) -> tuple[float, float]:
        """(seconds, env steps) at the first point whose mean return is >= ``threshold``;
        (inf, inf) if the curve never gets there within its budget."""
        for seconds, steps, value in zip(self.seconds, self.env_steps, self.returns, strict=True):
            if not math.isnan(value) and value >= threshold:
                return seconds, steps
        return math.inf, math.inf

    def steady_rate(self, skip_iterations: int = 2, trained: bool = False) -> float:
        """Env steps (sampled, or ``trained``) per training second from iteration
        ``skip_iterations`` to the last one, so the warm-up iterations (env runners still
        starting) do not count."""
        counts = self.trained_env_steps if trained else self.env_steps
        steps, seconds = counts[skip_iterations:], self.train_seconds[skip_iterations:]
        if len(steps) < 2 or seconds[-1] <= seconds[0]:
            return math.nan
        return (steps[-1] - steps[0]) / (seconds[-1] - seconds[0])


class CurveRecorder(tune.Callback):
    """Curves of every trial of a Tuner, keyed by the order trials started in.

    Wall seconds count from the start of the experiment, not from Tune's "trial started" (which
    comes only once the trial's actor is built): with one trial per Tuner, as the benchmarks
    run them, building env runners and learners is part of the time a user waits.
    """

    def __init__(self) -> None:
        self.curves: dict[str, Curve] = {}
        self._experiment_started = time.time()

    def setup(self, **info) -> None:
        self._experiment_started = time.time()

    def on_trial_start(self, iteration, trials, trial, **info) -> None:
        self.curves.setdefault(trial.trial_id, Curve())

    def on_trial_result(self, iteration, trials, trial, result, **info) -> None:
        values = progress_values(result)
        curve = self.curves.setdefault(trial.trial_id, Curve())
        curve.seconds.append(time.time() - self._experiment_started)
        curve.train_seconds.append(values["wall_time_s"])
        curve.env_steps.append(values["env_steps"])
        curve.returns.append(values["episode_return_mean"])
        trained = result.get(BUFFER_RESULT_KEY, {}).get("all", {})
        curve.trained_env_steps.append(trained.get("buffer_env_steps_trained_lifetime", math.nan))

    def in_order(self) -> list[Curve]:
        return list(self.curves.values())
