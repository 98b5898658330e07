"""Intervals and cells as a person reads them; numbers and counts through suite.humanize."""

from __future__ import annotations

from suite.humanize import fmt, plural
from suite.stats import Interval

__all__ = ["fmt", "fmt_interval", "learners_text", "plural", "sampling_text"]


def fmt_interval(found: Interval | None) -> str:
    if found is None:
        return "n/a"
    if not found.known:
        return f"{fmt(found.point)} (no CI: fewer than 2 seeds)"
    return f"{fmt(found.point)} [95% CI {fmt(found.low)}, {fmt(found.high)}]"


def learners_text(num_learners: float, gpus_per_learner: float) -> str:
    """RLlib's num_learners=0 means one learner inside the main process: the local learner."""
    learners = "local learner" if num_learners == 0 else plural(int(num_learners), "learner")
    gpus = "CPU" if gpus_per_learner == 0 else f"{gpus_per_learner:g} GPU per learner"
    return f"{learners}, {gpus}"


def sampling_text(num_env_runners: float, num_envs_per_env_runner: float) -> str:
    return f"{num_env_runners:g} env runners × {num_envs_per_env_runner:g} envs"
