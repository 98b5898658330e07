"""Numbers, intervals, counts and cells as a person reads them (no 6.04e+03, no "1 seeds")."""

from __future__ import annotations

import math

import numpy as np

from suite.stats import Interval


def fmt(value, digits: int = 3) -> str:
    """6040.0 -> "6,040"; 0.859416 -> "0.859"; NaN -> "n/a"; inf -> "never"."""
    if value is None:
        return "n/a"
    if isinstance(value, bool | str):
        return str(value)
    if isinstance(value, int | np.integer):
        return f"{value:,}"
    if not isinstance(value, float | np.floating):
        return str(value)
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "never"
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 10**digits:
        return f"{value:,.0f}"
    if abs(value) < 1e-3:
        return f"{value:.1e}"
    text = f"{value:.{digits}g}"
    return text


def fmt_interval(found: Interval | None) -> str:
    if found is None:
        return "n/a"
    if not found.known:
        return f"{fmt(found.point)} (no CI: fewer than 2 seeds)"
    return f"{fmt(found.point)} [95% CI {fmt(found.low)}, {fmt(found.high)}]"


def plural(count: int, noun: str, many: str | None = None) -> str:
    return f"{count:,} {noun if count == 1 else (many or noun + 's')}"


def learners_text(num_learners: float, gpus_per_learner: float) -> str:
    """RLlib's num_learners=0 means one learner inside the main process: the local learner."""
    learners = "local learner" if num_learners == 0 else plural(int(num_learners), "learner")
    gpus = "CPU" if gpus_per_learner == 0 else f"{gpus_per_learner:g} GPU per learner"
    return f"{learners}, {gpus}"


def sampling_text(num_env_runners: float, num_envs_per_env_runner: float) -> str:
    return f"{num_env_runners:g} env runners × {num_envs_per_env_runner:g} envs"


def describe_cell(
    key: dict, with_hardware: bool = False, with_interval: bool = False, with_sampling=False
) -> str:
    text = f"N={key['n']:g}, K={key['k']:g}"
    if with_interval:
        text += f", broadcast_interval={key['broadcast_interval']:g}"
    if with_sampling:
        text += f", {sampling_text(key['num_env_runners'], key['num_envs_per_env_runner'])}"
    if with_hardware:
        text += f" ({learners_text(key['num_learners'], key['num_gpus_per_learner'])})"
    return text
